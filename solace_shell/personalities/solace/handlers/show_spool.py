"""`show queue ...` and `show message-spool ...` (reference 5.1, 5.2)."""

from __future__ import annotations

from dataclasses import dataclass

from state_store.errors import EngineError
from state_store.solace.frozen import statically_frozen
from state_store.solace.views import MessageSpool, QueueDetail, QueueMessage, QueueRow

from ....handlers import Args, HandlerContext, handler
from .show_common import has_wildcard, router_of

MESSAGES_LIMIT = 100   # messages listed per queue by `show queue <q> messages`


@statically_frozen
@dataclass(frozen=True)
class QueueTable:
    rows: tuple[QueueRow, ...]


@statically_frozen
@dataclass(frozen=True)
class QueueDetails:
    details: tuple[QueueDetail, ...]


@statically_frozen
@dataclass(frozen=True)
class QueueMessageList:
    queue: str
    vpn: str
    messages: tuple[QueueMessage, ...]
    total: int                       # messages spooled on the queue (the list shows at most the limit)


@statically_frozen
@dataclass(frozen=True)
class QueueMessages:
    now_ms: int
    queues: tuple[QueueMessageList, ...]


@statically_frozen
@dataclass(frozen=True)
class MessageSpoolShow:
    spool: MessageSpool
    detail: bool


def _rgmid(text: str | None) -> int | None:
    if text is None:
        return None
    value = text.strip()
    if value.lower().startswith("rmid1:"):
        value = value[6:]
    try:
        return int(value)
    except ValueError:
        raise EngineError("invalid_value", name="replication-group-msg-id", value=text,
                          allowed="a number") from None


@handler("show.queue")
def show_queue(ctx: HandlerContext, args: Args) -> QueueMessages | QueueDetails | QueueTable:
    """An exact queue name in an exact Message VPN shows the detail view (seed 000 step 3);
    wildcards (or no `message-vpn`) show the summary table unless `detail` is given."""
    router = router_of(ctx)
    engine = ctx.router_engine
    queue_pattern = args["queue-pattern"]
    vpn_pattern = args.get("vpn-pattern")
    rows = engine.queues(router, vpn_pattern or "*", queue_pattern)
    if args.get("messages"):
        rgmid = _rgmid(args.get("replication-group-msg-id"))
        return QueueMessages(engine.now_ms(), tuple(
            QueueMessageList(r.name, r.vpn, tuple(engine.queue_messages(
                router, r.vpn, r.name, from_rgmid=rgmid, limit=MESSAGES_LIMIT)), r.messages_spooled)
            for r in rows))
    exact = vpn_pattern is not None and not has_wildcard(vpn_pattern) and not has_wildcard(queue_pattern)
    if args.get("detail") or exact:
        return QueueDetails(tuple(engine.queue_detail(router, r.vpn, r.name) for r in rows))
    return QueueTable(tuple(rows))


@handler("show.message_spool")
def show_message_spool(ctx: HandlerContext, args: Args) -> MessageSpoolShow:
    spool = ctx.router_engine.message_spool(router_of(ctx), args.get("vpn-name"))
    return MessageSpoolShow(spool, bool(args.get("detail")))
