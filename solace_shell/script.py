"""Non-interactive use, as the broker offers it: CLI script files and one-shot commands.

A script run frames its output as `cli -A -s FILE` does (capture T15): the start banner and a
blank line, then every line echoed after the prompt and preceded by a blank line, each command's
output right after its echo. `!` lines are comments (echoed, as `source script` echoes them in
C17) and carry the interpreter pragmas. Standard input that is not a terminal runs the same way.

Lines are split on `\\n` (and `\\r\\n`) only: str.splitlines() would also split on FF, VT, NEL,
LS and PS, letting a command hide inside a comment line. Such characters stay in their line,
where the parser refuses them with the caret.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import TextIO

from grammar.tokens import printable

from .lab import Lab


class ScriptDecodeError(Exception):
    """Script bytes that are not UTF-8; `line` is the 1-based line of the first bad byte."""

    def __init__(self, line: int, offset: int) -> None:
        super().__init__(line, offset)
        self.line = line
        self.offset = offset


def decode_script(data: bytes) -> str:
    """UTF-8 text of a script (a byte-order mark is dropped); ScriptDecodeError otherwise."""
    try:
        return data.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        raise ScriptDecodeError(data.count(b"\n", 0, exc.start) + 1, exc.start) from None


def script_lines(text: str) -> list[str]:
    """The lines of a script: split on `\\n` only, one trailing `\\r` removed from each."""
    lines = text.split("\n")
    if lines and lines[-1] == "":
        lines.pop()
    return [line.removesuffix("\r") for line in lines]


def run_script(lab: Lab, router: str, lines: Iterable[str], out: TextIO, banner: str = "") -> int:
    """Run `lines` on `router` as `cli -A -s` would; 1 if any line failed, else 0. Raises
    EntryRefused before anything runs when the user may not open `router` (Lab.enter)."""
    session = lab.enter(router)
    out.write(banner)
    failed = False
    for raw in lines:
        line = raw.strip(" \t")
        if not line:
            continue
        out.write(f"\n{session.prompt} {printable(line)}\n")
        outcome = lab.execute(router, line)  # the lab's one door: its observers see it
        if outcome.text:
            out.write(outcome.text + "\n")
        failed = failed or not outcome.ok
        if outcome.ended:
            break
    out.flush()
    return 1 if failed else 0


def run_commands(lab: Lab, router: str, commands: Iterable[str], out: TextIO) -> int:
    """`solace-shell -c CMD`: output only; a failing command is echoed after its prompt first, so
    the caret of a parse error points into a line the reader can see. Non-zero exit status when a
    command fails. Raises EntryRefused before anything runs when the user may not open `router`
    (Lab.enter)."""
    session = lab.enter(router)
    failed = False
    for command in commands:
        prompt = session.prompt
        outcome = lab.execute(router, command)
        if not outcome.ok:
            out.write(f"{prompt} {printable(command)}\n")
        if outcome.text:
            out.write(outcome.text + "\n")
        failed = failed or not outcome.ok
    return 1 if failed else 0
