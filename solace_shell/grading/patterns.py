"""Runbook commands as patterns, and whether a line typed in a session matches one.

A runbook writes a command as the operator would type it at a level (`privileged` by default), so
it is read as the session's CLI reads it (the grammar, or the CLI's own reading of its words): the
pattern is the `ParsedCommand` (the command, its `no` form) and its arguments. A line matches when
it reads as the same command with those arguments, in the same Message VPN, whatever
abbreviations, quoting, option order or levels it crossed to get there. `<param>` in a runbook
line matches any value of that parameter (or option).
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass
from fnmatch import fnmatchcase

from ..parsed_command import VPN_ARGS, ParsedCommand

_ANY_RE = re.compile(r"<([a-z][a-z0-9-]*)>")
# Values tried in place of `<param>` until the line parses (each type accepts one of them).
_SAMPLES = ("grading-any", "1", "1s", "A")
# How a level reads a line: its ParsedCommand, why it is no command, or None for a blank line
LineReader = Callable[[str], "ParsedCommand | str | None"]


@dataclass(frozen=True)
class CommandPattern:
    text: str                                   # as the runbook writes it
    command: str                                # ParsedCommand.command: a handler, or a CLI's words
    negated: bool
    args: tuple[tuple[str, object], ...]        # required arguments (VPN and `<param>`s left out)
    vpn: str | None                             # the Message VPN the line names or crosses into


def compile_pattern(read: LineReader, mode: str, text: str, vpn: str) -> CommandPattern | str:
    """The pattern of `text` read as a line at `mode` by `read` (`{vpn}` is the runbook's Message
    VPN), or the reason it is no command there."""
    line = text.replace("{vpn}", vpn)
    wildcards = _ANY_RE.findall(line)
    parsed: ParsedCommand | str | None = None
    used = ""
    for used in _SAMPLES:
        parsed = read(_ANY_RE.sub(used, line))
        if isinstance(parsed, ParsedCommand):
            break
    if parsed is None:
        return "an empty command"
    if isinstance(parsed, str):
        return f"{text!r} is no command at level {mode} ({parsed})"
    args = tuple(sorted((k, v) for k, v in parsed.args.items()
                        if k not in VPN_ARGS and not (wildcards and v == used)))
    return CommandPattern(text, parsed.command, parsed.negated, args, parsed.vpn)


def matches(pattern: CommandPattern, line: ParsedCommand) -> bool:
    """Whether a session's line is the pattern's command: the same command and form, in the same
    Message VPN, with the pattern's arguments (others the line gives do not matter)."""
    if line.command != pattern.command or line.negated != pattern.negated:
        return False
    if pattern.vpn is not None and (line.vpn is None or not fnmatchcase(pattern.vpn, line.vpn)):
        return False
    return all(line.args.get(name) == value for name, value in pattern.args)
