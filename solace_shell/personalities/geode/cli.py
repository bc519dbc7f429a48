"""gfsh, Apache Geode's shell, as a prompt personality of the lab (target `geode`, prompt `gfsh>`).

Why its own parsing: gfsh commands are a few words followed by `--option=value` (or
`--option value`) options in any order; the grammar namespace (grammar/data/systems/geode) names
the command words, their handlers and help, and this session parses the options with gfsh's rules
(option names compared case-insensitively, as gfsh accepts `--durable-client-Id`) and answers bad
input with gfsh's texts. gfsh is connected to the lab's first Geode cluster (through its locator).
"""

from __future__ import annotations

import shlex
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from state_store.geode import SYSTEM
from state_store.geode import operations as gf
from state_store.kernel.model import node_key

from ...access import UserAccess
from ...handlers import HandlerContext, handler_for
from ...parsed_command import ParsedCommand
from ...renderers import render
from ...results import Outcome
from ..base import Personality, Plan

if TYPE_CHECKING:
    from grammar import Access, Grammar

    from ...lab import Lab

MODE = SYSTEM            # the grammar mode of gfsh, named after its system
PROMPT = "gfsh>"


@dataclass(frozen=True)
class Options:
    allowed: tuple[str, ...]
    mandatory: tuple[str, ...] = ()
    one_of: tuple[str, ...] = ()      # at least one of these


# gfsh's options per handler (lower case); the values are checked by the handlers
OPTIONS: dict[str, Options] = {
    "geode.list_members": Options(("group",)),
    "geode.list_clients": Options(()),
    "geode.describe_client": Options(("clientid",), ("clientid",)),
    "geode.describe_config": Options(("member", "hide-defaults"), ("member",)),
    "geode.show_queue_size": Options(("durable-client-id", "durable-cq-name", "members", "groups"),
                                     ("durable-client-id",)),
    "geode.show_metrics": Options(("member", "port", "categories", "region", "file"), ("member",)),
    "geode.alter_runtime": Options(("members", "groups", "message-sync-interval", "log-level", "enable-statistics"),
                                   (), ("message-sync-interval", "log-level", "enable-statistics")),
    "geode.start_server": Options(("name", "dir", "locators", "server-port"), ("name",)),
    "geode.stop_server": Options(("name", "dir"), (), ("name", "dir")),
    "geode.help": Options(()),
    "geode.exit": Options(()),
}
# gfsh / Spring Shell texts (docs/lab-geode.md says which are quoted and which synthesized)
NOT_FOUND = 'Command \'{word}\' not found (for assistance press TAB or type "hint" then hit ENTER.)'
MISSING = "You should specify option (--{option}) for this command"
INVALID_OPTION = "Parameter {option} is not applicable for {command}"
RELEVANT = "Please provide a relevant parameter(s)"
CONTROL = "Invalid input: control characters are not accepted"   # the lab's (never echoed to a terminal)
# gfsh with security on (GfshExecutionStrategy: "Unauthorized. Reason : " + the NotAuthorizedException's
# message, "<principal> not authorized for <ResourcePermission>"); the permission a grammar access level
# stands for, as Geode's commands declare theirs (@ResourceOperation: reads CLUSTER:READ, the rest
# CLUSTER:MANAGE)
UNAUTHORIZED = "Unauthorized. Reason : {user} not authorized for {permission}"
PERMISSIONS = {"read-only": "CLUSTER:READ"}
MANAGE = "CLUSTER:MANAGE"
MAX_ECHO = 80   # characters of a refused word gfsh's text repeats
SERVER_OPTIONS = ("name", "member", "members")   # the options that name the servers a command acts on


class GfshInputError(Exception):
    """A line gfsh refuses before running anything (one line of text; `node` the grammar node of
    its command, "" when no command was found)."""

    def __init__(self, text: str, node: str = "") -> None:
        super().__init__(text)
        self.node = node


Commands = list[tuple[tuple[str, ...], Any]]    # (command words, grammar command), longest first


def gfsh_commands(grammar: Grammar) -> Commands:
    """gfsh's commands of the grammar by their words, longest first (the longest match wins)."""
    return sorted(((tuple(c.syntax.split()), c) for c in grammar.by_mode.get(MODE, [])), key=lambda wc: -len(wc[0]))


def read_line(commands: Commands, line: str) -> tuple[Any, dict[str, str]] | None:
    """The grammar command a gfsh line names and its options ({name in lower case: value}); None
    for a blank or comment line. Raises GfshInputError with gfsh's text for a line it refuses."""
    text = line.strip()
    if not text or text.startswith("#"):
        return None
    if any(ord(ch) < 32 or 127 <= ord(ch) < 160 for ch in text):
        raise GfshInputError(CONTROL)
    words = text.split()
    if '"' in text or "'" in text:
        try:
            words = shlex.split(text)
        except ValueError:
            pass
    for fixed, command in commands:
        if tuple(words[:len(fixed)]) == fixed:
            try:
                return command, parse_options(words[len(fixed):], command.syntax, OPTIONS[command.handler])
            except GfshInputError as bad:
                raise GfshInputError(str(bad), command.node) from None
    shown = " ".join(w for w in words[:2] if not w.startswith("--"))
    raise GfshInputError(NOT_FOUND.format(word=_clip(shown)))


def parse_command(grammar: Grammar, line: str) -> ParsedCommand | str | None:
    """A gfsh line as a `ParsedCommand` (its handler and options), gfsh's refusal text, or None
    for a blank line: the same reading `Gfsh` gives the line before running it."""
    try:
        read = read_line(gfsh_commands(grammar), line)
    except GfshInputError as bad:
        return str(bad)
    return None if read is None else ParsedCommand(read[0].handler, read[1])


def parse_options(words: list[str], command: str, options: Options) -> dict[str, str]:
    """`--name=value` / `--name value` / `--flag` words as {name (lower case): value}."""
    found: dict[str, str] = {}
    i = 0
    while i < len(words):
        word = words[i]
        if not word.startswith("--") or len(word) == 2:
            raise GfshInputError(INVALID_OPTION.format(option=_clip(word), command=command))
        name, eq, value = word[2:].partition("=")
        key = name.lower()
        if key not in options.allowed:
            raise GfshInputError(INVALID_OPTION.format(option=_clip(f"--{name}"), command=command))
        if not eq and i + 1 < len(words) and not words[i + 1].startswith("--"):
            value = words[i + 1]
            i += 1
        found[key] = value
        i += 1
    for key in options.mandatory:
        if not found.get(key):
            raise GfshInputError(MISSING.format(option=_shown(key)))
    if options.one_of and not any(found.get(k) for k in options.one_of):
        if command.startswith("alter"):
            raise GfshInputError(RELEVANT)
        raise GfshInputError(MISSING.format(option=_shown(options.one_of[0])))
    return found


def _clip(word: str) -> str:
    return word if len(word) <= MAX_ECHO else word[:MAX_ECHO] + "..."


def _shown(key: str) -> str:
    return {"clientid": "clientID"}.get(key, key)


class Gfsh(Personality):
    """gfsh on the shared execute loop (``personalities.base``)."""

    def __init__(self, lab: Lab, user: UserAccess) -> None:
        super().__init__(lab, SYSTEM, user)
        self.paging = False
        self._commands = gfsh_commands(lab.grammar)     # the grammar is fixed for a lab

    @property
    def mode(self) -> str:
        return MODE

    @property
    def prompt(self) -> str:
        return PROMPT

    def prepare(self, line: str) -> Outcome | Plan:
        try:
            read = read_line(self._commands, line)
        except GfshInputError as bad:
            return Outcome(str(bad), False, bad.node, "invalid")
        if read is None:
            return Outcome("", True)
        command, opts = read
        plan = Plan(line, lambda engine: None, command.node)

        def work(engine: Any) -> Any:
            self.check_access(command.syntax, command.access, None)
            core = engine.kernel()
            ctx = HandlerContext(engine=engine, router=None, user=self.user.name, session=self,  # type: ignore[arg-type]
                                 context={"cluster": gf.clusters(core)[0]})
            return handler_for(command)(ctx, opts)

        plan.work = work
        return plan

    def denied_text(self, syntax: str, access: Access, vpn: str | None) -> str:
        """gfsh's refusal of a command the user's permissions do not cover."""
        return UNAUTHORIZED.format(user=self.user.name, permission=PERMISSIONS.get(access.level, MANAGE))

    def parsed_command(self, line: str) -> ParsedCommand | None:
        """The line as gfsh reads it, acting on the servers its options name and on the cluster."""
        try:
            read = read_line(self._commands, line)
        except GfshInputError:
            return None
        if read is None:
            return None
        command, opts = read
        cluster = self.lab.store.run(lambda engine: gf.clusters(engine.kernel())[0])
        named = [n for key in SERVER_OPTIONS for n in opts.get(key, "").split(",") if n]
        return ParsedCommand(command.handler, opts, subjects=(*(node_key(cluster, n) for n in named), cluster))

    def finish(self, plan: Plan, value: Any) -> Outcome:
        from .cli_handlers import Bye

        if isinstance(value, Bye):
            self.ended = True
            return Outcome("", True, plan.node, None, True)
        return Outcome("" if value is None else render(value), True, plan.node)
