"""Qpid HA operations: broker processes and network, the resource manager, the tools' changes
(promote, replicate, add queue) and AMQP clients with an address list.

Message guarantees (documented): an enqueue to a queue replicated ``all`` is acknowledged to the
client only when every ready backup holds it (delayed completion); the client keeps what is not
acknowledged (in doubt) and resends it after reconnecting, so the new primary gets duplicates of
exactly the in-doubt messages it already held. Every refusal is an ``EngineError`` raised before
anything changes. Messages are runs of the kernel's ledger: nothing here loops over messages.
"""

from __future__ import annotations

from typing import Any

from ..errors import EngineError
from ..kernel import Client, DeliveryRun, Failure, Kernel, Node, inject, lookup, operation
from ..kernel import ranges as rg
from ..kernel.ranges import Range
from . import policy as p
from .errors import TERMS
from .params import MANAGER_MODES, PORT, REPLICATE_LEVELS, SYSTEM
from .views import (
    BrokerChange,
    BrokerLog,
    BrokerView,
    ClientConnect,
    ClientConsume,
    ClientPublish,
    ClientStats,
    ClusterView,
    ManagerChange,
)

POLICY = p.POLICY
EXCHANGE_TYPES = ("direct", "fanout", "topic", "headers", "xml")


# ---------------------------------------------------------------- lookups
def clusters(core: Kernel) -> list[str]:
    return lookup.groups(core, TERMS)


def cluster(core: Kernel, name: str) -> str:
    return lookup.group(core, TERMS, name)


def broker(core: Kernel, key: str) -> Node:
    return lookup.node(core, TERMS, key)


def broker_names(core: Kernel) -> list[str]:
    return lookup.node_keys(core, TERMS)


def host(core: Kernel, name: str) -> Node | None:
    """The broker running on host ``name`` (broker names are host names, unique in a lab)."""
    return next((n for c in clusters(core) for n in core.group_nodes(c) if n.name == name), None)


def resolve(core: Kernel, name: str) -> Node | None:
    """The broker at host ``name``: a broker's host, or a cluster's virtual IP (its holder)."""
    for c in clusters(core):
        if p.data(core, c).get("vip") == name:
            return vip_holder(core, c)
    return host(core, name)


def known_host(core: Kernel, name: str) -> bool:
    return host(core, name) is not None or any(p.data(core, c).get("vip") == name for c in clusters(core))


def hosts(core: Kernel) -> list[str]:
    return [n.name for c in clusters(core) for n in core.group_nodes(c)]


def parse_address(text: str) -> tuple[str, int | None]:
    """``[user/password@]host[:port]`` -> (host, port or None)."""
    rest = text.rpartition("@")[2]
    name, colon, port = rest.partition(":")
    if colon and port.isdigit():
        return name, int(port)
    return rest if not colon else name, None if not colon else -1


def vip_holder(core: Kernel, group: str) -> Node | None:
    """The broker the cluster's virtual IP points at: the resource manager moves it with the
    primary (the first running one in broker order); nobody holds it while there is none."""
    return next((n for n in core.group_nodes(group) if n.proc == "up" and n.state in p.PRIMARY), None)


def isolated(core: Kernel, node: Node) -> bool:
    return any(not lk.up for lk in core.links if node.key in (lk.a, lk.b))


# ---------------------------------------------------------------- views
def cluster_view(core: Kernel, name: str) -> ClusterView:
    cluster(core, name)
    d = p.data(core, name)
    brokers = tuple(
        BrokerView(name, n.name, n.proc, n.state, d["upstream"].get(n.name) or "", isolated(core, n),
                   tuple(sorted(c.name for c in core.clients.values() if c.group == name and c.node == n.name)))
        for n in core.group_nodes(name))
    qp = p.params(core, name)
    mode = qp.manager if qp.manager == "off" else f"{qp.manager} poll {qp.manager_poll_ms}ms"
    return ClusterView(name, core.now_ms, mode, brokers)


def broker_log(core: Kernel, key: str) -> BrokerLog:
    return BrokerLog(key, lookup.node_events(core, broker(core, key)))


# ---------------------------------------------------------------- failures
def _change(core: Kernel, key: str, failure: Failure) -> BrokerChange:
    node = inject.node_failure(core, TERMS, key, failure)
    return BrokerChange(key, inject.DONE[failure], node.state)


@operation("qpid.restart")
def start(core: Kernel, key: str) -> BrokerChange:
    return _change(core, key, "restart")


@operation("qpid.kill")
def kill(core: Kernel, key: str) -> BrokerChange:
    return _change(core, key, "kill")


@operation("qpid.hang")
def hang(core: Kernel, key: str) -> BrokerChange:
    return _change(core, key, "hang")


@operation("qpid.replace")
def replace(core: Kernel, key: str) -> BrokerChange:
    return _change(core, key, "replace")


@operation("qpid.partition")
def partition(core: Kernel, name: str) -> ClusterView:
    """Cut the network between every two brokers of the cluster (each is alone)."""
    return _links(core, name, False)


@operation("qpid.heal")
def heal(core: Kernel, name: str) -> ClusterView:
    return _links(core, name, True)


def _links(core: Kernel, name: str, up: bool) -> ClusterView:
    return cluster_view(core, inject.group_links(core, TERMS, name, up))


@operation("qpid.isolate")
def isolate(core: Kernel, key: str, cut: bool) -> BrokerChange:
    """Cut (or restore) the network between a broker's machine and every other broker's."""
    node = broker(core, key)
    if cut == isolated(core, node):
        raise EngineError("qpid_already_isolated" if cut else "qpid_not_isolated", broker=key)
    for lk in core.links:
        if node.key in (lk.a, lk.b) and lk.up == cut:
            core.fail("partition" if cut else "heal", link=lk)
    return BrokerChange(key, "isolated" if cut else "reconnected", node.state)


@operation("qpid.manager")
def manager(core: Kernel, name: str, mode: str, poll_ms: int | None = None) -> ManagerChange:
    cluster(core, name)
    if mode not in MANAGER_MODES:
        raise EngineError("invalid_value", name="manager", value=mode, allowed="|".join(MANAGER_MODES))
    if poll_ms is not None and poll_ms < 1:
        raise EngineError("value_out_of_range", name="poll", value=poll_ms, min=1, max="")
    params = core.groups[name].params
    params["manager"] = mode
    if poll_ms is not None:
        params["manager_poll_ms"] = poll_ms
    POLICY.start_manager(core, name)
    return ManagerChange(name, mode, int(params["manager_poll_ms"]))


# ---------------------------------------------------------------- the tools' changes
def _tool_target(core: Kernel, address: str) -> Node:
    """The running broker at ``address``; a refusal carries the client library's exception."""
    name, port = parse_address(address)
    node = resolve(core, name)
    if node is None and known_host(core, name):
        raise EngineError("qpid_tool_error", text="ConnectError: [Errno 113] No route to host")
    if node is None:
        raise EngineError("qpid_tool_error", text="ConnectError: [Errno -2] Name or service not known")
    if port not in (None, PORT) or node.proc == "down":
        raise EngineError("qpid_tool_error", text="ConnectError: [Errno 111] Connection refused")
    if node.proc == "hung":
        raise EngineError("qpid_tool_error", text="Timeout: Connection attach timed out")
    return node


@operation("qpid.promote")
def promote(core: Kernel, address: str) -> str:
    """``qpid-ha --cluster-manager promote``: "" when promoted (or already primary)."""
    node = _tool_target(core, address)
    refusal = POLICY.promote(core, node)
    if refusal:
        raise EngineError("qpid_agent_error", error="exception", name=refusal)
    return ""


@operation("qpid.add_queue")
def add_queue(core: Kernel, address: str, queue: str, replicate: str | None, start_replica: str | None,
              durable: bool = False) -> str:
    """``qpid-config add queue``: declared on the broker at ``address`` (a backup refuses clients,
    so the tool must talk to the primary); with ``start_replica`` the new queue replicates the
    same-named queue of that broker."""
    node = _tool_target(core, address)
    if replicate is not None and replicate not in REPLICATE_LEVELS:
        raise EngineError("qpid_tool_error", text=f"Exception: Invalid replication level '{replicate}', should "
                                                  f"be one of: {', '.join(REPLICATE_LEVELS)}")
    d = p.data(core, node.group)
    if node.state not in p.PRIMARY:
        raise EngineError("qpid_tool_error", text="ConnectionError: connection aborted")
    if start_replica is not None:   # checked before anything changes: a refused command changes nothing
        source = _tool_target(core, start_replica)
        if queue not in d["queues"] or not p.queue_on(core, source, queue):
            raise EngineError("qpid_agent_error", error="queue-not-found", name=queue)
    if queue in d["queues"] and p.queue_on(core, node, queue):   # the broker's create is strict
        raise EngineError("qpid_agent_error", error="object-exists", name=queue)
    if queue in d["queues"]:       # the same name declared on another broker: a queue of its own here
        d["queues"][queue].setdefault("also", []).append(node.name)
        return queue
    d["queues"][queue] = {"replicate": replicate, "home": node.name, "durable": durable}
    return queue


@operation("qpid.add_exchange")
def add_exchange(core: Kernel, address: str, kind: str, name: str, replicate: str | None) -> str:
    """``qpid-config add exchange <type> <name>``, on the primary at ``address``."""
    node = _tool_target(core, address)
    if node.state not in p.PRIMARY:
        raise EngineError("qpid_tool_error", text="ConnectionError: connection aborted")
    if kind not in EXCHANGE_TYPES:
        raise EngineError("qpid_agent_error", error="invalid-exchange-type", name=kind)
    d = p.data(core, node.group)
    if name in p.BUILT_IN_EXCHANGES or p.exchange_on(core, node, name):   # the broker's create is strict
        raise EngineError("qpid_agent_error", error="object-exists", name=name)
    d.setdefault("exchanges", {})[name] = {"type": kind, "replicate": replicate, "home": node.name}
    return name


@operation("qpid.bind")
def bind(core: Kernel, address: str, exchange: str, queue: str, key: str) -> str:
    """``qpid-config bind <exchange> <queue> [key]``, on the primary at ``address``."""
    node = _tool_target(core, address)
    if node.state not in p.PRIMARY:
        raise EngineError("qpid_tool_error", text="ConnectionError: connection aborted")
    if exchange == "":
        raise EngineError("qpid_agent_error", error="bind-default", name=exchange)
    if not p.exchange_on(core, node, exchange):
        raise EngineError("qpid_agent_error", error="exchange-not-found", name=exchange)
    if not p.queue_on(core, node, queue):
        raise EngineError("qpid_agent_error", error="bind-no-queue", name=queue)
    p.data(core, node.group).setdefault("bindings", []).append([exchange, queue, key, node.name])
    return queue


@operation("qpid.replicate")
def replicate(core: Kernel, address: str, remote: str, queue: str) -> str:
    """``qpid-ha replicate`` (as the tool implements it: the remote broker, then the queue). The
    broker looks its own queue up first; the remote broker and its queue are checked here too."""
    node = _tool_target(core, address)
    d = p.data(core, node.group)
    if queue not in d["queues"] or not p.queue_on(core, node, queue):
        raise EngineError("qpid_agent_error", error="queue-not-found", name=queue)
    source = _tool_target(core, remote)
    if not p.queue_on(core, source, queue):
        raise EngineError("qpid_agent_error", error="queue-not-found", name=queue)
    core.ledger.put(node.key, queue, list(core.ledger.held(source.key, queue)))
    link = [source.name, node.name, queue]
    replicas = d.setdefault("replicas", [])
    if link not in replicas:   # a QueueReplicator: what follows is replicated too, dequeues as well
        replicas.append(link)
    return queue


def _replicas_of(core: Kernel, node: Node, queue: str) -> list[Node]:
    """The running brokers that replicate ``queue`` of ``node`` standalone (`qpid-ha replicate`)
    and can reach it now."""
    out = []
    for source, target, name in p.data(core, node.group).get("replicas", []):
        if source == node.name and name == queue:
            other = core.node(node.group, target)
            if other.proc == "up" and p.reachable(core, node, other) and p.queue_on(core, other, queue):
                out.append(other)
    return out


# ---------------------------------------------------------------- clients
def _record(core: Kernel, name: str) -> tuple[Client, dict[str, Any]]:
    c = core.clients.get(name)
    if c is None or core.groups[c.group].system != SYSTEM:
        raise EngineError("qpid_client_not_found", client=name)
    return c, p.data(core, c.group)["clients"][name]


def client_names(core: Kernel) -> list[str]:
    return sorted(c.name for c in core.clients.values() if core.groups[c.group].system == SYSTEM)


def _try_hosts(core: Kernel, c: Client, rec: dict[str, Any]) -> list[tuple[str, str]]:
    """Try the address list in order: a backup aborts the connection, a stopped broker refuses it,
    a hung one never answers; the first primary takes it. In-doubt messages are resent there."""
    tried: list[tuple[str, str]] = []
    vip = p.data(core, c.group).get("vip")
    for name in rec["hosts"]:
        node = vip_holder(core, c.group) if name == vip else host(core, name)
        if node is None or node.group != c.group or node.proc == "down":
            tried.append((p.address(name), "refused"))
            continue
        if node.proc == "hung":
            tried.append((p.address(name), "timed-out"))
            continue
        if node.state not in p.PRIMARY:
            tried.append((p.address(name), "rejected"))
            continue
        tried.append((p.address(name), "connected"))
        c.node = node.name
        c.reconnects += 1 if c.connected_once else 0
        c.connected_once = True
        _resend(core, c, rec, node)
        return tried
    return tried


def _resend(core: Kernel, c: Client, rec: dict[str, Any], node: Node) -> None:
    doubt = [(int(a), int(b)) for a, b in rec["in_doubt"]]
    if not doubt or rec.get("last") == node.name:
        rec["last"] = node.name
        return
    rec["last"] = node.name
    kept: list[Range] = []
    for a, b, run in list(core.ledger.spans(doubt)):
        if not p.queue_on(core, node, run.queue):
            continue   # no such queue on the new primary: the client's send fails
        held = core.ledger.held(node.key, run.queue)
        dup = rg.intersect([(a, b)], held)
        for x, y in rg.subtract([(a, b)], held):
            rg.append(held, (x, y))
        for x, y in dup:
            held.append((x, y))        # a second copy: the broker enqueues the resent message again
        rec["resent"] += b - a
        rec["dup_sent"] += rg.size(dup)
        kept.append((a, b))
    rec["in_doubt"] = [list(r) for r in kept]
    rec["pending"] = [list(r) for r in kept]


def _backups_of(core: Kernel, top: Node) -> list[Node]:
    d = p.data(core, top.group)
    return [n for n in core.group_nodes(top.group)
            if n.proc == "up" and d["upstream"].get(n.name) == top.name and n.state in (p.CATCHUP, p.READY)]


def _blocked(core: Kernel, top: Node) -> str:
    """Why completion of replicated enqueues on ``top`` is delayed now ("" when it is not)."""
    d = p.data(core, top.group)
    if top.state == p.RECOVERING and d["expected"].get(top.name):
        return "recovering"
    if any(core.node(top.group, n).proc == "hung" for n in d["ready"]) or any(
            n.proc == "hung" for n in _guarded_by(core, top)):
        return "stalled-backup"
    return ""


def _guarded_by(core: Kernel, top: Node) -> list[Node]:
    """The backups a QueueGuard holds completion for on ``top``: every one subscribed to it,
    catching up or ready (a guard is set when a backup first subscribes), hung ones included
    until the primary drops them."""
    d = p.data(core, top.group)
    return [n for n in core.group_nodes(top.group)
            if n.proc != "down" and d["upstream"].get(n.name) == top.name and n.state in (p.CATCHUP, p.READY)]


def _replicate(core: Kernel, top: Node, ids: list[Range]) -> None:
    for a, b, run in list(core.ledger.spans(ids)):
        if p.replicated(core, top.group, run.queue):
            for backup in _backups_of(core, top):
                core.ledger.put(backup.key, run.queue, [(a, b)])


def _complete(core: Kernel, c: Client, rec: dict[str, Any]) -> None:
    """Time has moved: replicate what the window held back, complete what nothing delays."""
    if c.node is None or not rec["in_doubt"]:
        return
    top = core.node(c.group, c.node)
    if top.proc != "up":
        return
    pending = [(int(a), int(b)) for a, b in rec["pending"]]
    _replicate(core, top, pending)
    rec["pending"] = []
    doubt = [(int(a), int(b)) for a, b in rec["in_doubt"]]
    held = ([(a, b) for a, b, run in core.ledger.spans(doubt) if p.replicated(core, c.group, run.queue)]
            if _blocked(core, top) else [])
    rec["acked"] += rg.size(doubt) - rg.size(held)
    rec["in_doubt"] = [list(r) for r in held]


def settle(core: Kernel, group: str) -> list[str]:
    """After a change or an advance: clients without a primary retry their address list, then
    completions that nothing delays any more reach their clients. Returns who connected."""
    out: list[str] = []
    d = p.data(core, group)
    for c in sorted((c for c in core.clients.values() if c.group == group), key=lambda c: c.name):
        rec = d["clients"][c.name]
        if c.node is not None:
            node = core.node(group, c.node)
            if node.proc == "down" or node.state not in p.PRIMARY:
                c.node = None
        if c.node is None and rec["hosts"]:
            _try_hosts(core, c, rec)
            if c.node is not None:
                out.append(c.name)
        _complete(core, c, rec)
    return out


@operation("qpid.connect")
def connect(core: Kernel, client: str, addresses: list[str]) -> ClientConnect:
    c, rec = _record(core, client)
    names = [parse_address(a)[0] for a in addresses]
    vip = p.data(core, c.group).get("vip")
    for n in names:
        node = host(core, n)
        if n != vip and (node is None or node.group != c.group):
            raise EngineError("qpid_host_unknown", host=n, cluster=c.group)
    rec["hosts"] = names
    c.node = None
    rec["last"] = None if not rec["in_doubt"] else rec.get("last")
    tried = _try_hosts(core, c, rec)
    return ClientConnect(client, tuple(tried), c.node)


def _connected(core: Kernel, client: str) -> tuple[Client, dict[str, Any], Node]:
    c, rec = _record(core, client)
    if c.node is None:
        raise EngineError("qpid_client_disconnected", client=client)
    node = core.node(c.group, c.node)
    if node.proc == "hung":
        raise EngineError("qpid_client_stalled", client=client, broker=node.name)
    if node.proc != "up":
        raise EngineError("qpid_client_disconnected", client=client)
    return c, rec, node


@operation("qpid.publish")
def publish(core: Kernel, client: str, queue: str, count: int = 1, settled: bool = True) -> ClientPublish:
    """Send ``count`` messages; settled: wait for completion (the command returns blocked when
    something delays it); unsettled: send and go on (in doubt until time moves). Replication to
    the backups takes the first ``ha_flow_messages`` at once, the rest when time moves."""
    if count < 1:
        raise EngineError("value_out_of_range", name="count", value=count, min=1, max="")
    c, rec, node = _connected(core, client)
    if not p.queue_on(core, node, queue):
        raise EngineError("qpid_tool_error", text=f"NotFound: no such queue: {queue}")
    durable = bool(p.data(core, c.group)["queues"][queue].get("durable"))
    run = core.ledger.add(c.group, queue, client, f"{client}:", c.next_seq, count, durable, core.now_ms)
    c.next_seq += count
    ids = [(run.first, run.end)]
    c.last_sent = ids
    core.ledger.put(node.key, queue, ids)
    for replica in _replicas_of(core, node, queue):
        core.ledger.put(replica.key, queue, ids)
    rec["sent"] += count
    rec["last"] = node.name
    window = p.params(core, c.group).ha_flow_messages
    now, later = ((ids, []) if settled or window == 0 or window >= count
                  else ([(run.first, run.first + window)], [(run.first + window, run.end)]))
    _replicate(core, node, now)
    rec["in_doubt"] = [list(r) for r in rg.normalize([*map(tuple, rec["in_doubt"]), *ids])]
    rec["pending"] = [list(r) for r in rg.normalize([*map(tuple, rec["pending"]), *later])]
    blocked = "unsettled"
    if settled:
        before = rec["acked"]
        _complete(core, c, rec)
        acked = rec["acked"] - before
        blocked = _blocked(core, node) if acked < count else ""
    else:
        acked = 0
    doubt = rg.size([(int(a), int(b)) for a, b in rec["in_doubt"]])
    return ClientPublish(client, node.name, queue, count, acked, doubt, blocked)


@operation("qpid.consume")
def consume(core: Kernel, client: str, queue: str, count: int = 1, ack: bool = True) -> ClientConsume:
    """Receive up to ``count`` messages; with ``ack`` the dequeues reach the backups too, without
    it the backups keep them (redelivered after a failover)."""
    if count < 1:
        raise EngineError("value_out_of_range", name="count", value=count, min=1, max="")
    c, rec, node = _connected(core, client)
    if not p.queue_on(core, node, queue):
        raise EngineError("qpid_tool_error", text=f"NotFound: no such queue: {queue}")
    taken = core.ledger.take(node.key, queue, count)
    received = dups = 0
    for a, b in taken:
        for x, y, _mine, anyone in core.ledger.seen((a, b), client):
            core.ledger.deliver(DeliveryRun(client, x, y - x, core.now_ms, node.key, duplicate=anyone))
            received += y - x
            dups += (y - x) if anyone else 0
    if ack:
        for backup in [*_backups_of(core, node), *_replicas_of(core, node, queue)]:
            core.ledger.remove(backup.key, queue, taken)
        _dequeued(core, c.group, taken)
    rec["received"] += received
    rec["duplicates"] += dups
    return ClientConsume(client, node.name, queue, received, dups, ack)


def _dequeued(core: Kernel, group: str, ids: list[Range]) -> None:
    """A dequeue completes a message its QueueGuard still delayed ("QueueGuard completes if not
    already completed"): its publisher has it acknowledged, so it is no longer in doubt and is not
    sent again after a failover."""
    if not ids:
        return
    for rec in p.data(core, group)["clients"].values():
        doubt = [(int(a), int(b)) for a, b in rec["in_doubt"]]
        if not doubt:
            continue
        done = rg.intersect(doubt, rg.normalize(ids))
        if done:
            rec["acked"] += rg.size(done)
            rec["in_doubt"] = [list(r) for r in rg.subtract(doubt, done)]
            rec["pending"] = [list(r) for r in rg.subtract([(int(a), int(b)) for a, b in rec["pending"]], done)]


def stats(core: Kernel, client: str) -> ClientStats:
    c, rec = _record(core, client)
    totals, _ = core.audit(c.group, client)
    return ClientStats(client, c.node, int(rec["sent"]), int(rec["acked"]),
                       rg.size([(int(a), int(b)) for a, b in rec["in_doubt"]]), int(rec["resent"]),
                       int(rec["dup_sent"]), int(rec["received"]), int(rec["duplicates"]), totals.lost)


def new_client_record() -> dict[str, Any]:
    return {"hosts": [], "last": None, "in_doubt": [], "pending": [], "sent": 0, "acked": 0, "resent": 0,
            "dup_sent": 0, "received": 0, "duplicates": 0}
