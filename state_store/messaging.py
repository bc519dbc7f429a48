"""Publishing, consuming, queues and the message spool.

Why set-based: ``publish(client, topic, count=1_000_000)`` and the consumption or deletion of a
million copies must not create Python objects per message. A publish inserts its ledger rows with
one INSERT..SELECT over a recursive-CTE series, then copies them into each matching queue and onto
the replication stream with one INSERT..SELECT each. Counters on ``queue`` rows are adjusted by
the totals, so shows never count rows.

Rules:
- every accepted message gets the next replication-group message ID of its VPN's group (also on
  non-replicated topics: the ID keys the audit), the next router-local message ID, and a ledger row;
- it is spooled to each local queue whose subscription matches and whose ingress is up; with no
  such queue it is recorded with note "no matching queue";
- on a replication-active VPN with replication enabled, a message on a replicated topic is put on
  the replication stream unless the replication queue would exceed its max-spool-usage: then with
  reject-msg-to-sender-on-discard ON the excess is rejected (counted, never in the ledger; the
  result says ``reject_reason='publish_rejected_repl_queue_full'``; NOT an exception, so the
  counts persist), OFF it is accepted but never replicated (ledger replicated=0);
- sync topics: when eligible the stream is drained to the standby at once (synchronous); when
  ineligible they are queued as async, or rejected (publish_rejected_sync_ineligible) if
  reject-msg-when-sync-ineligible is on;
- consumption records a delivery per copy and propagates acks (see ``_consume_selected``).
- New queues are created shut down (as on a real broker): `no shutdown` them before use.
"""

from __future__ import annotations

import json
from typing import Any

from sqlalchemy import select

from .base import MB, REPL_QUEUE, EngineBase
from .errors import EngineError
from .models import Meta, Queue, Rejection, Router, Subscription, TxnOp, Vpn
from .options import coerce_option
from .topics import has_wildcard, name_matches
from .views import ConsumeResult, MessageSpool, PublishResult, QueueDetail, QueueMessage, QueueRow

_BAD_QUEUE_CHARS = set("'<>*?&;")
QUEUE_OPTIONS = {
    "max-spool-usage": ("max_spool_mb", "int", 5000, (0, 6000000)),
    "access-type": ("access_type", "enum:exclusive,non-exclusive", "exclusive", None),
    "owner": ("owner", "str", "", None),
    "permission": ("permission", "enum:no-access,read-only,consume,modify-topic,delete", "no-access", None),
    "max-bind-count": ("max_bind_count", "int", 1000, (1, 10000)),
}


class MessagingMixin(EngineBase):
    # ------------------------------------------------------------------ temp selections
    def _select(self, sql: str, params: dict[str, Any]) -> int:
        """Fill the temp table _sel with spooled ids chosen by ``sql`` (a SELECT of ids)."""
        self._sql("CREATE TEMP TABLE IF NOT EXISTS _sel (id INTEGER PRIMARY KEY)")
        self._sql("DELETE FROM _sel")
        return int(self._sql(f"INSERT INTO _sel (id) {sql}", params).rowcount)

    # ------------------------------------------------------------------ publish
    def publish(self, client: str, topic: str, count: int = 1, size: int | None = None) -> PublishResult:
        """Publish ``count`` guaranteed messages of ``size`` bytes on ``topic`` from ``client``.

        Refusals (EngineError): client_not_found, client_not_connected, publish_rejected_standby
        (its only reachable hosts hold the VPN in standby), invalid_topic, invalid_value.
        Partial rejections (repl queue full, sync ineligible) are in the result, not raised."""
        if count < 1:
            raise EngineError("invalid_value", name="count", value=count, allowed=">= 1")
        size = self._int_setting("default_message_size") if size is None else size
        if size < 1:
            raise EngineError("invalid_value", name="size", value=size, allowed=">= 1")
        self._check_publish_topic(topic)
        c, v, r = self._connected_client(client)
        t = self._open_txn(c)
        if t is not None:
            self.s.add(TxnOp(txn_id=t.id, op="publish", topic=topic, count=count, size=size))
            self.s.flush()
            return PublishResult(client=c.name, router=r.name, vpn=v.name, topic=topic,
                                 requested=count, accepted=count, rejected=0, replicated=0,
                                 not_replicated=0, queues=(), first_rgmid=None, last_rgmid=None,
                                 transacted=True)
        return self._publish_now(v, r, c.name, topic, count, size)

    @staticmethod
    def _check_publish_topic(topic: str) -> None:
        levels = topic.split("/")
        if not topic or len(topic) > 250 or any(lv == "" for lv in levels) or any(
                lv == ">" or lv.endswith("*") for lv in levels):
            raise EngineError("invalid_topic", topic=topic)

    def _publish_now(self, v: Vpn, r: Router, client_name: str, topic: str, count: int,
                     size: int) -> PublishResult:
        mode = self._replication_mode(v, topic) if (v.repl_enabled and v.role == "active") else None
        queues = self._matching_queues(v, topic)
        fit, rejected, reason = 0, 0, None
        eligible = False
        if mode is not None:
            eligible = bool(self._sync_eligible(v))
            if mode == "sync" and not eligible and v.reject_sync_ineligible:
                rejected, reason = count, "publish_rejected_sync_ineligible"
                v.st_rejected_sync += count
            else:
                rq = self._repl_queue(v)
                used = rq.bytes if rq else 0
                free = max(0, v.rq_max_spool_mb * MB - used)
                fit = min(count, free // size)
                if fit < count:
                    if v.rq_reject_on_discard:
                        rejected, reason = count - fit, "publish_rejected_repl_queue_full"
                        v.st_rejected_full += rejected
                    else:
                        v.st_not_replicated += count - fit
        accepted = count - rejected
        now = self.now_ms()
        if rejected:
            self.s.add(Rejection(vpn_name=v.name, client_name=client_name, router_name=r.name,
                                 topic=topic, count=rejected, reason=reason, at_ms=now))
        first = last = None
        if accepted:
            base = (self._scalar("SELECT COALESCE(MAX(id),0) FROM message") or 0) + 1
            group = self._group(v)
            rg = group.next_rgmid
            group.next_rgmid = rg + accepted
            mbase = r.next_msg_id
            r.next_msg_id = mbase + accepted
            first, last = rg, rg + accepted - 1
            repl_expr = "NULL" if mode is None else "CASE WHEN n < :fit THEN 1 ELSE 0 END"
            p = {"base": base, "cnt": accepted, "g": v.group_id, "vn": v.name, "rg": rg,
                 "t": topic, "sz": size, "c": client_name, "r": r.name, "now": now, "fit": fit,
                 "note": None if queues else "no matching queue", "mbase": mbase, "v": v.id}
            self._sql(
                "WITH RECURSIVE s(n) AS (SELECT 0 UNION ALL SELECT n+1 FROM s WHERE n+1 < :cnt) "
                "INSERT INTO message (id, group_id, vpn_name, rgmid, topic, size, client_name, "
                "router_name, published_ms, replicated, note) "
                f"SELECT :base+n, :g, :vn, :rg+n, :t, :sz, :c, :r, :now, {repl_expr}, :note FROM s", p)
            for q in queues:
                self._sql(
                    "INSERT INTO spooled (queue_id, message_id, msg_id, spooled_ms, size) "
                    "SELECT :q, id, :mbase + (id - :base), :now, size FROM message "
                    "WHERE id >= :base AND id < :base + :cnt", {**p, "q": q.id})
                self._adjust_queue(q, accepted, accepted * size)
            if fit:
                self._sql(
                    "INSERT INTO repl_entry (vpn_id, kind, message_id, msg_id, topic, size, queued_ms) "
                    "SELECT :v, 'msg', id, :mbase + (id - :base), topic, size, :now FROM message "
                    "WHERE id >= :base AND id < :base + :fit ORDER BY id", p)
                rq = self._repl_queue(v)
                if rq is not None:
                    self._adjust_queue(rq, fit, fit * size)
                if mode == "sync":
                    if eligible:
                        v.st_sync_queued += fit
                    else:
                        v.st_sync_as_async += fit
                else:
                    v.st_async_queued += fit
            self.s.flush()
            if mode == "sync" and eligible and fit:
                self._drain(v)
        return PublishResult(
            client=client_name, router=r.name, vpn=v.name, topic=topic, requested=count,
            accepted=accepted, rejected=rejected, replicated=fit,
            not_replicated=(accepted - fit) if mode is not None else 0,
            queues=tuple(sorted(q.name for q in queues)), first_rgmid=first, last_rgmid=last,
            transacted=False, reject_reason=reason)

    # ------------------------------------------------------------------ consume
    def consume(self, client: str, queue: str, count: int = 1) -> ConsumeResult:
        """Consume (and acknowledge) up to ``count`` of the oldest messages of ``queue`` in the
        client's VPN on the router it is connected to. Inside an open transaction the messages
        are locked instead, and acknowledged on commit."""
        if count < 1:
            raise EngineError("invalid_value", name="count", value=count, allowed=">= 1")
        c, v, r = self._connected_client(client)
        q = self._queue(v, queue)
        if q.kind != "normal":
            raise EngineError("queue_reserved", queue=queue)
        if not q.egress_up:
            raise EngineError("queue_egress_down", queue=queue, vpn=v.name)
        p = {"q": q.id, "o": count - 1}
        upto = self._scalar(
            "SELECT id FROM spooled WHERE queue_id=:q AND txn_id IS NULL ORDER BY id LIMIT 1 OFFSET :o", p)
        if upto is None:
            upto = self._scalar("SELECT MAX(id) FROM spooled WHERE queue_id=:q AND txn_id IS NULL", p)
        t = self._open_txn(c)
        if upto is None:
            return ConsumeResult(client=c.name, router=r.name, vpn=v.name, queue=q.name,
                                 requested=count, consumed=0, rgmids=(), transacted=t is not None)
        n = self._select("SELECT id FROM spooled WHERE queue_id=:q AND txn_id IS NULL AND id <= :u",
                         {"q": q.id, "u": upto})
        rgmids = tuple(x for (x,) in self._sql(
            "SELECT m.rgmid FROM _sel JOIN spooled s ON s.id=_sel.id JOIN message m ON m.id=s.message_id "
            "ORDER BY s.id LIMIT 1000").all())
        if t is not None:
            self._sql(
                "INSERT INTO txn_op (txn_id, op, count, size, message_id, msg_id, queue_name) "
                "SELECT :t, 'consume', 1, s.size, s.message_id, s.msg_id, :qn FROM _sel "
                "JOIN spooled s ON s.id=_sel.id ORDER BY s.id", {"t": t.id, "qn": q.name})
            self._sql("UPDATE spooled SET txn_id=:t WHERE id IN (SELECT id FROM _sel)", {"t": t.id})
        else:
            self._consume_selected(v, r, c.name, None)
        self.s.flush()
        return ConsumeResult(client=c.name, router=r.name, vpn=v.name, queue=q.name, requested=count,
                             consumed=n, rgmids=rgmids, transacted=t is not None)

    # ------------------------------------------------------------------ ack propagation
    # Rule (issue 13 item 6; Solace docs "Configuring ACK Propagation Intervals"): the active
    # VPN sends the acks of consumed messages to its standby in batches of `ack-propagation
    # interval messages N`; acks short of a batch wait (meta ``ack-pending:<vpn id>``) until the
    # batch fills or the one-second timer fires (each whole second of the simulated clock,
    # ``_ack_timer``). A failover before they leave makes the standby deliver those messages
    # again: up to N-1 duplicates. With ack propagation shut down nothing is sent at all.
    @staticmethod
    def _pending_key(v: Vpn) -> str:
        return f"ack-pending:{v.id}"

    def _take_pending_acks(self, v: Vpn) -> int:
        """Put v's waiting acks back on its stream (in order, after what is there); count them."""
        row = self.s.get(Meta, self._pending_key(v))
        if row is None:
            return 0
        waiting = json.loads(row.value)
        self.s.delete(row)
        for message_id, msg_id, queue_name, queued_ms in waiting:
            self._sql("INSERT INTO repl_entry (vpn_id, kind, message_id, msg_id, queue_name, size, queued_ms) "
                      "VALUES (:v, 'ack', :m, :mid, :qn, 0, :at)",
                      {"v": v.id, "m": message_id, "mid": msg_id, "qn": queue_name, "at": queued_ms})
        self.s.flush()
        return len(waiting)

    def _hold_pending_acks(self, v: Vpn, keep: int) -> None:
        """Take the last ``keep`` acks off v's stream: they wait for the next batch or tick."""
        rows = self._sql("SELECT seq, message_id, msg_id, queue_name, queued_ms FROM repl_entry "
                         "WHERE vpn_id=:v AND kind='ack' ORDER BY seq DESC LIMIT :k",
                         {"v": v.id, "k": keep}).all()
        rows = sorted(rows)
        self._sql(f"DELETE FROM repl_entry WHERE seq IN ({','.join(str(r[0]) for r in rows)})")
        self.s.add(Meta(key=self._pending_key(v), value=json.dumps([list(r[1:]) for r in rows])))
        self.s.flush()

    def _ack_timer(self, from_ms: int, to_ms: int) -> None:
        """The one-second ack propagation timer: when the clock passes a whole second, every
        replication-enabled VPN on an up router with ack propagation on sends its waiting acks."""
        if to_ms // 1000 == from_ms // 1000:
            return
        for v in self.topo.user_vpns:
            if v.repl_enabled and v.ack_prop_enabled and self._router_of(v).up:
                v.st_acks_sent += self._take_pending_acks(v)

    def _drop_pending_acks(self, v: Vpn) -> None:
        row = self.s.get(Meta, self._pending_key(v))
        if row is not None:
            self.s.delete(row)

    def _in_split_brain(self, v: Vpn) -> bool:
        """True while v's replication group has the VPN active on more than one up router:
        what is delivered then is marked "split brain" for the audit (issue 13 item 8)."""
        return sum(1 for m in self._group_members(v)
                   if m.repl_enabled and m.role == "active" and self._router_of(m).up) > 1

    def _consume_selected(self, v: Vpn, r: Router, client_name: str, txn_key: str | None) -> int:
        """Acknowledge the copies in _sel (all in VPN ``v`` on ``r``): deliveries, ack
        propagation, removal. Ack propagation (active VPN, replication enabled, ack-propagation
        on): a consumed message still waiting on the replication queue with no other local copy
        is pruned from it ("Pruned Locally Consumed Messages"); every other consumed copy of a
        replicated message gets an 'ack' entry on the stream, applied in order by the standby.
        With ack-propagation shut down nothing is sent: the standby keeps the messages."""
        now = self.now_ms()
        dedupe = ("AND NOT EXISTS (SELECT 1 FROM delivery d WHERE d.message_id=s.message_id "
                  "AND d.txn_key=:tk)") if txn_key else ""
        self._sql(
            "INSERT INTO delivery (message_id, client_name, router_name, queue_name, at_ms, txn_key) "
            "SELECT s.message_id, :c, :r, q.name, :now, :tk FROM _sel JOIN spooled s ON s.id=_sel.id "
            f"JOIN queue q ON q.id=s.queue_id WHERE 1=1 {dedupe} ORDER BY s.id",
            {"c": client_name, "r": r.name, "now": now, "tk": txn_key})
        if self._in_split_brain(v):
            self._sql(
                "UPDATE message SET note = CASE WHEN note IS NULL THEN 'split brain' "
                "ELSE note || '; split brain' END WHERE id IN (SELECT s.message_id FROM _sel "
                "JOIN spooled s ON s.id=_sel.id) AND (note IS NULL OR note NOT LIKE '%split brain%')")
        if v.repl_enabled and v.role == "active" and v.ack_prop_enabled:
            self._sql("CREATE TEMP TABLE IF NOT EXISTS _prune (message_id INTEGER PRIMARY KEY, size INT)")
            self._sql("DELETE FROM _prune")
            self._sql(
                "INSERT OR IGNORE INTO _prune (message_id, size) SELECT e.message_id, e.size "
                "FROM repl_entry e WHERE e.vpn_id=:v AND e.kind='msg' AND e.message_id IN "
                "(SELECT s.message_id FROM _sel JOIN spooled s ON s.id=_sel.id) AND NOT EXISTS "
                "(SELECT 1 FROM spooled s2 JOIN queue q2 ON q2.id=s2.queue_id WHERE "
                "s2.message_id=e.message_id AND q2.vpn_id=:v AND s2.id NOT IN (SELECT id FROM _sel))",
                {"v": v.id})
            pn, pbytes = self._sql("SELECT COUNT(*), COALESCE(SUM(size),0) FROM _prune").one()
            if pn:
                self._sql("DELETE FROM repl_entry WHERE vpn_id=:v AND message_id IN "
                          "(SELECT message_id FROM _prune)", {"v": v.id})
                v.st_pruned += pn
                rq = self._repl_queue(v)
                if rq is not None:
                    self._adjust_queue(rq, -pn, -pbytes)
            pending = self._take_pending_acks(v)
            acks = self._sql(
                "INSERT INTO repl_entry (vpn_id, kind, message_id, msg_id, queue_name, size, queued_ms) "
                "SELECT :v, 'ack', s.message_id, s.msg_id, q.name, 0, :now FROM _sel "
                "JOIN spooled s ON s.id=_sel.id JOIN queue q ON q.id=s.queue_id "
                "JOIN message m ON m.id=s.message_id WHERE m.replicated=1 "
                "AND s.message_id NOT IN (SELECT message_id FROM _prune) ORDER BY s.id",
                {"v": v.id, "now": now}).rowcount
            total = pending + acks
            keep = total % max(1, v.ack_interval)
            if keep:
                self._hold_pending_acks(v, keep)
            v.st_acks_sent += total - keep
        for qid, cnt, nbytes in self._sql(
                "SELECT s.queue_id, COUNT(*), COALESCE(SUM(s.size),0) FROM _sel JOIN spooled s "
                "ON s.id=_sel.id GROUP BY s.queue_id").all():
            self._adjust_queue(self.s.get(Queue, qid), -cnt, -nbytes)  # type: ignore[arg-type]
        return int(self._sql("DELETE FROM spooled WHERE id IN (SELECT id FROM _sel)").rowcount)

    # ------------------------------------------------------------------ queue views
    def _queue_visible(self, v: Vpn, q: Queue) -> bool:
        if q.kind == "replication":
            return v.repl_enabled or q.msg_count > 0 or self._has_entries(v)
        return True

    def _queue_list(self, router: str, vpn_pattern: str | None, queue_pattern: str | None) -> list[tuple[Vpn, Queue]]:
        r = self._router(router, must_be_up=True)
        out = []
        for v in self._wildcard_vpns(r, vpn_pattern):
            for q in self.s.scalars(select(Queue).where(Queue.vpn_id == v.id)):
                if name_matches(queue_pattern, q.name) and self._queue_visible(v, q):
                    out.append((v, q))
        if not out and queue_pattern is not None and not has_wildcard(queue_pattern):
            raise EngineError("queue_not_found", queue=queue_pattern, vpn=vpn_pattern or "*")
        out.sort(key=lambda vq: (vq[1].name, vq[0].name))
        return out

    def _bind_count(self, v: Vpn, q: Queue) -> int:
        if q.kind == "replication":
            return 1 if self._binding(v) is not None else 0
        if q.kind == "telemetry":
            return self._managed_queue_bind_count(v, q)
        return 0

    def queues(self, router: str, vpn_pattern: str | None = "*", queue_pattern: str | None = "*") -> list[QueueRow]:
        """`show queue <q> message-vpn <v>` summary rows (sorted by queue name, then VPN)."""
        return [
            QueueRow(
                name=q.name, vpn=v.name, messages_spooled=q.msg_count, usage_mb=q.bytes / MB,
                hwm_mb=q.hwm_bytes / MB, bind_count=self._bind_count(v, q),
                ingress="U" if q.ingress_up else "D", egress="U" if q.egress_up else "D",
                access="E" if q.access_type == "exclusive" else "N", selector="N",
                redundancy="P", durability="D" if q.durable else "N", priority="N")
            for v, q in self._queue_list(router, vpn_pattern, queue_pattern)
        ]

    def queue_detail(self, router: str, vpn: str, queue: str) -> QueueDetail:
        r = self._router(router, must_be_up=True)
        v = self._vpn(r, vpn)
        q = self._queue(v, queue)
        subs = tuple(sorted(s.topic for s in self.s.scalars(select(Subscription).where(Subscription.queue_id == q.id))))
        return QueueDetail(
            name=q.name, vpn=v.name, router=r.name, kind=q.kind, type="Primary",
            access_type="Exclusive" if q.access_type == "exclusive" else "Non-Exclusive",
            durable=q.durable, owner=q.owner, permission=q.permission,
            ingress_state="Up" if q.ingress_up else "Down",
            egress_state="Up" if q.egress_up else "Down",
            shutdown=not q.ingress_up and not q.egress_up,
            max_spool_mb=v.rq_max_spool_mb if q.kind == "replication" else q.max_spool_mb,
            messages_spooled=q.msg_count, usage_mb=q.bytes / MB, hwm_mb=q.hwm_bytes / MB,
            bind_count=self._bind_count(v, q), max_bind_count=q.max_bind_count,
            subscriptions=subs,
            reject_msg_to_sender_on_discard=v.rq_reject_on_discard if q.kind == "replication" else False,
        )

    def queue_names(self, router: str, vpn: str) -> list[str]:
        """Completion: queue names of a VPN on a router."""
        try:
            v = self._vpn(self._router(router), vpn)
        except EngineError:
            return []
        return sorted(q.name for q in self.s.scalars(select(Queue).where(Queue.vpn_id == v.id))
                      if self._queue_visible(v, q))

    def queue_messages(self, router: str, vpn: str, queue: str, *, from_rgmid: int | None = None,
                       msg_id: int | None = None, newest: bool = False, limit: int = 100) -> list[QueueMessage]:
        """Spooled messages, oldest first (newest first with newest=True), at most ``limit``."""
        r = self._router(router, must_be_up=True)
        v = self._vpn(r, vpn)
        q = self._queue(v, queue)
        order = "DESC" if newest else "ASC"
        conds, p = [], {"lim": limit, "q": q.id, "v": v.id}
        if from_rgmid is not None:
            conds.append("m.rgmid >= :rg")
            p["rg"] = from_rgmid
        if msg_id is not None:
            conds.append("x.msg_id = :mid")
            p["mid"] = msg_id
        where = "".join(f" AND {c}" for c in conds)
        if q.kind == "replication":
            sql = ("SELECT x.msg_id, m.rgmid, x.queued_ms, x.size, m.topic, 0 FROM repl_entry x "
                   f"JOIN message m ON m.id=x.message_id WHERE x.vpn_id=:v AND x.kind='msg'{where} "
                   f"ORDER BY x.seq {order} LIMIT :lim")
        else:
            sql = ("SELECT x.msg_id, m.rgmid, x.spooled_ms, x.size, m.topic, x.txn_id IS NOT NULL "
                   f"FROM spooled x JOIN message m ON m.id=x.message_id WHERE x.queue_id=:q{where} "
                   f"ORDER BY x.id {order} LIMIT :lim")
        return [QueueMessage(a, b, c_, d, e, bool(f)) for a, b, c_, d, e, f in self._sql(sql, p).all()]

    def message_spool(self, router: str, vpn: str | None = None) -> MessageSpool:
        r = self._router(router, must_be_up=True)
        vpns = [self._vpn(r, vpn)] if vpn is not None else self._vpns(r)
        ids = [v.id for v in vpns]
        qs = list(self.s.scalars(select(Queue).where(Queue.vpn_id.in_(ids))))
        ntx = self._scalar(f"SELECT COUNT(*) FROM txn WHERE vpn_id IN ({','.join(map(str, ids)) or 'NULL'})")
        return MessageSpool(
            router=r.name, vpn=vpn, config_status="Enabled (Primary)",
            operational_status="AD-Active" if r.up else "AD-Disabled", max_spool_mb=r.max_spool_mb,
            messages_spooled=sum(q.msg_count for q in qs), usage_mb=sum(q.bytes for q in qs) / MB,
            hwm_mb=(r.spool_hwm_bytes if vpn is None else sum(q.hwm_bytes for q in qs)) / MB,
            queues=sum(1 for q in qs if q.kind == "normal"), transactions=int(ntx or 0))

    # ------------------------------------------------------------------ queue configuration
    def _queue_rw(self, router: str, vpn: str, queue: str) -> tuple[Vpn, Queue]:
        v = self._vpn_rw(router, vpn)
        q = self._queue(v, queue)
        if q.kind != "normal":
            raise EngineError("queue_managed" if q.kind == "telemetry" else "queue_reserved", queue=queue)
        return v, q

    def _synced_queues(self, v: Vpn, name: str) -> list[Queue]:
        """The queue of that name on every member of the VPN's group (config-sync)."""
        out = []
        for m in self._group_members(v):
            q = self.s.scalars(select(Queue).where(Queue.vpn_id == m.id, Queue.name == name)).first()
            if q is not None:
                out.append(q)
        return out

    def create_queue(self, router: str, vpn: str, name: str) -> None:
        """`create queue <name>`: created shut down, on every router of the VPN's group."""
        v = self._vpn_rw(router, vpn)
        if not name or len(name) > 200:
            raise EngineError("invalid_queue_name", queue=name, reason="length")
        if name.startswith("#"):
            raise EngineError("invalid_queue_name", queue=name, reason="reserved")
        if _BAD_QUEUE_CHARS & set(name):
            raise EngineError("invalid_queue_name", queue=name, reason="character")
        if self.s.scalars(select(Queue).where(Queue.vpn_id == v.id, Queue.name == name)).first():
            raise EngineError("queue_exists", queue=name, vpn=vpn)
        for m in self._group_members(v):
            if not self.s.scalars(select(Queue).where(Queue.vpn_id == m.id, Queue.name == name)).first():
                self.s.add(Queue(vpn_id=m.id, name=name, ingress_up=False, egress_up=False, shutdown=True))
        self.s.flush()

    def delete_queue(self, router: str, vpn: str, name: str) -> int:
        """`no queue <name>`: only when shut down (ingress and egress). Its messages are gone
        (ledger note "queue deleted"). Returns how many copies were discarded."""
        v, q = self._queue_rw(router, vpn, name)
        if q.ingress_up or q.egress_up:
            raise EngineError("queue_not_shutdown", queue=name, vpn=vpn)
        n = 0
        for sq in self._synced_queues(v, name):
            self._sql("UPDATE message SET note='queue deleted' WHERE id IN "
                      "(SELECT message_id FROM spooled WHERE queue_id=:q)", {"q": sq.id})
            self._sql("UPDATE txn_op SET queue_name=NULL WHERE op='consume' AND msg_id IN "
                      "(SELECT msg_id FROM spooled WHERE queue_id=:q AND txn_id IS NOT NULL)", {"q": sq.id})
            n += self._sql("DELETE FROM spooled WHERE queue_id=:q", {"q": sq.id}).rowcount
            self._sql("DELETE FROM subscription WHERE queue_id=:q", {"q": sq.id})
            self.s.delete(sq)
        self.s.flush()
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
        self.s.flush()

    def _subscription(self, queue_id: int, topic: str) -> Subscription | None:
        return self.s.scalars(
            select(Subscription).where(Subscription.queue_id == queue_id, Subscription.topic == topic)).first()

    def add_queue_subscription(self, router: str, vpn: str, queue: str, topic: str) -> None:
        v, q = self._queue_rw(router, vpn, queue)
        if not topic or " " in topic:
            raise EngineError("invalid_topic", topic=topic)
        if self._subscription(q.id, topic) is not None:
            raise EngineError("subscription_exists", topic=topic, queue=queue)
        for sq in self._synced_queues(v, queue):
            if self._subscription(sq.id, topic) is None:
                self.s.add(Subscription(queue_id=sq.id, topic=topic))
        self.s.flush()

    def remove_queue_subscription(self, router: str, vpn: str, queue: str, topic: str) -> None:
        v, q = self._queue_rw(router, vpn, queue)
        if self._subscription(q.id, topic) is None:
            raise EngineError("subscription_not_found", topic=topic, queue=queue)
        for sq in self._synced_queues(v, queue):
            self._sql("DELETE FROM subscription WHERE queue_id=:q AND topic=:t", {"q": sq.id, "t": topic})
        self.s.flush()

    def set_queue_option(self, router: str, vpn: str, queue: str, option: str, value: Any = None) -> None:
        """One of QUEUE_OPTIONS (max-spool-usage, access-type, owner, permission,
        max-bind-count); None restores the default."""
        if option not in QUEUE_OPTIONS:
            raise EngineError("unknown_option", option=option)
        attr = QUEUE_OPTIONS[option][0]
        v, _ = self._queue_rw(router, vpn, queue)
        value = coerce_option(option, QUEUE_OPTIONS[option], value)
        for q in self._synced_queues(v, queue):
            setattr(q, attr, value)
        self.s.flush()

    # ------------------------------------------------------------------ admin
    def delete_messages(self, router: str, vpn: str, queue: str, from_id: int | None = None,
                        to_id: int | None = None) -> int:
        """`delete-messages queue <q> [message <id> [to <id>]]` (router-local message IDs).
        All when from_id is None; one when only from_id; the inclusive range otherwise. Works
        on the replication queue too (those messages are then never replicated). Copies locked
        by a transaction are left alone. Refused with message_not_found when a single id is
        not spooled there."""
        v = self._vpn_rw(router, vpn)
        q = self._queue(v, queue)
        lo = from_id
        hi = to_id if to_id is not None else from_id
        if lo is not None and hi is not None and hi < lo:
            raise EngineError("invalid_value", name="to", value=hi, allowed=f">= {lo}")
        rng = "" if lo is None else " AND msg_id BETWEEN :lo AND :hi"
        p = {"q": q.id, "v": v.id, "lo": lo, "hi": hi}
        if q.kind == "replication":
            n, nbytes = self._sql(
                f"SELECT COUNT(*), COALESCE(SUM(size),0) FROM repl_entry WHERE vpn_id=:v AND kind='msg'{rng}", p).one()
            if n:
                self._sql("UPDATE message SET replicated=0, note='deleted from replication queue' WHERE id IN "
                          f"(SELECT message_id FROM repl_entry WHERE vpn_id=:v AND kind='msg'{rng})", p)
                self._sql(f"DELETE FROM repl_entry WHERE vpn_id=:v AND kind='msg'{rng}", p)
                self._adjust_queue(q, -n, -nbytes)
        else:
            n, nbytes = self._sql(
                "SELECT COUNT(*), COALESCE(SUM(size),0) FROM spooled "
                f"WHERE queue_id=:q AND txn_id IS NULL{rng}", p).one()
            if n:
                self._sql("UPDATE message SET note='deleted by admin' WHERE id IN "
                          f"(SELECT message_id FROM spooled WHERE queue_id=:q AND txn_id IS NULL{rng})", p)
                self._sql(f"DELETE FROM spooled WHERE queue_id=:q AND txn_id IS NULL{rng}", p)
                self._adjust_queue(q, -n, -nbytes)
        if n == 0 and lo is not None and to_id is None:
            raise EngineError("message_not_found", msg_id=lo, queue=queue)
        self.s.flush()
        return int(n)

    def queue_name_is_replication(self, name: str) -> bool:
        return name == REPL_QUEUE
