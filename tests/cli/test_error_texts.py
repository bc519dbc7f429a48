"""Every error text reads as the broker's sentence: no raw key (`queue_egress_down`) reaches a user.

That each code has a text naming only its parameters is the start-up registry check
(tests/cli/test_registries.py); this file checks what the texts say."""

from __future__ import annotations

from solace_shell.loader import load_all
from solace_shell.messages import ENGINE_ERRORS, engine_error_text
from solace_shell.registries import template_fields
from state_store.errors import EngineError
from state_store.loader import error_codes

ERROR_CODES = error_codes()
load_all()   # every system's refusal texts in the table


def test_every_text_formats_and_never_shows_its_code() -> None:
    for code in ERROR_CODES:
        names = template_fields(ENGINE_ERRORS[code])
        text = engine_error_text(EngineError(code, **{n: f"<{n}>" for n in names}))
        # The SwiftMQ admin CLI (reference 1.3) and gfsh (reference 2.3) print their errors as bare
        # message lines; the Qpid tools print the exception line they raise (reference 3.3).
        bare = code.startswith(("swift_", "gfsh_", "qpid_tool_", "qpid_agent_"))
        assert (bare or text.startswith("ERROR: ")) and code not in text, code


def test_queue_egress_down_reads_as_a_sentence() -> None:
    text = engine_error_text(EngineError("queue_egress_down", queue="q", vpn="v"))
    assert text == "ERROR: Queue 'q' in Message VPN 'v' is not in a valid state: its egress is shut down."
