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
- Each site's own branch is its own (seed 000 step 4): the replicated end of a branch removes
  only the receiver's mirror (see ``_apply_tx_mirror``), so a PREPARED branch left on the
  formerly active site stays, holding a transaction resource ("Current Transactions"), until
  a heuristic action and ``delete-transaction`` there (steps 4 and 6).
- Every end of a replicated XA branch (commit or rollback, by the transaction manager or
  heuristic, on either site) is logged per replication group and XID (meta
  ``xa-log:<group>:<xid>``, cleared when a new branch reuses the XID); the audit derives from it
  the consequences seed 000 warns about (``XaIssue``: heuristic action on the new active site,
  branches resolved differently, a leftover resolved after failback).
"""

from __future__ import annotations

import json
import re

from sqlalchemy import select

from .base import EngineBase
from .errors import EngineError
from .models import Client, Meta, Router, Txn, TxnOp, Vpn
from .topics import name_matches
from .views import TransactionInfo, TxnMessage

XID_RE = re.compile(r"^[0-9A-Fa-f]{1,8}-[0-9A-Fa-f]{1,128}-[0-9A-Fa-f]{1,128}$")
STATES = ("active", "suspended", "idle", "prepared", "complete")


class TransactionsMixin(EngineBase):
    # ------------------------------------------------------------------ helpers
    def _open_txn(self, c: Client) -> Txn | None:
        if c.router_id is None:
            return None
        return self.s.scalars(select(Txn).where(
            Txn.client_name == c.name, Txn.router_id == c.router_id, Txn.mirror.is_(False),
            ((Txn.kind == "local") | ((Txn.kind == "xa") & (Txn.state == "active") & Txn.associated.is_(True))),
        )).first()

    def _xa(self, client: str, xid: str) -> tuple[Client, Vpn, Router, Txn]:
        c, v, r = self._connected_client(client)
        t = self.s.scalars(select(Txn).where(Txn.vpn_id == v.id, Txn.kind == "xa", Txn.xid == xid)).first()
        if t is None:
            raise EngineError("transaction_not_found", xid=xid)
        return c, v, r, t

    def _require(self, t: Txn, *states: str) -> None:
        if t.state not in states:
            raise EngineError("transaction_wrong_state", xid=t.xid or f"local:{t.client_name}",
                              state=t.state.upper(), required=" or ".join(s.upper() for s in states))

    def _set_state(self, t: Txn, state: str) -> None:
        t.state = state
        t.last_change_ms = self.now_ms()
        self.s.flush()
        self._mirror(t)
        self._sync_replicate(t)

    @staticmethod
    def _sync_key(t: Txn) -> str:
        return f"txn-sync:{t.id}"

    def _started(self, t: Txn, v: Vpn) -> None:
        """Add a new transaction; remember sync mode when it starts replicated in it."""
        self.s.add(t)
        self.s.flush()
        if t.replicated and v.trm == "sync":
            self.s.add(Meta(key=self._sync_key(t), value="sync"))

    def _is_sync(self, t: Txn) -> bool:
        return self.s.get(Meta, self._sync_key(t)) is not None

    def _sync_replicate(self, t: Txn) -> None:
        """A sync-mode transaction's replication completes before the verb returns: drain the
        VPN's stream to the standby now, when sync replication is eligible."""
        v = self.topo.vpn_by_id[t.vpn_id]
        if v is not None and self._is_sync(t) and self._sync_eligible(v):
            self._drain(v)

    def _mirror(self, t: Txn) -> None:
        v = self.topo.vpn_by_id[t.vpn_id]
        if t.kind != "xa" or not t.replicated or t.state == "active" or v is None:
            return
        if not (v.repl_enabled and v.role == "active"):
            return
        ops = [dict(op=o.op, topic=o.topic, count=o.count, size=o.size, message_id=o.message_id,
                    msg_id=o.msg_id, queue_name=o.queue_name)
               for o in self.s.scalars(select(TxnOp).where(TxnOp.txn_id == t.id).order_by(TxnOp.id))]
        self._append_tx_entry(v, {"xid": t.xid, "client": t.client_name, "username": t.client_username,
                                  "num": t.client_num, "state": t.state, "ops": ops})

    def _emit_end(self, t: Txn, outcome: str) -> None:
        v = self.topo.vpn_by_id[t.vpn_id]
        if t.kind == "xa" and t.replicated and v is not None and v.repl_enabled and v.role == "active":
            self._append_tx_entry(v, {"xid": t.xid, "end": outcome})

    def _finish(self, t: Txn, heuristic: str | None) -> None:
        self._sql("DELETE FROM txn_op WHERE txn_id=:t", {"t": t.id})
        mark = self.s.get(Meta, self._sync_key(t))
        if mark is not None:
            self.s.delete(mark)
        if heuristic is None:
            self.s.delete(t)
        else:
            t.heuristic = heuristic
            t.state = "complete"
            t.associated = False
            t.last_change_ms = self.now_ms()
        self.s.flush()

    def _commit_txn(self, t: Txn, heuristic: str | None = None) -> None:
        v = self.topo.vpn_by_id[t.vpn_id]
        r = self.topo.router_by_id[t.router_id]
        assert v is not None and r is not None
        key = t.xid if t.kind == "xa" else f"local:{t.id}"
        pubs = list(self.s.scalars(select(TxnOp).where(TxnOp.txn_id == t.id, TxnOp.op == "publish").order_by(TxnOp.id)))
        sync = heuristic is None and self._is_sync(t)
        if sync and v.reject_sync_ineligible and self._sync_eligible(v) is False:
            raise EngineError("transaction_commit_rejected", xid=t.xid or f"local:{t.client_name}",
                              reason="publish_rejected_sync_ineligible")
        shared = self.s.get(Meta, self._xa_commit_key(v, t.xid)) if (t.kind == "xa" and t.replicated) else None
        if shared is not None:
            self._respool(v, r, json.loads(shared.value))
            self.s.delete(shared)  # both sites have committed the branch
        else:
            ids: list[list[int]] = []
            for o in pubs:
                res = self._publish_now(v, r, t.client_name, o.topic or "", o.count, o.size)
                if res.rejected:
                    raise EngineError("transaction_commit_rejected", xid=t.xid or f"local:{t.client_name}",
                                      reason=res.reject_reason)
                ids.append([] if res.first_rgmid is None else [
                    row[0] for row in self._sql(
                        "SELECT id FROM message WHERE group_id=:g AND rgmid BETWEEN :a AND :b ORDER BY rgmid",
                        {"g": v.group_id, "a": res.first_rgmid, "b": res.last_rgmid}).all()])
            if t.kind == "xa" and t.replicated:
                self.s.merge(Meta(key=self._xa_commit_key(v, t.xid), value=json.dumps(ids)))
        self._select(
            "SELECT s.id FROM txn_op o JOIN queue q ON q.vpn_id=:v AND q.name=o.queue_name "
            "JOIN spooled s ON s.queue_id=q.id AND s.message_id=o.message_id "
            "WHERE o.txn_id=:t AND o.op='consume' AND (s.txn_id IS NULL OR s.txn_id=:t)",
            {"v": v.id, "t": t.id})
        self._consume_selected(v, r, t.client_name, key)
        if heuristic is None:
            self._emit_end(t, "committed")
        self._log_xa_end(t, "committed", heuristic is not None)
        if sync:
            self._sync_replicate(t)
        self._finish(t, heuristic)

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
        v = self.topo.vpn_by_id[t.vpn_id]
        r = self.topo.router_by_id[t.router_id]
        assert v is not None and r is not None
        key = self._xa_log_key(v, t.xid)
        row = self.s.get(Meta, key)
        log: list[dict[str, object]] = json.loads(row.value) if row is not None else []
        active = v.repl_enabled and v.role == "active"
        log.append({"router": r.name, "vpn": v.name, "outcome": outcome, "heuristic": heuristic,
                    "wrong_site": heuristic and t.mirror,
                    "after_failback": (not t.mirror) and active and any(e["router"] != r.name for e in log)})
        self.s.merge(Meta(key=key, value=json.dumps(log)))

    def _respool(self, v: Vpn, r: Router, ids: list[list[int]]) -> None:
        """Spool on ``r`` the messages the mate's commit of the same branch published (no new
        ledger rows, nothing queued for the mate: it has them); they count as replicated, so
        consuming them here propagates acks that remove the mate's copies."""
        for mid in (m for op in ids for m in op):
            row = self._sql("SELECT topic, size FROM message WHERE id=:m", {"m": mid}).one_or_none()
            if row is None:
                continue
            topic, size = row
            self._sql("UPDATE message SET replicated=1 WHERE id=:m", {"m": mid})
            for q in self._matching_queues(v, topic):
                self._sql("INSERT INTO spooled (queue_id, message_id, msg_id, spooled_ms, size) "
                          "VALUES (:q, :m, :mid, :now, :sz)",
                          {"q": q.id, "m": mid, "mid": r.next_msg_id, "now": self.now_ms(), "sz": size})
                self._adjust_queue(q, 1, size)
            r.next_msg_id += 1
        self.s.flush()

    def _rollback_txn(self, t: Txn, emit: bool = True, heuristic: str | None = None) -> None:
        self._sql("UPDATE spooled SET txn_id=NULL WHERE txn_id=:t", {"t": t.id})
        if emit and heuristic is None:
            self._emit_end(t, "rolled back")
        if emit:
            self._log_xa_end(t, "rolled back", heuristic is not None)
            if heuristic is None:
                self._sync_replicate(t)
        self._finish(t, heuristic)

    # ------------------------------------------------------------------ local transactions
    def tx_local_start(self, client: str) -> None:
        c, v, r = self._connected_client(client)
        if self._open_txn(c) is not None:
            raise EngineError("transaction_already_open", client=client)
        self._started(Txn(router_id=r.id, vpn_id=v.id, kind="local", xid=None, client_name=c.name,
                          client_username=c.username, client_num=c.client_num, state="active",
                          replicated=v.repl_enabled and v.role == "active", associated=True,
                          last_change_ms=self.now_ms()), v)

    def _local(self, client: str) -> Txn:
        c, _, _ = self._connected_client(client)
        t = self.s.scalars(select(Txn).where(Txn.client_name == c.name, Txn.router_id == c.router_id,
                                             Txn.kind == "local")).first()
        if t is None:
            raise EngineError("no_transaction", client=client)
        return t

    def tx_local_commit(self, client: str) -> None:
        self._commit_txn(self._local(client))

    def tx_local_rollback(self, client: str) -> None:
        self._rollback_txn(self._local(client))

    # ------------------------------------------------------------------ XA verbs
    def tx_xa_start(self, client: str, xid: str) -> None:
        if not XID_RE.match(xid):
            raise EngineError("invalid_xid", xid=xid)
        c, v, r = self._connected_client(client)
        if self._open_txn(c) is not None:
            raise EngineError("transaction_already_open", client=client)
        if self.s.scalars(select(Txn).where(Txn.vpn_id == v.id, Txn.kind == "xa", Txn.xid == xid)).first():
            raise EngineError("transaction_exists", xid=xid)
        stale = self.s.get(Meta, self._xa_commit_key(v, xid))
        if stale is not None:  # a new branch reusing the XID of an old, finished one
            self.s.delete(stale)
        old_log = self.s.get(Meta, self._xa_log_key(v, xid))
        if old_log is not None:
            self.s.delete(old_log)
        self._started(Txn(router_id=r.id, vpn_id=v.id, kind="xa", xid=xid, client_name=c.name,
                          client_username=c.username, client_num=c.client_num, state="active",
                          replicated=v.repl_enabled and v.role == "active", associated=True,
                          last_change_ms=self.now_ms()), v)

    def tx_xa_end(self, client: str, xid: str) -> None:
        _, _, _, t = self._xa(client, xid)
        self._require(t, "active", "suspended")
        t.associated = False
        self._set_state(t, "idle")

    def tx_xa_suspend(self, client: str, xid: str) -> None:
        _, _, _, t = self._xa(client, xid)
        self._require(t, "active")
        t.associated = False
        self._set_state(t, "suspended")

    def tx_xa_resume(self, client: str, xid: str) -> None:
        c, _, _, t = self._xa(client, xid)
        self._require(t, "suspended")
        if self._open_txn(c) is not None:
            raise EngineError("transaction_already_open", client=client)
        t.associated = True
        t.client_name = c.name
        self._set_state(t, "active")

    def tx_xa_prepare(self, client: str, xid: str) -> None:
        _, _, _, t = self._xa(client, xid)
        self._require(t, "idle")
        self._set_state(t, "prepared")

    def tx_xa_commit(self, client: str, xid: str, one_phase: bool = False) -> None:
        _, _, _, t = self._xa(client, xid)
        if one_phase:
            self._require(t, "idle", "prepared")
        else:
            self._require(t, "prepared")
        self._commit_txn(t)

    def tx_xa_rollback(self, client: str, xid: str) -> None:
        _, _, _, t = self._xa(client, xid)
        self._require(t, "active", "suspended", "idle", "prepared")
        self._rollback_txn(t)

    # ------------------------------------------------------------------ admin heuristics
    def _match_xa(self, router: str, vpn: str, pattern: str) -> list[Txn]:
        r = self._router(router, must_be_up=True)
        v = self._vpn(r, vpn)
        rows = [t for t in self.s.scalars(select(Txn).where(Txn.vpn_id == v.id, Txn.kind == "xa").order_by(Txn.xid))
                if name_matches(pattern, t.xid or "")]
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
            self._rollback_txn(t, heuristic="rolled back")
        return len(rows)

    def heuristic_delete(self, router: str, vpn: str, xid_pattern: str) -> int:
        rows = self._match_xa(router, vpn, xid_pattern)
        for t in rows:
            if t.state != "complete" or t.heuristic is None:
                raise EngineError("transaction_wrong_state", xid=t.xid, state=t.state.upper(),
                                  required="COMPLETE")
        for t in rows:
            self.s.delete(t)
        self.s.flush()
        return len(rows)

    # ------------------------------------------------------------------ views
    def transactions(self, router: str, xid: str | None = None, vpn: str | None = None,
                     state: str | None = None, replicated: bool | None = None,
                     detail: bool = True) -> list[TransactionInfo]:
        """`show transaction [xid <p>] [message-vpn <p>] [state <S>] [replicated]`; xid and vpn
        take * and ? wildcards; state is case-insensitive. Local transactions have xid None
        (an xid filter never matches them)."""
        r = self._router(router, must_be_up=True)
        if state is not None and state.lower() not in STATES:
            raise EngineError("invalid_value", name="state", value=state, allowed="|".join(s.upper() for s in STATES))
        now = self.now_ms()
        out = []
        for t in self.s.scalars(select(Txn).where(Txn.router_id == r.id)):
            v = self.topo.vpn_by_id[t.vpn_id]
            assert v is not None
            if xid is not None and (t.xid is None or not name_matches(xid, t.xid)):
                continue
            if not name_matches(vpn, v.name):
                continue
            if state is not None and t.state != state.lower():
                continue
            if replicated is not None and t.replicated != replicated:
                continue
            ops = list(self.s.scalars(select(TxnOp).where(TxnOp.txn_id == t.id).order_by(TxnOp.id)))
            n_pub = sum(o.count for o in ops if o.op == "publish")
            n_con = sum(1 for o in ops if o.op == "consume")
            pub: list[TxnMessage] = []
            con: list[TxnMessage] = []
            if detail:
                for o in ops:
                    if o.op == "publish":
                        pub.extend(TxnMessage(None, None, o.topic, None, None)
                                   for _ in range(min(o.count, 1000 - len(pub))))
                    elif len(con) < 1000:
                        rg = self._scalar("SELECT rgmid FROM message WHERE id=:m", {"m": o.message_id})
                        con.append(TxnMessage(o.msg_id, rg, None, "queue", o.queue_name))
            out.append(TransactionInfo(
                router=r.name, xid=t.xid, vpn=v.name, type="XA" if t.kind == "xa" else "Local",
                state=t.state.upper(), replicated=t.replicated, heuristic=t.heuristic,
                last_state_change_s=max(0, now - t.last_change_ms) // 1000,
                messages_spooled=n_pub, messages_published=n_pub, messages_consumed=n_con,
                client=f"{t.client_name}/{t.client_num}/#000c{t.client_num:04d}",
                client_name=t.client_name, client_username=t.client_username, mirror=t.mirror,
                published=tuple(pub), consumed=tuple(con)))
        out.sort(key=lambda x: (x.xid or "", x.vpn, x.client_name))
        return out

    def xids(self, router: str, vpn: str | None = None) -> list[str]:
        """Completion: XIDs on a router (optionally one VPN)."""
        try:
            r = self._router(router)
        except EngineError:
            return []
        out = set()
        for t in self.s.scalars(select(Txn).where(Txn.router_id == r.id, Txn.kind == "xa")):
            v = self.topo.vpn_by_id[t.vpn_id]
            if v is not None and (vpn is None or v.name == vpn) and t.xid:
                out.add(t.xid)
        return sorted(out)
