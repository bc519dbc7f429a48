"""The broker host's own programs (grammar/data/systems/qpid/commands/shell.yaml): `ssh` to another
broker host, `cat` and `tail` of the broker's log, each given the line's reading (``args["call"]``,
a `tools.ToolCall`: the program and its words) and the host the shell is on
(``ctx.context["host"]``). The tools' commands are ha_handlers.py and config_handlers.py."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from state_store.qpid import operations as qp
from state_store.qpid.views import ToolResult

from ...handlers import Args, HandlerContext, handler
from . import tools
from .lab_renderers import log_lines

LOG_FILE = "/var/log/qpidd.log"


@dataclass(frozen=True)
class HostChange:
    """`ssh <host>` logged in: the shell is on ``host`` now (it prints nothing)."""

    host: str


def _host(ctx: HandlerContext) -> str:
    return ctx.context["host"]


@handler("qpid.ssh")
def ssh(ctx: HandlerContext, args: Args) -> ToolResult | HostChange:
    argv = tools.tool_call(args).words
    if len(argv) != 1:
        return ToolResult(("usage: ssh destination",), 255)
    name = argv[0].rpartition("@")[2]
    if qp.host(ctx.engine.kernel(), name) is None:
        return ToolResult((f"ssh: Could not resolve hostname {name}: Name or service not known",), 255)
    return HostChange(name)


@handler("qpid.log_file")
def log_file(ctx: HandlerContext, args: Args) -> ToolResult:
    """`cat` or `tail` of the broker's log; of any other file the lab has none to show."""
    call = tools.tool_call(args)
    argv, program = call.words, call.program
    if not argv or argv[-1] != LOG_FILE:
        return ToolResult((f"-bash: {program}: command not found",), 127)
    core: Any = ctx.engine.kernel()
    node = qp.host(core, _host(ctx))
    if node is None:
        return ToolResult((f"{program}: {LOG_FILE}: No such file or directory",), 1)
    return ToolResult(tuple(log_lines(qp.broker_log(core, node.key).events, False)), 0)
