"""Local and XA transactions, their replication, and the admin heuristic actions.

Why: step 4 and 6 of the controlled failover (seed 000) are about PREPARED XA transactions on the
old active site; the lab must produce them, mirror them to the standby, and let the operator
heuristically commit / roll back / delete them with XID wildcards.

Model:
- local: one per client session (``tx_local_start/commit/rollback``); state ACTIVE until it ends.
- XA by XID (``0021ABC4-00-01``: format id, gtrid, bqual in hex): start -> ACTIVE (associated with
  the client); suspend -> SUSPENDED; resume -> ACTIVE; end -> IDLE; prepare -> PREPARED;
  commit from PREPARED, or from IDLE with one_phase=True; rollback from any live state.
  A normal commit/rollback frees the transaction.
- While a client has an open local transaction or an associated ACTIVE XA branch, its publishes
  are held in the transaction (spooled only on commit) and its consumes lock the copies (removed
  and delivered on commit, unlocked on rollback).
- ``replicated`` = the VPN was replication-enabled and active when the transaction started
  (transaction-replication-mode only applies at start). XA states other than ACTIVE are mirrored
  to the standby through the replication stream ('tx' entries, in order with messages and acks);
  the end of a transaction removes the mirror. Local transactions are not mirrored (only their
  committed effects are). A mirror becomes a live transaction when its VPN goes active (the
  transaction manager can then commit it on the new site).
- Heuristics (admin message-spool): commit/rollback only XA in IDLE or PREPARED (else
  transaction_wrong_state), applied locally (no replication), leaving state COMPLETE with
  heuristic 'committed'/'rolled back'; delete only heuristically completed ones. A pattern that
  matches nothing is refused with transaction_not_found. Deliveries recorded by a commit carry
  the XID, so committing the same branch on both sites does not count a second delivery.
- One branch, one set of messages: the first commit of a replicated XA branch (normal or heuristic,
  on either site) records the ledger rows it published (meta ``xa-commit:<group>:<xid>``); a later
  commit of the same branch on the mate (the transaction manager committing the mirror after a
  heuristic commit on the old active site, seed 000 step 4) spools those same messages instead of
  publishing new ones, so the acks of their consumption remove the other site's copies.
- transaction-replication-mode sync (issue 13 item 4; applies to transactions *started* in it,
  reference 3.3): a replicated transaction started while the VPN's mode is sync (meta
  ``txn-sync:<txn id>``) replicates synchronously: when a commit (or an XA state change, or a
  rollback) returns, it and everything queued before it is on the standby, so an uncontrolled
  failover right after loses none of it. While sync replication is ineligible (bridge unbound or
  the standby catching up) the transaction is replicated asynchronously, or its commit is
  refused (transaction_commit_rejected, publish_rejected_sync_ineligible) when
  reject-msg-when-sync-ineligible is on. Mirrors and async-mode transactions are asynchronous.
- A VPN going standby disconnects its clients and ends their XA branches that are not PREPARED
  (ACTIVE, SUSPENDED, IDLE: rolled back locally, nothing sent to the mate, whose mirror of an
  IDLE or SUSPENDED branch stays for the transaction manager): seed 000 "only prepared
  transactions have to be addressed". Each such end is kept for the audit (meta
  ``xa-standby-end:<group>:<xid>``).
- Shown as replicated (the R flag) are the mirrored states only: an ACTIVE branch is not
  mirrored (seed 004), whatever the VPN's state when it started.
- Each site's own branch is its own (seed 000 step 4): the replicated end of a branch removes
  only the receiver's mirror (see ``_apply_tx_mirror``), so a PREPARED branch left on the
  formerly active site stays, holding a transaction resource ("Current Transactions"), until
  a heuristic action and ``delete-transaction`` there (steps 4 and 6).
- Every end of a replicated XA branch (commit or rollback, by the transaction manager or
  heuristic, on either site) is logged per replication group and XID (meta
  ``xa-log:<group>:<xid>``, cleared when a new branch reuses the XID); the audit derives from it
  the consequences seed 000 warns about (``XaIssue``: heuristic action on the new active site,
  branches resolved differently, a leftover resolved after failback).

Storage: transactions are ``Txn`` records with their ``TxnOp`` operations (``st.ops_by_txn``); the
bookkeeping keys above live in ``st.meta``. A lab holds few transactions, so lookups by client or
XID walk ``st.txns``; the copies a transaction locked are found in the queues its consume
operations name (runs of copies, cut to the messages the operations name at commit).
"""

from __future__ import annotations

import json
import re
from collections.abc import Collection
from contextlib import nullcontext
from typing import Any, cast

from ..errors import EngineError, PartialRefusal
from ..kernel.ranges import normalize
from ..lab_root.bulk import bulk
from .records import Client, Queue, Router, Spooled, Txn, TxnOp, Vpn
from .service import Service
from .topics import name_matches
from .views import TransactionInfo, TxnMessage

XID_RE = re.compile(r"^[0-9A-Fa-f]{1,8}-[0-9A-Fa-f]{1,128}-[0-9A-Fa-f]{1,128}$")
STATES = ("active", "suspended", "idle", "prepared", "complete")
# a respool of at least this many messages runs with the cyclic collector paused (as messaging's runs)
BULK_RUN = 10_000


def _label(t: Txn) -> str:
    """How refusals name a transaction: its XID, or ``local:<client>``."""
    return t.xid or f"local:{t.client_name}"


class TransactionsService(Service):
    # ------------------------------------------------------------------ helpers
    def open_txn(self, c: Client) -> Txn | None:
        """The transaction the client's publishes and consumes go into: its local transaction,
        or an XA branch ACTIVE and associated with it (on the router it is connected to)."""
        return None if c.router_id is None else self._open_on(c, c.router_id)

    def _open_on(self, c: Client, router_id: int) -> Txn | None:
        """``open_txn`` once the client is connected to ``router_id`` (a read a verb makes before
        ``connect``: moving the client touches only its old router's transactions)."""
        if not self.st.txns:
            return None
        for t in self.st.txns.values():
            if (t.client_name == c.name and t.router_id == router_id and not t.mirror
                    and (t.kind == "local" or (t.kind == "xa" and t.state == "active" and t.associated))):
                return t
        return None

    def _ops(self, t: Txn) -> Collection[TxnOp]:
        """The transaction's operations, in the order they were made (a live view of the index:
        ``st.remove_all`` copies it before removing)."""
        return self.st.ops_by_txn.get(t.id, {}).values()

    def _find_xa(self, v: Vpn, xid: str) -> Txn | None:
        for t in self.st.txns.values():
            if t.vpn_id == v.id and t.kind == "xa" and t.xid == xid:
                return t
        return None

    def _xa(self, client: str, xid: str) -> tuple[Client, Router, Txn]:
        """The client, the router it connects to and its VPN's branch ``xid``, or the refusal;
        changes nothing: the verb checks the branch's state, then ``connect``s."""
        c, v, r = self.sv.clients.connection(client)
        t = self._find_xa(v, xid)
        if t is None:
            raise EngineError("transaction_not_found", xid=xid)
        return c, r, t

    @staticmethod
    def _require(t: Txn, *states: str) -> None:
        if t.state not in states:
            raise EngineError("transaction_wrong_state", xid=_label(t),
                              state=t.state.upper(), required=" or ".join(s.upper() for s in states))

    def _set_state(self, t: Txn, state: str) -> None:
        t.state = state
        t.last_change_ms = self.lk.now_ms()
        self._mirror(t)
        self._sync_replicate(t)

    @staticmethod
    def _sync_key(t: Txn) -> str:
        return f"txn-sync:{t.id}"

    def _started(self, t: Txn, v: Vpn) -> None:
        """Add a new transaction; remember sync mode when it starts replicated in it."""
        self.st.add(t)
        if t.replicated and v.trm == "sync":
            self.st.meta[self._sync_key(t)] = "sync"

    def _is_sync(self, t: Txn) -> bool:
        return self._sync_key(t) in self.st.meta

    def _sync_replicate(self, t: Txn) -> None:
        """A sync-mode transaction's replication completes before the verb returns: drain the
        VPN's stream to the standby now, when sync replication is eligible."""
        v = self.st.vpns.get(t.vpn_id)
        if v is not None and self._is_sync(t) and self.sv.replication.sync_eligible(v):
            self.sv.replication.drain(v)

    def _mirror(self, t: Txn) -> None:
        v = self.st.vpns.get(t.vpn_id)
        if t.kind != "xa" or not t.replicated or t.state == "active" or v is None:
            return
        if not (v.repl_enabled and v.role == "active"):
            return
        ops = [dict(op=o.op, topic=o.topic, count=o.count, size=o.size, message_id=o.message_id,
                    msg_id=o.msg_id, queue_name=o.queue_name) for o in self._ops(t)]
        self.sv.replication.append_tx_entry(v, {"xid": t.xid, "client": t.client_name,
                                                "username": t.client_username, "num": t.client_num,
                                                "state": t.state, "ops": ops})

    def _emit_end(self, t: Txn, outcome: str) -> None:
        v = self.st.vpns.get(t.vpn_id)
        if t.kind == "xa" and t.replicated and v is not None and v.repl_enabled and v.role == "active":
            self.sv.replication.append_tx_entry(v, {"xid": t.xid, "end": outcome})

    def _finish(self, t: Txn, heuristic: str | None) -> None:
        self.st.remove_all(self._ops(t))
        self.st.meta.pop(self._sync_key(t), None)
        if heuristic is None:
            self.st.remove(t)
        else:
            t.heuristic = heuristic
            t.state = "complete"
            t.associated = False
            t.last_change_ms = self.lk.now_ms()

    def _locked_copies(self, t: Txn) -> list[Spooled]:
        """The spooled copies ``t`` holds locked (runs in the queues its consume operations name,
        in its VPN)."""
        v = self.st.vpns.get(t.vpn_id)
        if v is None:
            return []
        out: list[Spooled] = []
        seen: set[str] = set()
        for o in self._ops(t):
            if o.op != "consume" or o.queue_name is None or o.queue_name in seen:
                continue
            seen.add(o.queue_name)
            q = self.lk.find_queue(v, o.queue_name)
            runs = self.st.spooled_by_queue.get(q.id) if q is not None else None
            if runs is not None:
                out.extend(sp for sp in runs if sp.txn_id == t.id)
        return out

    def _commit_copies(self, t: Txn, v: Vpn) -> list[Spooled]:
        """The copies a commit consumes, in id order: for each consume operation, the copy of its
        message in the queue of that name in ``v``, free or locked by ``t`` (a mirror committed on
        the new active site consumes that site's free copies of the same messages); runs are cut
        to exactly those messages."""
        wanted: dict[int, list[tuple[int, int]]] = {}  # queue id in v -> message ids (ranges)
        queue_ids: dict[str, int] = {}  # queue name -> id in v (0: no such queue)
        for o in self._ops(t):
            name, mid = o.queue_name, o.message_id
            if o.op != "consume" or name is None or mid is None:
                continue
            qid = queue_ids.get(name)
            if qid is None:
                q = self.lk.find_queue(v, name)
                qid = queue_ids[name] = q.id if q is not None else 0
            if qid:
                wanted.setdefault(qid, []).append((mid, mid + o.count))
        chosen: dict[int, Spooled] = {}
        for qid, ranges in wanted.items():
            runs = self.st.spooled_by_queue.get(qid)
            if runs is None:
                continue
            for a, b in normalize(ranges):
                for sp in runs.overlapping(a, b):
                    if sp.txn_id is None or sp.txn_id == t.id:
                        piece = cast("Spooled | None", self.st.isolate(sp, a, b))
                        if piece is not None:
                            chosen[piece.id] = piece
        return [chosen[i] for i in sorted(chosen)]

    def _published_ids(self, v: Vpn, first_id: int, first_rgmid: int | None,
                       last_rgmid: int | None) -> list[list[int]]:
        """Ledger ids of the messages one publish added (ids from ``first_id`` on, in its group
        and rgmid range), in rgmid order, as [first, end) ranges."""
        if first_rgmid is None or last_rgmid is None:
            return []
        out: list[list[int]] = []
        for a, b, m in self.st.ledger_spans(first_id, self.st.next_id("messages")):
            if m.group_id != v.group_id:
                continue
            lo = max(a, m.id + first_rgmid - m.rgmid)
            hi = min(b, m.id + last_rgmid - m.rgmid + 1)
            if lo >= hi:
                continue
            if out and out[-1][1] == lo:
                out[-1][1] = hi
            else:
                out.append([lo, hi])
        return out

    def _commit_txn(self, t: Txn, heuristic: str | None = None) -> None:
        v = self.st.vpns[t.vpn_id]
        r = self.st.routers[t.router_id]
        key = t.xid if t.kind == "xa" and t.xid is not None else f"local:{t.id}"
        sync = heuristic is None and self._is_sync(t)
        self._check_commit(t, heuristic)
        shared_key = self._xa_commit_key(v, t.xid)
        shared = self.st.meta.get(shared_key) if (t.kind == "xa" and t.replicated) else None
        if shared is not None:
            self._respool(v, r, json.loads(shared))
            del self.st.meta[shared_key]  # both sites have committed the branch
        else:
            ids: list[list[list[int]]] = []  # per publish operation, its message ids as ranges
            for o in [o for o in self._ops(t) if o.op == "publish"]:
                first_id = self.st.next_id("messages")
                res = self.sv.messaging.publish_now(v, r, t.client_name, o.topic or "", o.count, o.size)
                if res.rejected:  # what the quotas refuse is known only by publishing: too late
                    raise PartialRefusal("transaction_commit_rejected", xid=_label(t), reason=res.reject_reason)
                ids.append(self._published_ids(v, first_id, res.first_rgmid, res.last_rgmid))
            if t.kind == "xa" and t.replicated:
                self.st.meta[shared_key] = json.dumps(ids)
        self.sv.messaging.consume_selected(v, r, t.client_name, self._commit_copies(t, v), key)
        if heuristic is None:
            self._emit_end(t, "committed")
        self._log_xa_end(t, "committed", heuristic is not None)
        if sync:
            self._sync_replicate(t)
        self._finish(t, heuristic)

    def _check_commit(self, t: Txn, heuristic: str | None = None) -> None:
        """The refusal of a commit that can be told before it changes anything: a sync-mode
        transaction while sync replication is ineligible and reject-msg-when-sync-ineligible is on."""
        v = self.st.vpns[t.vpn_id]
        if (heuristic is None and self._is_sync(t) and v.reject_sync_ineligible
                and self.sv.replication.sync_eligible(v) is False):
            raise EngineError("transaction_commit_rejected", xid=_label(t),
                              reason="publish_rejected_sync_ineligible")

    @staticmethod
    def _xa_commit_key(v: Vpn, xid: str | None) -> str:
        return f"xa-commit:{v.group_id}:{xid}"

    @staticmethod
    def _xa_log_key(v: Vpn, xid: str | None) -> str:
        return f"xa-log:{v.group_id}:{xid}"

    def _log_xa_end(self, t: Txn, outcome: str, heuristic: bool) -> None:
        """Record how this site ended a replicated XA branch (see the module docstring).

        ``wrong_site``: a heuristic action on a mirror, i.e. on the replicated copy (held by the
        new active site after a failover, or by a standby) rather than on the site that ran the
        branch (seed 000: "only perform the heuristic commit or heuristic rollback operations on
        the formerly active Message VPN"). ``after_failback``: the site's own
        branch ended while the site is replication active again, after the mate resolved it."""
        if t.kind != "xa" or not t.replicated:
            return
        v = self.st.vpns[t.vpn_id]
        r = self.st.routers[t.router_id]
        key = self._xa_log_key(v, t.xid)
        raw = self.st.meta.get(key)
        log: list[dict[str, object]] = json.loads(raw) if raw is not None else []
        active = v.repl_enabled and v.role == "active"
        log.append({"router": r.name, "vpn": v.name, "outcome": outcome, "heuristic": heuristic,
                    "wrong_site": heuristic and t.mirror,
                    "after_failback": (not t.mirror) and active and any(e["router"] != r.name for e in log)})
        self.st.meta[key] = json.dumps(log)

    @staticmethod
    def _standby_end_key(v: Vpn, xid: str | None) -> str:
        return f"xa-standby-end:{v.group_id}:{xid}"

    def end_on_standby(self, t: Txn) -> None:
        """Roll back a branch that is not PREPARED because its VPN went standby, and keep the
        end for the audit (the router and the state the branch was in)."""
        v = self.st.vpns[t.vpn_id]
        r = self.st.routers[t.router_id]
        key = self._standby_end_key(v, t.xid)
        raw = self.st.meta.get(key)
        ends: list[dict[str, str]] = json.loads(raw) if raw is not None else []
        ends.append({"router": r.name, "vpn": v.name, "state": t.state})
        self.st.meta[key] = json.dumps(ends)
        self.rollback_txn(t, emit=False)

    def _respool(self, v: Vpn, r: Router, ids: list[list[Any]]) -> None:
        """Spool on ``r`` the messages the mate's commit of the same branch published (no new
        ledger rows, nothing queued for the mate: it has them); they count as replicated, so
        consuming them here propagates acks that remove the mate's copies. ``ids``: per publish
        operation, its message ids as [first, end) ranges (or, as labs before runs kept them,
        one by one)."""
        st = self.st
        now = self.lk.now_ms()
        queues_of_topic: dict[str, list[Queue]] = {}
        added: dict[int, list[int]] = {}  # queue id -> [count, bytes]
        # the ids as runs of consecutive ids within one ledger run (one topic and size)
        spans: list[tuple[int, int]] = []
        for item in (x for op in ids for x in op):
            lo, hi = (item, item + 1) if isinstance(item, int) else (int(item[0]), int(item[1]))
            if spans and spans[-1][1] == lo:
                spans[-1] = (spans[-1][0], hi)
            else:
                spans.append((lo, hi))
        # the collector pauses only for a big run: re-enabling it makes the next allocation pay
        with bulk() if sum(hi - lo for lo, hi in spans) >= BULK_RUN else nullcontext():
            for lo, hi in spans:
                for msg in st.messages_in(lo, hi):
                    msg.replicated = 1
                    n = msg.count
                    queues = queues_of_topic.get(msg.topic)
                    if queues is None:
                        queues = queues_of_topic[msg.topic] = self.sv.replication.matching_queues(v, msg.topic)
                    if len(queues) == 1 or n == 1:
                        # copy ids as a per-message loop gives them: message by message, queue by queue
                        if len(queues) == 1:
                            st.add(Spooled(queue_id=queues[0].id, message_id=msg.id, msg_id=r.next_msg_id,
                                           spooled_ms=now, size=msg.size, count=n))
                        else:
                            for q in queues:
                                st.add(Spooled(queue_id=q.id, message_id=msg.id, msg_id=r.next_msg_id,
                                               spooled_ms=now, size=msg.size))
                    else:
                        for j in range(n):
                            for q in queues:
                                st.add(Spooled(queue_id=q.id, message_id=msg.id + j, msg_id=r.next_msg_id + j,
                                               spooled_ms=now, size=msg.size))
                    for q in queues:
                        tally = added.setdefault(q.id, [0, 0])
                        tally[0] += n
                        tally[1] += n * msg.size
                    r.next_msg_id += n
        # counters once per queue: the same totals and high-water marks as per copy (they only grow here)
        self.lk.grow_queues([(self.st.queues[qid], count, nbytes) for qid, (count, nbytes) in added.items()])

    def rollback_txn(self, t: Txn, emit: bool = True, heuristic: str | None = None) -> None:
        """End ``t`` without effect: its locked copies are free again, its publishes dropped.
        ``emit`` False (a client's disconnect) sends and logs nothing; ``heuristic`` keeps the
        branch, COMPLETE, until ``heuristic_delete``."""
        for sp in self._locked_copies(t):
            sp.txn_id = None
        if emit and heuristic is None:
            self._emit_end(t, "rolled back")
        if emit:
            self._log_xa_end(t, "rolled back", heuristic is not None)
            if heuristic is None:
                self._sync_replicate(t)
        self._finish(t, heuristic)

    # ------------------------------------------------------------------ local transactions
    def tx_local_start(self, client: str) -> None:
        c, v, r = self.sv.clients.connection(client)
        if self._open_on(c, r.id) is not None:
            raise EngineError("transaction_already_open", client=client)
        self.sv.clients.connect(c, r)
        self._started(Txn(router_id=r.id, vpn_id=v.id, kind="local", xid=None, client_name=c.name,
                          client_username=c.username, client_num=c.client_num, state="active",
                          replicated=v.repl_enabled and v.role == "active", associated=True,
                          last_change_ms=self.lk.now_ms()), v)

    def _local(self, client: str) -> tuple[Client, Router, Txn]:
        """The client, the router it connects to and its local transaction there, or the refusal;
        changes nothing (connecting could roll back the transactions on its old router): the verb
        checks the rest, then ``connect``s."""
        c, _, r = self.sv.clients.connection(client)
        for t in self.st.txns.values():
            if t.client_name == c.name and t.router_id == r.id and t.kind == "local":
                return c, r, t
        raise EngineError("no_transaction", client=client)

    def tx_local_commit(self, client: str) -> None:
        c, r, t = self._local(client)
        self._check_commit(t)
        self.sv.clients.connect(c, r)
        self._commit_txn(t)

    def tx_local_rollback(self, client: str) -> None:
        c, r, t = self._local(client)
        self.sv.clients.connect(c, r)
        self.rollback_txn(t)

    # ------------------------------------------------------------------ XA verbs
    def tx_xa_start(self, client: str, xid: str) -> None:
        if not XID_RE.match(xid):
            raise EngineError("invalid_xid", xid=xid)
        c, v, r = self.sv.clients.connection(client)
        if self._open_on(c, r.id) is not None:
            raise EngineError("transaction_already_open", client=client)
        if self._find_xa(v, xid) is not None:
            raise EngineError("transaction_exists", xid=xid)
        self.sv.clients.connect(c, r)
        # a new branch reusing the XID of an old, finished one starts with no shared commit or log
        self.st.meta.pop(self._xa_commit_key(v, xid), None)
        self.st.meta.pop(self._xa_log_key(v, xid), None)
        self.st.meta.pop(self._standby_end_key(v, xid), None)
        self._started(Txn(router_id=r.id, vpn_id=v.id, kind="xa", xid=xid, client_name=c.name,
                          client_username=c.username, client_num=c.client_num, state="active",
                          replicated=v.repl_enabled and v.role == "active", associated=True,
                          last_change_ms=self.lk.now_ms()), v)

    def tx_xa_end(self, client: str, xid: str) -> None:
        c, r, t = self._xa(client, xid)
        self._require(t, "active", "suspended")
        self.sv.clients.connect(c, r)
        t.associated = False
        self._set_state(t, "idle")

    def tx_xa_suspend(self, client: str, xid: str) -> None:
        c, r, t = self._xa(client, xid)
        self._require(t, "active")
        self.sv.clients.connect(c, r)
        t.associated = False
        self._set_state(t, "suspended")

    def tx_xa_resume(self, client: str, xid: str) -> None:
        c, r, t = self._xa(client, xid)
        self._require(t, "suspended")
        if self._open_on(c, r.id) is not None:
            raise EngineError("transaction_already_open", client=client)
        self.sv.clients.connect(c, r)
        t.associated = True
        t.client_name = c.name
        self._set_state(t, "active")

    def tx_xa_prepare(self, client: str, xid: str) -> None:
        c, r, t = self._xa(client, xid)
        self._require(t, "idle")
        self.sv.clients.connect(c, r)
        self._set_state(t, "prepared")

    def tx_xa_commit(self, client: str, xid: str, one_phase: bool = False) -> None:
        c, r, t = self._xa(client, xid)
        if one_phase:
            self._require(t, "idle", "prepared")
        else:
            self._require(t, "prepared")
        self._check_commit(t)
        self.sv.clients.connect(c, r)
        self._commit_txn(t)

    def tx_xa_rollback(self, client: str, xid: str) -> None:
        c, r, t = self._xa(client, xid)
        self._require(t, "active", "suspended", "idle", "prepared")
        self.sv.clients.connect(c, r)
        self.rollback_txn(t)

    # ------------------------------------------------------------------ admin heuristics
    def _match_xa(self, router: str, vpn: str, pattern: str) -> list[Txn]:
        r = self.lk.router(router, must_be_up=True)
        v = self.lk.vpn(r, vpn)
        rows = sorted((t for t in self.st.txns.values()
                       if t.vpn_id == v.id and t.kind == "xa" and name_matches(pattern, t.xid or "")),
                      key=lambda t: t.xid or "")
        if not rows:
            raise EngineError("transaction_not_found", xid=pattern)
        return rows

    def heuristic_commit(self, router: str, vpn: str, xid_pattern: str) -> int:
        rows = self._match_xa(router, vpn, xid_pattern)
        for t in rows:
            self._require(t, "idle", "prepared")
        for t in rows:
            self._commit_txn(t, heuristic="committed")
        return len(rows)

    def heuristic_rollback(self, router: str, vpn: str, xid_pattern: str) -> int:
        rows = self._match_xa(router, vpn, xid_pattern)
        for t in rows:
            self._require(t, "idle", "prepared")
        for t in rows:
            self.rollback_txn(t, heuristic="rolled back")
        return len(rows)

    def heuristic_delete(self, router: str, vpn: str, xid_pattern: str) -> int:
        rows = self._match_xa(router, vpn, xid_pattern)
        for t in rows:
            if t.state != "complete" or t.heuristic is None:
                raise EngineError("transaction_wrong_state", xid=t.xid, state=t.state.upper(),
                                  required="COMPLETE")
        for t in rows:
            self.st.remove_all(self._ops(t))
            self.st.remove(t)
        return len(rows)

    # ------------------------------------------------------------------ views
    def transactions(self, router: str, xid: str | None = None, vpn: str | None = None,
                     state: str | None = None, replicated: bool | None = None,
                     detail: bool = True) -> list[TransactionInfo]:
        """`show transaction [xid <p>] [message-vpn <p>] [state <S>] [replicated]`; xid and vpn
        take * and ? wildcards; state is case-insensitive; `replicated` selects the mirrored ones.
        Local transactions have xid None (an xid filter never matches them)."""
        r = self.lk.router(router, must_be_up=True)
        if state is not None and state.lower() not in STATES:
            raise EngineError("invalid_value", name="state", value=state, allowed="|".join(s.upper() for s in STATES))
        now = self.lk.now_ms()
        out = []
        for t in [t for t in self.st.txns.values() if t.router_id == r.id]:
            v = self.st.vpns[t.vpn_id]
            if xid is not None and (t.xid is None or not name_matches(xid, t.xid)):
                continue
            if not name_matches(vpn, v.name):
                continue
            if state is not None and t.state != state.lower():
                continue
            mirrored = t.replicated and t.state != "active"  # as TransactionInfo.mirrored
            if replicated is not None and mirrored != replicated:
                continue
            ops = self._ops(t)
            n_pub = sum(o.count for o in ops if o.op == "publish")
            n_con = sum(o.count for o in ops if o.op == "consume")
            pub: list[TxnMessage] = []
            con: list[TxnMessage] = []
            if detail:
                for o in ops:
                    if o.op == "publish":
                        pub.extend(TxnMessage(None, None, o.topic, None, None)
                                   for _ in range(min(o.count, 1000 - len(pub))))
                    else:
                        for j in range(min(o.count, 1000 - len(con))):  # a run of consumed copies
                            mid = o.message_id + j if o.message_id is not None else None
                            m = self.st.find_message(mid) if mid is not None else None
                            con.append(TxnMessage(o.msg_id + j if o.msg_id is not None else None,
                                                  m.rgmid + mid - m.id if m is not None and mid is not None else None,
                                                  None, "queue", o.queue_name))
            out.append(TransactionInfo(
                router=r.name, xid=t.xid, vpn=v.name, kind=t.kind, state=t.state,
                replicated=t.replicated, heuristic=t.heuristic,
                last_state_change_ms=max(0, now - t.last_change_ms),
                messages_spooled=n_pub, messages_published=n_pub, messages_consumed=n_con,
                client_num=t.client_num, client_name=t.client_name, client_username=t.client_username, mirror=t.mirror,
                published=tuple(pub), consumed=tuple(con)))
        out.sort(key=lambda x: (x.xid or "", x.vpn, x.client_name))
        return out

    def xids(self, router: str, vpn: str | None = None) -> list[str]:
        """Completion: XIDs on a router (optionally one VPN)."""
        r = self.st.router_by_name.get(router)
        if r is None:
            return []
        out = set()
        for t in self.st.txns.values():
            if t.router_id != r.id or t.kind != "xa" or not t.xid:
                continue
            v = self.st.vpns.get(t.vpn_id)
            if v is not None and (vpn is None or v.name == vpn):
                out.add(t.xid)
        return sorted(out)
