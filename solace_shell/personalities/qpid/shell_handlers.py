"""What the shell on a Qpid broker host runs (grammar/data/systems/qpid/commands/shell.yaml): one
handler per program, given the words after the program's name (``argv``) and the host the shell
is on (``ctx.context["host"]``). The tools read their own words (tools.py); the shell (cli.py)
has already checked the user's access for the command their reading names."""

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


def _argv(args: Args) -> list[str]:
    return [str(word) for word in args.get("argv", ())]


def _host(ctx: HandlerContext) -> str:
    return ctx.context["host"]


@handler("qpid.ha")
def qpid_ha(ctx: HandlerContext, args: Args) -> ToolResult:
    return tools.qpid_ha(ctx.engine, _host(ctx), _argv(args))


@handler("qpid.config")
def qpid_config(ctx: HandlerContext, args: Args) -> ToolResult:
    return tools.qpid_config(ctx.engine, _host(ctx), _argv(args))


@handler("qpid.ssh")
def ssh(ctx: HandlerContext, args: Args) -> ToolResult | HostChange:
    argv = _argv(args)
    if len(argv) != 1:
        return ToolResult(("usage: ssh destination",), 255)
    name = argv[0].rpartition("@")[2]
    if qp.host(ctx.engine.kernel(), name) is None:
        return ToolResult((f"ssh: Could not resolve hostname {name}: Name or service not known",), 255)
    return HostChange(name)


@handler("qpid.log_file")
def log_file(ctx: HandlerContext, args: Args) -> ToolResult:
    """`cat` or `tail` of the broker's log; of any other file the lab has none to show."""
    argv, program = _argv(args), str(args.get("program", "cat"))
    if not argv or argv[-1] != LOG_FILE:
        return ToolResult((f"-bash: {program}: command not found",), 127)
    core: Any = ctx.engine.kernel()
    node = qp.host(core, _host(ctx))
    if node is None:
        return ToolResult((f"{program}: {LOG_FILE}: No such file or directory",), 1)
    return ToolResult(tuple(log_lines(qp.broker_log(core, node.key).events, False)), 0)
