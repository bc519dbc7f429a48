"""gfsh, Apache Geode's shell, as a prompt personality of the lab (target `geode`, prompt `gfsh>`),
emulating gfsh 1.15.

Why its own parsing: gfsh commands are a few words followed by `--option=value` (or `--option
value`) options in any order, read by gfsh's parser (gfsh_parser.py: unique prefixes of a
command's words, case-sensitive option names and their declared aliases, typed values, gfsh's
refusal texts). The grammar namespace (grammar/data/systems/geode) names the command words, their
handlers, access and help. gfsh is connected to the lab's first Geode cluster (through its
locator). A refused command changes nothing: parser refusals and the checks gfsh makes before
sending a command (its interceptors) come before the lab is touched.
"""

from __future__ import annotations

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
from .gfsh_interceptors import intercepted
from .gfsh_parser import GfshParser, GfshRefusal, Reading

if TYPE_CHECKING:
    from grammar import Access, Command, Grammar

    from ...lab import Lab

MODE = SYSTEM            # the grammar mode of gfsh, named after its system
PROMPT = "gfsh>"
CONTROL = "Invalid input: control characters are not accepted"   # the lab's (never echoed to a terminal)
# gfsh with security on (GfshExecutionStrategy: "Unauthorized. Reason : " + the NotAuthorizedException's
# message, "<principal> not authorized for <ResourcePermission>"); the permission a grammar access level
# stands for, as Geode's commands declare theirs (@ResourceOperation: reads CLUSTER:READ, the rest
# CLUSTER:MANAGE)
UNAUTHORIZED = "Unauthorized. Reason : {user} not authorized for {permission}"
PERMISSIONS = {"read-only": "CLUSTER:READ"}
MANAGE = "CLUSTER:MANAGE"
SERVER_OPTIONS = ("name", "member")   # the options that name the servers a command acts on


def gfsh_parser(grammar: Grammar) -> GfshParser:
    """gfsh's parser over the grammar's gfsh commands (their words -> handler, node)."""
    return GfshParser({c.syntax: (c.handler, c.node) for c in grammar.by_mode.get(MODE, [])})


def read_line(parser: GfshParser, line: str) -> Reading | None:
    """The line as gfsh reads it (Spring Shell's AbstractShell first drops a `/* ... */` on the line,
    takes a line starting with `//` or `#` as a comment and tabs as blanks); None for a blank or
    comment line. Raises GfshRefusal."""
    if "/*" in line and "*/" in line:
        line = line[:line.rindex("/*")] + line[line.rindex("*/") + 2:]
    if line.strip().startswith(("//", "#")):
        return None
    line = line.replace("\t", " ")
    if any(ord(ch) < 32 or 127 <= ord(ch) < 160 for ch in line.strip()):
        raise GfshRefusal([CONTROL])
    return parser.read(line)


def parse_command(grammar: Grammar, line: str) -> ParsedCommand | str | None:
    """A gfsh line as a `ParsedCommand` (its handler and the options given, by their declared
    names), the first line of gfsh's refusal, or None for a blank line."""
    try:
        read = read_line(gfsh_parser(grammar), line)
    except GfshRefusal as bad:
        return bad.lines[0]
    return None if read is None else ParsedCommand(read.handler, read.given)


class Gfsh(Personality):
    """gfsh on the shared execute loop (``personalities.base``)."""

    def __init__(self, lab: Lab, user: UserAccess) -> None:
        super().__init__(lab, SYSTEM, user)
        self.paging = False
        self._parser = gfsh_parser(lab.grammar)     # the grammar is fixed for a lab
        self._commands: dict[str, Command] = {}     # handler -> its (first) gfsh command
        for command in lab.grammar.by_mode.get(MODE, []):
            self._commands.setdefault(command.handler, command)

    @property
    def mode(self) -> str:
        return MODE

    @property
    def prompt(self) -> str:
        return PROMPT

    def prepare(self, line: str) -> Outcome | Plan:
        try:
            read = read_line(self._parser, line)
        except GfshRefusal as bad:
            return Outcome("\n".join(bad.lines), False, bad.node, "invalid")
        if read is None:
            return Outcome("", True)
        command = self._commands[read.handler]
        refused = intercepted(read)
        if refused is not None:
            return Outcome(refused + "\n", False, command.node, "engine")
        opts = read.values
        plan = Plan(line, lambda engine: None, command.node)

        def work(engine: Any) -> tuple[Any, str]:
            self.check_access(command.syntax, command.access, None)
            core = engine.kernel()
            ctx = HandlerContext(engine=engine, router=None, user=self.user.name, session=self,  # type: ignore[arg-type]
                                 context={"cluster": gf.clusters(core)[0]})
            result = handler_for(command)(ctx, opts)
            # rendered inside the store command: output that cannot be produced undoes the command
            return result, "" if result is None else render(result)

        plan.work = work
        return plan

    def error_text(self, plan: Plan, text: str) -> str:
        """gfsh prints a command's error as a result section: a blank line follows it."""
        return text + "\n"

    def denied_text(self, syntax: str, access: Access, vpn: str | None) -> str:
        """gfsh's refusal of a command the user's permissions do not cover."""
        return UNAUTHORIZED.format(user=self.user.name, permission=PERMISSIONS.get(access.level, MANAGE))

    def parsed_command(self, line: str) -> ParsedCommand | None:
        """The line as gfsh reads it, acting on the servers its options name and on the cluster."""
        try:
            read = read_line(self._parser, line)
        except GfshRefusal:
            return None
        if read is None:
            return None
        cluster = self.lab.store.run(lambda engine: gf.clusters(engine.kernel())[0])
        named = [n for key in SERVER_OPTIONS for n in read.given.get(key, "").split(",") if n]
        return ParsedCommand(read.handler, read.given, subjects=(*(node_key(cluster, n) for n in named), cluster))

    def finish(self, plan: Plan, value: Any) -> Outcome:
        # imported here: importing a handler module registers its handlers, which the shell's
        # checks then want to see with their renderers (the loader imports both when a lab opens)
        from .cli_handlers import Bye
        from .gfsh_layout import GfshResult

        result, text = value
        if isinstance(result, Bye):
            self.ended = True
            return Outcome("", True, plan.node, None, True)
        if isinstance(result, GfshResult) and result.error:
            return Outcome(text, False, plan.node, "engine")
        return Outcome(text, True, plan.node)
