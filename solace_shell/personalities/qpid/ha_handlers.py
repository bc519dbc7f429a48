"""qpid-ha's commands (grammar/data/systems/qpid/commands/shell.yaml), each given what the tool read
(``args["call"]``, a `tools.ToolCall`) and the host the shell is on (``ctx.context["host"]``).

Each connects first as qpid-ha does (its `--broker`, default the local broker; a backup accepts
the tool's connection), then reads the broker or changes it through a journaled call. What the
tool prints is laid out by tool_renderers.py (`HaStatus`, `HaQuery`); a failure is the tool's
exception line (`ToolResult`, exit 1)."""

from __future__ import annotations

from typing import Any

from state_store.kernel import Kernel, Node
from state_store.qpid import policy as qpol
from state_store.qpid.views import ToolResult

from ...handlers import Args, HandlerContext, handler
from . import tools
from .options import used_once
from .tool_views import HaQuery, HaStatus, QueryBlock


def connected(ctx: HandlerContext, call: tools.ToolCall) -> Node | ToolResult:
    """The broker qpid-ha is connected to, or what it prints when it cannot connect."""
    opts = call.options
    if opts.ssl_key and not opts.ssl_certificate:    # checked as it connects, by its parser
        with used_once(tools.ha_command_parser(call.command.split()[1])) as parser:
            return tools.parser_error(parser, "missing '--ssl-certificate' (required by '--ssl-key')")
    node = tools.connect(ctx.engine.kernel(), str(opts.broker or "0.0.0.0"), ctx.context["host"], admin=True)
    return ToolResult((node,), 1) if isinstance(node, str) else node


@handler("qpid.ha_ping")
def ping(ctx: HandlerContext, args: Args) -> ToolResult:
    node = connected(ctx, tools.tool_call(args))
    return node if isinstance(node, ToolResult) else ToolResult((), 0)


@handler("qpid.ha_promote")
def promote(ctx: HandlerContext, args: Args) -> ToolResult:
    node = connected(ctx, tools.tool_call(args))
    return node if isinstance(node, ToolResult) else tools.change(ctx.engine, "qpid.promote", node.name)


@handler("qpid.ha_replicate")
def replicate(ctx: HandlerContext, args: Args) -> ToolResult:
    call = tools.tool_call(args)
    node = connected(ctx, call)
    if isinstance(node, ToolResult):
        return node
    return tools.change(ctx.engine, "qpid.replicate", node.name, call.words[1], call.words[2])


def _each(core: Kernel, node: Node, here: str) -> list[tuple[str, Node | str]]:
    """Every broker of `node`'s cluster by address: connected to, or the client library's error."""
    return [(qpol.address(name), tools.connect(core, qpol.address(name), here, admin=True))
            for name in core.groups[node.group].nodes]


def _bare(error: str) -> str:
    """str() of the exception: its message without the type."""
    return error.partition(": ")[2]


@handler("qpid.ha_status")
def status(ctx: HandlerContext, args: Args) -> HaStatus | ToolResult:
    call = tools.tool_call(args)
    node = connected(ctx, call)
    if isinstance(node, ToolResult):
        return node
    opts: Any = call.options
    if opts.is_primary:
        return ToolResult((), 0 if node.state in (qpol.ACTIVE, qpol.RECOVERING) else 1)
    if opts.expect:
        return ToolResult((), 0 if opts.expect == node.state else 1)
    if opts.all:
        each = _each(ctx.engine.kernel(), node, ctx.context["host"])
        return HaStatus(tuple((a, _bare(b) if isinstance(b, str) else b.state) for a, b in each), each=True)
    return HaStatus((("", node.state),))


def _block(core: Kernel, node: Node, address: str = "") -> QueryBlock:
    qpp = qpol.params(core, node.group)
    return QueryBlock(address, node.state, qpol.system_id(node), qpol.brokers_url(core, node.group),
                      qpp.ha_public_url, qpp.ha_replicate)


@handler("qpid.ha_query")
def query(ctx: HandlerContext, args: Args) -> HaQuery | ToolResult:
    call = tools.tool_call(args)
    node = connected(ctx, call)
    if isinstance(node, ToolResult):
        return node
    core = ctx.engine.kernel()
    if not call.options.all:
        return HaQuery((_block(core, node),))
    each = _each(core, node, ctx.context["host"])
    return HaQuery(tuple(QueryBlock(a, error=_bare(b)) if isinstance(b, str) else _block(core, b, a)
                         for a, b in each), each=True)
