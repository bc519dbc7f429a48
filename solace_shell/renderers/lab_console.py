"""The lab console's fixed output forms (docs/lab.md is the contract: change both together)."""

from __future__ import annotations

from itertools import groupby
from typing import Any

from state_store.kernel.audit import DUPLICATE_DELIVERED, LOST, NOT_REPLICATED, STRANDED
from state_store.solace.views import AuditEntry, LinkChange, SiteChange, SplitBrain, XaIssue, XaResolution

from ..durations import clock_text, step_text
from ..handlers.lab_console import (
    Advanced,
    AuditView,
    Consumed,
    LabStatusView,
    Published,
    SettingChanged,
    TransactionState,
)
from ..messages import REJECT_REASONS
from ..results import ResetLab
from . import renderer

REPL_QUEUE = "#MSGVPN_REPLICATION_DATA_QUEUE"
MAX_RANGES = 5   # rgmid ranges printed by consume before ",..." (docs/lab.md)


# ---------------------------------------------------------------- helpers
def names(items: tuple[str, ...] | list[str]) -> str:
    return ",".join(items) if items else "-"


def table(header: tuple[str, ...], rows: list[tuple[str, ...]]) -> list[str]:
    """Columns left-aligned to their widest cell, two spaces apart, no trailing blanks. One format
    string per table: `lab> status` prints three of these in most drills."""
    every = [header, *rows]
    layout = "  ".join(f"{{:<{max(map(len, column))}}}" for column in zip(*every, strict=True))
    return [layout.format(*row).rstrip() for row in every]


# ---------------------------------------------------------------- time and traffic
@renderer(Advanced)
def advanced(r: Advanced) -> str:
    return (f"clock {clock_text(r.now_ms)} (+{step_text(r.step_ms)}) drained {r.drained} "
            f"reconnected {names(r.reconnected)}")


@renderer(Published)
def published(p: Published) -> str:
    r = p.result
    if r.transacted:
        return f"held {r.accepted} in transaction on {r.router}"
    rg = "-" if r.first_rgmid is None else (
        str(r.first_rgmid) if r.first_rgmid == r.last_rgmid else f"{r.first_rgmid}-{r.last_rgmid}")
    line = (f"published {r.accepted} rejected {r.rejected} replicated {r.replicated} "
            f"not-replicated {r.not_replicated} on {r.router} (rgmid {rg})")
    if r.rejected:
        line += f"\nrejected {r.rejected}: {REJECT_REASONS.get(r.reject_reason or '', r.reject_reason or 'refused')}"
    return line


@renderer(Consumed)
def consumed(c: Consumed) -> str:
    r = c.result
    ranges = [str(a) if a == b else f"{a}-{b}" for a, b in r.rgmid_ranges[:MAX_RANGES]]
    rg = ",".join(ranges) + (",..." if len(r.rgmid_ranges) > MAX_RANGES else "") if ranges else "-"
    if r.transacted:
        return f"locked {r.consumed} from {r.queue} on {r.router} in transaction (rgmid {rg})"
    return f"consumed {r.consumed} from {r.queue} on {r.router} (rgmid {rg})"


@renderer(TransactionState)
def transaction_state(t: TransactionState) -> str:
    what = "local" if t.kind == "local" else f"xa {t.xid}"
    return f"transaction {what} {t.client} {t.state} on {t.router or '-'}"


# ---------------------------------------------------------------- failures
@renderer(SiteChange)
def site_change(s: SiteChange) -> str:
    return f"site {s.site} {s.change} routers {names(s.routers)} disconnected {names(s.disconnected)}"


@renderer(LinkChange)
def link_change(link: LinkChange) -> str:
    return f"link {'up' if link.up else 'down'}"


# ---------------------------------------------------------------- status
@renderer(LabStatusView)
def lab_status(v: LabStatusView) -> str:
    st, se = v.status, v.settings
    if not v.routers:
        out = [f"clock {clock_text(st.now_ms)} scenario {se.get('scenario', '-')}"]
        return "\n".join(out + _ha_nodes(v))
    out = [
        f"clock {clock_text(st.now_ms)} link {'up' if st.link_up else 'down'} "
        f"scenario {se.get('scenario', '-')}",
        f"settings layout {se.get('layout')} software-version {se.get('software_version')} "
        f"replication-drain-rate {se.get('replication_drain_rate')} "
        f"default-message-size {se.get('default_message_size')}",
        "",
    ]
    up = {r.name: r.up for r in st.routers}
    if st.members:  # a redundancy group's member: its own process and activity, not the site's service
        member = {m.router: m for m in st.members}
        out += table(("site", "router", "state", "activity"),
                     [(s.name, r, *((member[r].process, member[r].activity) if r in member
                                    else ("up" if up.get(r) else "down", "-"))) for s in st.sites for r in s.routers])
    else:
        out += table(("site", "router", "state"),
                     [(s.name, r, "up" if up.get(r) else "down") for s in st.sites for r in s.routers])
    out.append("")
    out += table(("router", "vpn", "replication", "role", "repl-queue", "entries"),
                 [(x.router, x.vpn, "enabled" if x.replication_enabled else "shutdown", x.role,
                   str(x.repl_queue_messages), str(x.repl_queue_entries)) for x in st.vpns])
    out.append("")
    out += table(("client", "vpn", "router", "reconnects"),
                 [(c.name, c.vpn, c.router or "-", str(c.reconnects)) for c in st.clients])
    if st.split_brains:
        out.append("")
        out += [split_brain_line(b) for b in st.split_brains]
    return "\n".join(out + _ha_nodes(v))


def _ha_nodes(v: LabStatusView) -> list[str]:
    """The HA nodes' table after a blank line (nothing when the lab holds none)."""
    if not v.nodes:
        return []
    return ["", *table(("system", "group", "node", "process", "state"), list(v.nodes))]


def split_brain_line(b: SplitBrain) -> str:
    return f"warning: split brain: {b.vpn} is replication active on {names(b.routers)}"


def _resolution(r: XaResolution) -> str:
    return ("heuristically " if r.heuristic else "") + r.outcome


def xa_issue_line(i: XaIssue, with_vpn: bool) -> str:
    """One line per XA consequence (docs/lab.md "audit")."""
    head = (f"{i.vpn} " if with_vpn else "") + f"xid {i.xid}"
    others = ", ".join(f"{_resolution(x)} on {x.router}" for x in i.others)
    if i.kind == "wrong-site" and i.resolution is not None:
        return (f"{head} {_resolution(i.resolution)} on {i.router} (the replicated copy): "
                "heuristic actions belong on the formerly active site only")
    if i.kind == "inconsistent":
        return f"{head} resolved inconsistently: {others}"
    if i.kind == "after-failback" and i.resolution is not None:
        return (f"{head} {_resolution(i.resolution)} on {i.router} after failback "
                f"(already {others}): duplicates or loss")
    if i.kind == "ended-on-standby":
        return (f"{head} {i.state.upper()} branch rolled back on {i.router} when its VPN went standby "
                "(not prepared: nothing to address)")
    if i.kind == "left-prepared":
        return (f"{head} left PREPARED on {i.router} (formerly active{'; ' + others if others else ''}): "
                "step 4 skipped, holds a transaction, duplicates or loss on failback")
    assert i.resolution is not None
    return (f"{head} left complete on {i.router} ({_resolution(i.resolution)}): "
            "step 6 not done, holds a transaction")


# ---------------------------------------------------------------- audit
# The lab's words for the kernel's outcome and reason codes (state_store.kernel.audit)
OUTCOME_WORDS = {DUPLICATE_DELIVERED: "duplicated", LOST: "lost", STRANDED: "stranded"}
REASON_WORDS = {NOT_REPLICATED: "not replicated"}


def _problem_key(e: AuditEntry) -> tuple[Any, ...]:
    return (e.vpn, e.outcome, e.deliveries, e.clients, e.routers, e.where, e.notes, e.reason)


def _problem_line(entries: list[AuditEntry], with_vpn: bool) -> str:
    first, last = entries[0], entries[-1].rgmid + entries[-1].count - 1
    ids = str(first.rgmid) if first.rgmid == last else f"{first.rgmid}-{last}"
    head = f"{first.vpn} " if with_vpn else ""
    head += f"rgmid {ids} {OUTCOME_WORDS[first.outcome]}"
    notes = [n for n in first.notes if n]
    if first.outcome == DUPLICATE_DELIVERED:
        sb = " (split brain)" if "split brain" in notes else ""
        return f"{head} {first.deliveries}x to {names(first.clients)} via {names(first.routers)}{sb}"
    reasons = [REASON_WORDS.get(first.reason, first.reason)] if first.reason else []
    notes = [*reasons, *(n for n in notes if n != "split brain")]
    if first.outcome == LOST:
        return f"{head}: {', '.join(notes) or 'no copy left'}"
    holders = sorted({router for router, _ in first.where})
    notes.append(f"may reappear out of order or as duplicates if {names(holders)} becomes active again")
    return f"{head} on {names([f'{router}/{queue}' for router, queue in first.where])} ({', '.join(notes)})"


def _runs(problems: tuple[AuditEntry, ...]) -> list[list[AuditEntry]]:
    """Consecutive rgmids with the same outcome and details, as one line each."""
    runs: list[list[AuditEntry]] = []
    for _, group in groupby(problems, key=_problem_key):
        for e in group:
            before = runs[-1][-1] if runs else None
            if before and _problem_key(before) == _problem_key(e) and before.rgmid + before.count == e.rgmid:
                runs[-1].append(e)
            else:
                runs.append([e])
    return runs


@renderer(AuditView)
def audit(v: AuditView) -> str:
    a, t = v.audit, v.audit.totals
    out = [
        f"published {t.published} delivered {t.delivered} duplicated {t.duplicated} lost {t.lost} "
        f"spooled {t.stored}",
        f"rejected {t.rejected} not-replicated {t.not_replicated} stranded {t.stranded} "
        f"in-transaction {t.in_transaction}",
    ]
    for w in a.spooled_where:
        out.append(f"spooled {w.messages} in {w.vpn}/{w.queue} on {w.router}")
    with_vpn = a.vpn is None and len({e.vpn for e in a.problems} | {i.vpn for i in a.xa_issues}) > 1
    runs = _runs(a.problems)
    shown = 0
    for run in runs[:v.limit]:
        out.append(_problem_line(run, with_vpn))
        shown += sum(e.count for e in run)
    remaining = t.duplicated + t.lost - shown
    if remaining > 0:
        out.append(f"... {remaining} more")
    out += [xa_issue_line(i, with_vpn) for i in a.xa_issues]
    out += [split_brain_line(b) for b in a.split_brains]
    # a local failover moves a site's activity between its redundant routers: the replication
    # roles stay as they were (a replication failover is a role change of the VPNs)
    out += [f"local failover {site} at {clock_text(at)}: {old or 'none'} -> {new} (replication roles unchanged)"
            for site, at, old, new in v.local_failovers]
    return "\n".join(out)


# ---------------------------------------------------------------- reset, settings
@renderer(ResetLab)
def reset(r: ResetLab) -> str:
    return f"reset to scenario {r.name}"


@renderer(SettingChanged)
def setting_changed(s: SettingChanged) -> str:
    return f"{s.name} {s.value}"
