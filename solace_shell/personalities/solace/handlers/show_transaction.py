"""`show transaction [xid <p>] [message-vpn <p>] [state <S>] [replicated] [sort-by-...] [detail]`
(reference 4.1)."""

from __future__ import annotations

from dataclasses import dataclass

from state_store.solace.frozen import statically_frozen
from state_store.solace.views import TransactionInfo

from ....handlers import Args, HandlerContext, handler
from .show_common import check_vpn_pattern, router_of


@statically_frozen
@dataclass(frozen=True)
class TransactionTable:
    rows: tuple[TransactionInfo, ...]


@statically_frozen
@dataclass(frozen=True)
class TransactionDetails:
    details: tuple[TransactionInfo, ...]


@handler("show.transaction")
def show_transaction(ctx: HandlerContext, args: Args) -> TransactionDetails | TransactionTable:
    router = router_of(ctx)
    vpn = args.get("vpn-pattern")
    check_vpn_pattern(ctx, vpn)
    detail = bool(args.get("detail"))
    state = args.get("state")
    rows = ctx.router_engine.transactions(router, xid=args.get("xid-pattern"), vpn=vpn,
                                   state=str(state) if state is not None else None,
                                   replicated=True if args.get("replicated") else None, detail=detail)
    if args.get("sort-by-last-state-change"):
        rows = sorted(rows, key=lambda t: -(t.last_state_change_ms // 1000))  # the shown seconds
    elif args.get("sort-by-messages-spooled"):
        rows = sorted(rows, key=lambda t: -t.messages_spooled)
    return TransactionDetails(tuple(rows)) if detail else TransactionTable(tuple(rows))
