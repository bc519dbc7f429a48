"""BrokerState: the whole lab in memory, its records by id and the indexes commands need.

Why one container with typed add/remove methods: every service reads and changes the same records,
and the indexes (copies of a queue, entries of a replication stream, deliveries of a message ...)
must stay true whoever changes them. Services therefore never put records into the dictionaries
themselves: ``add`` assigns the id and files the record in every index, ``remove`` takes it out of
all of them. Attribute changes on a record need no call: indexes hold the objects themselves.

Ids grow monotonically per kind (as SQLite rowids do while the highest row stays); dictionaries
keep insertion order, so iterating an index is iterating by id.

Messages, spooled copies, replication-stream entries ('msg' and 'ack') and deliveries are *runs*
(``count`` consecutive messages sharing every field; ``state_store.kernel.runs``): a run takes ``count``
consecutive ids (seqs), so the i-th message of a run has id ``id + i``. The ledger, each queue's
copies and each stream are ``Runs`` in id order; ``split`` cuts a run where part of it is consumed,
drained, locked, deleted or noted (``messages_in``, ``isolate``, ``head``), and the lookups by
message id are interval queries (``MessageRuns.overlapping``, ``message``, ``ledger_spans``).
Messages settled for good leave the ledger with their deliveries for per-VPN totals (``fold``,
chosen by ``state_store.solace.settle``); refusals of one kind are one ``Rejection`` with a count.

Nothing here knows SQL or CLI text: persistence (``state_store.lab_store``) turns the state into rows and
back, renderers in solace_shell turn views into text.
"""

from __future__ import annotations

from bisect import bisect_left, bisect_right
from collections.abc import Iterable, Iterator, Sequence
from typing import TYPE_CHECKING, Any, cast

from ..kernel.ranges import subtract_sorted
from ..kernel.runs import MessageRuns, Runs
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
    SettledMessages,
    Site,
    Spooled,
    Subscription,
    Txn,
    TxnOp,
    Vpn,
)

Record = (Site | Link | Router | HaGroup | Vpn | ReplicatedTopic | Queue | Subscription | Client
          | Message | Spooled | ReplEntry | Delivery | Rejection | Txn | TxnOp | ConfigObject | SettledMessages)

if TYPE_CHECKING:
    from ..lab_root.state import RootState

RunRecord = Message | Spooled | ReplEntry

# record class -> BrokerState attribute holding all records of that kind (also the persistence order:
# a record only refers to kinds listed before it)
KINDS: dict[type, str] = {
    Site: "sites", Link: "links", Router: "routers", HaGroup: "groups", Vpn: "vpns",
    ReplicatedTopic: "replicated_topics", Queue: "queues", Subscription: "subscriptions",
    Client: "clients", Message: "messages", Spooled: "spooled",
    ReplEntry: "repl_entries", Delivery: "deliveries", Rejection: "rejections", Txn: "txns",
    TxnOp: "txn_ops", ConfigObject: "config_objects", SettledMessages: "settled",
}


class StreamRuns(MessageRuns[ReplEntry]):
    """A replication stream in seq order; its 'msg' and 'ack' entries are indexed by message id
    apart (``overlapping(lo, hi, "msg")``): the audit and pruning ask for message entries of a
    stream that may hold many acks."""

    __slots__ = ()

    def part(self, rec: ReplEntry) -> str:
        return rec.kind


class BrokerState:
    """Every record of the replication model: the Solace section of a lab's root state
    (``state_store.lab_root.state.RootState``). The lab's kernel and clock, settings, bookkeeping
    values (pending acks, catch-up marks, XA logs), id counters and work log are the root's own
    objects, referred to here so the services read them as before (the root itself is not: a
    section never refers back to the state holding it, so a closed lab is no cycle)."""

    def __init__(self, root: RootState) -> None:
        self.kernel = root.kernel  # the HA systems' groups, nodes, ledger, and the lab's clock (state_store.kernel)
        self.settings = root.settings  # only values set in the lab; defaults are the engine's
        self.meta = root.meta
        self.next_ids = root.next_ids
        self.work = root.work
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
        # messages, spooled copies and message entries of the streams are runs (``count`` messages
        # each, ``state_store.kernel.runs``): filed by the first id (seq) of the run
        self.ledger: Runs[Message] = Runs()
        self.messages: dict[int, Message] = self.ledger.by_start
        self.spooled: dict[int, Spooled] = {}
        self.repl_entries: dict[int, ReplEntry] = {}  # by seq
        self.deliveries: dict[int, Delivery] = {}
        self.rejections: dict[int, Rejection] = {}
        self.txns: dict[int, Txn] = {}
        self.txn_ops: dict[int, TxnOp] = {}
        self.config_objects: dict[int, ConfigObject] = {}
        self.settled: dict[int, SettledMessages] = {}  # messages folded out of the ledger, per VPN name
        # indexes (kept by add/remove)
        self.site_by_name: dict[str, Site] = {}
        self.router_by_name: dict[str, Router] = {}
        self.vpns_by_router: dict[int, dict[str, Vpn]] = {}
        self.vpns_by_group: dict[int, dict[int, Vpn]] = {}
        self.topics_by_vpn: dict[int, dict[str, ReplicatedTopic]] = {}
        self.queues_by_vpn: dict[int, dict[str, Queue]] = {}
        self.subs_by_queue: dict[int, dict[str, Subscription]] = {}
        self.client_by_name: dict[str, Client] = {}
        self.spooled_by_queue: dict[int, MessageRuns[Spooled]] = {}  # in copy-id order
        self.repl_by_vpn: dict[int, StreamRuns] = {}  # each stream in seq order
        # commit key -> message-id ranges its deliveries cover (a retried commit delivers once)
        self.delivered_by_txn: dict[str, list[tuple[int, int]]] = {}
        self.ops_by_txn: dict[int, dict[int, TxnOp]] = {}
        self.objects_by_router: dict[int, dict[int, ConfigObject]] = {}
        self.settled_by_vpn: dict[str, SettledMessages] = {}
        # (vpn, client, router, topic, reason) -> the one Rejection counting those refusals
        self.rejection_by_key: dict[tuple[str, str, str, str, str], Rejection] = {}

    # ------------------------------------------------------------------ ids

    @property
    def now_ms(self) -> int:
        """The lab's one simulated clock: the kernel's, so the replication model and every HA
        system on the kernel read and move the same time."""
        return self.kernel.now_ms

    @now_ms.setter
    def now_ms(self, value: int) -> None:
        self.kernel.now_ms = value

    def next_id(self, kind: str) -> int:
        """The id the next record of ``kind`` (a KINDS attribute name) will get."""
        return self.next_ids.get(kind, 1)

    def _claim(self, kind: str, rec_id: int, count: int = 1) -> int:
        """The id of a new record (0: the next free one); a run reserves ``count`` ids."""
        nxt = self.next_ids.get(kind, 1)
        if rec_id == 0:
            rec_id = nxt
        if rec_id + count > nxt:
            self.next_ids[kind] = rec_id + count
        return rec_id

    # ------------------------------------------------------------------ add / remove
    def add(self, rec: Record) -> Any:
        """File ``rec`` (id 0 = take the next id; ReplEntry: its ``seq``) in its kind and every
        index; returns it."""
        kind = KINDS[type(rec)]
        if isinstance(rec, ReplEntry):
            rec.seq = self._claim(kind, rec.seq, rec.count)
            self.repl_entries[rec.seq] = rec
            stream = self.repl_by_vpn.get(rec.vpn_id)
            if stream is None:
                stream = self.repl_by_vpn[rec.vpn_id] = StreamRuns()
            stream.add(rec.seq, rec)
            return rec
        if isinstance(rec, Message):
            rec.id = self._claim(kind, rec.id, rec.count)
            self.ledger.add(rec.id, rec)
            return rec
        if isinstance(rec, Spooled):
            rec.id = self._claim(kind, rec.id, rec.count)
            self.spooled[rec.id] = rec
            copies = self.spooled_by_queue.get(rec.queue_id)
            if copies is None:
                copies = self.spooled_by_queue[rec.queue_id] = MessageRuns()
            copies.add(rec.id, rec)
            return rec
        if isinstance(rec, Delivery):
            rec.id = self._claim(kind, rec.id, rec.count)
            self.deliveries[rec.id] = rec
            if rec.txn_key is not None:
                self.delivered_by_txn.setdefault(rec.txn_key, []).append((rec.message_id, rec.message_id + rec.count))
            return rec
        if isinstance(rec, Rejection):
            key = (rec.vpn_name, rec.client_name, rec.router_name, rec.topic, rec.reason)
            same = self.rejection_by_key.get(key)
            if same is not None and same is not rec:  # one record per kind of refusal: add to its count
                same.count += rec.count
                return same
            self.rejection_by_key[key] = rec
        rec.id = self._claim(kind, rec.id)
        getattr(self, kind)[rec.id] = rec
        if isinstance(rec, TxnOp):
            self.ops_by_txn.setdefault(rec.txn_id, {})[rec.id] = rec
        elif isinstance(rec, Queue):
            self.queues_by_vpn.setdefault(rec.vpn_id, {})[rec.name] = rec
        elif isinstance(rec, Subscription):
            self.subs_by_queue.setdefault(rec.queue_id, {})[rec.topic] = rec
        elif isinstance(rec, ReplicatedTopic):
            self.topics_by_vpn.setdefault(rec.vpn_id, {})[rec.topic] = rec
        elif isinstance(rec, Client):
            self.client_by_name.setdefault(rec.name, rec)
        elif isinstance(rec, Vpn):
            self.vpns_by_router.setdefault(rec.router_id, {}).setdefault(rec.name, rec)
            self.vpns_by_group.setdefault(rec.group_id, {})[rec.id] = rec
        elif isinstance(rec, Router):
            self.router_by_name.setdefault(rec.name, rec)
        elif isinstance(rec, Site):
            self.site_by_name.setdefault(rec.name, rec)
        elif isinstance(rec, ConfigObject):
            self.objects_by_router.setdefault(rec.router_id, {})[rec.id] = rec
        elif isinstance(rec, SettledMessages):
            self.settled_by_vpn.setdefault(rec.vpn_name, rec)
        return rec

    def add_run(self, recs: Sequence[Delivery] | Sequence[ReplEntry]) -> None:
        """File deliveries, or entries of ONE stream, each with id 0 (seq 0), under consecutive
        ids from ``next_id(kind)`` in order (a stream entry reserves ``count`` seqs): the same
        effect as ``add`` on each, in one tight loop.

        Why: a consumption records a delivery run and an ack run for each run of copies it takes."""
        if not recs:
            return
        first = recs[0]
        kind = KINDS[type(first)]
        nxt = self.next_ids.get(kind, 1)
        if isinstance(first, Delivery):
            deliveries, by_txn = self.deliveries, self.delivered_by_txn
            i = nxt
            for d in cast("Sequence[Delivery]", recs):
                d.id = i
                deliveries[i] = d
                if d.txn_key is not None:
                    by_txn.setdefault(d.txn_key, []).append((d.message_id, d.message_id + d.count))
                i += d.count
            self.next_ids[kind] = i
            return
        entries = self.repl_entries
        vid = first.vpn_id
        stream = self.repl_by_vpn.get(vid)
        if stream is None:
            stream = self.repl_by_vpn[vid] = StreamRuns()
        seq = nxt
        add = stream.add
        for e in cast("Sequence[ReplEntry]", recs):
            if e.vpn_id != vid:
                raise ValueError("add_run: entries of one stream only")
            e.seq = seq
            entries[seq] = e
            add(seq, e)
            seq += e.count
        self.next_ids[kind] = seq

    def remove_run(self, recs: Sequence[Spooled] | Sequence[ReplEntry]) -> None:
        """Take filed runs of ONE kind out of their kind and every index: the same effect as
        ``remove`` on each, one pass per queue or stream."""
        if not recs:
            return
        if isinstance(recs[0], Spooled):
            spooled, by_queue = self.spooled, self.spooled_by_queue
            per_queue: dict[int, list[int]] = {}
            for sp in cast("Sequence[Spooled]", recs):
                if spooled.get(sp.id) is sp:
                    del spooled[sp.id]
                    per_queue.setdefault(sp.queue_id, []).append(sp.id)
            for qid, ids in per_queue.items():
                runs = by_queue[qid]
                runs.pop_many(ids)
                if not runs:
                    del by_queue[qid]
            return
        entries, by_vpn = self.repl_entries, self.repl_by_vpn
        per_vpn: dict[int, list[int]] = {}
        for e in cast("Sequence[ReplEntry]", recs):
            if entries.get(e.seq) is e:
                del entries[e.seq]
                per_vpn.setdefault(e.vpn_id, []).append(e.seq)
        for vid, seqs in per_vpn.items():
            stream = by_vpn[vid]
            if len(seqs) == len(stream):
                del by_vpn[vid]  # a whole stream drained: drop its index at once
                continue
            stream.pop_many(seqs)
            if not stream:
                del by_vpn[vid]

    def remove(self, rec: Record) -> None:
        """Take ``rec`` out of its kind and every index (a record not filed is ignored)."""
        kind = KINDS[type(rec)]
        if isinstance(rec, Spooled):
            self.remove_run([rec])
            return
        if isinstance(rec, ReplEntry):
            self.remove_run([rec])
            return
        if isinstance(rec, Message):
            self.ledger.pop(rec.id)
            return
        if getattr(self, kind).pop(rec.id, None) is None:
            return
        if isinstance(rec, Delivery):
            if rec.txn_key is not None:
                ranges = self.delivered_by_txn.get(rec.txn_key, [])
                span = (rec.message_id, rec.message_id + rec.count)
                if span in ranges:
                    ranges.remove(span)
                if not ranges:
                    self.delivered_by_txn.pop(rec.txn_key, None)
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
        elif isinstance(rec, ConfigObject):
            _drop(self.objects_by_router, rec.router_id, rec.id)
        elif isinstance(rec, Rejection):
            key = (rec.vpn_name, rec.client_name, rec.router_name, rec.topic, rec.reason)
            if self.rejection_by_key.get(key) is rec:
                del self.rejection_by_key[key]
        elif isinstance(rec, SettledMessages):
            if self.settled_by_vpn.get(rec.vpn_name) is rec:
                del self.settled_by_vpn[rec.vpn_name]
        elif isinstance(rec, (Vpn, Router, Site)):
            raise ValueError(f"{type(rec).__name__} records are never removed; build a new lab")

    def remove_all(self, recs: Iterable[Record]) -> None:
        for rec in list(recs):
            self.remove(rec)

    # ------------------------------------------------------------------ runs
    def split(self, rec: RunRecord, k: int) -> RunRecord:
        """Cut the run ``rec`` after its first ``k`` messages (0 < k < count): ``rec`` keeps them,
        the rest becomes a new run, filed where ``rec`` is; returns it."""
        if isinstance(rec, Message):
            tail_m = rec.split(k)
            self.ledger.add(tail_m.id, tail_m)
            return tail_m
        if isinstance(rec, Spooled):
            tail_s = rec.split(k)
            self.spooled[tail_s.id] = tail_s
            self.spooled_by_queue[tail_s.queue_id].add(tail_s.id, tail_s)  # (the index allows for splits)
            return tail_s
        tail_e = rec.split(k)
        self.repl_entries[tail_e.seq] = tail_e
        self.repl_by_vpn[tail_e.vpn_id].add(tail_e.seq, tail_e)
        return tail_e

    def isolate(self, rec: Spooled | ReplEntry, lo: int, hi: int) -> Spooled | ReplEntry | None:
        """The part of the run ``rec`` holding message ids [lo, hi) as a run of its own (split
        off as needed), or None when it holds none of them."""
        first = rec.message_id
        if first is None:
            return None
        a, b = max(lo, first), min(hi, first + rec.count)
        if b <= a:
            return None
        if a > first:
            rec = cast("Spooled | ReplEntry", self.split(rec, a - first))
        if b < a + rec.count:
            self.split(rec, b - a)
        return rec

    def head(self, rec: Spooled | ReplEntry, k: int) -> None:
        """Let the run ``rec`` hold only its first ``k`` messages (the rest becomes its own run)."""
        if k < rec.count:
            self.split(rec, k)

    def message(self, message_id: int) -> Message:
        """The ledger run holding message ``message_id`` (KeyError when none does)."""
        m = self.ledger.find(message_id)
        if m is None:
            raise KeyError(message_id)
        return m

    def find_message(self, message_id: int) -> Message | None:
        return self.ledger.find(message_id)

    def rgmid(self, message_id: int) -> int:
        m = self.message(message_id)
        return m.rgmid + message_id - m.id

    def messages_in(self, lo: int, hi: int) -> list[Message]:
        """The ledger runs holding exactly the messages of ids [lo, hi) (runs split at lo and
        hi as needed), in id order: for changing the fields of some messages."""
        ledger = self.ledger
        for at in (lo, hi):
            m = ledger.find(at)
            if m is not None and m.id < at:
                self.split(m, at - m.id)
        starts, by_start = ledger.starts, ledger.by_start
        out = []
        i = bisect_left(starts, lo)
        while i < len(starts) and starts[i] < hi:
            out.append(by_start[starts[i]])
            i += 1
        return out

    def ledger_spans(self, lo: int, hi: int) -> Iterator[tuple[int, int, Message]]:
        """(a, b, run) for each ledger run holding ids of [lo, hi), clipped to it, in id order
        (nothing is split: for reading the fields of a range of messages)."""
        ledger = self.ledger
        starts, by_start = ledger.starts, ledger.by_start
        i = max(0, bisect_right(starts, lo) - 1)
        while i < len(starts) and starts[i] < hi:
            m = by_start[starts[i]]
            a, b = max(lo, m.id), min(hi, m.id + m.count)
            if a < b:
                yield a, b, m
            i += 1

    def fold(self, ranges: Sequence[tuple[int, int]]) -> int:
        """Fold the messages of ``ranges`` (message-id ranges, sorted and disjoint, each message in
        the ledger and delivered exactly once: ``state_store.solace.settle`` chooses them) out of the ledger
        into the per-VPN totals (``SettledMessages``), and their deliveries with them (a delivery
        run covering other messages too keeps those, cut into the runs left). Returns how many
        messages were folded."""
        if not ranges:
            return 0
        gone: list[Message] = []
        for a, b in ranges:
            gone.extend(self.messages_in(a, b))
        n = 0
        for m in gone:
            tot = self.settled_by_vpn.get(m.vpn_name)
            if tot is None:
                tot = self.add(SettledMessages(m.vpn_name))
            tot.messages += m.count
            if m.replicated == 0:
                tot.not_replicated += m.count
            n += m.count
        self.ledger.pop_many(m.id for m in gone)
        ends = [b for _, b in ranges]
        kept: dict[int, Delivery] = {}
        cut = False
        for did, d in self.deliveries.items():
            lo, hi = d.message_id, d.message_id + d.count
            k = bisect_right(ends, lo)
            holes = []
            while k < len(ranges) and ranges[k][0] < hi:
                holes.append(ranges[k])
                k += 1
            if not holes:
                kept[did] = d
                continue
            cut = True
            for a, b in subtract_sorted([(lo, hi)], holes):  # the messages it also covers stay, ids kept
                kept[d.id + a - lo] = Delivery(a, d.client_name, d.router_name, d.queue_name, d.at_ms,
                                               d.id + a - lo, d.txn_key, b - a)
        if cut:
            self.deliveries = kept
            by_txn: dict[str, list[tuple[int, int]]] = {}
            for d in kept.values():
                if d.txn_key is not None:
                    by_txn.setdefault(d.txn_key, []).append((d.message_id, d.message_id + d.count))
            self.delivered_by_txn = by_txn
        return n

    def message_count(self) -> int:
        """How many messages were accepted: those the ledger holds and those folded out of it."""
        return self.ledger.total() + sum(s.messages for s in self.settled.values())

    # ------------------------------------------------------------------ reads
    def records(self, kind: str) -> dict[int, Any]:
        """All records of ``kind`` (a KINDS attribute name), by id (runs: by their first id)."""
        result: dict[int, Any] = getattr(self, kind)
        return result


def _drop(index: dict[Any, dict[Any, Any]], key: Any, sub: Any) -> None:
    inner = index.get(key)
    if inner is not None:
        inner.pop(sub, None)
        if not inner:
            del index[key]
