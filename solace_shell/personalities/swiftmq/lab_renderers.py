"""Fixed output forms of the lab console's SwiftMQ verbs (docs/lab.md), and the System.out lines
an HA instance prints, rendered from the core's event codes.

Only one System.out line is documented verbatim (seed 001): the preferred-active failover notice.
The others are written in the same style and are marked synthesized in docs/lab.md."""

from __future__ import annotations

from state_store.kernel import Event
from state_store.kernel.audit import DUPLICATE_DELIVERED, DUPLICATE_DISCARDED, LOST
from state_store.kernel.failures import REPLACED
from state_store.swiftmq.views import (
    HaFile,
    InstanceLog,
    InstanceReplaced,
    InstanceView,
    JmsConsume,
    JmsHeld,
    JmsPublish,
    JmsResend,
    JmsStats,
    LinkChange,
    ProcessChange,
    RouterView,
)

from ...durations import clock_text
from ...renderers import renderer
from ...renderers.lab_console import names
from ..findings import audit_text
from ..lab_tables import blocks, dash, group_block
from .lab_handlers import HaAudit, HaRouters

SYSTEM_OUT_INDENT = " " * 8


def system_out(event: Event) -> list[str]:
    """What the instance printed on System.out for one event (none for silent events)."""
    p = event.params
    out = SYSTEM_OUT_INDENT + "+++ "
    if event.code == "start":
        return [f"{out}Starting HA instance {event.node} (last saved HA state: {p['saved']})"]
    if event.code == "waiting":
        if p.get("timeout_ms") is None:
            return [f"{out}Waiting for the other HA instance (no timeout: last saved HA state is UNKNOWN) ..."]
        return [f"{out}Waiting for the other HA instance (negotiation timeout {p['timeout_ms']} ms) ..."]
    if event.code == "state":
        return [f"{out}HA state: {p['new']}"] if p.get("new") else []
    if event.code == "negotiation-timeout":
        return [f"{out}Negotiation timeout reached, no connection to the other HA instance"]
    if event.code == "channel-closed":
        if p.get("cause") == "heartbeat-missing":
            return [f"{out}Replication channel closed: heart beat missing threshold reached"]
        return [f"{out}Replication channel closed: java.io.IOException: Connection reset"]
    if event.code == "preferred-failover":
        seconds = int(p["delay_ms"]) // 1000
        return [f"{out}STANDBY is preferred ACTIVE instance: Failover in {seconds} seconds ..."]
    if event.code in ("pool-frozen", "pool-unfrozen"):
        return [f"{out}Thread pool {p['pool']} {'frozen' if event.code == 'pool-frozen' else 'unfrozen'}"]
    if event.code == "store-transfer":
        packets = f"{p['packets']} replication packet{'' if p['packets'] == 1 else 's'}"
        return [f"{out}Sending store snapshot: {p['messages']} messages, {p['size_kb']} KB in {packets} "
                f"of at most {p['max_packet_kb']} KB ({p['transfer_ms']} ms)"]
    if event.code == "spool-swap":
        messages = f"{p['messages']} message{'' if p['messages'] == 1 else 's'}"
        return [f"{out}Spool cache full ({p['cache_kb']} KB): {p['swapped_kb']} KB ({messages}) swapped to disk "
                f"in {p['directory']} ({p['swap_ms']} ms)"]
    if event.code == "held":
        return [f"{out}Thread pools frozen: {held_text(p)} waits"]
    if event.code == "released":
        done = ", ".join(f"{k} {p[k]}" for k in ("replicated", "received", "discarded", "accepted") if k in p)
        return [f"{out}{held_text(p)[0].upper()}{held_text(p)[1:]} completed ({done})"]
    if event.code == "split-brain-shutdown":
        return [f"{out}Split brain: the other HA instance ({p['peer']}) is STANDALONE too",
                "java.lang.Exception: Both HA instances are in HA state STANDALONE, shutting down this instance"]
    return []


def held_text(p: dict[str, object]) -> str:
    """A held JMS operation in words: `publish of 10 messages by c1 to q1`."""
    if p["op"] == "resend":
        return f"resend by {p['client']}"
    where = "to" if p["op"] == "publish" else "from"
    messages = "message" if p["count"] == 1 else "messages"
    return f"{p['op']} of {p['count']} {messages} by {p['client']} {where} {p['queue']}"



@renderer(ProcessChange)
def process_change(r: ProcessChange) -> str:
    return (f"instance {r.instance} {r.change} state {dash(r.state)} peer {r.peer} {dash(r.peer_state)} "
            f"disconnected {names(r.disconnected)} reconnected {names(r.reconnected)}")


@renderer(InstanceReplaced)
def instance_replaced(r: InstanceReplaced) -> str:
    return f"instance {r.instance} replaced dropped {r.dropped}"


@renderer(LinkChange)
def link_change(r: LinkChange) -> str:
    return f"link {r.router} {'up' if r.up else 'down'}"


INSTANCE_COLUMNS = ("instance", "process", "ha-state", "ha.state", "preferred", "serving", "clients", "waiting")


def _instance_row(i: InstanceView) -> tuple[str, ...]:
    if i.waiting_forever:
        waiting = "forever"
    elif i.waiting_until_ms is not None:
        waiting = "until " + clock_text(i.waiting_until_ms)
    else:
        waiting = "-"
    return (i.instance, i.process, dash(i.state), dash(i.saved), "yes" if i.preferred else "no",
            "yes" if i.serving else "no", names(i.clients), waiting)


def _router_block(router: RouterView, now_ms: int) -> list[str]:
    held = f" held {router.held}" if router.held else ""
    return group_block(f"router {router.router} channel {router.channel} clock {clock_text(now_ms)}{held}",
                       INSTANCE_COLUMNS, [_instance_row(i) for i in router.instances])


@renderer(HaRouters)
def ha_routers(r: HaRouters) -> str:
    return blocks(_router_block(router, r.now_ms) for router in r.routers)


@renderer(HaFile)
def ha_file(r: HaFile) -> str:
    if r.change == "deleted":
        return f"{r.instance} {r.name} deleted"
    if r.change == "written":
        return f"{r.instance} {r.name} written {r.content}"
    return f"{r.instance} {r.name} {r.content if r.content is not None else '(no file)'}"


@renderer(InstanceLog)
def instance_log(r: InstanceLog) -> str:
    return "\n".join(line for e in r.events for line in system_out(e))


_FINDINGS = {
    (LOST, "non-persistent-in-transit"): "lost {n} {verdict}: non-persistent, in transit when its instance "
                                         "stopped serving",
    (LOST, "overwritten-by-sync"): "lost {n} {verdict}: overwritten by the ACTIVE's store image at "
                                   "synchronisation",
    (LOST, REPLACED): "lost {n} {verdict}: stored only on an instance whose disk was replaced",
    (DUPLICATE_DELIVERED, "delivered-twice"): "duplicated {n} {verdict}: delivered to the application more than "
                                              "once",
    (DUPLICATE_DISCARDED, "duplicate-detection"): "discarded {n} {verdict}: resent, dropped by duplicate detection",
}


@renderer(HaAudit)
def ha_audit(r: HaAudit) -> str:
    return audit_text(r.totals, r.findings, _FINDINGS)


@renderer(JmsPublish)
def jms_publish(r: JmsPublish) -> str:
    kind = "persistent" if r.persistent else "non-persistent"
    ids = r.first_id if r.first_id == r.last_id else f"{r.first_id}..{r.last_id}"
    return (f"published {r.count} {kind} to {r.router}/{r.queue} on {r.instance} replicated {r.replicated} "
            f"({ids})")


@renderer(JmsHeld)
def jms_held(r: JmsHeld) -> str:
    what = {"publish": f"publish {r.count} {'persistent' if r.persistent else 'non-persistent'} to "
                       f"{r.router}/{r.queue}",
            "consume": f"consume {r.count} from {r.router}/{r.queue}",
            "resend": f"resend to {r.router}"}[r.operation]
    return (f"held {what} on {r.instance}: thread pools frozen ({r.state}), runs when the sync ends "
            f"(waiting {r.waiting})")


@renderer(JmsResend)
def jms_resend(r: JmsResend) -> str:
    return (f"resent {r.resent} discarded {r.discarded} accepted {r.accepted} "
            f"on {r.router}/{r.instance}")


@renderer(JmsConsume)
def jms_consume(r: JmsConsume) -> str:
    ids = "-" if r.first_id is None else (r.first_id if r.received == 1 else f"{r.first_id}..{r.last_id}")
    return f"received {r.received} from {r.router}/{r.queue} on {r.instance} discarded {r.discarded} ({ids})"


@renderer(JmsStats)
def jms_stats(r: JmsStats) -> str:
    return (f"client {r.client} router {r.router} instance {dash(r.instance)} sent {r.sent} received {r.received} "
            f"duplicates-discarded {r.duplicates_discarded} duplicates-delivered {r.duplicates_delivered} "
            f"lost {r.lost} reconnects {r.reconnects}")
