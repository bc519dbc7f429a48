"""Non-interactive use, as the broker offers it: CLI script files and one-shot commands.

A script echoes each line after the prompt, as `cli -A -s FILE` does, so its output reads like a
session log; `!` lines are comments (including the `! pragma:` lines real scripts carry).
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import TextIO

from .lab import Lab


def run_script(lab: Lab, router: str, lines: Iterable[str], out: TextIO) -> int:
    session = lab.session(router)
    failed = False
    for raw in lines:
        line = raw.rstrip("\r\n").strip()
        if not line or line.startswith("!"):
            continue
        out.write(f"{session.prompt} {line}\n")
        outcome = session.execute(line)
        if outcome.text:
            out.write(outcome.text + "\n")
        failed = failed or not outcome.ok
        if outcome.ended:
            break
    if not session.ended:
        out.write(f"{session.prompt} \n")
    return 1 if failed else 0


def run_commands(lab: Lab, router: str, commands: Iterable[str], out: TextIO) -> int:
    """`solace-shell -c CMD`: output only, no echo; non-zero exit status when a command fails."""
    session = lab.session(router)
    failed = False
    for command in commands:
        outcome = session.execute(command)
        if outcome.text:
            out.write(outcome.text + "\n")
        failed = failed or not outcome.ok
    return 1 if failed else 0
