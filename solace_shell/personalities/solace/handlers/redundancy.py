"""Intra-site redundancy: `show redundancy [detail | group]`, (configure/redundancy)
`[no] release-activity | auto-revert | shutdown`, (admin/redundancy) `revert-activity`, and the
lab console's failures of one router or of a site's mate link (state_store/solace/redundancy.py)."""

from __future__ import annotations

from dataclasses import dataclass

from state_store.errors import EngineError
from state_store.solace.redundancy import SYSTEM, RedundancyChange, RedundancyGroupView, RedundancyView

from ....handlers import Args, HandlerContext, handler


@dataclass(frozen=True)
class RedundancyShow:
    """`show redundancy` (summary) or `show redundancy detail` of one router."""

    view: RedundancyView
    detail: bool


def _router(ctx: HandlerContext) -> str:
    return ctx.router or ""


@handler("show.redundancy")
def show_redundancy(ctx: HandlerContext, args: Args) -> RedundancyShow:
    return RedundancyShow(ctx.router_engine.redundancy(_router(ctx)), False)


@handler("show.redundancy_detail")
def show_redundancy_detail(ctx: HandlerContext, args: Args) -> RedundancyShow:
    view = ctx.router_engine.redundancy(_router(ctx))
    if view.config_status == "Disabled":  # outside a group: no capture shows the detail page
        raise EngineError("redundancy_not_configured", router=_router(ctx))
    return RedundancyShow(view, True)


@handler("show.redundancy_group")
def show_redundancy_group(ctx: HandlerContext, args: Args) -> RedundancyGroupView:
    view: RedundancyGroupView = ctx.router_engine.redundancy_group(_router(ctx))
    return view


@handler("config_redundancy.release_activity")
def release_activity(ctx: HandlerContext, args: Args) -> None:
    ctx.router_engine.set_redundancy_option(_router(ctx), "release-activity", not args.get("no"))


@handler("config_redundancy.auto_revert")
def auto_revert(ctx: HandlerContext, args: Args) -> None:
    ctx.router_engine.set_redundancy_option(_router(ctx), "auto-revert", not args.get("no"))


@handler("config_redundancy.shutdown")
def shutdown(ctx: HandlerContext, args: Args) -> None:
    ctx.router_engine.set_redundancy_option(_router(ctx), "shutdown", not args.get("no"))


@handler("admin.revert_activity")
def revert_activity(ctx: HandlerContext, args: Args) -> None:
    ctx.router_engine.revert_activity(_router(ctx))


def _node_key(ctx: HandlerContext, router: str) -> str:
    kernel = ctx.router_engine.kernel()
    for group in kernel.groups.values():
        if group.system == SYSTEM and router in group.nodes:
            return f"{group.name}.{router}"
    if router not in {r.name for r in ctx.router_engine.routers()}:
        raise EngineError("router_not_found", router=router)
    raise EngineError("redundancy_not_configured", router=router)


@handler("lab_redundancy.fail_router")
def fail_router(ctx: HandlerContext, args: Args) -> RedundancyChange:
    key = _node_key(ctx, str(args["router-name"]))
    result: RedundancyChange = ctx.router_engine.kernel_call(f"{SYSTEM}.kill", key)
    return result


@handler("lab_redundancy.restore_router")
def restore_router(ctx: HandlerContext, args: Args) -> RedundancyChange:
    key = _node_key(ctx, str(args["router-name"]))
    result: RedundancyChange = ctx.router_engine.kernel_call(f"{SYSTEM}.restart", key)
    return result


def _site(ctx: HandlerContext, args: Args) -> str:
    site = str(args["site-name"])
    group = ctx.router_engine.kernel().groups.get(site)
    if group is not None and group.system == SYSTEM:
        return site
    if site not in ctx.router_engine.site_names():
        raise EngineError("site_not_found", site=site)
    raise EngineError("redundancy_no_group", site=site)


@handler("lab_redundancy.fail_mate_link")
def fail_mate_link(ctx: HandlerContext, args: Args) -> RedundancyChange:
    result: RedundancyChange = ctx.router_engine.kernel_call(f"{SYSTEM}.mate-link", _site(ctx, args), False)
    return result


@handler("lab_redundancy.restore_mate_link")
def restore_mate_link(ctx: HandlerContext, args: Args) -> RedundancyChange:
    result: RedundancyChange = ctx.router_engine.kernel_call(f"{SYSTEM}.mate-link", _site(ctx, args), True)
    return result
