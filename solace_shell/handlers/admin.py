"""ADMIN actions: heuristic transaction actions, deleting messages, disconnecting a client.

They print nothing on success (like the real CLI); the engine refuses an XID pattern that matches
no transaction, a transaction in the wrong state (commit/rollback: Idle or Prepared XA only;
delete: heuristically completed only), an unknown queue or message, an unknown client.
"""

from __future__ import annotations

from state_store.errors import EngineError

from . import Args, HandlerContext, handler


def _where(ctx: HandlerContext) -> tuple[str, str]:
    vpn = ctx.vpn
    if vpn is None:  # the grammar only offers these at admin/message-spool
        raise EngineError("vpn_not_found", vpn="", router=ctx.router)
    return ctx.router or "", vpn


@handler("admin.commit_transaction")
def commit_transaction(ctx: HandlerContext, args: Args) -> None:
    ctx.engine.heuristic_commit(*_where(ctx), str(args["xid-pattern"]))


@handler("admin.rollback_transaction")
def rollback_transaction(ctx: HandlerContext, args: Args) -> None:
    ctx.engine.heuristic_rollback(*_where(ctx), str(args["xid-pattern"]))


@handler("admin.delete_transaction")
def delete_transaction(ctx: HandlerContext, args: Args) -> None:
    ctx.engine.heuristic_delete(*_where(ctx), str(args["xid-pattern"]))


@handler("admin.delete_messages")
def delete_messages(ctx: HandlerContext, args: Args) -> None:
    from_id = int(args["msg-id"]) if args.get("msg-id") is not None else None
    to_id = int(args["to-msg-id"]) if args.get("to-msg-id") is not None else None
    ctx.engine.delete_messages(*_where(ctx), str(args["queue-name"]), from_id, to_id)


@handler("admin.client_disconnect")
def client_disconnect(ctx: HandlerContext, args: Args) -> None:
    ctx.engine.disconnect_client(ctx.router or "", str(args["vpn-name"]), str(args["client-name"]))
