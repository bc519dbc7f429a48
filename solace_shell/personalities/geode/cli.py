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
from ...parsed_command import ParsedCommand
from ...results import Outcome
from ..base import Personality, Plan, Reading
from .gfsh_interceptors import intercepted
from .gfsh_parser import Emulated, GfshParser, GfshRefusal
from .gfsh_parser import Reading as GfshReading

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


_PARSERS: dict[int, tuple[Grammar, GfshParser]] = {}


def gfsh_parser(grammar: Grammar) -> GfshParser:
    """gfsh's parser over the grammar's gfsh commands (their words -> handler, node, options),
    made once per grammar (it keeps no state between lines)."""
    kept = _PARSERS.get(id(grammar))
    if kept is None or kept[0] is not grammar:
        parser = GfshParser({c.syntax: Emulated(c.handler, c.node, c.options) for c in grammar.by_mode.get(MODE, [])})
        kept = _PARSERS[id(grammar)] = (grammar, parser)
    return kept[1]


def read_line(parser: GfshParser, line: str) -> GfshReading | None:
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


def described(read: GfshReading | GfshRefusal | None) -> ParsedCommand | str | None:
    """gfsh's reading of a line as grading matches it: a `ParsedCommand` (its handler and the
    options given, by their declared names), the first line of gfsh's refusal, or None for a
    blank line."""
    if isinstance(read, GfshRefusal):
        return read.lines[0]
    return None if read is None else ParsedCommand(read.handler, read.given)


def parse_command(grammar: Grammar, line: str) -> ParsedCommand | str | None:
    """A runbook's gfsh line, read as gfsh reads a typed one (`described`)."""
    try:
        return described(read_line(gfsh_parser(grammar), line))
    except GfshRefusal as bad:
        return described(bad)


class Gfsh(Personality):
    """gfsh on the shared pipeline (``personalities.base``)."""

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

    def read(self, line: str) -> Reading:
        """gfsh's reading (`read_line`): a `Reading` of gfsh's parser, its refusal, or None for a
        blank or comment line."""
        try:
            return Reading(self, line, read_line(self._parser, line))
        except GfshRefusal as bad:   # kept as a value: a raised one keeps its frames alive
            return Reading(self, line, GfshRefusal(bad.lines, bad.node))

    def describe(self, reading: Reading) -> ParsedCommand | None:
        found = described(reading.data)
        return found if isinstance(found, ParsedCommand) else None

    def subjects(self, engine: Any, reading: Reading) -> tuple[str, ...]:
        """The servers the line's options name, and the cluster gfsh is connected to."""
        read = reading.data
        if not isinstance(read, GfshReading):
            return ()
        cluster = gf.clusters(engine.kernel())[0]
        named = [n for key in SERVER_OPTIONS for n in read.given.get(key, "").split(",") if n]
        return (*(node_key(cluster, n) for n in named), cluster)

    def plan(self, reading: Reading) -> Outcome | Plan:
        read = reading.data
        if isinstance(read, GfshRefusal):
            return Outcome("\n".join(read.lines), False, read.node, "invalid")
        if read is None:
            return Outcome("", True)
        command = self._commands[read.handler]
        refused = intercepted(read)
        if refused is not None:
            return Outcome(refused + "\n", False, command.node, "engine")
        opts = read.values

        def work(engine: Any, plan: Plan) -> Any:
            self.authorize(command)
            return self.handle(engine, command, opts, {"cluster": gf.clusters(engine.kernel())[0]})

        return Plan(reading.line, work, command.node)

    def error_text(self, plan: Plan, text: str) -> str:
        """gfsh prints a command's error as a result section: a blank line follows it."""
        return text + "\n"

    def denied_text(self, syntax: str, access: Access, vpn: str | None) -> str:
        """gfsh's refusal of a command the user's permissions do not cover."""
        return UNAUTHORIZED.format(user=self.user.name, permission=PERMISSIONS.get(access.level, MANAGE))

    def finish(self, plan: Plan, value: Any, text: str) -> Outcome:
        # imported here: importing a handler module registers its handlers, which the shell's
        # checks then want to see with their renderers (the loader imports both when a lab opens)
        from .cli_handlers import Bye
        from .gfsh_layout import GfshResult

        result = value
        if isinstance(result, Bye):
            self.ended = True
            return self.done(plan, "", True, None, True)
        if isinstance(result, GfshResult) and result.error:
            return self.done(plan, text, False, "engine")
        return self.done(plan, text)
