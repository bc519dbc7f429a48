"""Fixed output forms of the lab console's Geode verbs (docs/lab-geode.md), and the client and
server log lines, rendered from the kernel's event codes.

The client log lines Geode prints are quoted exactly (from Geode's code and its support notes);
the lines for a reinitialised interest, an added secondary and the servers' own lines are the
lab's, marked synthesized in docs/lab-geode.md. A log line is `[<level> <clock>] <text>`: the lab's
prefix, not Geode's (which shows a date, a thread and a thread id)."""

from __future__ import annotations

from state_store.geode.views import (
    ClientChange,
    ClientLog,
    ClientStats,
    ClusterView,
    LinkChange,
    PutResult,
    QrmDrop,
    ServerChange,
    ServerLog,
)
from state_store.kernel import AuditTotals, Event, Finding
from state_store.kernel.audit import DUPLICATE_DELIVERED, DUPLICATE_DISCARDED, LOST

from ...durations import clock_text
from ...renderers import renderer
from ...renderers.lab_console import names, table
from ..findings import finding_line, totals_line
from ..lab_tables import blocks, dash, group_block
from .lab_handlers import GeodeAudit, GeodeClusters


def log_text(e: Event) -> str:
    """One client or server log line's text (without the lab's prefix)."""
    p = e.params
    if e.code == "updater-ready":
        return (f"Cache Client Updater Thread  on {p['member']} port {p['port']} ({p['host']}:{p['port']}) : "
                "ready to process messages.")
    if e.code == "primary-crashed":
        return f"Primary subscription endpoint {p['host']}:{p['port']} crashed. Scheduling recovery."
    if e.code == "primary-lost":
        return "SubscriptionManager redundancy satisfier - primary endpoint has been lost. Attempting to recover."
    if e.code == "redundant-lost":
        return "SubscriptionManager redundancy satisfier - redundant endpoint has been lost. Attempting to recover."
    if e.code == "redundancy-not-satisfied":
        return (f"Redundancy level {p['level_wanted']} is not satisfied, but there are no more servers available. "
                f"Redundancy is currently {p['current']}.")
    if e.code == "redundancy-startup":
        return ("Unable to initialize enough redundant queues on startup. The redundancy count is currently "
                f"{p['current']}.")
    if e.code == "no-primary-startup":
        return "Could not initialize a primary queue on startup. No queue servers available."
    if e.code == "primary-discovery-failed":
        return "NoSubscriptionServersAvailableException: Primary discovery failed."
    if e.code == "redundant-added":
        return f"Redundant subscription endpoint {p['host']}:{p['port']} ({p['member']}) added."
    if e.code == "reinitialised":
        return (f"Non-HA failover to {p['server']}: interest in {p['regions']} reinitialised, {p['entries']} "
                "entries destroyed and fetched again (no listener events).")
    if e.code == "server-started":
        return f"Cache server {p['member']} started."
    if e.code == "server-stopped":
        return "Cache server stopped."
    if e.code == "server-hung":
        return "Cache server hung (process holds its connections, answers nothing)."
    if e.code == "qrm-dropped":
        return f"Queue removal message to {p['to']} for {p['client']} ({p['count']} events) lost."
    if e.code == "state":
        return ""
    return e.code


def log_lines(events: tuple[Event, ...]) -> str:
    out = []
    for e in events:
        text = log_text(e)
        if text:
            out.append(f"[{e.params.get('level', 'info')} {clock_text(e.at_ms)}] {text}")
    return "\n".join(out)



def _cluster_block(c: ClusterView) -> list[str]:
    lines = group_block(f"cluster {c.cluster} locator {c.locator} clock {clock_text(c.now_ms)}",
                        ("server", "process", "primaries", "secondaries", "queued", "eventsQueued",
                         "eventsRemovedByQrm", "eventsExpired", "sync-interval"),
                        [(s.name, s.process, str(s.primaries), str(s.secondaries), str(s.queued),
                          str(s.events_queued), str(s.events_removed_by_qrm), str(s.events_expired),
                          f"{s.message_sync_interval_s}s") for s in c.servers])
    pools = [p for p in c.pools if p.subscribed]
    if pools:
        lines.append("")
        lines += table(("client", "connected", "durable", "redundancy", "primary", "secondaries", "queues",
                        "unacked", "interest"),
                       [(p.client, ("yes" if p.ready else "not-ready") if p.connected else "no", dash(p.durable),
                         str(p.redundancy), dash(p.primary), names(p.secondaries),
                         ",".join(f"{s}:{n}" for s, n in p.queues) or "-", str(p.unacked), names(p.interest))
                        for p in pools])
    return lines


@renderer(GeodeClusters)
def clusters(r: GeodeClusters) -> str:
    return blocks(_cluster_block(c) for c in r.clusters)


@renderer(ServerChange)
def server_change(r: ServerChange) -> str:
    pools = " ".join(f"{c}:{p}/{s}" for c, p, s in r.moves) or "-"
    return f"server {r.member} {r.change} pools (client:primary/secondaries) {pools}"


@renderer(LinkChange)
def link_change(r: LinkChange) -> str:
    return f"network of cluster {r.cluster} {'up' if r.up else 'down'}"


@renderer(QrmDrop)
def qrm_drop(r: QrmDrop) -> str:
    return f"next queue-removal message {r.source} -> {r.target} will be lost"


@renderer(ClientChange)
def client_change(r: ClientChange) -> str:
    where = f"primary {dash(r.primary)} secondaries {names(r.secondaries)}"
    if r.change == "connected":
        pending = "" if r.pending is None else f" pending {r.pending}"
        return f"client {r.client} connected {where}{pending}"
    if r.change == "ready":
        return f"client {r.client} ready replayed {r.count} {where}"
    if r.change == "interest":
        return f"client {r.client} registered interest entries {r.count}"
    if r.change == "acked":
        return f"client {r.client} acked {r.count} on {dash(r.primary)}"
    if r.change == "kept":
        kept = tuple(x for x in (r.primary, *r.secondaries) if x)
        return f"client {r.client} closed keepalive queue kept on {names(kept)}"
    return f"client {r.client} closed"


@renderer(PutResult)
def put_result(r: PutResult) -> str:
    ids = r.first_id if r.count == 1 else f"{r.first_id}..{r.last_id}"
    return (f"put {r.count} into {r.region} by {r.client} ({ids}) queued for {names(r.subscribers)} "
            f"dispatched {r.dispatched}")


@renderer(ClientStats)
def client_stats(r: ClientStats) -> str:
    pending = "" if r.pending is None else f" pending-at-reconnect {r.pending}"
    return (f"client {r.client} primary {dash(r.primary)} received {r.received} resent {r.resent} "
            f"duplicates-discarded {r.duplicates_discarded} duplicates-delivered {r.duplicates_delivered} "
            f"lost {r.lost} queued {r.queued} reinitialised {r.reinitialised} refetched {r.refetched}{pending}")


@renderer(ClientLog)
def client_log(r: ClientLog) -> str:
    return log_lines(r.events)


@renderer(ServerLog)
def server_log(r: ServerLog) -> str:
    return log_lines(r.events)


_FINDINGS = {
    (LOST, "durable-client-offline"): "lost {n} {verdict}: queued for an offline durable client whose queue "
                                      "servers died",
    (LOST, "durable-client-timeout"): "lost {n} {verdict}: queued for a durable client that stayed away longer "
                                      "than durable-client-timeout",
    (LOST, "client-closed"): "lost {n} {verdict}: queued for a client that closed its pool",
    (LOST, "queue-server-died"): "lost {n} {verdict}: queued only on servers that died",
    (LOST, "queue-server-hung"): "lost {n} {verdict}: queued only on a hung server",
    (LOST, "message-time-to-live"): "lost {n} {verdict}: expired on a secondary before delivery",
    (DUPLICATE_DELIVERED, "delivered-twice"): "duplicated {n} {verdict}: delivered again after the client's "
                                              "tracking entry idled out",
    (DUPLICATE_DISCARDED, "duplicate-detection"): "discarded {n} {verdict}: resent after failover, dropped by "
                                                  "the client (EventID sequence, numSequenceViolated)",
}


def _totals(t: AuditTotals) -> str:
    return totals_line(t, "queued")


def _finding(f: Finding) -> str:
    return finding_line(f, _FINDINGS)


@renderer(GeodeAudit)
def audit(r: GeodeAudit) -> str:
    """The cluster's totals, then per subscriber its totals and its findings (indented)."""
    lines = [_totals(r.totals)]
    for client, totals, findings in r.clients:
        lines.append(f"client {client}: {_totals(totals)}")
        lines += [f"  {_finding(f)}" for f in findings]
    return "\n".join(lines)
