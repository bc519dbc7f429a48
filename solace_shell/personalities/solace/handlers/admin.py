"""ADMIN actions: heuristic transaction actions, deleting messages, disconnecting a client.

They print nothing on success (like the real CLI); the engine refuses an XID pattern that matches
no transaction, a transaction in the wrong state (commit/rollback: Idle or Prepared XA only;
delete: heuristically completed only), an unknown queue or message, an unknown client.
"""

from __future__ import annotations

from ....handlers import Args, HandlerContext, handler


@handler("admin.commit_transaction")
def commit_transaction(ctx: HandlerContext, args: Args) -> None:
    ctx.router_engine.heuristic_commit(*ctx.router_and_vpn(), str(args["xid-pattern"]))


@handler("admin.rollback_transaction")
def rollback_transaction(ctx: HandlerContext, args: Args) -> None:
    ctx.router_engine.heuristic_rollback(*ctx.router_and_vpn(), str(args["xid-pattern"]))


@handler("admin.delete_transaction")
def delete_transaction(ctx: HandlerContext, args: Args) -> None:
    ctx.router_engine.heuristic_delete(*ctx.router_and_vpn(), str(args["xid-pattern"]))


@handler("admin.delete_messages")
def delete_messages(ctx: HandlerContext, args: Args) -> None:
    from_id = int(args["msg-id"]) if args.get("msg-id") is not None else None
    to_id = int(args["to-msg-id"]) if args.get("to-msg-id") is not None else None
    ctx.router_engine.delete_messages(*ctx.router_and_vpn(), str(args["queue-name"]), from_id, to_id)


@handler("admin.client_disconnect")
def client_disconnect(ctx: HandlerContext, args: Args) -> None:
    ctx.router_engine.disconnect_client(ctx.router or "", str(args["vpn-name"]), str(args["client-name"]))


@handler("admin.config_sync_assert_leader")
def config_sync_assert_leader(ctx: HandlerContext, args: Args) -> None:
    """`config-sync assert-leader message-vpn <v>` (T28): this router's VPN table wins."""
    ctx.router_engine.assert_config_sync_leader(ctx.router or "", str(args["vpn-name"]))
