"""`show current-config` as a CLI script (reference 5.5 [FIX]; layout details INFER).

The script starts `home` / `enable` / `configure`; each engine section prints as a comment header
(`! <title>` and a dashed comment rule); levels are entered and left with `exit` as the entries'
contexts change, indented two spaces per level below `configure`; a `create ...` (which enters the
object's level) is wrapped in the `ignore-already-exists` pragmas so the script can run twice.
"""

from __future__ import annotations

from ..handlers.show_config import CurrentConfigShow
from . import renderer
from .tables import text

PRAGMA_ON = "! pragma:interpreter:ignore-already-exists"
PRAGMA_OFF = "! pragma:interpreter:no-ignore-already-exists"


def _indent(depth: int) -> str:
    return "  " * (depth + 1)


def _emit(lines: list[str], command: str, depth: int) -> None:
    if command.startswith("create "):
        lines += [PRAGMA_ON, _indent(depth) + command, PRAGMA_OFF]
    else:
        lines.append(_indent(depth) + command)


def _level_of(command: str) -> str:
    """The level a command enters (`create message-vpn "X"` enters `message-vpn "X"`)."""
    return command[len("create "):] if command.startswith("create ") else command


@renderer(CurrentConfigShow)
def current_config(result: CurrentConfigShow) -> str:
    lines = ["home", "enable", "configure"]
    for section in result.config.sections:
        lines += ["", f"! {section.title}", "! " + "-" * len(section.title)]
        stack: list[str] = []
        for entry in section.entries:
            context = [_level_of(level) for level in entry.context]
            common = 0
            while common < min(len(stack), len(context)) and stack[common] == context[common]:
                common += 1
            while len(stack) > common:
                lines.append(_indent(len(stack)) + "exit")
                stack.pop()
            for raw in entry.context[common:]:
                _emit(lines, raw, len(stack))
                stack.append(_level_of(raw))
            _emit(lines, entry.command, len(stack))
            if entry.command.startswith("create "):
                stack.append(_level_of(entry.command))
        while stack:
            lines.append(_indent(len(stack)) + "exit")
            stack.pop()
    return text(lines)
