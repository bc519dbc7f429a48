"""The audit (what happened to every published message) and the lab status.

Why: the point of practising a failover runbook is to see its consequences; the audit turns the
ledgers (messages, their deliveries, spooled copies, replication-stream entries, rejections) into
outcomes per replication-group message ID, in the vocabulary every system's audit speaks
(``state_store.kernel.audit``: its outcome and reason codes, its ``AuditTotals``): delivered,
duplicate-delivered (which clients, which routers), lost (see the rules below; with the ledger's
notes and the reason code not-replicated), stored on a queue (and *stranded* when no copy is on a
router where the VPN is serving, e.g. left behind on the old active site by activating the mate
before the replication queue drained), not replicated, and rejected publishes; the lab console
prints them in the Solace lab's words. One pass over the messages with the state's per-message
indexes (deliveries, copies) and one pass over the replication streams: a million messages audit
in seconds. Messages whose fate is settled for good (delivered once, nothing left:
``state_store.solace.settle``) are folded out of the ledger into per-VPN totals, which count here
and can never be a listed problem.

Rules (seeds 000 and 004):
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
from collections.abc import Iterable, Iterator
from dataclasses import replace
from itertools import islice
from operator import itemgetter
from typing import cast

from ..kernel.audit import DUPLICATE_DELIVERED, LOST, NOT_REPLICATED, STRANDED
from ..kernel.runs import MessageRuns
from . import redundancy
from .lookups import REPL_QUEUE
from .records import Delivery, Message, ReplEntry, Router, Spooled
from .service import Service
from .views import (
    Audit,
    AuditEntry,
    LabStatus,
    MemberStatus,
    RouterInfo,
    SiteInfo,
    SolaceAuditTotals,
    SplitBrain,
    SpoolWhere,
    VpnStatus,
    XaIssue,
    XaResolution,
)

_XA_KIND_ORDER = ("ended-on-standby", "wrong-site", "inconsistent", "after-failback", "left-prepared",
                  "left-complete")
_XA_LOG_PREFIX = "xa-log:"  # st.meta keys `xa-log:<group id>:<xid>` (transactions.py)
_XA_STANDBY_END_PREFIX = "xa-standby-end:"  # `xa-standby-end:<group id>:<xid>` (transactions.py)


def _in_order(segments: list[tuple[Message, int, int]]) -> Iterator[tuple[int, Message, int]]:
    """The messages of ``segments`` ((ledger run, first id, how many) in id order) by (VPN name,
    rgmid, id), as (first id, run, how many), lazily: the audit reads only as far as it lists.
    Within a VPN name rgmids normally grow with ids (one group counter), so grouping by VPN keeps
    each group sorted and its segments come whole; only an out-of-order group is expanded into
    its messages and sorted."""
    by_vpn: dict[str, list[tuple[Message, int, int]]] = {}
    last_rgmid: dict[str, int] = {}
    unsorted: set[str] = set()
    for seg in segments:
        m, a, n = seg
        name = m.vpn_name
        first = m.rgmid + a - m.id
        group = by_vpn.get(name)
        if group is None:
            by_vpn[name] = [seg]
        else:
            if last_rgmid[name] > first:
                unsorted.add(name)
            group.append(seg)
        last_rgmid[name] = first + n - 1
    for name in sorted(by_vpn):
        group = by_vpn[name]
        if name in unsorted:
            items = [(mid, m, 1) for m, a, n in group for mid in range(a, a + n)]
            items.sort(key=lambda t: (t[1].rgmid + t[0] - t[1].id, t[0]))
            yield from items
            continue
        for m, a, n in group:
            yield a, m, n


def _first_in_order(segments: list[tuple[Message, int, int]], limit: int) -> list[tuple[int, Message, int]]:
    """The first ``limit`` items of ``_in_order(segments)``; a negative limit is none, as SQL's
    LIMIT."""
    return list(_in_order(segments) if limit < 0 else islice(_in_order(segments), limit))


_Run = Delivery | Spooled | ReplEntry  # runs that name messages: message_id .. + count


def _spread(runs: Iterable[_Run], lo: int, hi: int) -> Iterator[tuple[int, _Run]]:
    """(message id, run) for each message of [lo, hi) each run holds, the runs in their order."""
    for r in runs:
        first = r.message_id
        if first is None:
            continue
        for mid in range(max(lo, first), min(hi, first + r.count)):
            yield mid, r


# an AuditEntry's fields but the VPN, rgmid and topic: outcome, deliveries, clients, routers, where, notes,
# reason
_EntryFields = tuple[str, int, tuple[str, ...], tuple[str, ...], tuple[tuple[str, str], ...], tuple[str, ...],
                     str]


def _entry_fields(m: Message, dl: list[Delivery], places: set[tuple[str, str]]) -> _EntryFields:
    """What the audit lists for a message of ledger run ``m`` delivered by ``dl`` (in id order)
    with a copy or stream entry at each of ``places``: the kernel's outcome and reason codes, and
    the ledger's notes as they are (first seen first, no repeats)."""
    nd = len(dl)
    if nd > 1:
        outcome = DUPLICATE_DELIVERED
    elif not places:
        outcome = LOST
    else:
        outcome = STRANDED
    notes = tuple(dict.fromkeys(m.note.split("; "))) if m.note else ()
    return (outcome, nd, tuple(sorted({d.client_name for d in dl})), tuple(sorted({d.router_name for d in dl})),
            tuple(sorted(places)), notes, NOT_REPLICATED if m.replicated == 0 else "")


class AuditService(Service):
    def audit(self, vpn: str | None = None, limit: int = 1000) -> Audit:
        st, lk = self.st, self.lk
        serving = {v.id for v in st.vpns.values() if lk.serving(v)}
        vpn_router = {v.id: st.routers[v.router_id].name for v in st.vpns.values()}
        queue_vpn = {q.id: q.vpn_id for q in st.queues.values()}
        serving_queues = {q_id for q_id, v_id in queue_vpn.items() if v_id in serving}
        # The copies and the replication streams' message runs cover ranges of message ids with
        # counts (held: copies somewhere, served: copies where their VPN serves, locked: copies a
        # transaction holds); sweeping their boundaries with the ledger runs and the
        # delivered ids cuts the ledger into segments of one state, counted at once.
        # (message id, held, served, locked, deliveries) deltas
        events: list[tuple[int, int, int, int, int]] = []
        for c in st.spooled.values():
            served = 1 if c.queue_id in serving_queues else 0
            locked = 1 if c.txn_id is not None else 0
            events.append((c.message_id, 1, served, locked, 0))
            events.append((c.message_id + c.count, -1, -served, -locked, 0))
        repl_counts: dict[int, int] = {}
        for vpn_id, entries in st.repl_by_vpn.items():
            served = 1 if vpn_id in serving else 0
            n = 0
            for e in entries:
                if e.kind == "msg":
                    n += e.count
                    if e.message_id is not None:
                        events.append((e.message_id, 1, served, 0, 0))
                        events.append((e.message_id + e.count, -1, -served, 0, 0))
            if n:
                repl_counts[vpn_id] = n
        for d in st.deliveries.values():
            events.append((d.message_id, 0, 0, 0, 1))
            events.append((d.message_id + d.count, 0, 0, 0, -1))
        events.sort(key=itemgetter(0))  # (stable: events at one id keep their order)
        never = 1 << 62

        published = delivered = once = duplicated = lost = stored = stranded = not_repl = in_tx = 0
        flagged: list[tuple[Message, int, int]] = []  # (run, first id, how many) to list
        held = served_n = locked_n = delivered_n = 0
        ei = 0
        n_events = len(events)
        for m in st.ledger:
            a, end = m.id, m.id + m.count
            if vpn is not None and m.vpn_name != vpn:
                continue
            unrepl = m.replicated == 0
            while a < end:
                while ei < n_events and events[ei][0] <= a:
                    _, dh, ds, dlk, dd = events[ei]
                    held += dh
                    served_n += ds
                    locked_n += dlk
                    delivered_n += dd
                    ei += 1
                b = min(end, events[ei][0] if ei < n_events else never)
                n = b - a
                published += n
                if unrepl:
                    not_repl += n
                if delivered_n:
                    delivered += n
                    if delivered_n == 1:
                        once += n
                    else:
                        duplicated += n
                        flagged.append((m, a, n))
                else:
                    if not served_n:
                        lost += n
                        flagged.append((m, a, n))
                    if held:
                        stored += n
                        if not served_n:
                            stranded += n
                        if locked_n:
                            in_tx += n
                a = b
        for s in st.settled.values():  # folded out of the ledger: each published and delivered once
            if vpn is None or s.vpn_name == vpn:
                published += s.messages
                delivered += s.messages
                once += s.messages
                not_repl += s.not_replicated
        rejected = sum(x.count for x in st.rejections.values() if not vpn or x.vpn_name == vpn)
        totals = SolaceAuditTotals(
            published=published, delivered=delivered, duplicated=duplicated, lost=lost, stored=stored,
            discarded=0, stranded=stranded, not_replicated=not_repl, delivered_once=once, rejected=rejected,
            in_transaction=in_tx)

        problems = self._entries(flagged, limit, vpn_router, queue_vpn)

        where_rows: list[SpoolWhere] = []
        for queue_id, copies in st.spooled_by_queue.items():
            q = st.queues[queue_id]
            v = st.vpns[q.vpn_id]
            if copies and (not vpn or v.name == vpn):
                where_rows.append(SpoolWhere(vpn_router[v.id], v.name, q.name, copies.total()))
        for vpn_id, n in repl_counts.items():
            v = st.vpns[vpn_id]
            if not vpn or v.name == vpn:
                where_rows.append(SpoolWhere(vpn_router[v.id], v.name, REPL_QUEUE, n))
        where_rows.sort(key=lambda w: (w.router, w.vpn, w.queue))
        return Audit(vpn=vpn, totals=totals, problems=tuple(problems), spooled_where=tuple(where_rows),
                     xa_issues=tuple(self._xa_issues(vpn)),
                     split_brains=tuple(b for b in self._split_brains() if vpn is None or b.vpn == vpn))

    def _entries(self, flagged: list[tuple[Message, int, int]], limit: int, vpn_router: dict[int, str],
                 queue_vpn: dict[int, int]) -> list[AuditEntry]:
        """The first ``limit`` audit entries (all for a negative limit) of the ``flagged``
        segments, by (VPN, rgmid): an entry is a longest stretch of messages with consecutive
        rgmids and one outcome, topic and details. Segments that continue the entry before them
        are merged into it, so the entries depend on the messages alone, not on how the ledger,
        the copies or the deliveries cut them into runs (a segment's messages share their
        details: the audit cuts segments wherever a run starts or ends). The details are worked
        out once per segment, whatever its length."""
        out: list[AuditEntry] = []
        delivery_runs: MessageRuns[Delivery] | None = None
        for mid, m, n in _in_order(flagged):
            if delivery_runs is None:
                delivery_runs = MessageRuns()
                for d in self.st.deliveries.values():
                    delivery_runs.add(d.id, d)
            dl, places = self._held(mid, mid + 1, delivery_runs, vpn_router, queue_vpn)[mid]
            outcome, nd, clients, routers, where, notes, reason = _entry_fields(m, dl, places)
            e = AuditEntry(vpn=m.vpn_name, rgmid=m.rgmid + mid - m.id, topic=m.topic, outcome=outcome,
                           deliveries=nd, clients=clients, routers=routers, where=where, notes=notes, count=n,
                           reason=reason)
            before = out[-1] if out else None
            if before is not None and before.rgmid + before.count == e.rgmid and \
                    replace(before, rgmid=e.rgmid, count=n) == e:
                out[-1] = replace(before, count=before.count + n)
            elif 0 <= limit <= len(out):
                break
            else:
                out.append(e)
        return out

    def _held(self, lo: int, hi: int, delivery_runs: MessageRuns[Delivery], vpn_router: dict[int, str],
              queue_vpn: dict[int, int]) -> dict[int, tuple[list[Delivery], set[tuple[str, str]]]]:
        """For each message of [lo, hi): its deliveries (in id order) and the (router, queue)
        places holding a copy or a replication stream entry of it. One range query per queue,
        stream and the deliveries for the whole range, not one per message."""
        st = self.st
        out: dict[int, tuple[list[Delivery], set[tuple[str, str]]]] = {mid: ([], set()) for mid in range(lo, hi)}
        for mid, d in _spread(delivery_runs.overlapping(lo, hi), lo, hi):
            out[mid][0].append(cast("Delivery", d))
        queues = st.queues
        for qid, runs in st.spooled_by_queue.items():
            place = (vpn_router[queue_vpn[qid]], queues[qid].name)
            for mid, _ in _spread(runs.overlapping(lo, hi), lo, hi):
                out[mid][1].add(place)
        for v_id, stream in st.repl_by_vpn.items():
            place = (vpn_router[v_id], REPL_QUEUE)
            for mid, _ in _spread(stream.overlapping(lo, hi, "msg"), lo, hi):
                out[mid][1].add(place)
        return out

    def _split_brains(self) -> list[SplitBrain]:
        """Seed 004 expects one active site per replication group; a restored site comes back
        with the role it had, so both may be active: every such VPN, by name."""
        lk = self.lk
        groups: dict[int, list[int]] = {}
        user_vpns = lk.user_vpns()
        for v in user_vpns:
            groups.setdefault(v.group_id, []).append(v.id)
        out = []
        for group in sorted(groups):
            members = [v for v in user_vpns if v.group_id == group]
            active = sorted(lk.router_of(v).name for v in members
                            if v.repl_enabled and v.role == "active" and lk.router_of(v).up)
            if len(active) > 1:
                out.append(SplitBrain(members[0].name, tuple(active)))
        return sorted(out, key=lambda b: b.vpn)

    def _xa_issues(self, vpn: str | None) -> list[XaIssue]:
        """The XA consequences of seed 000 steps 4 and 6 (see ``XaIssue``)."""
        st = self.st
        out: list[XaIssue] = []
        last_by_branch: dict[tuple[str, str], dict[str, XaResolution]] = {}
        for key, value in st.meta.items():
            if key.startswith(_XA_STANDBY_END_PREFIX):
                xid = key.split(":", 2)[2]
                for end in json.loads(value):
                    if vpn is None or end["vpn"] == vpn:
                        router = str(end["router"])
                        out.append(XaIssue(str(end["vpn"]), xid, "ended-on-standby", router,
                                           XaResolution(router, "rolled back", False), state=str(end["state"])))
                continue
            if not key.startswith(_XA_LOG_PREFIX):
                continue
            xid = key.split(":", 2)[2]
            entries = json.loads(value)
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
        for t in st.txns.values():
            if t.kind != "xa":
                continue
            v = st.vpns[t.vpn_id]
            r = st.routers[t.router_id]
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
        """The lab at a glance, in the order the lab console shows it: sites in scenario order,
        each with its routers by name; VPNs by router (scenario order), then by name; clients by
        name. Made in that order here, so the console sorts nothing again."""
        st, lk = self.st, self.lk
        routers = sorted(st.routers.values(), key=lambda r: r.name)
        place = {router_id: i for i, router_id in enumerate(st.routers)}  # scenario order
        placed = []
        for v in lk.user_vpns():
            rq = lk.repl_queue(v)
            stream = st.repl_by_vpn.get(v.id)
            placed.append((place[v.router_id], v.name, VpnStatus(
                lk.shown_name(st.routers[v.router_id]), v.name, v.repl_enabled, v.role,
                rq.msg_count if rq else 0, stream.total() if stream is not None else 0)))
        placed.sort(key=lambda x: (x[0], x[1]))
        return LabStatus(
            now_ms=lk.now_ms(),
            sites=tuple(SiteInfo(s.name, tuple(r.name for r in routers if r.site_id == s.id),
                                 all(r.up for r in routers if r.site_id == s.id)) for s in st.sites.values()),
            routers=tuple(RouterInfo(r.name, st.sites[r.site_id].name, r.up, r.ssh_port) for r in routers),
            link_up=all(link.up for link in st.links.values()),
            vpns=tuple(x[2] for x in placed),
            clients=tuple(self.sv.clients.client_info(c)
                          for c in sorted(st.clients.values(), key=lambda c: c.name)),
            split_brains=tuple(self._split_brains()),
            members=tuple(self._members(routers)),
        )

    def _members(self, routers: list[Router]) -> list[MemberStatus]:
        """The redundancy groups' routers and monitors, in the order of `routers`: each one's
        own process and activity (the router records say whether the site's service is up)."""
        kernel = self.st.kernel
        if not kernel.groups:
            return []
        failed = {s.id for s in self.st.sites.values()
                  if all(not r.up for r in routers if r.site_id == s.id)}
        return [MemberStatus(r.name, *redundancy.member_status(kernel, r.name, r.site_id in failed))
                for r in routers if redundancy.member_of(kernel, r.name) is not None]
