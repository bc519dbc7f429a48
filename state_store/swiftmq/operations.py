"""SwiftMQ HA operations for the lab console: processes, ha.state files, logs and JMS clients.

Why a module of its own: the lab console's verbs act on the neutral core through the SwiftMQ
rules (which instance serves, what survives a failover, duplicate detection by JMS message ID),
and every refusal is an `EngineError` raised before anything changes.

Message guarantees (documented): a persistent message sent to the ACTIVE is replicated
synchronously to the STANDBY, so it survives a failover; the JMS message IDs of each queue's
duplicate-detection backlog are replicated too, so a client that resends in-doubt messages after a
failover gets them discarded by the router. A non-persistent message lives only in the memory of
the instance that took it and is lost if that instance stops serving before it is consumed.

Thread-pool freeze (documented: "If the thread pools are freezed, no activity occurs"): while the
serving instance is in ACTIVE-SYNC-PREPARE or ACTIVE-SYNC, a publish, consume or resend does not
run; it is held in order and runs when the pools are unfrozen (the sync ends, or the instance
switches to STANDALONE), on whichever instance then serves the client. Nothing is lost or run twice.
"""

from __future__ import annotations

from typing import Any

from ..errors import EngineError
from ..kernel import DeliveryRun, Failure, Kernel, Node, ResendRun, inject, lookup, operation
from ..kernel import ranges as rg
from ..kernel.ranges import Range
from . import policy as p
from .errors import TERMS
from .params import SYSTEM, QueueParams
from .views import (
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


# ---------------------------------------------------------------- lookups
def routers(core: Kernel) -> list[str]:
    return lookup.groups(core, TERMS)


def instance_names(core: Kernel) -> list[str]:
    return lookup.node_keys(core, TERMS)


def client_names(core: Kernel) -> list[str]:
    return lookup.client_names(core, TERMS)


def instance(core: Kernel, key: str) -> Node:
    return lookup.node(core, TERMS, key)


def router(core: Kernel, name: str) -> str:
    return lookup.group(core, TERMS, name)


def _queue(core: Kernel, group: str, queue: str) -> QueueParams:
    queues = core.groups[group].data.get("queues", {})
    if queue not in queues:
        raise EngineError("ha_queue_not_found", queue=queue, router=group)
    return QueueParams.from_dict(queues[queue])


# ---------------------------------------------------------------- views
def instance_view(core: Kernel, node: Node) -> InstanceView:
    waiting = node.proc == "up" and node.state == p.UNKNOWN
    until = p.waiting_until(core, node) if waiting else None
    return InstanceView(
        router=node.group, instance=node.name, process=node.proc, state=node.state,
        saved=node.files.get(p.HA_STATE_FILE, ""), preferred=p.params(core, node.group).preferred_active == node.name,
        serving=node.proc == "up" and node.serving, waiting_until_ms=until,
        waiting_forever=waiting and until is None,
        clients=tuple(sorted(c.name for c in core.clients.values() if c.group == node.group and c.node == node.name)),
    )


def router_view(core: Kernel, name: str) -> RouterView:
    router(core, name)
    return RouterView(name, p.channel(core, name), tuple(instance_view(core, n) for n in core.group_nodes(name)),
                      len(_held(core, name)))


def serving_instance(core: Kernel, name: str) -> str | None:
    node = p.serving_node(core, router(core, name))
    return None if node is None else node.name


# ---------------------------------------------------------------- processes and files
def _change(core: Kernel, key: str, failure: Failure) -> ProcessChange:
    node = inject.check_node_failure(core, TERMS, key, failure)
    mine = [c for c in core.clients.values() if c.group == node.group]
    before = {c.name: c.node for c in mine}
    core.fail(failure, node=node)
    reconnect(core, node.group)
    after = {c.name: c.node for c in mine}
    peer = p.peer_of(core, node)
    return ProcessChange(key, inject.DONE[failure], node.state, node.files.get(p.HA_STATE_FILE, ""), peer.key,
                         peer.state,
                         tuple(sorted(n for n in after if after[n] is None and before[n] is not None)),
                         tuple(sorted(n for n in after if after[n] is not None and after[n] != before[n])))


@operation("swiftmq.restart")
def start(core: Kernel, key: str) -> ProcessChange:
    return _change(core, key, "restart")


@operation("swiftmq.kill")
def kill(core: Kernel, key: str) -> ProcessChange:
    return _change(core, key, "kill")


@operation("swiftmq.hang")
def hang(core: Kernel, key: str) -> ProcessChange:
    return _change(core, key, "hang")


@operation("swiftmq.partition")
def partition(core: Kernel, name: str) -> LinkChange:
    return set_link(core, name, False)


@operation("swiftmq.heal")
def heal(core: Kernel, name: str) -> LinkChange:
    return set_link(core, name, True)


def set_link(core: Kernel, name: str, up: bool) -> LinkChange:
    """Partition the network between the two instances (`up=False`) or heal it."""
    inject.group_links(core, TERMS, name, up)
    reconnect(core, name)
    return LinkChange(name, up)


@operation("swiftmq.replace")
def replace(core: Kernel, key: str) -> InstanceReplaced:
    """A stopped instance's machine is replaced: its disk is lost (no ha.state, no stored
    messages, no duplicate-detection backlog); `start` then brings it back blank."""
    node = inject.check_node_failure(core, TERMS, key, "replace")
    dropped = sum(rg.size(rs) for rs in core.ledger.copies.get(node.key, {}).values())
    core.fail("replace", node=node)
    core.groups[node.group].data.get("backlog", {}).pop(node.name, None)
    return InstanceReplaced(key, dropped)


@operation("swiftmq.file")
def change_file(core: Kernel, key: str, delete: bool = False, write: str | None = None) -> HaFile:
    """Delete or write an instance's ha.state (it must be stopped)."""
    return ha_file(core, key, delete, write)


def ha_file(core: Kernel, key: str, delete: bool = False, write: str | None = None) -> HaFile:
    """Show the file; with ``delete`` or ``write`` a change (through ``change_file`` only, the
    journaled operation)."""
    node = instance(core, key)
    if (delete or write is not None) and node.proc != "down":
        raise EngineError("ha_instance_running", instance=key, process=node.proc)
    if delete:
        if p.HA_STATE_FILE not in node.files:
            raise EngineError("ha_file_not_found", instance=key, file=p.HA_STATE_FILE)
        del node.files[p.HA_STATE_FILE]
        return HaFile(key, p.HA_STATE_FILE, None, "deleted")
    if write is not None:
        value = write.upper().replace("_", "-")
        if value not in p.SAVED_STATES:
            raise EngineError("invalid_value", name="ha.state", value=write, allowed="|".join(p.SAVED_STATES))
        node.files[p.HA_STATE_FILE] = value
        return HaFile(key, p.HA_STATE_FILE, value, "written")
    return HaFile(key, p.HA_STATE_FILE, node.files.get(p.HA_STATE_FILE), "shown")


def instance_log(core: Kernel, key: str) -> InstanceLog:
    return InstanceLog(key, lookup.node_events(core, instance(core, key)))


# ---------------------------------------------------------------- JMS clients
def reconnect(core: Kernel, group: str | None = None) -> list[str]:
    """Every JMS client whose instance does not serve moves to the one that does (JMS clients of an
    HA router reconnect on their own). Returns the names of those that connected, in name order."""
    out: list[str] = []
    for c in sorted(core.clients.values(), key=lambda c: c.name):
        if core.groups[c.group].system != SYSTEM or (group is not None and c.group != group):
            continue
        if c.node is not None:
            node = core.node(c.group, c.node)
            if node.proc == "up" and node.serving:
                continue
            c.node = None
        serving = p.serving_node(core, c.group)
        if serving is not None:
            c.node = serving.name
            c.reconnects += 1 if c.connected_once else 0
            c.connected_once = True
            out.append(c.name)
    return out


def _client(core: Kernel, name: str, queue: str | None = None) -> tuple[str, Node]:
    """The client's router and serving instance (it reconnects first); refuses an unknown
    client, an unknown queue of its router, and a client that finds no serving instance."""
    c = core.clients.get(name)
    if c is None or core.groups[c.group].system != SYSTEM:
        raise EngineError("jms_client_not_found", client=name)
    if queue is not None:
        _queue(core, c.group, queue)
    reconnect(core)
    if c.node is None:
        raise EngineError("jms_client_reconnecting", client=name, router=c.group)
    return c.group, core.node(c.group, c.node)


def _replica(core: Kernel, node: Node) -> Node | None:
    """The STANDBY that receives the ACTIVE's replication stream, if there is one."""
    if node.state != p.ACTIVE or p.channel(core, node.group) != "connected":
        return None
    peer = p.peer_of(core, node)
    return peer if peer.state == p.STANDBY and peer.proc == "up" else None


def _backlog(core: Kernel, node: Node, queue: str) -> list[list[Any]]:
    """The queue's duplicate-detection backlog on a node: runs [origin, first seq, count] of the
    last JMS message IDs it took, oldest first."""
    backlogs = core.groups[node.group].data.setdefault("backlog", {})
    found: list[list[Any]] = backlogs.setdefault(node.name, {}).setdefault(queue, [])
    return found


def _remember(core: Kernel, node: Node, queue: str, origin: str, first_seq: int, count: int, size: int) -> None:
    backlog = _backlog(core, node, queue)
    last = backlog[-1] if backlog else None
    if last is not None and last[0] == origin and int(last[1]) + int(last[2]) == first_seq:
        last[2] = int(last[2]) + count
    else:
        backlog.append([origin, first_seq, count])
    over = sum(int(e[2]) for e in backlog) - size
    while over > 0:
        head = backlog[0]
        n = int(head[2])
        if n <= over:
            backlog.pop(0)
            over -= n
        else:
            head[1], head[2] = int(head[1]) + over, n - over
            over = 0


def _in_backlog(core: Kernel, node: Node, queue: str, origin: str, seqs: Range) -> list[Range]:
    """The sequence numbers of ``seqs`` (of ``origin``) the backlog holds, as ranges."""
    held = [(int(e[1]), int(e[1]) + int(e[2])) for e in _backlog(core, node, queue)
            if e[0] == origin]
    return rg.intersect([seqs], held)


def backlog_keys(core: Kernel, key: str, queue: str) -> list[str]:
    """The JMS message IDs of a queue's duplicate-detection backlog on an instance, oldest first."""
    node = instance(core, key)
    return [f"{e[0]}{int(e[1]) + i}" for e in _backlog(core, node, queue)
            for i in range(int(e[2]))]


# ---------------------------------------------------------------- held while the thread pools are frozen
def _held(core: Kernel, group: str) -> list[dict[str, Any]]:
    held: list[dict[str, Any]] = core.groups[group].data.setdefault("held", [])
    return held


def _hold(core: Kernel, node: Node, op: str, client: str, queue: str = "", count: int = 0,
          persistent: bool = True) -> JmsHeld | None:
    """Hold the operation when ``node`` (the client's serving instance) has frozen thread pools, or
    when operations held before it still wait (they keep their order). None: it runs now."""
    held = _held(core, node.group)
    if node.state not in p.FROZEN:
        release_held(core, node.group)
        if not held:
            return None
    held.append({"op": op, "client": client, "queue": queue, "count": count, "persistent": persistent})
    core.log(node, "held", op=op, client=client, queue=queue, count=count)
    return JmsHeld(client, node.group, node.name, node.state, op, queue, count, persistent, len(held))


def release_held(core: Kernel, group: str) -> None:
    """Run the held operations in order, each on the instance that serves its client, as long as
    that instance's pools are unfrozen; from the first that cannot run (frozen pools, or no
    serving instance) on, they keep waiting in order."""
    held = _held(core, group)
    while held:
        try:
            _, node = _client(core, str(held[0]["client"]))
        except EngineError:
            return
        if node.state in p.FROZEN:
            return
        _run_held(core, held.pop(0))


def _run_held(core: Kernel, entry: dict[str, Any]) -> None:
    client, op = str(entry["client"]), str(entry["op"])
    if op == "publish":
        pub = _publish(core, client, str(entry["queue"]), int(entry["count"]), bool(entry["persistent"]))
        node, done = pub.instance, {"replicated": pub.replicated, "first": pub.first_id, "last": pub.last_id}
    elif op == "consume":
        got = _consume(core, client, str(entry["queue"]), int(entry["count"]))
        node, done = got.instance, {"received": got.received}
    else:
        res = _resend(core, client)
        node, done = res.instance, {"discarded": res.discarded, "accepted": res.accepted}
    core.log(core.node(core.clients[client].group, node), "released", op=op, client=client,
             queue=str(entry["queue"]), count=int(entry["count"]), **done)


@operation("swiftmq.publish")
def publish(core: Kernel, client: str, queue: str, count: int = 1, persistent: bool = True) -> JmsPublish | JmsHeld:
    if count < 1:
        raise EngineError("value_out_of_range", name="count", value=count, min=1, max="")
    _, node = _client(core, client, queue)
    return _hold(core, node, "publish", client, queue, count, persistent) or _publish(
        core, client, queue, count, persistent)


def _publish(core: Kernel, client: str, queue: str, count: int, persistent: bool) -> JmsPublish:
    group, node = _client(core, client, queue)
    qp = _queue(core, group, queue)
    c = core.clients[client]
    replica = _replica(core, node)
    run = core.ledger.add(group, queue, client, f"ID:{client}-", c.next_seq, count, persistent, core.now_ms)
    c.next_seq += count
    ids = [(run.first, run.end)]
    targets = [node] + ([replica] if replica is not None and persistent else [])
    for n in targets:
        core.ledger.put(n.key, queue, ids)
        if qp.duplicate_detection:
            _remember(core, n, queue, run.origin, run.first_seq, count, qp.duplicate_backlog_size)
    c.last_sent = ids
    return JmsPublish(client, group, node.name, queue, count, persistent,
                      count if replica is not None and persistent else 0, run.key(run.first), run.key(run.end - 1))


@operation("swiftmq.resend")
def resend(core: Kernel, client: str) -> JmsResend | JmsHeld:
    """The client sends its last publish again with the same JMS message IDs (what a JMS client
    does with in-doubt messages after a reconnect); the router discards those it has seen."""
    _, node = _client(core, client)
    return _hold(core, node, "resend", client) or _resend(core, client)


def _resend(core: Kernel, client: str) -> JmsResend:
    group, node = _client(core, client)
    c = core.clients[client]
    replica = _replica(core, node)
    discarded = accepted = 0
    for a, b, run in list(core.ledger.spans(c.last_sent)):
        qp = _queue(core, group, run.queue)
        offset = run.first_seq - run.first
        seen: list[Range] = []
        if qp.duplicate_detection:
            seen = [(x - offset, y - offset)
                    for x, y in _in_backlog(core, node, run.queue, run.origin, (a + offset, b + offset))]
        for x, y in seen:
            core.ledger.resent(ResendRun(client, x, y - x, core.now_ms, node.key))
            discarded += y - x
        for x, y in rg.subtract([(a, b)], seen):
            core.ledger.put(node.key, run.queue, [(x, y)])
            if replica is not None and run.persistent:
                core.ledger.put(replica.key, run.queue, [(x, y)])
            if qp.duplicate_detection:
                _remember(core, node, run.queue, run.origin, x + offset, y - x, qp.duplicate_backlog_size)
            accepted += y - x
    return JmsResend(client, group, node.name, rg.size(c.last_sent), discarded, accepted)


@operation("swiftmq.consume")
def consume(core: Kernel, client: str, queue: str, count: int = 1) -> JmsConsume | JmsHeld:
    """Receive and acknowledge up to `count` messages; the ACTIVE replicates the acks, so the
    STANDBY's copies go too. A message this client already received is dropped by the client's own
    duplicate detection (JMS message ID per connection)."""
    _, node = _client(core, client, queue)
    return _hold(core, node, "consume", client, queue, count) or _consume(core, client, queue, count)


def _consume(core: Kernel, client: str, queue: str, count: int) -> JmsConsume:
    group, node = _client(core, client, queue)
    replica = _replica(core, node)
    led = core.ledger
    taken = led.take(node.key, queue, max(count, 0))
    if replica is not None:
        led.remove(replica.key, queue, taken)
    received = discarded = 0
    first: str | None = None
    last: str | None = None
    for rng in taken:
        for a, b, mine, other in led.seen(rng, client):
            led.deliver(DeliveryRun(client, a, b - a, core.now_ms, node.key, duplicate=other, discarded=mine))
            if mine:
                discarded += b - a
            else:
                received += b - a
                first = first or led.key(a)
                last = led.key(b - 1)
    return JmsConsume(client, group, node.name, queue, received, discarded, first, last)


def stats(core: Kernel, client: str) -> JmsStats:
    c = core.clients.get(client)
    if c is None or core.groups[c.group].system != SYSTEM:
        raise EngineError("jms_client_not_found", client=client)
    led = core.ledger
    totals, _ = core.audit(client=client)
    mine = [d for d in led.deliveries if d.client == client]
    return JmsStats(
        client=client, router=c.group, instance=c.node, sent=totals.published,
        received=sum(d.count for d in mine if not d.discarded),
        duplicates_discarded=(sum(d.count for d in mine if d.discarded)
                              + sum(r.count for r in led.discarded_resends if r.client == client)),
        duplicates_delivered=sum(d.count for d in mine if d.duplicate and not d.discarded),
        lost=totals.lost, reconnects=c.reconnects,
    )


# ---------------------------------------------------------------- the HA edition's Swiftlet Manager commands
def roles(core: Kernel, name: str) -> tuple[Node | None, Node | None]:
    """The instance that serves (ACTIVE or STANDALONE) and the other one if it is running."""
    group = router(core, name)
    active = p.serving_node(core, group)
    others = [n for n in core.group_nodes(group) if n is not active and n.proc != "down"]
    return active, (others[0] if others else None)


@operation("swiftmq.router_action")
def router_action(core: Kernel, name: str, action: str, which: str) -> list[str]:
    """`reboot`/`halt` of `all` instances (ACTIVE first), or only the `active` / `standby` one.
    Returns the instances acted on."""
    active, standby = roles(core, name)
    chosen = {"all": [active, standby], "active": [active], "standby": [standby]}[which]
    nodes = [n for n in chosen if n is not None]
    if not nodes:
        raise EngineError("swift_no_instance", router=name, role=which)
    if which == "all":
        p.POLICY.close_channel(core, name)   # both stop together: no failover, ha.state kept
    for n in nodes:
        if n.proc != "down":
            core.set_process(n, "kill")
    if action == "reboot":
        for n in nodes:
            core.set_process(n, "start")
    reconnect(core, name)
    return [n.key for n in nodes]
