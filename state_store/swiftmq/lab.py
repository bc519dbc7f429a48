"""SwiftMQ HA operations for the lab console: processes, ha.state files, logs and JMS clients.

Why a module of its own: the lab console's verbs act on the neutral core through the SwiftMQ
rules (which instance serves, what survives a failover, duplicate detection by JMS message ID),
and every refusal is an `EngineError` raised before anything changes.

Message guarantees (documented): a persistent message sent to the ACTIVE is replicated
synchronously to the STANDBY, so it survives a failover; the JMS message IDs of each queue's
duplicate-detection backlog are replicated too, so a client that resends in-doubt messages after a
failover gets them discarded by the router. A non-persistent message lives only in the memory of
the instance that took it and is lost if that instance stops serving before it is consumed.
"""

from __future__ import annotations

from ..core import HaCore, Node
from ..errors import EngineError
from . import policy as p
from .params import SYSTEM, QueueParams
from .views import (
    HaFile,
    InstanceLog,
    InstanceView,
    JmsConsume,
    JmsPublish,
    JmsResend,
    JmsStats,
    LinkChange,
    ProcessChange,
    RouterView,
)


# ---------------------------------------------------------------- lookups
def routers(core: HaCore) -> list[str]:
    return [g.name for g in core.groups.values() if g.system == SYSTEM]


def instance_names(core: HaCore) -> list[str]:
    return [n.key for r in routers(core) for n in core.group_nodes(r)]


def client_names(core: HaCore) -> list[str]:
    return sorted(c.name for c in core.clients.values() if c.group in routers(core))


def instance(core: HaCore, key: str) -> Node:
    node = core.nodes.get(key)
    if node is None or core.groups[node.group].system != SYSTEM:
        raise EngineError("ha_instance_not_found", instance=key)
    return node


def router(core: HaCore, name: str) -> str:
    if name not in routers(core):
        raise EngineError("ha_router_not_found", router=name)
    return name


def _queue(core: HaCore, group: str, queue: str) -> QueueParams:
    queues = core.groups[group].data.get("queues", {})
    if queue not in queues:
        raise EngineError("ha_queue_not_found", queue=queue, router=group)
    return QueueParams.from_dict(queues[queue])


# ---------------------------------------------------------------- views
def instance_view(core: HaCore, node: Node) -> InstanceView:
    waiting = node.proc == "up" and node.state == p.UNKNOWN
    until = p.waiting_until(core, node) if waiting else None
    return InstanceView(
        router=node.group, instance=node.name, process=node.proc, state=node.state,
        saved=node.files.get(p.HA_STATE_FILE, ""), preferred=p.params(core, node.group).preferred_active == node.name,
        serving=node.proc == "up" and node.serving, waiting_until_ms=until,
        waiting_forever=waiting and until is None,
        clients=tuple(sorted(c.name for c in core.clients.values() if c.group == node.group and c.node == node.name)),
    )


def router_view(core: HaCore, name: str) -> RouterView:
    router(core, name)
    return RouterView(name, p.channel(core, name), tuple(instance_view(core, n) for n in core.group_nodes(name)))


def serving_instance(core: HaCore, name: str) -> str | None:
    node = p.serving_node(core, router(core, name))
    return None if node is None else node.name


# ---------------------------------------------------------------- processes and files
def _change(core: HaCore, key: str, change: str) -> ProcessChange:
    node = instance(core, key)
    if change == "start" and node.proc != "down":
        raise EngineError("ha_instance_running", instance=key, process=node.proc)
    if change in ("kill", "hang") and node.proc == "down":
        raise EngineError("ha_instance_down", instance=key)
    if change == "hang" and node.proc == "hung":
        raise EngineError("ha_instance_hung", instance=key)
    mine = [c for c in core.clients.values() if c.group == node.group]
    before = {c.name: c.node for c in mine}
    core.set_process(node, change)
    reconnect(core, node.group)
    after = {c.name: c.node for c in mine}
    peer = p.peer_of(core, node)
    done = {"start": "started", "kill": "killed", "hang": "hung"}[change]
    return ProcessChange(key, done, node.state, node.files.get(p.HA_STATE_FILE, ""), peer.key, peer.state,
                         tuple(sorted(n for n in after if after[n] is None and before[n] is not None)),
                         tuple(sorted(n for n in after if after[n] is not None and after[n] != before[n])))


def start(core: HaCore, key: str) -> ProcessChange:
    return _change(core, key, "start")


def kill(core: HaCore, key: str) -> ProcessChange:
    return _change(core, key, "kill")


def hang(core: HaCore, key: str) -> ProcessChange:
    return _change(core, key, "hang")


def set_link(core: HaCore, name: str, up: bool) -> LinkChange:
    """Partition the network between the two instances (`up=False`) or heal it."""
    a, b = core.group_nodes(router(core, name))
    link = core.link(a.key, b.key)
    if link is None:
        raise EngineError("ha_router_not_found", router=name)
    if link.up == up:
        raise EngineError("ha_link_already_up" if up else "ha_link_already_down", router=name)
    core.set_link(link, up)
    reconnect(core, name)
    return LinkChange(name, up)


def ha_file(core: HaCore, key: str, delete: bool = False, write: str | None = None) -> HaFile:
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


def instance_log(core: HaCore, key: str) -> InstanceLog:
    node = instance(core, key)
    return InstanceLog(key, tuple(e for e in core.events if e.group == node.group and e.node == node.name))


# ---------------------------------------------------------------- JMS clients
def reconnect(core: HaCore, group: str | None = None) -> list[str]:
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


def _client(core: HaCore, name: str, queue: str | None = None) -> tuple[str, Node]:
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


def _replica(core: HaCore, node: Node) -> Node | None:
    """The STANDBY that receives the ACTIVE's replication stream, if there is one."""
    if node.state != p.ACTIVE or p.channel(core, node.group) != "connected":
        return None
    peer = p.peer_of(core, node)
    return peer if peer.state == p.STANDBY and peer.proc == "up" else None


def _remember(core: HaCore, node: Node, queue: str, key: str, size: int) -> None:
    backlog = core.groups[node.group].data.setdefault("backlog", {}).setdefault(node.name, {}).setdefault(queue, [])
    backlog.append(key)
    del backlog[:-size]


def _in_backlog(core: HaCore, node: Node, queue: str, key: str) -> bool:
    return key in core.groups[node.group].data.get("backlog", {}).get(node.name, {}).get(queue, [])


def publish(core: HaCore, client: str, queue: str, count: int = 1, persistent: bool = True) -> JmsPublish:
    group, node = _client(core, client, queue)
    qp = _queue(core, group, queue)
    if count < 1:
        raise EngineError("value_out_of_range", name="count", value=count, min=1, max="")
    c = core.clients[client]
    replica = _replica(core, node)
    ids: list[int] = []
    for _ in range(count):
        key = f"ID:{client}-{c.next_seq}"
        c.next_seq += 1
        msg = core.ledger.add(group, queue, key, client, persistent, core.now_ms)
        core.ledger.put(node.key, msg)
        if qp.duplicate_detection:
            _remember(core, node, queue, key, qp.duplicate_backlog_size)
        if replica is not None and persistent:
            core.ledger.put(replica.key, msg)
            if qp.duplicate_detection:
                _remember(core, replica, queue, key, qp.duplicate_backlog_size)
        ids.append(msg.id)
    c.last_sent = ids
    first, last = core.ledger.messages[ids[0]].origin_key, core.ledger.messages[ids[-1]].origin_key
    return JmsPublish(client, group, node.name, queue, count, persistent,
                      count if replica is not None and persistent else 0, first, last)


def resend(core: HaCore, client: str) -> JmsResend:
    """The client sends its last publish again with the same JMS message IDs (what a JMS client
    does with in-doubt messages after a reconnect); the router discards those it has seen."""
    group, node = _client(core, client)
    c = core.clients[client]
    replica = _replica(core, node)
    discarded = accepted = 0
    for msg_id in c.last_sent:
        msg = core.ledger.messages[msg_id]
        qp = _queue(core, group, msg.queue)
        if qp.duplicate_detection and _in_backlog(core, node, msg.queue, msg.origin_key):
            core.ledger.discarded_resends.append((client, msg_id, core.now_ms, node.key))
            discarded += 1
            continue
        core.ledger.put(node.key, msg)
        if replica is not None and msg.persistent:
            core.ledger.put(replica.key, msg)
        if qp.duplicate_detection:
            _remember(core, node, msg.queue, msg.origin_key, qp.duplicate_backlog_size)
        accepted += 1
    return JmsResend(client, group, node.name, len(c.last_sent), discarded, accepted)


def consume(core: HaCore, client: str, queue: str, count: int = 1) -> JmsConsume:
    """Receive and acknowledge up to `count` messages; the ACTIVE replicates the acks, so the
    STANDBY's copies go too. A message this client already received is dropped by the client's own
    duplicate detection (JMS message ID per connection)."""
    from ..core import Delivery

    group, node = _client(core, client, queue)
    replica = _replica(core, node)
    held = core.ledger.queue_copies(node.key, queue)
    taken = list(held[:max(count, 0)])
    received = discarded = 0
    ids: list[str] = []
    for msg_id in taken:
        core.ledger.remove(node.key, queue, msg_id)
        if replica is not None:
            core.ledger.remove(replica.key, queue, msg_id)
        seen = core.ledger.deliveries_of(msg_id)
        mine = any(d.client == client and not d.discarded for d in seen)
        other = any(not d.discarded for d in seen)
        core.ledger.deliveries.append(Delivery(client, msg_id, core.now_ms, node.key,
                                               duplicate=other, discarded=mine))
        if mine:
            discarded += 1
        else:
            received += 1
            ids.append(core.ledger.messages[msg_id].origin_key)
    return JmsConsume(client, group, node.name, queue, received, discarded, tuple(ids))


def stats(core: HaCore, client: str) -> JmsStats:
    c = core.clients.get(client)
    if c is None or core.groups[c.group].system != SYSTEM:
        raise EngineError("jms_client_not_found", client=client)
    led = core.ledger
    mine = [d for d in led.deliveries if d.client == client]
    sent = [m for m in led.messages.values() if m.client == client]
    lost = sum(1 for m in sent if not any(not d.discarded for d in led.deliveries_of(m.id)) and not led.holders(m.id))
    return JmsStats(
        client=client, router=c.group, instance=c.node, sent=len(sent),
        received=sum(1 for d in mine if not d.discarded),
        duplicates_discarded=(sum(1 for d in mine if d.discarded)
                              + sum(1 for r in led.discarded_resends if r[0] == client)),
        duplicates_delivered=sum(1 for d in mine if d.duplicate and not d.discarded),
        lost=lost, reconnects=c.reconnects,
    )


# ---------------------------------------------------------------- the HA edition's Swiftlet Manager commands
def roles(core: HaCore, name: str) -> tuple[Node | None, Node | None]:
    """The instance that serves (ACTIVE or STANDALONE) and the other one if it is running."""
    group = router(core, name)
    active = p.serving_node(core, group)
    others = [n for n in core.group_nodes(group) if n is not active and n.proc != "down"]
    return active, (others[0] if others else None)


def router_action(core: HaCore, name: str, action: str, which: str) -> list[str]:
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
