"""Message VPN replication configuration (configure/message-vpn/replication and its sub-levels).

Every handler changes one engine setting and returns None: the real CLI prints nothing on success,
only the next prompt. Refusals are EngineErrors (their text is in messages.py). The VPN comes from
the configure/message-vpn level the line was typed at or crossed.
"""

from __future__ import annotations

from typing import Any

from state_store.errors import EngineError
from state_store.passwords import HashedSecret

from ....handlers import Args, HandlerContext, chosen_keyword, handler


def _option(ctx: HandlerContext, option: str, value: Any) -> None:
    ctx.router_engine.set_replication_option(*ctx.router_and_vpn(), option, value)


# ---------------------------------------------------------------- replication level
@handler("config_replication.state")
def state(ctx: HandlerContext, args: Args) -> None:
    ctx.router_engine.set_replication_role(*ctx.router_and_vpn(), chosen_keyword(args, "active", "standby"))


@handler("config_replication.shutdown")
def shutdown(ctx: HandlerContext, args: Args) -> None:
    if not args.get("no"):
        ctx.router_engine.set_replication_enabled(*ctx.router_and_vpn(), False)
        return
    behaviour = "fail-on-existing-queue"
    for word in ("force-use-existing-queue", "force-recreate-queue"):
        if args.get(word):
            behaviour = word
    ctx.router_engine.set_replication_enabled(*ctx.router_and_vpn(), True, behaviour)


@handler("config_replication.reject_sync_ineligible")
def reject_sync_ineligible(ctx: HandlerContext, args: Args) -> None:
    _option(ctx, "reject-msg-when-sync-ineligible", None if args.get("no") else True)


@handler("config_replication.create_topic")
def create_topic(ctx: HandlerContext, args: Args) -> None:
    ctx.router_engine.create_replicated_topic(*ctx.router_and_vpn(), str(args["topic"]))


@handler("config_replication.enter_topic")
def enter_topic(ctx: HandlerContext, args: Args) -> None:
    topic = str(args["topic"])
    router, vpn = ctx.router_and_vpn()
    if topic not in {t.topic for t in ctx.router_engine.replicated_topics(router, vpn)}:
        raise EngineError("replicated_topic_not_found", topic=topic, vpn=vpn)


@handler("config_replication.delete_topic")
def delete_topic(ctx: HandlerContext, args: Args) -> None:
    ctx.router_engine.delete_replicated_topic(*ctx.router_and_vpn(), str(args["topic"]))


# ---------------------------------------------------------------- replicated-topic level
@handler("config_replication.topic_mode")
def topic_mode(ctx: HandlerContext, args: Args) -> None:
    ctx.router_engine.set_replicated_topic_mode(*ctx.router_and_vpn(), ctx.context["topic"],
                                         chosen_keyword(args, "sync", "async"))


# ---------------------------------------------------------------- replication queue level
@handler("config_replication.queue_max_spool")
def queue_max_spool(ctx: HandlerContext, args: Args) -> None:
    _option(ctx, "queue-max-spool-usage", None if args.get("no") else args["max-spool-mb"])


# ---------------------------------------------------------------- bridge level
@handler("config_replication.bridge_auth_scheme")
def bridge_auth_scheme(ctx: HandlerContext, args: Args) -> None:
    _option(ctx, "bridge-auth-scheme", chosen_keyword(args, "basic", "client-certificate"))


@handler("config_replication.bridge_client_username")
def bridge_client_username(ctx: HandlerContext, args: Args) -> None:
    """Sets the username and the password together; without `password` the bridge has none.
    The engine stores only a hash of the password."""
    _option(ctx, "bridge-client-username", str(args["client-username"]))
    if "encrypted-password" in args:
        _option(ctx, "bridge-password", HashedSecret(str(args["encrypted-password"])))
    else:
        _option(ctx, "bridge-password", str(args["password"]) if args.get("password") else None)


@handler("config_replication.bridge_no_client_username")
def bridge_no_client_username(ctx: HandlerContext, args: Args) -> None:
    _option(ctx, "bridge-client-username", None)
    _option(ctx, "bridge-password", None)


@handler("config_replication.bridge_no_client_profile")
def bridge_no_client_profile(ctx: HandlerContext, args: Args) -> None:
    _option(ctx, "bridge-client-profile", None)
