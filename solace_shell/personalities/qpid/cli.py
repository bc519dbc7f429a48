"""A shell on a Qpid broker host as a prompt personality of the lab (target `qpid`).

Why a shell: `qpid-ha` and `qpid-config` are command-line tools run on a broker's machine, with
their own option parsing (tools.py), outputs and exit statuses. The prompt names the host
(`root@b1> `; transcripts write `qpid:root@b1>`); `ssh <host>` moves to another broker host,
`echo $?` prints the last command's exit status, `cat /var/log/qpidd.log` shows the broker's log.
Words are split as a POSIX shell does (quotes); anything else is `command not found` (127).
"""

from __future__ import annotations

from dataclasses import replace
from typing import TYPE_CHECKING, Any

from state_store.errors import EngineError
from state_store.qpid import SYSTEM
from state_store.qpid import operations as qp
from state_store.qpid.views import ToolResult

from ...access import UserAccess
from ...parsed_command import ParsedCommand
from ...results import Outcome
from ..base import Personality, Plan
from . import tools
from .lab_renderers import log_lines

if TYPE_CHECKING:
    from ...lab import Lab

LOG_FILE = "/var/log/qpidd.log"
LOCAL_NAMES = ("0.0.0.0", "localhost", "127.0.0.1", "")    # the host the shell is on


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

    @property
    def mode(self) -> str:
        return SYSTEM

    @property
    def prompt(self) -> str:
        return f"root@{self.here}>"

    def restart(self) -> None:
        self.here, self.ended, self.last_status = self.home, False, 0

    def prepare(self, line: str) -> Outcome | Plan:
        words = tools.shell_words(line)     # a word starting with # starts a comment, as in bash
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
        plan = Plan(line, lambda engine: None)

        def work(engine: Any) -> Any:
            if first == "qpid-ha":
                return tools.qpid_ha(engine, self.here, words[1:])
            if first == "qpid-config":
                return tools.qpid_config(engine, self.here, words[1:])
            if first == "ssh":
                return self._ssh(engine, words[1:])
            if first in ("cat", "tail") and words[-1] == LOG_FILE:
                node = qp.host(engine.kernel(), self.here)
                if node is None:
                    return ToolResult((f"{first}: {LOG_FILE}: No such file or directory",), 1)
                events = qp.broker_log(engine.kernel(), node.key).events
                return ToolResult(tuple(log_lines(events, False)), 0)
            return ToolResult((f"-bash: {first}: command not found",), 127)

        plan.work = work
        return plan

    def parsed_command(self, line: str) -> ParsedCommand | None:
        """The line as the shell and its tools read it, acting on the broker it addresses (`-b`,
        `ssh`'s destination; the host the shell is on by default)."""
        parsed = tools.parse_command(None, line)
        if not isinstance(parsed, ParsedCommand):
            return None
        args = parsed.args
        address = str(args.get("broker-addr") or args.get("broker") or args.get("destination") or self.here)

        def target(engine: Any) -> tuple[str, ...]:
            name = qp.parse_address(address.rpartition("@")[2])[0]
            node = qp.resolve(engine.kernel(), self.here if name in LOCAL_NAMES else name)
            return () if node is None else (node.key,)

        return replace(parsed, subjects=self.lab.store.run(target))

    def _ssh(self, engine: Any, args: list[str]) -> ToolResult | str:
        if len(args) != 1:
            return ToolResult(("usage: ssh destination",), 255)
        name = args[0].rpartition("@")[2]
        if qp.host(engine.kernel(), name) is None:
            return ToolResult((f"ssh: Could not resolve hostname {name}: Name or service not known",), 255)
        return name

    def finish(self, plan: Plan, value: Any) -> Outcome:
        if isinstance(value, str):
            self.here, self.last_status = value, 0
            return Outcome("", True)
        assert isinstance(value, ToolResult)
        self.last_status = value.status
        text = "\n".join(line.rstrip() for line in value.lines)
        return Outcome(text, value.status == 0)

    def error_text(self, plan: Plan, text: str) -> str:
        self.last_status = 1
        return text


__all__ = ["EngineError", "QpidShell"]
