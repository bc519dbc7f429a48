"""qpid-config's commands (grammar/data/systems/qpid/commands/shell.yaml), each given what the tool
read (``args["call"]``, a `tools.ToolCall`) and the host the shell is on (``ctx.context["host"]``).

Each runs qpid-config's main as the tool does: its option checks, the connection (`--broker-addr`
or `--broker`, default the local broker; a backup only with `--ha-admin`), then the subcommand;
every exception after connecting printed as ``Failed: <type>: <message>`` (exit 1), its usage for
words it does not take (exit 1). Listings are views laid out by tool_renderers.py."""

from __future__ import annotations

from typing import Any

from state_store.kernel import Kernel, Node
from state_store.qpid import policy as qpol
from state_store.qpid.params import REPLICATE_LEVELS
from state_store.qpid.views import ToolResult

from ...handlers import Args, HandlerContext, handler
from . import config_lists, tools
from .tool_views import ConfigOverview, ExchangeBindings, ExchangeList, QueueBindings, QueueList

USAGE = ToolResult(tuple(tools.CONFIG_USAGE.split("\n")), 1)


def connected(ctx: HandlerContext, call: tools.ToolCall) -> tuple[Kernel, Node] | ToolResult:
    """The kernel and the broker qpid-config is connected to, or what it prints before or
    instead."""
    opts = call.options
    level = opts.replicate
    if level and level not in REPLICATE_LEVELS:
        return tools.replicate_traceback(level)
    if opts.ssl_key and not opts.ssl_certificate:
        return tools.config_error("missing '--ssl-certificate' (required by '--ssl-key')")
    core: Kernel = ctx.engine.kernel()
    address = str(opts.broker_addr or opts.broker or "localhost:5672")
    node = tools.connect(core, address, ctx.context["host"], admin=bool(opts.ha_admin))
    return ToolResult((f"Failed: {node}",), 1) if isinstance(node, str) else (core, node)


def _modifier(call: tools.ToolCall) -> str:
    return call.words[1] if len(call.words) > 1 else ""


@handler("qpid.config_overview")
def overview(ctx: HandlerContext, args: Args) -> ConfigOverview | ToolResult:
    found = connected(ctx, tools.tool_call(args))
    if isinstance(found, ToolResult):
        return found
    core, node = found
    held = config_lists.queues(core, node)
    return ConfigOverview(tuple(x.kind for x in config_lists.exchanges(core, node)), len(held),
                          sum(q.durable for q in held))


@handler("qpid.config_queues")
def queues(ctx: HandlerContext, args: Args) -> QueueList | QueueBindings | ToolResult:
    call = tools.tool_call(args)
    found = connected(ctx, call)
    if isinstance(found, ToolResult):
        return found
    core, node = found
    listed = config_lists.queues(core, node)
    if not call.options.recursive:
        return QueueList(tuple(listed), _modifier(call))
    reply, subject = config_lists.reply_queue(core, node)
    shown = []
    for q in listed:
        if _modifier(call) not in q.name:
            continue
        bound = [(q.name, "")] * (not call.options.ignore_default)
        bound += [(subject, "qmf.default.topic")] * (q.name == reply)
        bound += [(key, exchange) for exchange, key in qpol.bindings_on(core, node, q.name)]
        shown.append((q.name, tuple(bound)))
    return QueueBindings(tuple(shown))


@handler("qpid.config_exchanges")
def exchanges(ctx: HandlerContext, args: Args) -> ExchangeList | ExchangeBindings | ToolResult:
    call = tools.tool_call(args)
    found = connected(ctx, call)
    if isinstance(found, ToolResult):
        return found
    core, node = found
    ignore_default, pattern = bool(call.options.ignore_default), _modifier(call)
    if not call.options.recursive:
        return ExchangeList(tuple(config_lists.exchanges(core, node)), pattern, ignore_default)
    held = config_lists.queues(core, node)
    reply, subject = config_lists.reply_queue(core, node)
    shown = []
    for x in config_lists.exchanges(core, node):
        if (ignore_default and not x.name) or pattern not in x.name:
            continue
        bound: list[tuple[str, str]] = []
        for q in held:
            if not x.name:
                bound.append((q.name, q.name))
            elif x.name == "qmf.default.topic" and q.name == reply:
                bound.append((subject, q.name))
            bound += [(key, q.name) for exchange, key in qpol.bindings_on(core, node, q.name) if exchange == x.name]
        shown.append((x.name, x.kind, tuple(bound)))
    return ExchangeBindings(tuple(shown))


def _change(ctx: HandlerContext, args: Args, least: int, change: Any) -> ToolResult:
    """A subcommand that changes the broker, given at least `least` positional words (fewer: the
    usage); `change(engine, node, words)` returns what the change printed."""
    call = tools.tool_call(args)
    found = connected(ctx, call)
    if isinstance(found, ToolResult):
        return found
    if len(call.words) < least:
        return USAGE
    result: ToolResult = change(ctx.engine, found[1], call)
    return tools.config_failed(result)


@handler("qpid.config_add_queue")
def add_queue(ctx: HandlerContext, args: Args) -> ToolResult:
    def add(engine: Any, node: Node, call: tools.ToolCall) -> ToolResult:
        opts, name = call.options, call.words[2]
        replica = opts.start_replica
        result = tools.change(engine, "qpid.add_queue", node.name, name, opts.replicate or None, replica,
                              bool(opts.durable))
        if not result.status and replica is not None:
            result = tools.change(engine, "qpid.replicate", node.name, replica, name)
        return result

    return _change(ctx, args, 3, add)


@handler("qpid.config_add_exchange")
def add_exchange(ctx: HandlerContext, args: Args) -> ToolResult:
    def add(engine: Any, node: Node, call: tools.ToolCall) -> ToolResult:
        words = call.words
        return tools.change(engine, "qpid.add_exchange", node.name, words[2], words[3], call.options.replicate or None)

    return _change(ctx, args, 4, add)


@handler("qpid.config_bind")
def bind(ctx: HandlerContext, args: Args) -> ToolResult:
    def bind_queue(engine: Any, node: Node, call: tools.ToolCall) -> ToolResult:
        words = call.words
        return tools.change(engine, "qpid.bind", node.name, words[1], words[2], words[3] if len(words) > 3 else "")

    return _change(ctx, args, 3, bind_queue)


@handler("qpid.config_usage")
def usage(ctx: HandlerContext, args: Args) -> ToolResult:
    """A subcommand the lab's qpid-config does not carry out, or words it does not take: its usage
    (after connecting, as the tool's main does)."""
    found = connected(ctx, tools.tool_call(args))
    return found if isinstance(found, ToolResult) else USAGE
