"""Every command of the grammar against every kind of lab user.

The oracle below is written from the docs' table (levels rank none < read-only < mesh-manager <
read-write < admin; a VPN-scoped user acts only inside its VPN), independently of
solace_shell/access.py. Allowed commands must not be refused for access; refused ones must say
which access they need and leave the lab byte-for-byte unchanged.
"""

from __future__ import annotations

import pytest

from solace_shell.lab import Lab, shell_grammar
from tests.support.grammar_walk import minimal_words, paths_to_levels, walk_lab

GRAMMAR = shell_grammar()
PATHS = paths_to_levels(GRAMMAR)

# user -> the access specs it may run (the VPN is always Trading_VPN in this test)
EVERYTHING = {"none", "global/none", "vpn/none", "global/read-only", "vpn/read-only", "global/mesh-manager",
              "vpn/mesh-manager", "global/read-write", "vpn/read-write", "global/admin", "vpn/admin"}
ORACLE = {
    "admin": EVERYTHING,
    "operator": EVERYTHING - {"global/admin", "vpn/admin"},
    "meshmgr": {"none", "global/none", "vpn/none", "global/read-only", "vpn/read-only", "global/mesh-manager",
                "vpn/mesh-manager", "vpn/read-write"},
    "monitor": {"none", "global/none", "vpn/none", "global/read-only", "vpn/read-only"},
    "trading_admin": {"none", "global/none", "vpn/none", "global/read-only", "vpn/read-only",
                      "vpn/mesh-manager", "vpn/read-write"},
}

CASES = [
    (mode, command)
    for mode, commands in sorted(GRAMMAR.by_mode.items())
    if mode in PATHS
    for command in commands
]


@pytest.mark.parametrize("user", sorted(ORACLE))
def test_every_command_against_every_user(user: str) -> None:
    checked = refused = 0
    for mode, command in CASES:
        lab = walk_lab(settings={"user": user})
        try:
            session = lab.session("NY_Appliance1")
            for line in PATHS[mode]:
                reached = session.execute(line)
                assert reached.ok, (user, mode, line, reached.text)
            line = " ".join(minimal_words(command.element))
            before = lab.store.dump()
            outcome = session.execute(line)
            expected_allowed = str(command.access) in ORACLE[user] or command.access.level == "none"
            if expected_allowed:
                assert outcome.error_kind != "access", (user, mode, line, outcome.text)
            else:
                refused += 1
                assert outcome.error_kind == "access", (user, mode, line, outcome.text)
                assert f"requires {command.access} access" in outcome.text
                assert lab.store.dump() == before, (user, mode, line)
            checked += 1
        finally:
            lab.close()
    assert checked == len(CASES)
    if user == "monitor":
        assert refused > 0, "a read-only user must be refused something"


# ---------------------------------------------------------------- the lab console
# Which users hold the lab-administration right (`lab_admin: true` in the default scenario): only
# the trainer's admin. Every console command is tried the way a user's terminal reaches it (F2 in
# the REPL): refused users get one line and nothing changes; the harness path (`lab>` lines of a
# transcript, Lab.execute) keeps running whatever user the lab is logged in as.
LAB_ADMINS = {"admin"}
CONSOLE_CASES = list(GRAMMAR.by_mode["lab"])


@pytest.mark.parametrize("user", sorted(ORACLE))
def test_the_console_against_every_user(user: str) -> None:
    import io

    from prompt_toolkit.input import create_pipe_input
    from prompt_toolkit.output import DummyOutput

    from solace_shell.repl import Repl

    checked = 0
    for command in CONSOLE_CASES:
        line = " ".join(minimal_words(command.element))
        lab = Lab.fresh(settings={"user": user})
        try:
            out = io.StringIO()
            with create_pipe_input() as pipe:
                repl = Repl(lab, "NY_Appliance1", input=pipe, output=DummyOutput(), stdout=out)
                before = lab.store.dump()
                refusal = repl.toggle_console()
                if user in LAB_ADMINS:
                    assert refusal is None and repl.target == "lab", (user, line)
                    repl.run_line(line)
                    assert "Permission denied" not in out.getvalue(), (user, line, out.getvalue())
                else:
                    assert refusal == (f"ERROR: The lab console is for lab administrators; user '{user}' "
                                       "has no lab-administration right."), (user, refusal)
                    assert repl.target == "NY_Appliance1" and repl.prompt == "NY_Appliance1>"
                    assert lab.store.dump() == before, (user, line)
            # the harness: a transcript's `lab>` line runs for every user
            harness = lab.execute("lab", line)
            assert harness.error_kind != "access", (user, line, harness.text)
            checked += 1
        finally:
            lab.close()
    assert checked == len(CONSOLE_CASES) > 0
