"""Runbook commands as grammar patterns, and whether a line typed in a session matches one.

A runbook writes a command as the operator would type it at a level (`privileged` by default), so
it parses through the same grammar as the session: the pattern is the parsed leaf command (its
handler, its `no` form) and its arguments. A line matches when it parses to the same leaf with
those arguments, in the same Message VPN, whatever abbreviations, quoting or levels it crossed to
get there. `<param>` in a runbook line matches any value of that parameter.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from fnmatch import fnmatchcase

from grammar import ParseError, Parser
from grammar.parser import Step

VPN_ARGS = ("vpn-name", "vpn-pattern")     # a leaf's own Message VPN argument
_ANY_RE = re.compile(r"<([a-z][a-z0-9-]*)>")
# Values tried in place of `<param>` until the line parses (each type accepts one of them).
_SAMPLES = ("grading-any", "1", "1s", "A")


@dataclass(frozen=True)
class CommandPattern:
    text: str                                   # as the runbook writes it
    handler: str
    negated: bool
    args: tuple[tuple[str, object], ...]        # required arguments (VPN and `<param>`s left out)
    vpn: str | None                             # the Message VPN the line names or crosses into


@dataclass(frozen=True)
class TypedLine:
    """A line of a session as grading sees it: the leaf it parsed to and its Message VPN."""

    leaf: Step
    vpn: str | None


def effective_vpn(steps: tuple[Step, ...], context_vpn: str | None, carries: dict[str, str]) -> str | None:
    """The Message VPN a parsed line acts on: the leaf's own VPN argument, else the VPN of the last
    level the line entered that carries one, else the session's (`context_vpn`).
    `carries` maps a mode id to the parameter its `vpn` comes from."""
    leaf = steps[-1]
    for name in VPN_ARGS:
        if name in leaf.args:
            return str(leaf.args[name])
    vpn = context_vpn
    for step in steps[:-1]:
        entered = step.command.enters
        if entered is not None and entered in carries and carries[entered] in step.args:
            vpn = str(step.args[carries[entered]])
    return vpn


def compile_pattern(parser: Parser, mode: str, text: str, vpn: str,
                    carries: dict[str, str]) -> CommandPattern | str:
    """The pattern of `text` typed at `mode` (`{vpn}` is the runbook's Message VPN), or the
    reason it is no command of the grammar."""
    line = text.replace("{vpn}", vpn)
    wildcards = _ANY_RE.findall(line)
    parsed = None
    used = ""
    for used in _SAMPLES:
        parsed = parser.parse(mode, _ANY_RE.sub(used, line))
        if parsed is not None and not isinstance(parsed, ParseError):
            break
    if parsed is None:
        return "an empty command"
    if isinstance(parsed, ParseError):
        where = f" at {parsed.word!r}" if parsed.word else ""
        return f"{text!r} is no command at level {mode} ({parsed.kind}{where})"
    leaf = parsed.leaf
    args = tuple(sorted((k, v) for k, v in leaf.args.items()
                        if k not in VPN_ARGS and not (wildcards and v == used)))
    return CommandPattern(text, leaf.command.handler, leaf.command.negated, args,
                          effective_vpn(parsed.steps, None, carries))


def matches(pattern: CommandPattern, line: TypedLine) -> bool:
    leaf = line.leaf
    if leaf.command.handler != pattern.handler or leaf.command.negated != pattern.negated:
        return False
    if pattern.vpn is not None and (line.vpn is None or not fnmatchcase(pattern.vpn, line.vpn)):
        return False
    return all(leaf.args.get(name) == value for name, value in pattern.args)
