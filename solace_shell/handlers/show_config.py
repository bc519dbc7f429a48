"""`show current-config [message-vpn <vpn-name>]` (reference 5.5)."""

from __future__ import annotations

from dataclasses import dataclass

from state_store.views import RouterConfig

from . import Args, HandlerContext, handler
from .show_common import router_of


@dataclass(frozen=True)
class CurrentConfigShow:
    config: RouterConfig


@handler("show.current_config")
def show_current_config(ctx: HandlerContext, args: Args) -> CurrentConfigShow:
    return CurrentConfigShow(ctx.engine.current_config(router_of(ctx), args.get("vpn-name")))
