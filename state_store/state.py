"""BrokerState: the whole lab in memory, its records by id and the indexes commands need.

Why one container with typed add/remove methods: every service reads and changes the same records,
and the indexes (copies of a queue, entries of a replication stream, deliveries of a message ...)
must stay true whoever changes them. Services therefore never put records into the dictionaries
themselves: ``add`` assigns the id and files the record in every index, ``remove`` takes it out of
all of them. Attribute changes on a record need no call: indexes hold the objects themselves.

Ids grow monotonically per kind (as SQLite rowids do while the highest row stays); dictionaries
keep insertion order, so iterating an index is iterating by id.

Nothing here knows SQL or CLI text: persistence (``state_store.store``) turns the state into rows and
back, renderers in solace_shell turn views into text.
"""

from __future__ import annotations

import gc
from collections.abc import Iterable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field
from typing import Any, cast

from .core.hacore import HaCore
from .records import (
    Client,
    ConfigObject,
    Delivery,
    HaGroup,
    Link,
    Message,
    Queue,
    Rejection,
    ReplEntry,
    ReplicatedTopic,
    Router,
    Site,
    Spooled,
    Subscription,
    Txn,
    TxnOp,
    User,
    Vpn,
)

Record = (Site | Link | Router | HaGroup | Vpn | ReplicatedTopic | Queue | Subscription | Client | User
          | Message | Spooled | ReplEntry | Delivery | Rejection | Txn | TxnOp | ConfigObject)

# record class -> BrokerState attribute holding all records of that kind (also the persistence order:
# a record only refers to kinds listed before it)
KINDS: dict[type, str] = {
    Site: "sites", Link: "links", Router: "routers", HaGroup: "groups", Vpn: "vpns",
    ReplicatedTopic: "replicated_topics", Queue: "queues", Subscription: "subscriptions",
    Client: "clients", User: "users", Message: "messages", Spooled: "spooled",
    ReplEntry: "repl_entries", Delivery: "deliveries", Rejection: "rejections", Txn: "txns",
    TxnOp: "txn_ops", ConfigObject: "config_objects",
}


@dataclass
class CallRecord:
    """One top-level mutating Engine call made by the current command (see ``state_store.journal``)."""

    name: str
    args: tuple[Any, ...]
    kwargs: dict[str, Any]


@dataclass
class WorkLog:
    """What the current command did to the state, kept for persistence and rollback; never stored.

    ``calls`` are the top-level mutating Engine calls in order (replaying them on the state the
    command started from gives the state it left). ``opaque`` is set when something changed the state
    other than through such calls (the HA core's lab operations change their objects directly):
    then only a full snapshot can record the command."""

    calls: list[CallRecord] = field(default_factory=list)
    depth: int = 0
    opaque: bool = False

    @property
    def changed(self) -> bool:
        return bool(self.calls) or self.opaque

    def clear(self) -> None:
        self.calls.clear()
        self.depth = 0
        self.opaque = False


class BrokerState:
    """Every record of one lab, with the lab clock, settings and bookkeeping values."""

    def __init__(self) -> None:
        self.now_ms = 0
        self.settings: dict[str, str] = {}  # only values set in the lab; defaults are the engine's
        self.meta: dict[str, str] = {}  # bookkeeping keys (pending acks, catch-up marks, XA logs)
        self.next_ids: dict[str, int] = {}
        self.ha_core = HaCore()
        self.work = WorkLog()
        # all records by id, per kind
        self.sites: dict[int, Site] = {}
        self.links: dict[int, Link] = {}
        self.routers: dict[int, Router] = {}
        self.groups: dict[int, HaGroup] = {}
        self.vpns: dict[int, Vpn] = {}
        self.replicated_topics: dict[int, ReplicatedTopic] = {}
        self.queues: dict[int, Queue] = {}
        self.subscriptions: dict[int, Subscription] = {}
        self.clients: dict[int, Client] = {}
        self.users: dict[int, User] = {}
        self.messages: dict[int, Message] = {}
        self.spooled: dict[int, Spooled] = {}
        self.repl_entries: dict[int, ReplEntry] = {}  # by seq
        self.deliveries: dict[int, Delivery] = {}
        self.rejections: dict[int, Rejection] = {}
        self.txns: dict[int, Txn] = {}
        self.txn_ops: dict[int, TxnOp] = {}
        self.config_objects: dict[int, ConfigObject] = {}
        # indexes (kept by add/remove)
        self.site_by_name: dict[str, Site] = {}
        self.router_by_name: dict[str, Router] = {}
        self.vpns_by_router: dict[int, dict[str, Vpn]] = {}
        self.vpns_by_group: dict[int, dict[int, Vpn]] = {}
        self.topics_by_vpn: dict[int, dict[str, ReplicatedTopic]] = {}
        self.queues_by_vpn: dict[int, dict[str, Queue]] = {}
        self.subs_by_queue: dict[int, dict[str, Subscription]] = {}
        self.client_by_name: dict[str, Client] = {}
        self.user_by_name: dict[str, User] = {}
        self.spooled_by_queue: dict[int, dict[int, Spooled]] = {}
        self.spooled_by_message: dict[int, dict[int, Spooled]] = {}
        self.repl_by_vpn: dict[int, dict[int, ReplEntry]] = {}
        # stream entries that name a message (any kind), by message id then seq
        self.repl_by_message: dict[int, dict[int, ReplEntry]] = {}
        self.deliveries_by_message: dict[int, list[Delivery]] = {}
        self.ops_by_txn: dict[int, dict[int, TxnOp]] = {}
        self.objects_by_router: dict[int, dict[int, ConfigObject]] = {}

    # ------------------------------------------------------------------ ids
    def next_id(self, kind: str) -> int:
        """The id the next record of ``kind`` (a KINDS attribute name) will get."""
        return self.next_ids.get(kind, 1)

    def _claim(self, kind: str, rec_id: int) -> int:
        nxt = self.next_ids.get(kind, 1)
        if rec_id == 0:
            rec_id = nxt
        if rec_id >= nxt:
            self.next_ids[kind] = rec_id + 1
        return rec_id

    # ------------------------------------------------------------------ add / remove
    def add(self, rec: Record) -> Any:
        """File ``rec`` (id 0 = take the next id; ReplEntry: its ``seq``) in its kind and every
        index; returns it."""
        kind = KINDS[type(rec)]
        if isinstance(rec, ReplEntry):
            rec.seq = self._claim(kind, rec.seq)
            self.repl_entries[rec.seq] = rec
            self.repl_by_vpn.setdefault(rec.vpn_id, {})[rec.seq] = rec
            if rec.message_id is not None:
                self.repl_by_message.setdefault(rec.message_id, {})[rec.seq] = rec
            return rec
        rec.id = self._claim(kind, rec.id)
        getattr(self, kind)[rec.id] = rec
        if isinstance(rec, Spooled):
            self.spooled_by_queue.setdefault(rec.queue_id, {})[rec.id] = rec
            self.spooled_by_message.setdefault(rec.message_id, {})[rec.id] = rec
        elif isinstance(rec, Delivery):
            self.deliveries_by_message.setdefault(rec.message_id, []).append(rec)
        elif isinstance(rec, TxnOp):
            self.ops_by_txn.setdefault(rec.txn_id, {})[rec.id] = rec
        elif isinstance(rec, Queue):
            self.queues_by_vpn.setdefault(rec.vpn_id, {})[rec.name] = rec
        elif isinstance(rec, Subscription):
            self.subs_by_queue.setdefault(rec.queue_id, {})[rec.topic] = rec
        elif isinstance(rec, ReplicatedTopic):
            self.topics_by_vpn.setdefault(rec.vpn_id, {})[rec.topic] = rec
        elif isinstance(rec, Client):
            self.client_by_name.setdefault(rec.name, rec)
        elif isinstance(rec, User):
            self.user_by_name.setdefault(rec.name, rec)
        elif isinstance(rec, Vpn):
            self.vpns_by_router.setdefault(rec.router_id, {}).setdefault(rec.name, rec)
            self.vpns_by_group.setdefault(rec.group_id, {})[rec.id] = rec
        elif isinstance(rec, Router):
            self.router_by_name.setdefault(rec.name, rec)
        elif isinstance(rec, Site):
            self.site_by_name.setdefault(rec.name, rec)
        elif isinstance(rec, ConfigObject):
            self.objects_by_router.setdefault(rec.router_id, {})[rec.id] = rec
        return rec

    def add_run(self, recs: Sequence[Message] | Sequence[Spooled] | Sequence[ReplEntry] | Sequence[Delivery]
                ) -> None:
        """File records of ONE kind, each with id 0 (ReplEntry: seq 0), under consecutive ids from
        ``next_id(kind)`` in order: the same effect as ``add`` on each, in one tight loop per kind.

        Why: a publish of a million messages files three million records; callers may predict the
        ids (``next_id`` .. ``next_id + len - 1``) to link copies to their messages before filing."""
        if not recs:
            return
        first = recs[0]
        kind = KINDS[type(first)]
        nxt = self.next_ids.get(kind, 1)
        if isinstance(first, Message):
            messages = self.messages
            for i, m in enumerate(cast("Sequence[Message]", recs), nxt):
                m.id = i
                messages[i] = m
        elif isinstance(first, Spooled):
            spooled, by_queue, by_message = self.spooled, self.spooled_by_queue, self.spooled_by_message
            qid = first.queue_id  # a run is usually one queue's copies: its index dict looked up once
            queue_index = by_queue.setdefault(qid, {})
            for i, sp in enumerate(cast("Sequence[Spooled]", recs), nxt):
                sp.id = i
                spooled[i] = sp
                if sp.queue_id == qid:
                    queue_index[i] = sp
                else:
                    by_queue.setdefault(sp.queue_id, {})[i] = sp
                by_message.setdefault(sp.message_id, {})[i] = sp
        elif isinstance(first, Delivery):
            deliveries, by_message_d = self.deliveries, self.deliveries_by_message
            for i, d in enumerate(cast("Sequence[Delivery]", recs), nxt):
                d.id = i
                deliveries[i] = d
                by_message_d.setdefault(d.message_id, []).append(d)
        else:
            entries, by_vpn, by_msg = self.repl_entries, self.repl_by_vpn, self.repl_by_message
            vid = first.vpn_id  # a run is one stream's entries: looked up once
            stream = by_vpn.setdefault(vid, {})
            for i, e in enumerate(cast("Sequence[ReplEntry]", recs), nxt):
                e.seq = i
                entries[i] = e
                if e.vpn_id == vid:
                    stream[i] = e
                else:
                    by_vpn.setdefault(e.vpn_id, {})[i] = e
                if e.message_id is not None:
                    by_msg.setdefault(e.message_id, {})[i] = e
        self.next_ids[kind] = nxt + len(recs)

    def remove_run(self, recs: Sequence[Spooled] | Sequence[ReplEntry]) -> None:
        """Take filed records of ONE kind out of their kind and every index: the same effect as
        ``remove`` on each, in one tight loop (a consume or delete of a million copies)."""
        if not recs:
            return
        if isinstance(recs[0], Spooled):
            spooled, by_queue, by_message = self.spooled, self.spooled_by_queue, self.spooled_by_message
            for sp in cast("Sequence[Spooled]", recs):
                if spooled.pop(sp.id, None) is None:
                    continue
                _drop(by_queue, sp.queue_id, sp.id)
                _drop(by_message, sp.message_id, sp.id)
        else:
            entries, by_vpn, by_msg = self.repl_entries, self.repl_by_vpn, self.repl_by_message
            run = cast("Sequence[ReplEntry]", recs)
            stream = by_vpn.get(run[0].vpn_id)
            if stream is not None and len(stream) == len(run) and all(stream.get(e.seq) is e for e in run):
                del by_vpn[run[0].vpn_id]  # a whole stream drained: drop its index at once
                for e in run:
                    del entries[e.seq]
                    if e.message_id is not None:
                        _drop(by_msg, e.message_id, e.seq)
                return
            for e in run:
                if entries.pop(e.seq, None) is None:
                    continue
                _drop(by_vpn, e.vpn_id, e.seq)
                if e.message_id is not None:
                    _drop(by_msg, e.message_id, e.seq)

    def remove(self, rec: Record) -> None:
        """Take ``rec`` out of its kind and every index (a record not filed is ignored)."""
        kind = KINDS[type(rec)]
        if isinstance(rec, ReplEntry):
            if self.repl_entries.pop(rec.seq, None) is not None:
                _drop(self.repl_by_vpn, rec.vpn_id, rec.seq)
                if rec.message_id is not None:
                    _drop(self.repl_by_message, rec.message_id, rec.seq)
            return
        if getattr(self, kind).pop(rec.id, None) is None:
            return
        if isinstance(rec, Spooled):
            _drop(self.spooled_by_queue, rec.queue_id, rec.id)
            _drop(self.spooled_by_message, rec.message_id, rec.id)
        elif isinstance(rec, Delivery):
            rows = self.deliveries_by_message.get(rec.message_id, [])
            if rec in rows:
                rows.remove(rec)
            if not rows:
                self.deliveries_by_message.pop(rec.message_id, None)
        elif isinstance(rec, TxnOp):
            _drop(self.ops_by_txn, rec.txn_id, rec.id)
        elif isinstance(rec, Queue):
            _drop(self.queues_by_vpn, rec.vpn_id, rec.name)
            self.subs_by_queue.pop(rec.id, None)
        elif isinstance(rec, Subscription):
            _drop(self.subs_by_queue, rec.queue_id, rec.topic)
        elif isinstance(rec, ReplicatedTopic):
            _drop(self.topics_by_vpn, rec.vpn_id, rec.topic)
        elif isinstance(rec, Client):
            if self.client_by_name.get(rec.name) is rec:
                del self.client_by_name[rec.name]
        elif isinstance(rec, User):
            if self.user_by_name.get(rec.name) is rec:
                del self.user_by_name[rec.name]
        elif isinstance(rec, ConfigObject):
            _drop(self.objects_by_router, rec.router_id, rec.id)
        elif isinstance(rec, (Vpn, Router, Site)):
            raise ValueError(f"{type(rec).__name__} records are never removed; build a new lab")

    def remove_all(self, recs: Iterable[Record]) -> None:
        for rec in list(recs):
            self.remove(rec)

    # ------------------------------------------------------------------ reads
    def records(self, kind: str) -> dict[int, Any]:
        """All records of ``kind`` (a KINDS attribute name), by id."""
        result: dict[int, Any] = getattr(self, kind)
        return result


@contextmanager
def bulk() -> Iterator[None]:
    """Pause the cyclic garbage collector while a bulk path creates or drops many records.

    Why: records are acyclic, but each one allocated counts towards a collection; creating a
    million of them triggers thousands of collections, each walking the ever larger older
    generations, which costs three times the allocation itself. Reference counting frees them as
    usual; the collector runs again afterwards."""
    if not gc.isenabled():
        yield
        return
    gc.disable()
    try:
        yield
    finally:
        gc.enable()


def _drop(index: dict[Any, dict[Any, Any]], key: Any, sub: Any) -> None:
    inner = index.get(key)
    if inner is not None:
        inner.pop(sub, None)
        if not inner:
            del index[key]
