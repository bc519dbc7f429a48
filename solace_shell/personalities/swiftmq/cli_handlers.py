"""The SwiftMQ admin CLI's commands (grammar/data/commands/swiftmq-cli.yaml).

The CLI's own state (the router chosen with `sr`, the context chosen with `cc`) lives in its
session (cli.py); these handlers read and change the lab's HA core and return
results for cli_renderers.py. A command that needs a router when none is chosen is refused
with the CLI's own text."""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, cast

from state_store.errors import EngineError
from state_store.swiftmq import mgmt
from state_store.swiftmq import operations as ha
from state_store.swiftmq.params import SYSTEM as MODE  # the CLI's one mode is named after its system

from ...handlers import Args, HandlerContext, handler

if TYPE_CHECKING:
    from .cli import SwiftMqCli


@dataclass(frozen=True)
class SwitchRouter:
    router: str


@dataclass(frozen=True)
class ChangeContext:
    path: tuple[str, ...]


@dataclass(frozen=True)
class AvailableRouters:
    routers: tuple[str, ...]


@dataclass(frozen=True)
class CliHelp:
    entries: tuple[tuple[str, str], ...]


@dataclass(frozen=True)
class Bye:
    pass


def _cli(ctx: HandlerContext) -> SwiftMqCli:
    return cast("SwiftMqCli", ctx.session)


def _router(ctx: HandlerContext) -> str:
    router = ctx.context.get("router") or None   # the CLI's router after this command's notices
    if router is None:
        raise EngineError("swift_no_router")
    return router


@handler("swiftmq.sr")
def sr(ctx: HandlerContext, args: Args) -> SwitchRouter:
    name = str(args["swift-router"])
    core = ctx.engine.kernel()
    if name not in ha.routers(core) or ha.serving_instance(core, name) is None:
        raise EngineError("swift_router_unknown", router=name)
    return SwitchRouter(name)


@handler("swiftmq.ar")
def ar(ctx: HandlerContext, args: Args) -> AvailableRouters:
    core = ctx.engine.kernel()
    return AvailableRouters(tuple(r for r in ha.routers(core) if ha.serving_instance(core, r) is not None))


@handler("swiftmq.cc")
def cc(ctx: HandlerContext, args: Args) -> ChangeContext:
    router = _router(ctx)
    path = mgmt.resolve(_cli(ctx).path, str(args["swift-context"]))
    mgmt.entity(ctx.engine.kernel(), router, path)
    return ChangeContext(path)


@handler("swiftmq.lc")
def lc(ctx: HandlerContext, args: Args) -> mgmt.EntityView | mgmt.EntityListView:
    router = _router(ctx)
    path = mgmt.resolve(_cli(ctx).path, str(args.get("swift-context", "")))
    return mgmt.entity(ctx.engine.kernel(), router, path)


@handler("swiftmq.set")
def set_property(ctx: HandlerContext, args: Args) -> None:
    router = _router(ctx)
    value = args.get("swift-value")
    ctx.engine.kernel_call("swiftmq.set_property", router, _cli(ctx).path, str(args["swift-property"]),
                           None if value is None else str(value))


@handler("swiftmq.help")
def help_(ctx: HandlerContext, args: Args) -> CliHelp:
    grammar = ctx.session.lab.grammar
    names = {"<swift-router>": "<router>", "<swift-context>": "<context>", "<swift-property>": "<prop>",
             "<swift-value>": "<value>"}
    entries = []
    for c in grammar.commands:
        if MODE in c.modes:
            syntax = c.syntax
            for param, shown in names.items():
                syntax = syntax.replace(param, shown)
            entries.append((syntax, c.help))
    return CliHelp(tuple(entries))


@handler("swiftmq.exit")
def exit_(ctx: HandlerContext, args: Args) -> Bye:
    return Bye()


def _act(ctx: HandlerContext, action: str, which: str) -> None:
    ctx.engine.kernel_call("swiftmq.router_action", _router(ctx), action, which)


@handler("swiftmq.reboot")
def reboot(ctx: HandlerContext, args: Args) -> None:
    _act(ctx, "reboot", "all")


@handler("swiftmq.halt")
def halt(ctx: HandlerContext, args: Args) -> None:
    _act(ctx, "halt", "all")


@handler("swiftmq.save")
def save(ctx: HandlerContext, args: Args) -> None:
    _router(ctx)   # both instances save the (shared) configuration: nothing changes in the lab


@handler("swiftmq.rebootactive")
def rebootactive(ctx: HandlerContext, args: Args) -> None:
    _act(ctx, "reboot", "active")


@handler("swiftmq.rebootstandby")
def rebootstandby(ctx: HandlerContext, args: Args) -> None:
    _act(ctx, "reboot", "standby")


@handler("swiftmq.haltactive")
def haltactive(ctx: HandlerContext, args: Args) -> None:
    _act(ctx, "halt", "active")


@handler("swiftmq.haltstandby")
def haltstandby(ctx: HandlerContext, args: Args) -> None:
    _act(ctx, "halt", "standby")
