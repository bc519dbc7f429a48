"""A shell on a Qpid broker host as a prompt personality of the lab (target `qpid`).

Why a shell: `qpid-ha` and `qpid-config` are command-line tools run on a broker's machine, with
their own option parsing (tools.py), outputs and exit statuses. The prompt names the host
(`root@b1> `; transcripts write `qpid:root@b1>`); `ssh <host>` moves to another broker host,
`echo $?` prints the last command's exit status, `cat /var/log/qpidd.log` shows the broker's log.
Words are split as a POSIX shell does (quotes); anything else is `command not found` (127).

What the shell runs is grammar (grammar/data/systems/qpid/commands/shell.yaml): a program's
commands by the words that name them, each with its handler and the access it needs. The
program's own reading of a line (``tools.read_words``: optparse for the tools), made once before
the store command, names the command; its access is checked there, before its handler runs, and
refused as the broker refuses a QMF method its ACL denies (the tool prints the exception and
exits 1), so a refused command changes nothing. A tool that ends while reading its words (help,
usage, an option error) prints that without touching the lab.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from state_store.errors import EngineError
from state_store.qpid import SYSTEM
from state_store.qpid import operations as qp
from state_store.qpid.views import ToolResult

from ...access import UserAccess
from ...parsed_command import ParsedCommand
from ...renderers import render
from ...results import Outcome
from ..base import Personality, Plan, Reading
from . import tools
from .shell_handlers import HostChange

if TYPE_CHECKING:
    from grammar import Access, Command

    from ...lab import Lab

LOCAL_NAMES = ("0.0.0.0", "localhost", "127.0.0.1", "")    # the host the shell is on
BUILTINS = ("echo", "exit", "logout")    # the shell's own words: no program, no broker
# A QMF method the broker's ACL denies (ManagementAgent: STATUS_FORBIDDEN, "Forbidden"), raised by
# qpidtoollibs' BrokerAgent._method as "Exception from Agent: %r" of the exception's values and
# printed by qpid-ha as "<type>: <message>", by qpid-config after "Failed: " (Python 2's repr).
AGENT_FORBIDDEN = "Exception: Exception from Agent: {u'error_code': 6, u'error_text': 'Forbidden'}"
REFUSALS = {"qpid-ha": AGENT_FORBIDDEN, "qpid-config": f"Failed: {AGENT_FORBIDDEN}"}
FILE_DENIED = "{program}: {path}: Permission denied"   # coreutils, for a file the user may not read
UNKNOWN_WORDS = "qpid.config_usage"   # the handler of a qpid-config line naming no command of the grammar


def shell_commands(commands: list[Command]) -> tuple[dict[str, Command], dict[str, Command]]:
    """The shell's commands by the words that name them, and each program's first command by the
    program's name (the programs the shell has)."""
    by_words = {command.syntax: command for command in commands}
    programs: dict[str, Command] = {}
    for command in commands:
        programs.setdefault(command.syntax.split()[0], command)
    return by_words, programs


class QpidShell(Personality):
    eof_text = "logout"
    context_help = False    # a Unix shell: `?` is a character (`echo $?`)

    def __init__(self, lab: Lab, user: UserAccess) -> None:
        super().__init__(lab, SYSTEM, user)
        self.paging = False
        hosts = lab.store.run(lambda engine: qp.hosts(engine.kernel()))
        self.home = hosts[0] if hosts else "localhost"
        self.here = self.home
        self.last_status = 0
        self._by_words, self._programs = shell_commands(lab.grammar.by_mode.get(SYSTEM, []))
        self._words: list[str] = []     # the line being run, for a refusal that names its file

    @property
    def mode(self) -> str:
        return SYSTEM

    @property
    def prompt(self) -> str:
        return f"root@{self.here}>"

    def restart(self) -> None:
        self.here, self.ended, self.last_status = self.home, False, 0

    def read(self, line: str) -> Reading:
        """The shell's words (bash's syntax error, or none), then the program's own reading of
        them, once (``tools.read_words``: optparse for the tools)."""
        words = tools.shell_words(line)     # a word starting with # starts a comment, as in bash
        if isinstance(words, str) or not words:
            return Reading(self, line, (words, None))
        return Reading(self, line, (words, tools.read_words(words)))

    def describe(self, reading: Reading) -> ParsedCommand | None:
        words, read = reading.data
        found = None if read is None else tools.described(words, read)
        return found if isinstance(found, ParsedCommand) else None

    def subjects(self, engine: Any, reading: Reading) -> tuple[str, ...]:
        """The broker the line addresses (`-b`, `ssh`'s destination; the host the shell is on by
        default)."""
        read = reading.data[1]
        if not isinstance(read, tools.ToolCall):
            return ()
        args = read.given
        address = str(args.get("broker-addr") or args.get("broker") or args.get("destination") or self.here)
        name = qp.parse_address(address.rpartition("@")[2])[0]
        node = qp.resolve(engine.kernel(), self.here if name in LOCAL_NAMES else name)
        return () if node is None else (node.key,)

    def plan(self, reading: Reading) -> Outcome | Plan:
        words, call = reading.data
        if isinstance(words, str):
            self.last_status = 2
            return Outcome(words, False, "", "invalid")
        if not words:
            return Outcome("", True)
        first = words[0]
        if first == "echo":
            text = " ".join(str(self.last_status) if w == "$?" else w for w in words[1:])
            self.last_status = 0
            return Outcome(text, True)
        if first in ("exit", "logout"):
            self.ended = True
            return Outcome("logout", True, "", None, True)
        if first not in self._programs:
            self.last_status = 127
            return Outcome(f"-bash: {first}: command not found", False)
        if isinstance(call, ToolResult):    # the tool ended reading its words: help, usage, an error
            self.last_status = call.status
            return Outcome(render(call), call.status == 0)
        command = self._by_words.get(call.command)
        self._words = words
        here = self.here

        def work(engine: Any, plan: Plan) -> Any:
            if command is None:   # a qpid-config word the tool does not take: its usage, for anyone
                return self.handle(engine, UNKNOWN_WORDS, {"call": call}, {"host": here})
            self.authorize(command)
            return self.handle(engine, command, {"call": call}, {"host": here})

        return Plan(reading.line, work, "" if command is None else command.node)

    def denied_text(self, syntax: str, access: Access, vpn: str | None) -> str:
        program = syntax.split()[0]
        refusal = REFUSALS.get(program)
        if refusal is not None:
            return refusal
        return FILE_DENIED.format(program=program, path=self._words[-1])

    def finish(self, plan: Plan, value: Any, text: str) -> Outcome:
        result = value
        if isinstance(result, HostChange):
            self.here, self.last_status = result.host, 0
            return self.done(plan, "")
        self.last_status = result.status    # every tool result carries the exit status
        return self.done(plan, text, result.status == 0)

    def error_text(self, plan: Plan, text: str) -> str:
        self.last_status = 1
        return text


__all__ = ["EngineError", "QpidShell"]
