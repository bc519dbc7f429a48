"""Publishing, consuming, queues and the message spool.

Why runs: ``publish(client, topic, count=1_000_000)`` and the consumption or deletion of a million
copies must cost what one message costs. A publish files one ledger run per stretch of messages that
share every field, one run of copies per matching queue and one run on the replication stream
(``state_store.kernel.runs``); a consumption records one delivery run and one ack run per run of copies it
takes, cutting a run only where an operation stops inside it. Counters on the queues move by the
totals, so shows read counters and never count records.

Rules:
- every accepted message gets the next replication-group message ID of its VPN's group (also on
  non-replicated topics: the ID keys the audit), the next router-local message ID, and a ledger
  record; it is spooled to each local queue whose subscription matches and whose ingress is up;
  with no such queue it is recorded with note "no matching queue";
- spool quotas (issue 15 item 3), decided by ``state_store.solace.quotas.plan_publish`` (the rules and
  their sources are in its docstring): the router's message spool, then the Message VPN's
  ``max_spool_mb``, then each queue: a full queue with reject-msg-to-sender-on-discard on refuses
  the message to the sender (stored on no queue), off discards it on that queue only; the
  replication queue's reject-msg-to-sender-on-discard refuses (on) or leaves unreplicated (off) what
  it cannot take. Refusals are in ``reject_reason`` and counted (a Rejection record), NOT
  exceptions, so the counts persist. A message that every matching queue discarded gets the ledger
  note "spool over quota";
- on a replication-active VPN with replication enabled, a message on a replicated topic is put on
  the replication stream; sync topics: when eligible the stream is drained to the standby at once
  (synchronous); when ineligible they are queued as async, or rejected
  (publish_rejected_sync_ineligible) if reject-msg-when-sync-ineligible is on;
- consumption records a delivery per copy and propagates acks (see ``consume_selected``).
- New queues are created shut down (as on a real broker): `no shutdown` them before use.
"""

from __future__ import annotations

import json
from collections.abc import Iterable
from contextlib import AbstractContextManager, nullcontext
from typing import Any, cast

from ..errors import EngineError
from ..kernel.ranges import normalize, subtract_sorted
from ..lab_root.bulk import bulk
from . import leaves
from .lookups import MB, REPL_QUEUE
from .quotas import REPL_QUEUE_FULL, Room, plan_publish
from .records import Delivery, Message, Queue, Rejection, ReplEntry, Router, Spooled, Subscription, TxnOp, Vpn
from .service import Service
from .settle import fold_if_due
from .topics import has_wildcard, name_matches, topic_matches
from .views import ConsumeResult, MessageSpool, PublishResult, QueueDetail, QueueMessage, QueueRow

_BAD_QUEUE_CHARS = set("'<>*?&;")
QUEUE_OPTIONS = leaves.of("queue")  # the queue's settings (grammar/data/leaves.yaml)
# The Message VPN's spool quota (its declaration says why the lab's default is not the broker's).
VPN_MAX_SPOOL = leaves.leaf("message-spool", "max-spool-usage")
CONSUMED_RGMIDS_SHOWN = 1000  # ConsumeResult.rgmids holds the first this many
CONSUMED_RANGES_SHOWN = 100  # ConsumeResult.rgmid_ranges holds the first this many
# Runs of at least this many records are made with the cyclic collector paused (state.bulk): below
# it, re-enabling the collector makes the next allocation pay the deferred collection, which costs
# a small publish more than it saves.
BULK_RUN = 10_000


def _bulk_for(n: int) -> AbstractContextManager[None]:
    return bulk() if n >= BULK_RUN else nullcontext()


def _check_publish_topic(topic: str) -> None:
    """A concrete topic: 1..250 characters, no empty level, no wildcard level."""
    if not topic or len(topic) > 250:
        raise EngineError("invalid_topic", topic=topic)
    for lv in topic.split("/"):
        if lv == "" or lv == ">" or lv.endswith("*"):
            raise EngineError("invalid_topic", topic=topic)


class MessagingService(Service):
    # ------------------------------------------------------------------ publish
    def publish(self, client: str, topic: str, count: int = 1, size: int | None = None) -> PublishResult:
        """Publish ``count`` guaranteed messages of ``size`` bytes on ``topic`` from ``client``.

        Refusals (EngineError): client_not_found, client_not_connected, publish_rejected_standby
        (its only reachable hosts hold the VPN in standby), invalid_topic, invalid_value.
        Partial rejections (spool full, repl queue full, sync ineligible) are in the result, not
        raised."""
        if count < 1:
            raise EngineError("invalid_value", name="count", value=count, allowed=">= 1")
        size = self.lk.int_setting("default_message_size") if size is None else size
        if size < 1:
            raise EngineError("invalid_value", name="size", value=size, allowed=">= 1")
        _check_publish_topic(topic)
        c, v, r = self.sv.clients.connected_client(client)
        t = self.sv.transactions.open_txn(c)
        if t is not None:
            self.st.add(TxnOp(txn_id=t.id, op="publish", topic=topic, count=count, size=size))
            return PublishResult(client=c.name, router=self.lk.shown_name(r), vpn=v.name, topic=topic,
                                 requested=count, accepted=count, rejected=0, replicated=0,
                                 not_replicated=0, queues=(), first_rgmid=None, last_rgmid=None,
                                 transacted=True)
        return self.publish_now(v, r, c.name, topic, count, size)

    def publish_now(self, v: Vpn, r: Router, client_name: str, topic: str, count: int,
                    size: int) -> PublishResult:
        """Spool ``count`` messages now (a plain publish, or a transaction's publish at commit)."""
        st, lk, rep = self.st, self.lk, self.sv.replication
        mode = rep.replication_mode(v, topic) if (v.repl_enabled and v.role == "active") else None
        queues = rep.matching_queues(v, topic)
        # the spool quotas and the replication rules decide how much goes in (state_store.solace.quotas)
        fit = 0  # messages that go on the replication stream
        eligible = False
        sync_rejected = False
        repl: Room | None = None
        reason: str | None
        if mode is not None:
            eligible = bool(rep.sync_eligible(v))
            if mode == "sync" and not eligible and v.reject_sync_ineligible:
                sync_rejected = True
            else:
                rq = lk.repl_queue(v)
                repl = Room(v.rq_max_spool_mb * MB - (rq.bytes if rq else 0), v.rq_reject_on_discard)
        if sync_rejected:
            accepted, rejected, reason = 0, count, "publish_rejected_sync_ineligible"
            qfit = [min(count, max(0, q.max_spool_mb * MB - q.bytes) // size) for q in queues]
            kept = [0 for _ in queues]
            v.st_rejected_sync += count
        else:
            plan = plan_publish(
                count, size, router_room=r.max_spool_mb * MB - lk.router_spool_bytes(r),
                vpn_room=v.max_spool_mb * MB - lk.vpn_spool_bytes(v),
                queues=[Room(q.max_spool_mb * MB - q.bytes, q.reject_on_discard) for q in queues],
                repl=repl, shut_rejecting=self._shut_rejecting(v, topic))
            accepted, reason, fit = plan.accepted, plan.reason, plan.replicated
            rejected = count - accepted
            qfit, kept = list(plan.fits), list(plan.kept)
            if reason == REPL_QUEUE_FULL:
                v.st_rejected_full += rejected
        if mode is not None and not sync_rejected and fit < accepted:
            v.st_not_replicated += accepted - fit
        now = lk.now_ms()
        if rejected:
            st.add(Rejection(vpn_name=v.name, client_name=client_name, router_name=r.name,
                             topic=topic, count=rejected, reason=reason or "", at_ms=now))
        first = last = None
        if accepted:
            group = lk.group(v)
            rg = group.next_rgmid
            group.next_rgmid = rg + accepted
            mbase = r.next_msg_id
            r.next_msg_id = mbase + accepted
            first, last = rg, rg + accepted - 1
            base = st.next_id("messages")
            reached = max(kept, default=0)  # messages j < reached are on at least one queue
            self._add_messages(v, r, client_name, topic, size, now, rg, accepted, mode is not None, fit,
                               reached, "no matching queue" if not queues else "spool over quota")
            add = st.add
            for q, n in zip(queues, kept, strict=True):
                if n:  # one run: copies of messages base .. base + n - 1
                    add(Spooled(q.id, base, mbase, now, size, count=n))
            if fit:
                add(ReplEntry(v.id, "msg", 0, base, mbase, topic, size, None, None, now, count=fit))
            assert st.next_id("messages") == base + accepted  # the copies name the ids assumed
            grown = [(q, n, n * size) for q, n in zip(queues, kept, strict=True) if n]
            if fit:
                rq = lk.repl_queue(v)
                if rq is not None:
                    grown.append((rq, fit, fit * size))
            lk.grow_queues(grown)
            if fit:
                if mode == "sync":
                    if eligible:
                        v.st_sync_queued += fit
                    else:
                        v.st_sync_as_async += fit
                else:
                    v.st_async_queued += fit
            if mode == "sync" and eligible and fit:
                rep.drain(v)
        fold_if_due(st)  # the ledger's settled past, folded now and then (state_store.solace.settle)
        return PublishResult(
            client=client_name, router=self.lk.shown_name(r), vpn=v.name, topic=topic, requested=count,
            accepted=accepted, rejected=rejected, replicated=fit,
            not_replicated=(accepted - fit) if mode is not None else 0,
            # the matching queues with room for it (all of them, as before quotas, when none is full)
            queues=tuple(sorted(q.name for q, n in zip(queues, qfit, strict=True) if n)),
            first_rgmid=first, last_rgmid=last, transacted=False, reject_reason=reason)

    def _add_messages(self, v: Vpn, r: Router, client_name: str, topic: str, size: int, now: int,
                      rg: int, n: int, replicated_topic: bool, fit: int, reached: int,
                      lost_note: str) -> None:
        """The ledger records of ``n`` accepted messages (ids from next_id, in order): the first
        ``fit`` replicated, those from ``reached`` on stored on no queue (``lost_note``)."""
        gid, vname, rname = v.group_id, v.name, r.name
        if reached >= n and (fit <= 0 or fit >= n):  # the usual case: one run, as the cuts below give
            repl1 = (1 if fit > 0 else 0) if replicated_topic else None
            self.st.add(Message(gid, vname, rg, topic, size, client_name, rname, now, 0, repl1, None, n))
            return
        # (start, end, replicated, note) runs: the fields are constant within each run
        cuts = sorted({0, n, min(fit, n), min(reached, n)})
        for a, b in zip(cuts, cuts[1:], strict=False):
            repl = (1 if a < fit else 0) if replicated_topic else None
            note = None if a < reached else lost_note
            self.st.add(Message(gid, vname, rg + a, topic, size, client_name, rname, now, 0, repl, note, b - a))

    # ------------------------------------------------------------------ consume
    def consume(self, client: str, queue: str, count: int = 1) -> ConsumeResult:
        """Consume (and acknowledge) up to ``count`` of the oldest messages of ``queue`` in the
        client's VPN on the router it is connected to. Inside an open transaction the messages
        are locked instead, and acknowledged on commit."""
        if count < 1:
            raise EngineError("invalid_value", name="count", value=count, allowed=">= 1")
        c, v, r = self.sv.clients.connection(client)
        q = self.lk.queue(v, queue)
        if q.kind != "normal":
            raise EngineError("queue_reserved", queue=queue)
        if not q.egress_up:
            raise EngineError("queue_egress_down", queue=queue, vpn=v.name)
        self.sv.clients.connect(c, r)  # the refusals above are decided before anything changes
        st = self.st
        copies: list[Spooled] = []  # whole runs, the last one cut to the count asked
        taken = 0
        runs = st.spooled_by_queue.get(q.id)
        if runs is not None:
            for sp in runs:
                if sp.txn_id is None:
                    copies.append(sp)
                    taken += sp.count
                    if taken >= count:
                        break
        if taken > count:
            st.head(copies[-1], copies[-1].count - (taken - count))
            taken = count
        t = self.sv.transactions.open_txn(c)
        # read before consuming: consumed messages may be folded out of the ledger (settle)
        rgmids = self._rgmids(copies, CONSUMED_RGMIDS_SHOWN)
        rgmid_ranges = self._rgmid_ranges(copies, CONSUMED_RANGES_SHOWN)
        if copies:
            if t is not None:
                for sp in copies:  # one operation per run of copies locked
                    st.add(TxnOp(txn_id=t.id, op="consume", count=sp.count, size=sp.size, message_id=sp.message_id,
                                 msg_id=sp.msg_id, queue_name=q.name))
                    sp.txn_id = t.id
            else:
                self.consume_selected(v, r, c.name, copies, None)
        return ConsumeResult(client=c.name, router=self.lk.shown_name(r), vpn=v.name, queue=q.name, requested=count,
                             consumed=taken, rgmids=rgmids, transacted=t is not None, rgmid_ranges=rgmid_ranges)

    def _rgmid_ranges(self, copies: list[Spooled], limit: int) -> tuple[tuple[int, int], ...]:
        """The replication-group message IDs of ``copies``, in the order consumed, as the first
        ``limit`` ranges of consecutive IDs, (first, last) each: one ledger lookup per run,
        whatever its length. The ranges depend on the IDs alone, not on how the copies and the
        ledger cut them into runs. Read before the copies are consumed (their ledger runs may be
        folded away then); a message with no ledger run raises KeyError, as ``st.rgmid`` does."""
        st = self.st
        out: list[tuple[int, int]] = []
        for sp in copies:
            at, hi = sp.message_id, sp.message_id + sp.count
            for a, b, m in st.ledger_spans(at, hi):
                if a != at:
                    break
                first, last = m.rgmid + a - m.id, m.rgmid + b - 1 - m.id
                if out and out[-1][1] + 1 == first:
                    out[-1] = (out[-1][0], last)
                elif len(out) < limit:
                    out.append((first, last))
                else:
                    return tuple(out)
                at = b
            if at != hi:
                st.rgmid(at)  # the KeyError of the first message the ledger does not hold
        return tuple(out)

    def _rgmids(self, copies: list[Spooled], limit: int) -> tuple[int, ...]:
        """The replication-group message IDs of the first ``limit`` messages of ``copies``: one
        ledger lookup per run of messages, not per message (a message is its run's rgmid plus
        its offset). A message with no ledger run raises KeyError, as ``st.rgmid`` does."""
        st = self.st
        out: list[int] = []
        for sp in copies:
            want = min(sp.count, limit - len(out))
            lo, hi = sp.message_id, sp.message_id + want
            at = lo
            for a, b, m in st.ledger_spans(lo, hi):
                if a != at:
                    break
                base = m.rgmid - m.id
                out.extend(range(a + base, b + base))
                at = b
            if at != hi:
                st.rgmid(at)  # the KeyError of the first message the ledger does not hold
            if len(out) >= limit:
                break
        return tuple(out)

    # ------------------------------------------------------------------ ack propagation
    # Rule (issue 13 item 6; Solace docs "Configuring ACK Propagation Intervals"): the active
    # VPN sends the acks of consumed messages to its standby in batches of `ack-propagation
    # interval messages N`; acks short of a batch wait (meta ``ack-pending:<vpn id>``) until the
    # batch fills or the one-second timer fires (each whole second of the simulated clock,
    # ``ack_timer``). A failover before they leave makes the standby deliver those messages
    # again: up to N-1 duplicates. With ack propagation shut down nothing is sent at all.
    @staticmethod
    def _pending_key(v: Vpn) -> str:
        return f"ack-pending:{v.id}"

    def take_pending_acks(self, v: Vpn) -> int:
        """Put v's waiting acks back on its stream (in order, after what is there); count them."""
        value = self.st.meta.pop(self._pending_key(v), None)
        if value is None:
            return 0
        waiting = json.loads(value)
        n = 0
        for message_id, msg_id, queue_name, queued_ms, *rest in waiting:
            count = rest[0] if rest else 1  # [.., count] since acks are runs
            self.st.add(ReplEntry(vpn_id=v.id, kind="ack", message_id=message_id, msg_id=msg_id,
                                  queue_name=queue_name, size=0, queued_ms=queued_ms, count=count))
            n += count
        return n

    def _hold_pending_acks(self, v: Vpn, keep: int) -> None:
        """Take the last ``keep`` acks off v's stream: they wait for the next batch or tick."""
        held: list[ReplEntry] = []
        stream = self.st.repl_by_vpn.get(v.id)
        need = keep
        for e in reversed(stream) if stream is not None else ():
            if e.kind == "ack":
                held.append(e)
                need -= e.count
                if need <= 0:
                    break
        if need < 0:  # of the earliest run taken, only its last acks wait
            held[-1] = cast("ReplEntry", self.st.split(held[-1], -need))
        held.reverse()
        self.st.remove_run(held)
        self.st.meta[self._pending_key(v)] = json.dumps(
            [[e.message_id, e.msg_id, e.queue_name, e.queued_ms, e.count] for e in held])

    def ack_timer(self, start_ms: int, end_ms: int) -> None:
        """The one-second ack propagation timer: when the clock passes a whole second, every
        replication-enabled VPN on an up router with ack propagation on sends its waiting acks."""
        if end_ms // 1000 == start_ms // 1000:
            return
        for v in self.lk.user_vpns():
            if v.repl_enabled and v.ack_prop_enabled and self.lk.router_of(v).up:
                v.st_acks_sent += self.take_pending_acks(v)

    def drop_pending_acks(self, v: Vpn) -> None:
        self.st.meta.pop(self._pending_key(v), None)

    def _in_split_brain(self, v: Vpn) -> bool:
        """True while v's replication group has the VPN active on more than one up router:
        what is delivered then is marked "split brain" for the audit (issue 13 item 8)."""
        active = 0
        for m in self.lk.group_members(v):  # (a loop: every consumption asks)
            if m.repl_enabled and m.role == "active" and self.lk.router_of(m).up:
                active += 1
        return active > 1

    def consume_selected(self, v: Vpn, r: Router, client_name: str, copies: list[Spooled],
                         txn_key: str | None) -> int:
        """Acknowledge ``copies`` (all in VPN ``v`` on ``r``, in id order): deliveries, ack
        propagation, removal. Ack propagation (active VPN, replication enabled, ack-propagation
        on): a consumed message still waiting on the replication queue with no other local copy
        is pruned from it ("Pruned Locally Consumed Messages"); every other consumed copy of a
        replicated message gets an 'ack' entry on the stream, applied in order by the standby.
        With ack propagation shut down nothing is sent: the standby keeps the messages.
        Returns how many copies were removed."""
        with _bulk_for(len(copies)):
            n = self._consume_copies(v, r, client_name, copies, txn_key)
        fold_if_due(self.st)  # the ledger's settled past, folded now and then (state_store.solace.settle)
        return n

    def _consume_copies(self, v: Vpn, r: Router, client_name: str, copies: list[Spooled],
                        txn_key: str | None) -> int:
        st, lk = self.st, self.lk
        now = lk.now_ms()
        queues = st.queues
        # a commit's deliveries are recorded once per message and transaction (a retried commit)
        acked_before = normalize(st.delivered_by_txn.get(txn_key, ())) if txn_key else []
        rname = r.name
        deliveries: list[Delivery] = []
        for sp in copies:
            qname = queues[sp.queue_id].name
            span = [(sp.message_id, sp.message_id + sp.count)]
            for a, b in subtract_sorted(span, acked_before) if acked_before else span:
                deliveries.append(Delivery(a, client_name, rname, qname, now, 0, txn_key, b - a))
        st.add_run(deliveries)
        if self._in_split_brain(v):
            for a, b in normalize((sp.message_id, sp.message_id + sp.count) for sp in copies):
                for m in st.messages_in(a, b):
                    if m.note is None:
                        m.note = "split brain"
                    elif "split brain" not in m.note:
                        m.note += "; split brain"
        if v.repl_enabled and v.role == "active" and v.ack_prop_enabled:
            pruned = self._prune_consumed(v, copies)
            pending = self.take_pending_acks(v)
            vid = v.id
            acks: list[ReplEntry] = []
            for sp in copies:
                qname = queues[sp.queue_id].name
                first, last = sp.message_id, sp.message_id + sp.count
                replicated = [(a, b) for a, b, m in st.ledger_spans(first, last) if m.replicated == 1]
                for a, b in subtract_sorted(replicated, pruned) if pruned else replicated:
                    acks.append(ReplEntry(vid, "ack", 0, a, sp.msg_id + a - first, None, 0, qname, None, now, b - a))
            st.add_run(acks)
            total = pending + sum(e.count for e in acks)
            keep = total % max(1, v.ack_interval)
            if keep:
                self._hold_pending_acks(v, keep)
            v.st_acks_sent += total - keep
        totals: dict[int, list[int]] = {}
        for sp in copies:
            tot = totals.get(sp.queue_id)
            if tot is None:
                totals[sp.queue_id] = [sp.count, sp.count * sp.size]
            else:
                tot[0] += sp.count
                tot[1] += sp.count * sp.size
        for qid, (cnt, nbytes) in totals.items():
            lk.adjust_queue(queues[qid], -cnt, -nbytes)
        filed = st.spooled
        gone = [sp for sp in copies if filed.get(sp.id) is sp]
        st.remove_run(gone)
        return sum(sp.count for sp in gone)

    def _prune_consumed(self, v: Vpn, copies: list[Spooled]) -> list[tuple[int, int]]:
        """Drop from v's stream the consumed messages that have no other copy in v (every entry
        about them goes); returns their message ids as merged ranges."""
        st = self.st
        stream = st.repl_by_vpn.get(v.id)
        if not stream:
            return []
        consumed = normalize((sp.message_id, sp.message_id + sp.count) for sp in copies)
        # the consumed messages with a 'msg' entry in v's stream, with the size of the first such entry
        covered: list[tuple[int, int]] = []
        sized: list[tuple[int, int, int]] = []
        for a, b in consumed:
            for e in stream.overlapping(a, b, "msg"):
                if e.message_id is None:
                    continue
                piece = [(max(a, e.message_id), min(b, e.message_id + e.count))]
                for x, y in subtract_sorted(piece, covered) if covered else piece:
                    sized.append((x, y, e.size))
                covered = normalize([*covered, *piece])
        if not sized:
            return []
        # ... minus those with a copy in v that is not consumed now
        selected = {id(sp) for sp in copies}
        runs_of_v = [runs for q in st.queues_by_vpn.get(v.id, {}).values()
                     if (runs := st.spooled_by_queue.get(q.id)) is not None]  # (any order: merged below)
        blocked: list[tuple[int, int]] = []
        for a, b in covered:
            for runs in runs_of_v:
                for s2 in runs.overlapping(a, b):
                    if id(s2) not in selected:
                        blocked.append((max(a, s2.message_id), min(b, s2.message_id + s2.count)))
        blocked = normalize(blocked)
        pruned = subtract_sorted(covered, blocked) if blocked else covered
        if not pruned:
            return []
        n = nbytes = 0
        for x, y, size in sized:
            for a, b in subtract_sorted([(x, y)], blocked) if blocked else [(x, y)]:
                n += b - a
                nbytes += (b - a) * size
        gone: list[ReplEntry] = []
        for a, b in pruned:
            for e in stream.overlapping(a, b):
                part = st.isolate(e, a, b)
                if part is not None:
                    gone.append(cast("ReplEntry", part))
        st.remove_run(gone)
        v.st_pruned += n
        rq = self.lk.repl_queue(v)
        if rq is not None:
            self.lk.adjust_queue(rq, -n, -nbytes)
        return pruned

    # ------------------------------------------------------------------ queue views
    def _queue_visible(self, v: Vpn, q: Queue) -> bool:
        if q.kind == "replication":
            return v.repl_enabled or q.msg_count > 0 or self.lk.has_entries(v)
        return True

    def _queue_list(self, router: str, vpn_pattern: str | None,
                    queue_pattern: str | None) -> list[tuple[Vpn, Queue]]:
        r = self.lk.router(router, must_be_up=True)
        out = []
        for v in self.sv.replication.wildcard_vpns(r, vpn_pattern):
            for q in self.lk.queues_of(v):
                if name_matches(queue_pattern, q.name) and self._queue_visible(v, q):
                    out.append((v, q))
        if not out and queue_pattern is not None and not has_wildcard(queue_pattern):
            raise EngineError("queue_not_found", queue=queue_pattern, vpn=vpn_pattern or "*")
        out.sort(key=lambda vq: (vq[1].name, vq[0].name))
        return out

    def _bind_count(self, v: Vpn, q: Queue) -> int:
        if q.kind == "replication":
            return 1 if self.lk.binding(v) is not None else 0
        if q.kind == "telemetry":
            return self.sv.config.managed_queue_bind_count(v, q)
        return 0

    def queues(self, router: str, vpn_pattern: str | None = "*",
               queue_pattern: str | None = "*") -> list[QueueRow]:
        """`show queue <q> message-vpn <v>` summary rows (sorted by queue name, then VPN)."""
        return [
            QueueRow(
                name=q.name, vpn=v.name, messages_spooled=q.msg_count, usage_mb=q.bytes / MB,
                hwm_mb=q.hwm_bytes / MB, bind_count=self._bind_count(v, q), ingress_up=q.ingress_up,
                egress_up=q.egress_up, access_type=q.access_type, durable=q.durable)
            for v, q in self._queue_list(router, vpn_pattern, queue_pattern)
        ]

    def queue_detail(self, router: str, vpn: str, queue: str) -> QueueDetail:
        r = self.lk.router(router, must_be_up=True)
        v = self.lk.vpn(r, vpn)
        q = self.lk.queue(v, queue)
        subs = tuple(sorted(self.st.subs_by_queue.get(q.id, {})))
        return QueueDetail(
            name=q.name, vpn=v.name, router=r.name, kind=q.kind, access_type=q.access_type,
            durable=q.durable, owner=q.owner, permission=q.permission, ingress_up=q.ingress_up,
            egress_up=q.egress_up, shutdown=not q.ingress_up and not q.egress_up,
            max_spool_mb=v.rq_max_spool_mb if q.kind == "replication" else q.max_spool_mb,
            messages_spooled=q.msg_count, usage_mb=q.bytes / MB, hwm_mb=q.hwm_bytes / MB,
            bind_count=self._bind_count(v, q), max_bind_count=q.max_bind_count,
            subscriptions=subs,
            reject_msg_to_sender_on_discard=(v.rq_reject_on_discard if q.kind == "replication"
                                             else q.reject_on_discard if q.kind == "normal" else False),
        )

    def queue_names(self, router: str, vpn: str) -> list[str]:
        """Completion: queue names of a VPN on a router."""
        try:
            v = self.lk.vpn(self.lk.router(router), vpn)
        except EngineError:
            return []
        return sorted(q.name for q in self.lk.queues_of(v) if self._queue_visible(v, q))

    def queue_messages(self, router: str, vpn: str, queue: str, *, from_rgmid: int | None = None,
                       msg_id: int | None = None, newest: bool = False, limit: int = 100) -> list[QueueMessage]:
        """Spooled messages, oldest first (newest first with newest=True), at most ``limit``."""
        r = self.lk.router(router, must_be_up=True)
        v = self.lk.vpn(r, vpn)
        q = self.lk.queue(v, queue)
        st = self.st
        out: list[QueueMessage] = []
        if limit <= 0:
            return out
        # each run as (first message id, first router msg id, count, ms, size, locked)
        runs: Iterable[tuple[int, int, int, int, int, bool]]
        if q.kind == "replication":
            stream = st.repl_by_vpn.get(v.id)
            entries = (reversed(stream) if newest else iter(stream)) if stream is not None else iter(())
            runs = ((e.message_id, e.msg_id, e.count, e.queued_ms, e.size, False) for e in entries
                    if e.kind == "msg" and e.message_id is not None and e.msg_id is not None)
        else:
            copies = st.spooled_by_queue.get(q.id)
            spooled = (reversed(copies) if newest else iter(copies)) if copies is not None else iter(())
            runs = ((sp.message_id, sp.msg_id, sp.count, sp.spooled_ms, sp.size, sp.txn_id is not None)
                    for sp in spooled)
        m: Message | None = None  # the ledger run of the last message looked at
        for first_mid, first_msg_id, count, ms, size, locked in runs:
            offsets = range(count - 1, -1, -1) if newest else range(count)
            if msg_id is not None:
                if not first_msg_id <= msg_id < first_msg_id + count:
                    continue
                offsets = range(msg_id - first_msg_id, msg_id - first_msg_id + 1)
            for j in offsets:
                mid = first_mid + j
                if m is None or not m.id <= mid < m.id + m.count:
                    m = st.message(mid)
                rgmid = m.rgmid + mid - m.id
                if from_rgmid is not None and rgmid < from_rgmid:
                    continue
                out.append(QueueMessage(first_msg_id + j, rgmid, ms, size, m.topic, locked))
                if len(out) == limit:
                    return out
        return out

    def message_spool(self, router: str, vpn: str | None = None) -> MessageSpool:
        r = self.lk.router(router, must_be_up=True)
        vpns = [self.lk.vpn(r, vpn)] if vpn is not None else self.lk.vpns(r)
        ids = {v.id for v in vpns}
        qs = [q for v in vpns for q in self.st.queues_by_vpn.get(v.id, {}).values()]
        ntx = sum(1 for t in self.st.txns.values() if t.vpn_id in ids)
        ha = self.lk.redundancy_spool(router)
        return MessageSpool(
            router=r.name, vpn=vpn, router_up=r.up,
            max_spool_mb=r.max_spool_mb if vpn is None else vpns[0].max_spool_mb,
            messages_spooled=sum(q.msg_count for q in qs), usage_mb=sum(q.bytes for q in qs) / MB,
            hwm_mb=(r.spool_hwm_bytes if vpn is None else sum(q.hwm_bytes for q in qs)) / MB,
            queues=sum(1 for q in qs if q.kind == "normal"), transactions=ntx,
            ha_role=None if ha is None else ha[0], ha_spool_status=None if ha is None else ha[1])

    # ------------------------------------------------------------------ queue configuration
    def _queue_rw(self, router: str, vpn: str, queue: str) -> tuple[Vpn, Queue]:
        v = self.lk.vpn_rw(router, vpn)
        q = self.lk.queue(v, queue)
        if q.kind != "normal":
            raise EngineError("queue_managed" if q.kind == "telemetry" else "queue_reserved", queue=queue)
        return v, q

    def _synced_queues(self, v: Vpn, name: str) -> list[Queue]:
        """The queue of that name on every member of the VPN's group (config-sync)."""
        out = []
        for m in self.lk.group_members(v):
            q = self.lk.find_queue(m, name)
            if q is not None:
                out.append(q)
        return out

    def create_queue(self, router: str, vpn: str, name: str) -> None:
        """`create queue <name>`: created shut down, on every router of the VPN's group."""
        v = self.lk.vpn_rw(router, vpn)
        if not name or len(name) > 200:
            raise EngineError("invalid_queue_name", queue=name, reason="length")
        if name.startswith("#"):
            raise EngineError("invalid_queue_name", queue=name, reason="reserved")
        if _BAD_QUEUE_CHARS & set(name):
            raise EngineError("invalid_queue_name", queue=name, reason="character")
        if self.lk.find_queue(v, name) is not None:
            raise EngineError("queue_exists", queue=name, vpn=vpn)
        for m in self.lk.group_members(v):
            if self.lk.find_queue(m, name) is None:
                self.st.add(Queue(vpn_id=m.id, name=name, ingress_up=False, egress_up=False, shutdown=True))

    def delete_queue(self, router: str, vpn: str, name: str) -> int:
        """`no queue <name>`: only when shut down (ingress and egress). Its messages are gone
        (ledger note "queue deleted"). Returns how many copies were discarded."""
        v, q = self._queue_rw(router, vpn, name)
        if q.ingress_up or q.egress_up:
            raise EngineError("queue_not_shutdown", queue=name, vpn=vpn)
        st = self.st
        n = 0
        for sq in self._synced_queues(v, name):
            runs = st.spooled_by_queue.get(sq.id)
            copies = list(runs) if runs is not None else []
            for a, b in normalize((sp.message_id, sp.message_id + sp.count) for sp in copies):
                for m in st.messages_in(a, b):
                    m.note = "queue deleted"
            # a transaction that locked a copy no longer names its queue (the copy is gone)
            locked = normalize((sp.msg_id, sp.msg_id + sp.count) for sp in copies if sp.txn_id is not None)
            if locked:
                for op in st.txn_ops.values():
                    if op.op == "consume" and op.msg_id is not None and any(
                            a < op.msg_id + op.count and op.msg_id < b for a, b in locked):
                        op.queue_name = None
            st.remove_run(copies)
            n += sum(sp.count for sp in copies)
            st.remove_all(st.subs_by_queue.get(sq.id, {}).values())
            st.remove(sq)
        return n

    def set_queue_shutdown(self, router: str, vpn: str, queue: str, shutdown: bool,
                           direction: str = "both") -> None:
        """`[no] shutdown [ingress | egress]` (config-synced)."""
        if direction not in ("both", "ingress", "egress"):
            raise EngineError("invalid_value", name="direction", value=direction, allowed="both|ingress|egress")
        v, _ = self._queue_rw(router, vpn, queue)
        for q in self._synced_queues(v, queue):
            if direction in ("both", "ingress"):
                q.ingress_up = not shutdown
            if direction in ("both", "egress"):
                q.egress_up = not shutdown
            q.shutdown = not q.ingress_up and not q.egress_up

    def add_queue_subscription(self, router: str, vpn: str, queue: str, topic: str) -> None:
        v, q = self._queue_rw(router, vpn, queue)
        if not topic or " " in topic:
            raise EngineError("invalid_topic", topic=topic)
        if topic in self.st.subs_by_queue.get(q.id, {}):
            raise EngineError("subscription_exists", topic=topic, queue=queue)
        for sq in self._synced_queues(v, queue):
            if topic not in self.st.subs_by_queue.get(sq.id, {}):
                self.st.add(Subscription(queue_id=sq.id, topic=topic))

    def remove_queue_subscription(self, router: str, vpn: str, queue: str, topic: str) -> None:
        v, q = self._queue_rw(router, vpn, queue)
        if topic not in self.st.subs_by_queue.get(q.id, {}):
            raise EngineError("subscription_not_found", topic=topic, queue=queue)
        for sq in self._synced_queues(v, queue):
            sub = self.st.subs_by_queue.get(sq.id, {}).get(topic)
            if sub is not None:
                self.st.remove(sub)

    def set_queue_option(self, router: str, vpn: str, queue: str, option: str, value: Any = None) -> None:
        """One of QUEUE_OPTIONS (max-spool-usage, access-type, owner, permission,
        max-bind-count); None restores the default. Lowering max-spool-usage below the queue's
        usage keeps what is spooled (the broker discards only new messages)."""
        spec = leaves.leaf("queue", option)
        v, _ = self._queue_rw(router, vpn, queue)
        value = leaves.coerce(spec, value)
        for q in self._synced_queues(v, queue):
            if spec.attr:
                setattr(q, spec.attr, value)
            else:  # a generic leaf: kept while not at its default
                q.settings = {k: x for k, x in {**q.settings, option: value}.items() if x != QUEUE_OPTIONS[k].default}

    def set_vpn_max_spool(self, router: str, vpn: str, mb: int | None = None) -> None:
        """`message-spool message-vpn <vpn>` `max-spool-usage <mb>` (None restores the lab default):
        the Message VPN's spool quota, config-synced to the VPN on every router of its group (SEMP
        v2 msgVpn maxMsgSpoolUsage is synchronized to replication sites). Lowering it below the
        VPN's usage keeps what is spooled: only new messages are refused."""
        v = self.lk.vpn_rw(router, vpn)
        value = leaves.coerce(VPN_MAX_SPOOL, mb)
        for m in self.lk.group_members(v):
            m.max_spool_mb = value

    def _shut_rejecting(self, v: Vpn, topic: str) -> int:
        """How many of v's normal queues matching ``topic`` are shut for ingress and refuse what
        they discard to the sender (reject-msg-to-sender-on-discard including-when-shutdown)."""
        subs = self.st.subs_by_queue
        n = 0
        for q in self.st.queues_by_vpn.get(v.id, {}).values():  # (plain loops: every publish asks)
            if q.kind == "normal" and q.reject_when_shutdown and (not q.ingress_up or q.shutdown):
                for s in subs.get(q.id, ()):
                    if topic_matches(s, topic):
                        n += 1
                        break
        return n

    # ------------------------------------------------------------------ admin
    def delete_messages(self, router: str, vpn: str, queue: str, from_id: int | None = None,
                        to_id: int | None = None) -> int:
        """`delete-messages queue <q> [message <id> [to <id>]]` (router-local message IDs).
        All when from_id is None; one when only from_id; the inclusive range otherwise. Works
        on the replication queue too (those messages are then never replicated). Copies locked
        by a transaction are left alone. Refused with message_not_found when a single id is
        not spooled there."""
        v = self.lk.vpn_rw(router, vpn)
        q = self.lk.queue(v, queue)
        lo = from_id
        hi = to_id if to_id is not None else from_id
        if lo is not None and hi is not None and hi < lo:
            raise EngineError("invalid_value", name="to", value=hi, allowed=f">= {lo}")
        st = self.st
        nbytes = n = 0
        if q.kind == "replication":
            stream = st.repl_by_vpn.get(v.id)
            entries: list[ReplEntry] = []
            for e in list(stream) if stream is not None else []:
                if e.kind != "msg" or e.message_id is None or e.msg_id is None:
                    continue
                piece: Spooled | ReplEntry | None = e
                if lo is not None and hi is not None:
                    a, b = max(lo, e.msg_id), min(hi + 1, e.msg_id + e.count)
                    piece = st.isolate(e, e.message_id + a - e.msg_id, e.message_id + b - e.msg_id) if a < b else None
                if piece is not None:
                    entries.append(cast("ReplEntry", piece))
            for e in entries:
                nbytes += e.size * e.count
                n += e.count
                if e.message_id is not None:
                    for m in st.messages_in(e.message_id, e.message_id + e.count):
                        m.replicated = 0
                        m.note = "deleted from replication queue"
            st.remove_run(entries)
        else:
            runs = st.spooled_by_queue.get(q.id)
            copies: list[Spooled] = []
            for sp in list(runs) if runs is not None else []:
                if sp.txn_id is not None:
                    continue
                got: Spooled | ReplEntry | None = sp
                if lo is not None and hi is not None:
                    a, b = max(lo, sp.msg_id), min(hi + 1, sp.msg_id + sp.count)
                    shift = sp.message_id - sp.msg_id
                    got = st.isolate(sp, a + shift, b + shift) if a < b else None
                if got is not None:
                    copies.append(cast("Spooled", got))
            for sp in copies:
                nbytes += sp.size * sp.count
                n += sp.count
                for m in st.messages_in(sp.message_id, sp.message_id + sp.count):
                    m.note = "deleted by admin"
            st.remove_run(copies)
        if n:
            self.lk.adjust_queue(q, -n, -nbytes)
        if n == 0 and lo is not None and to_id is None:
            raise EngineError("message_not_found", msg_id=lo, queue=queue)
        return n

    def queue_name_is_replication(self, name: str) -> bool:
        return name == REPL_QUEUE
