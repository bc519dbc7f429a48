"""A line as its CLI understood it, in one shape for every CLI of the lab: what grading matches.

Why one neutral value: the router CLI, the lab console and most systems' CLIs parse lines through
the shared grammar, but some CLIs parse their own words (gfsh's `--option=value` options, a
broker host's tools with their option parsers). Grading must not care which: each personality
turns a line into a `ParsedCommand` (`Personality.parsed_command`), and a runbook's command,
written at a CLI's level, is turned into one by the same rules (`command_parser`), so a line
matches a runbook command however it was typed (abbreviated, quoted, its options in another
order) when both name the same command with the same arguments.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from grammar import Grammar
    from grammar.parser import Step

VPN_ARGS = ("vpn-name", "vpn-pattern")     # a grammar leaf's own Message VPN argument


@dataclass(frozen=True)
class ParsedCommand:
    """`command` names the command: its grammar handler, or for a CLI outside the grammar the
    words that name it (`qpid-ha promote`); `args` its named arguments as the CLI read them
    (option names in their canonical spelling); `negated` its `no` form; `vpn` the Message VPN it
    acts on (router lines); `subjects` the lab's kernel nodes or groups the CLI resolved the line
    to act on (its target broker or server), beyond the arguments that name them."""

    command: str
    args: Mapping[str, object] = field(default_factory=dict)
    negated: bool = False
    vpn: str | None = None
    subjects: tuple[str, ...] = ()


def effective_vpn(steps: tuple[Step, ...], context_vpn: str | None, carries: Mapping[str, str]) -> str | None:
    """The Message VPN a grammar-parsed line acts on: the leaf's own VPN argument, else the VPN of
    the last level the line entered that carries one, else the session's (`context_vpn`).
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


def vpn_carriers(grammar: Grammar) -> dict[str, str]:
    """The modes that carry a Message VPN: mode id -> the parameter it comes from."""
    return {m.id: param for m in grammar.modes.values() for key, param in m.carries if key == "vpn"}


def from_grammar(steps: tuple[Step, ...], context_vpn: str | None, carries: Mapping[str, str]) -> ParsedCommand:
    """The neutral value of a line the grammar parsed into `steps` (its leaf last)."""
    leaf = steps[-1]
    return ParsedCommand(leaf.command.handler, dict(leaf.args), leaf.command.negated,
                         effective_vpn(steps, context_vpn, carries))
