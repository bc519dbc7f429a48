"""Fixed output forms of the lab console's Qpid verbs (docs/lab-qpid.md) and the broker's log
lines, rendered from the kernel's event codes. The status-change, ready, promotion, recovery and
illegal-transition texts are the broker's own; the other log lines are written in its style and
marked synthesized in docs/lab-qpid.md."""

from __future__ import annotations

from state_store.kernel import Event
from state_store.kernel.audit import DUPLICATE_DELIVERED, LOST
from state_store.kernel.failures import REPLACED
from state_store.qpid import policy as qpol
from state_store.qpid.views import (
    BrokerChange,
    BrokerLog,
    ClientConnect,
    ClientConsume,
    ClientPublish,
    ClientStats,
    ManagerChange,
)

from ...durations import clock_text
from ...renderers import renderer
from ...renderers.lab_console import names
from ..findings import audit_text
from ..lab_tables import blocks, dash, group_block
from .lab_handlers import QpidAudit, QpidClusters

MANAGER_EVENTS = frozenset({"manager-promote", "manager-stop"})


def log_text(e: Event) -> tuple[str, str] | None:
    """(level, text) of one broker log line; None for events the broker does not log."""
    p = e.params
    who = f"{p.get('id', '')}({p.get('status', p.get('old', ''))})"
    texts: dict[str, tuple[str, str]] = {
        "start": ("notice", "Broker start-up"),
        "status": ("info", f"{p.get('id')}({p.get('old')}) Status change: {p.get('old')} -> {p.get('new')}"),
        "backup-ready": ("notice", f"{p.get('id')}(ready) Backup is ready"),
        "illegal": ("critical", f"Illegal state transition: {p.get('old')} -> {p.get('new')}"),
        "connected": ("info", f"{who} Connected to primary {p.get('primary')}"),
        "store-wiped": ("notice", f"{p.get('id')}(catchup) Discarded {p.get('count')} stored messages"),
        "snapshot": ("info", f"{who} Queue {p.get('queue')} snapshot: {p.get('kept')} already on backup, "
                             f"{p.get('discarded')} discarded, {p.get('sent')} replicated"),
        "promoted": ("notice", f"{who} Promoted to primary"),
        "recovering-backups": ("notice", f"{who} Recovering backups: {{{', '.join(p.get('backups') or [])}}}"),
        "all-recovered": ("notice", f"{who} All backups recovered."),
        "backup-timed-out": ("error", f"{who} Recovering backup timed out: {p.get('backup')}"),
        "ignoring-promotion": ("info", f"{who} Ignoring promotion, already primary"),
        "backup-disconnected": ("error", f"{who} Backup {p.get('backup')} disconnected: no heartbeat"),
        "manager-promote": ("rgmanager", "Promoting this broker (no primary among the reachable brokers)"),
        "manager-stop": ("rgmanager", "Stopping this primary (its side of the partition has no quorum)"),
    }
    return texts.get(e.code)


def log_lines(events: tuple[Event, ...], with_manager: bool) -> list[str]:
    out: list[str] = []
    for e in events:
        found = log_text(e)
        if found is None or (e.code in MANAGER_EVENTS and not with_manager):
            continue
        level, text = found
        tag = "" if level == "rgmanager" else "[HA] "
        out.append(f"{clock_text(e.at_ms)} {tag}{level} {text}")
    return out



@renderer(BrokerChange)
def broker_change(r: BrokerChange) -> str:
    return f"broker {r.broker} {r.change} status {dash(r.status)}"


@renderer(ManagerChange)
def manager_change(r: ManagerChange) -> str:
    return f"manager {r.cluster} {r.mode} poll {r.poll_ms}ms"


@renderer(QpidClusters)
def clusters(r: QpidClusters) -> str:
    return blocks(
        group_block(f"cluster {c.cluster} manager {c.manager} clock {clock_text(c.now_ms)}",
                    ("broker", "process", "status", "replicates-from", "isolated", "clients"),
                    [(b.broker, b.process, dash(b.status), dash(b.upstream), "yes" if b.isolated else "no",
                      names(b.clients)) for b in c.brokers])
        for c in r.clusters)


@renderer(BrokerLog)
def broker_log(r: BrokerLog) -> str:
    return "\n".join(log_lines(r.events, True))


_FINDINGS = {
    (LOST, qpol.BROKER_STOPPED): "lost {n} {verdict}: in the memory of a broker that stopped, on no other broker",
    (LOST, qpol.STORE_WIPED): "lost {n} {verdict}: only in the store of a backup that wiped it when joining",
    (LOST, qpol.BACKUP_DISCARDED): "lost {n} {verdict}: discarded by a backup at failover (not on the new primary)",
    (LOST, qpol.SPLIT_BRAIN): "lost {n} {verdict}: taken by a second primary during a split brain",
    (LOST, REPLACED): "lost {n} {verdict}: stored only on a broker whose disk was replaced",
    (DUPLICATE_DELIVERED, "delivered-twice"): "duplicated {n} {verdict}: in-doubt resends and redeliveries "
                                              "(at-least-once)",
}


@renderer(QpidAudit)
def audit(r: QpidAudit) -> str:
    return audit_text(r.totals, r.findings, _FINDINGS, last="stranded")


@renderer(ClientConnect)
def client_connect(r: ClientConnect) -> str:
    tried = " ".join(f"{a} {outcome}" for a, outcome in r.tried)
    return f"client {r.client} tried {tried or '-'}" + ("" if r.node else " (retrying)")


@renderer(ClientPublish)
def client_publish(r: ClientPublish) -> str:
    held = f" blocked ({r.blocked})" if r.blocked else ""
    return (f"sent {r.count} to {r.queue} on {r.broker} acknowledged {r.acked} in-doubt {r.in_doubt}{held}")


@renderer(ClientConsume)
def client_consume(r: ClientConsume) -> str:
    how = "acknowledged" if r.acked else "not acknowledged"
    return f"received {r.received} from {r.queue} on {r.broker} duplicates {r.duplicates} ({how})"


@renderer(ClientStats)
def client_stats(r: ClientStats) -> str:
    return (f"client {r.client} broker {dash(r.broker)} sent {r.sent} acknowledged {r.acked} in-doubt {r.in_doubt} "
            f"resent {r.resent} already-held {r.already_held} received {r.received} duplicates {r.duplicates} "
            f"lost {r.lost}")
