"""Every error code has its sentence: no raw key (`queue_egress_down`) can reach a user."""

from __future__ import annotations

import re
import string
from pathlib import Path

from solace_shell.messages import (
    ENGINE_ERRORS,
    SHELL_ENGINE_CODES,
    engine_error_text,
    missing_texts,
)
from state_store.errors import ERROR_CODES, EngineError

ROOT = Path(__file__).resolve().parent.parent
RAISED = re.compile(r'(?:EngineError|Refused)\(\s*"([a-z_]+)"|reject_reason\s*=\s*"([a-z_]+)"')


def raised_codes() -> set[str]:
    codes: set[str] = set()
    for package in ("state_store", "solace_shell"):
        for path in (ROOT / package).rglob("*.py"):
            for m in RAISED.finditer(path.read_text(encoding="utf-8")):
                codes.add(m.group(1) or m.group(2))
    return codes


def test_the_code_list_is_every_code_the_source_raises() -> None:
    assert raised_codes() - ERROR_CODES - SHELL_ENGINE_CODES == set()


def test_every_code_has_a_text_and_the_start_up_check_passes() -> None:
    assert missing_texts() == []


def test_every_text_formats_with_its_parameters() -> None:
    for code, template in ENGINE_ERRORS.items():
        names = {field for _, field, _, _ in string.Formatter().parse(template) if field}
        text = engine_error_text(EngineError(code, **{n: f"<{n}>" for n in names}))
        # The SwiftMQ admin CLI prints its errors as bare message lines (reference 1.3).
        assert (code.startswith("swift_") or text.startswith("ERROR: ")) and code not in text, code


def test_queue_egress_down_reads_as_a_sentence() -> None:
    text = engine_error_text(EngineError("queue_egress_down", queue="q", vpn="v"))
    assert text == "ERROR: Queue 'q' in Message VPN 'v' is not in a valid state: its egress is shut down."
