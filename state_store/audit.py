"""The audit (what happened to every published message) and the lab status.

Why: the point of practising a failover runbook is to see its consequences; the audit turns the
ledgers (``message``, ``delivery``, ``spooled``, ``repl_entry``, ``rejection``) into outcomes per
replication-group message ID: delivered once, duplicated (which clients, which routers), lost
(never delivered and no copy left anywhere; with the reason when known), still spooled (and
*stranded* when no copy is on a router where the VPN is serving, e.g. left behind on the old
active site by activating the mate before the replication queue drained), rejected publishes.
Everything is aggregate SQL: a million messages audit in seconds.

Rules (issue 13, seeds 000 and 004):
- *lost* is "not available to the serving site": never delivered and no copy on a queue (or on
  the replication queue) of a router where the VPN serves. It includes the *stranded* messages,
  whose only copies are where the VPN does not serve (the old active site after activating the
  mate before the drain, a failed site, the backup after a failback); they count as lost for as
  long as that lasts, and the audit says they may reappear out of order or as duplicates if that
  site becomes active again (seed 004: "replicated messages from before the failover that have
  not been consumed would be lost" after a complete failure and failback).
- XA consequences (``XaIssue``) come from the branches still held and the log of how each site
  ended each replicated branch (transactions.py); split brain (``SplitBrain``) is a VPN active on
  two up routers of its group, and a message delivered meanwhile carries the note "split brain".
"""

from __future__ import annotations

import json

from sqlalchemy import select

from .base import EngineBase
from .models import Client, Meta, Txn
from .views import (
    Audit,
    AuditEntry,
    AuditTotals,
    LabStatus,
    RouterInfo,
    SiteInfo,
    SplitBrain,
    SpoolWhere,
    VpnStatus,
    XaIssue,
    XaResolution,
)

_XA_KIND_ORDER = ("wrong-site", "inconsistent", "after-failback", "left-prepared", "left-complete")


class AuditMixin(EngineBase):
    def audit(self, vpn: str | None = None, limit: int = 1000) -> Audit:
        serving = [v.id for v in self.topo.vpns if self._serving(v)]
        serving_sql = ",".join(map(str, serving)) or "NULL"
        vf = "WHERE m.vpn_name = :vpn" if vpn is not None else ""
        p = {"vpn": vpn, "lim": limit}
        per_msg = (
            "SELECT m.id, m.vpn_name, m.rgmid, m.topic, m.replicated, m.note, "
            " (SELECT COUNT(*) FROM delivery d WHERE d.message_id=m.id) AS nd, "
            " (EXISTS (SELECT 1 FROM spooled s WHERE s.message_id=m.id) OR EXISTS "
            "  (SELECT 1 FROM repl_entry e WHERE e.message_id=m.id AND e.kind='msg')) AS sp, "
            " (EXISTS (SELECT 1 FROM spooled s JOIN queue q ON q.id=s.queue_id WHERE s.message_id=m.id "
            f"  AND q.vpn_id IN ({serving_sql})) OR EXISTS (SELECT 1 FROM repl_entry e WHERE "
            f"  e.message_id=m.id AND e.kind='msg' AND e.vpn_id IN ({serving_sql}))) AS sv, "
            " EXISTS (SELECT 1 FROM spooled s WHERE s.message_id=m.id AND s.txn_id IS NOT NULL) AS tx "
            f"FROM message m {vf}")
        row = self._sql(
            "SELECT COUNT(*), COALESCE(SUM(nd>0),0), COALESCE(SUM(nd=1),0), COALESCE(SUM(nd>1),0), "
            "COALESCE(SUM(nd=0 AND NOT sv),0), COALESCE(SUM(nd=0 AND sp),0), "
            "COALESCE(SUM(nd=0 AND sp AND NOT sv),0), COALESCE(SUM(replicated=0),0), "
            f"COALESCE(SUM(nd=0 AND tx),0) FROM ({per_msg})", p).one()
        rej = self._scalar(
            "SELECT COALESCE(SUM(count),0) FROM rejection" + (" WHERE vpn_name=:vpn" if vpn else ""), p)
        totals = AuditTotals(
            published=row[0], delivered=row[1], delivered_once=row[2], duplicated=row[3], lost=row[4],
            spooled=row[5], stranded=row[6], rejected=int(rej or 0), not_replicated=row[7],
            in_transaction=row[8])
        problems: list[AuditEntry] = []
        for mid, vn, rg, topic, repl, note, nd, sp, _sv, _tx in self._sql(
                f"SELECT * FROM ({per_msg}) WHERE nd>1 OR (nd=0 AND NOT sp) OR (nd=0 AND sp AND NOT sv) "
                "ORDER BY vpn_name, rgmid LIMIT :lim", p).all():
            if nd > 1:
                outcome = "duplicated"
            elif not sp:
                outcome = "lost"
            else:
                outcome = "stranded"
            dl = self._sql("SELECT DISTINCT client_name, router_name FROM delivery WHERE message_id=:m "
                           "ORDER BY client_name, router_name", {"m": mid}).all()
            where = tuple(
                f"{r}/{q}" for r, q in self._sql(
                    "SELECT r.name, q.name FROM spooled s JOIN queue q ON q.id=s.queue_id JOIN vpn v "
                    "ON v.id=q.vpn_id JOIN router r ON r.id=v.router_id WHERE s.message_id=:m "
                    "UNION SELECT r.name, '#MSGVPN_REPLICATION_DATA_QUEUE' FROM repl_entry e JOIN vpn v "
                    "ON v.id=e.vpn_id JOIN router r ON r.id=v.router_id WHERE e.message_id=:m AND e.kind='msg' "
                    "ORDER BY 1, 2", {"m": mid}).all())
            reasons = []
            if repl == 0:
                reasons.append("not replicated")
            if note:
                reasons.extend(n for n in note.split("; ") if n not in reasons)
            if outcome == "stranded":
                reasons.append("only on a router where the VPN is not serving")
            problems.append(AuditEntry(
                vpn=vn, rgmid=rg, topic=topic, outcome=outcome, deliveries=nd,
                clients=tuple(sorted({c for c, _ in dl})), routers=tuple(sorted({r for _, r in dl})),
                where=where, note=", ".join(reasons)))
        where_rows = self._sql(
            "SELECT r.name, v.name, q.name, COUNT(*) FROM spooled s JOIN queue q ON q.id=s.queue_id "
            "JOIN vpn v ON v.id=q.vpn_id JOIN router r ON r.id=v.router_id "
            + ("WHERE v.name=:vpn " if vpn else "") +
            "GROUP BY r.name, v.name, q.name UNION ALL "
            "SELECT r.name, v.name, '#MSGVPN_REPLICATION_DATA_QUEUE', COUNT(*) FROM repl_entry e "
            "JOIN vpn v ON v.id=e.vpn_id JOIN router r ON r.id=v.router_id WHERE e.kind='msg' "
            + ("AND v.name=:vpn " if vpn else "") + "GROUP BY r.name, v.name ORDER BY 1, 2, 3", p).all()
        return Audit(vpn=vpn, totals=totals, problems=tuple(problems),
                     spooled_where=tuple(SpoolWhere(*w) for w in where_rows),
                     xa_issues=tuple(self._xa_issues(vpn)),
                     split_brains=tuple(b for b in self._split_brains() if vpn is None or b.vpn == vpn))

    def _split_brains(self) -> list[SplitBrain]:
        """Seed 004 expects one active site per replication group; a restored site comes back
        with the role it had, so both may be active: every such VPN, by name."""
        out = []
        for group in sorted({v.group_id for v in self.topo.user_vpns}):
            members = [v for v in self.topo.user_vpns if v.group_id == group]
            active = sorted(self._router_of(v).name for v in members
                            if v.repl_enabled and v.role == "active" and self._router_of(v).up)
            if len(active) > 1:
                out.append(SplitBrain(members[0].name, tuple(active)))
        return sorted(out, key=lambda b: b.vpn)

    def _xa_issues(self, vpn: str | None) -> list[XaIssue]:
        """The XA consequences of seed 000 steps 4 and 6 (see ``XaIssue``)."""
        out: list[XaIssue] = []
        last_by_branch: dict[tuple[str, str], dict[str, XaResolution]] = {}
        for row in self.s.scalars(select(Meta).where(Meta.key.like("xa-log:%"))):
            xid = row.key.split(":", 2)[2]
            entries = json.loads(row.value)
            vname = str(entries[0]["vpn"])
            if vpn is not None and vname != vpn:
                continue
            last: dict[str, XaResolution] = {}
            for e in entries:
                res = XaResolution(str(e["router"]), str(e["outcome"]), bool(e["heuristic"]))
                if e["wrong_site"]:
                    out.append(XaIssue(vname, xid, "wrong-site", res.router, res))
                if e["after_failback"]:
                    out.append(XaIssue(vname, xid, "after-failback", res.router, res,
                                       tuple(x for x in last.values() if x.router != res.router)))
                last[res.router] = res
            if len({x.outcome for x in last.values()}) > 1:
                out.append(XaIssue(vname, xid, "inconsistent", "", None,
                                   tuple(sorted(last.values(), key=lambda x: x.router))))
            last_by_branch[(vname, xid)] = last
        for t in self.s.scalars(select(Txn).where(Txn.kind == "xa")):
            v = self.topo.vpn_by_id[t.vpn_id]
            r = self.topo.router_by_id[t.router_id]
            assert v is not None and r is not None
            if (vpn is not None and v.name != vpn) or t.xid is None:
                continue
            if t.state == "complete" and t.heuristic is not None:
                out.append(XaIssue(v.name, t.xid, "left-complete", r.name,
                                   XaResolution(r.name, t.heuristic, True)))
            elif (t.state == "prepared" and not t.mirror and t.replicated and v.repl_enabled
                  and v.role == "standby"):
                others = last_by_branch.get((v.name, t.xid), {})
                out.append(XaIssue(v.name, t.xid, "left-prepared", r.name, None,
                                   tuple(x for _, x in sorted(others.items()) if x.router != r.name)))
        out.sort(key=lambda i: (i.vpn, i.xid, _XA_KIND_ORDER.index(i.kind), i.router))
        return out

    def status(self) -> LabStatus:
        routers = sorted(self.topo.routers, key=lambda r: r.name)
        sites = sorted(self.topo.sites, key=lambda s: s.name)
        site_name = {s.id: s.name for s in sites}
        vpns = []
        for v in self.topo.user_vpns:
            rq = self._repl_queue(v)
            entries = self._scalar("SELECT COUNT(*) FROM repl_entry WHERE vpn_id=:v", {"v": v.id})
            vpns.append(VpnStatus(
                router=self._router_of(v).name, vpn=v.name,
                replication="enabled" if v.repl_enabled else "shutdown", role=v.role,
                repl_queue_messages=rq.msg_count if rq else 0, repl_queue_entries=int(entries or 0)))
        vpns.sort(key=lambda x: (x.vpn, x.router))
        links = self.topo.links
        return LabStatus(
            now_ms=self.now_ms(),
            sites=tuple(SiteInfo(s.name, tuple(r.name for r in routers if r.site_id == s.id),
                                 all(r.up for r in routers if r.site_id == s.id)) for s in sites),
            routers=tuple(RouterInfo(r.name, site_name[r.site_id], r.up) for r in routers),
            link_up=all(link.up for link in links),
            vpns=tuple(vpns),
            clients=tuple(self._client_info(c) for c in self.s.scalars(select(Client).order_by(Client.name))),
            split_brains=tuple(self._split_brains()),
        )
