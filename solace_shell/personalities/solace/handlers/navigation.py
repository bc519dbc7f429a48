"""Moving between levels. The level change itself is applied by the session after commit."""

from __future__ import annotations

from state_store.errors import EngineError

from ....handlers import Args, HandlerContext, handler
from ....results import EndToPrivileged, ExitLevel, HomeToExec, SetPaging
from .show_common import router_of


@handler("nav.enter")
def enter(ctx: HandlerContext, args: Args) -> None:
    """Entering a level needs no state; the grammar's `enters:` says where to go."""


@handler("nav.enter_vpn")
def enter_vpn(ctx: HandlerContext, args: Args) -> None:
    """Entering a Message VPN's level refuses a VPN the router does not have."""
    if args["vpn-name"] not in ctx.router_engine.vpn_names(router_of(ctx)):
        raise EngineError("vpn_not_found", vpn=args["vpn-name"])


@handler("nav.exit")
def exit_level(ctx: HandlerContext, args: Args) -> ExitLevel:
    return ExitLevel()


@handler("nav.end")
def end(ctx: HandlerContext, args: Args) -> EndToPrivileged:
    return EndToPrivileged()


@handler("nav.home")
def home(ctx: HandlerContext, args: Args) -> HomeToExec:
    return HomeToExec()


@handler("nav.paging")
def paging(ctx: HandlerContext, args: Args) -> SetPaging:
    return SetPaging(on=not args.get("no", False))
