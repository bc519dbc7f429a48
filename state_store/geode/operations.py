"""Geode operations for the lab console and gfsh: server processes, the network between servers,
a dropped queue-removal message, clients (connect, interest, put, ack, readyForEvents, close)
and the reads behind the views. Every refusal is an `EngineError` raised before anything changes.
"""

from __future__ import annotations

from typing import Any

from ..errors import EngineError
from ..kernel import Failure, Kernel, Node, inject, lookup, operation
from ..kernel import ranges as rg
from ..kernel.model import node_key
from . import expiry, members
from . import queues as q
from .errors import TERMS
from .params import POOL_LIMITS, SYSTEM
from .views import (
    ClientChange,
    ClientLog,
    ClientStats,
    ClusterView,
    LinkChange,
    PoolView,
    PutResult,
    QrmDrop,
    RuntimeAltered,
    ServerChange,
    ServerLog,
    ServerStartStop,
    ServerView,
)

THREAD = 1   # every put of a lab client comes from one application thread


# ---------------------------------------------------------------- lookups
def clusters(core: Kernel) -> list[str]:
    return lookup.groups(core, TERMS)


def cluster(core: Kernel, name: str) -> str:
    return lookup.group(core, TERMS, name)


def server(core: Kernel, key: str) -> Node:
    return lookup.node(core, TERMS, key)


def client_group(core: Kernel, name: str) -> str:
    c = core.clients.get(name)
    if c is None or core.groups[c.group].system != SYSTEM:
        raise EngineError("gf_client_not_found", client=name)
    return c.group


def client_names(core: Kernel) -> list[str]:
    return lookup.client_names(core, TERMS)


def _moves(core: Kernel, group: str) -> tuple[tuple[str, str, str], ...]:
    return tuple((c, p.get("primary") or "-", ",".join(p.get("secondaries", [])) or "-")
                 for c, p in sorted(q.pools(core, group).items()) if p["params"].get("subscription_enabled"))


# ---------------------------------------------------------------- views
def server_view(core: Kernel, node: Node) -> ServerView:
    group = node.group
    info = q.data(core, group)["members"][node.name]
    stats = q.data(core, group).get("stats", {}).get(node.name, {})
    pools = q.pools(core, group).values()
    sp = q.server_params(core, group, node.name)
    return ServerView(
        node.name, node.proc, members.server_id(core, group, node.name) if info.get("started") else "",
        int(info["cache_port"]),
        sum(1 for p in pools if p.get("primary") == node.name),
        sum(1 for p in pools if node.name in p.get("secondaries", [])),
        sum(rg.size(rs) for rs in core.ledger.copies.get(node.key, {}).values()),
        int(stats.get("eventsQueued", 0)), int(stats.get("eventsRemoved", 0)),
        int(stats.get("eventsRemovedByQrm", 0)), int(stats.get("eventsExpired", 0)),
        sp.message_sync_interval_s, sp.message_time_to_live_s)


def pool_view(core: Kernel, group: str, client: str) -> PoolView:
    p = q.pool(core, group, client)
    pp = q.pool_params(p)
    return PoolView(
        client, members.client_text(core, group, client), pp.subscription_enabled, bool(p.get("connected")),
        bool(p.get("ready")), pp.durable_client_id, pp.subscription_redundancy, p.get("primary"),
        tuple(p.get("secondaries", [])),
        tuple((s, rg.size(q.held(core, group, s, client))) for s in q.holders(p)),
        rg.size(q.ranges_of(p.get("unacked", []))), tuple(p.get("interest", [])))


def cluster_view(core: Kernel, name: str) -> ClusterView:
    group = cluster(core, name)
    loc = q.data(core, group)["locator"]
    return ClusterView(group, core.now_ms, str(loc["name"]), members.locator_id(core, group),
                       tuple(server_view(core, n) for n in core.group_nodes(group)),
                       tuple(pool_view(core, group, c) for c in sorted(q.pools(core, group))))


def stats(core: Kernel, client: str) -> ClientStats:
    group = client_group(core, client)
    p = q.pool(core, group, client)
    st = p["stats"]
    # the client's events never delivered with no copy left: the kernel audit's lost, as a
    # subscriber's runs are its own (client and queue), delivered to it alone (``put``)
    lost = core.audit(group, client)[0].lost
    primary = p.get("primary")
    queued = 0
    if primary is not None:
        queued = rg.size(rg.subtract(list(q.held(core, group, primary, client)), q.ranges_of(p["unacked"])))
    return ClientStats(client, bool(p.get("connected")), primary, int(st.get("received", 0)),
                       int(st.get("resent", 0)), int(st.get("discarded", 0)), int(st.get("dups_delivered", 0)),
                       lost, queued, int(st.get("reinits", 0)), int(st.get("refetched", 0)), p.get("pending"))


def client_log(core: Kernel, client: str) -> ClientLog:
    group = client_group(core, client)
    return ClientLog(client, lookup.events(core, group, client))


def server_log(core: Kernel, key: str) -> ServerLog:
    return ServerLog(key, lookup.node_events(core, server(core, key)))


# ---------------------------------------------------------------- servers and the network
def _change(core: Kernel, key: str, failure: Failure) -> ServerChange:
    node = inject.node_failure(core, TERMS, key, failure)
    return ServerChange(key, inject.DONE[failure], _moves(core, node.group))


@operation("geode.restart")
def restart(core: Kernel, key: str) -> ServerChange:
    return _change(core, key, "restart")


@operation("geode.kill")
def kill(core: Kernel, key: str) -> ServerChange:
    return _change(core, key, "kill")


@operation("geode.hang")
def hang(core: Kernel, key: str) -> ServerChange:
    return _change(core, key, "hang")


def _pair(core: Kernel, a: str, b: str) -> tuple[Node, Node]:
    na, nb = server(core, a), server(core, b)
    if na.group != nb.group or na.name == nb.name:
        raise EngineError("gf_not_a_pair", a=a, b=b)
    return na, nb


def _set_links(core: Kernel, name: str, up: bool) -> LinkChange:
    return LinkChange(inject.group_links(core, TERMS, name, up), up)


@operation("geode.partition")
def partition(core: Kernel, name: str) -> LinkChange:
    """Cut the network between every two servers of a cluster: queue-removal messages are lost
    and no new secondary takes an initial image across it; clients still reach every server."""
    return _set_links(core, name, False)


@operation("geode.heal")
def heal(core: Kernel, name: str) -> LinkChange:
    return _set_links(core, name, True)


@operation("geode.replace")
def replace(core: Kernel, key: str) -> ServerChange:
    """A stopped server's machine is replaced: Geode's subscription queues live in memory, so a
    stopped server holds nothing a new disk could lose; it starts again as a new member."""
    return _change(core, key, "replace")


@operation("geode.drop_qrm")
def drop_qrm(core: Kernel, source: str, target: str) -> QrmDrop:
    """The next queue-removal message from ``source`` to ``target`` is lost (one message)."""
    na, nb = _pair(core, source, target)
    drops = q.data(core, na.group).setdefault("drop_qrm", [])
    if [na.name, nb.name] not in drops:
        drops.append([na.name, nb.name])
    return QrmDrop(source, target)


# ---------------------------------------------------------------- clients
def _pool(core: Kernel, client: str, connected: bool | None = None) -> tuple[str, dict[str, Any]]:
    group = client_group(core, client)
    p = q.pool(core, group, client)
    if connected is True and not p.get("connected"):
        raise EngineError("gf_client_not_connected", client=client)
    if connected is False and p.get("connected"):
        raise EngineError("gf_client_connected", client=client)
    return group, p


def _client_change(core: Kernel, group: str, client: str, change: str, pending: int | None = None,
                   count: int = 0) -> ClientChange:
    p = q.pool(core, group, client)
    return ClientChange(client, change, p.get("primary"), tuple(p.get("secondaries", [])), pending, count)


@operation("geode.connect")
def connect(core: Kernel, client: str, settings: dict[str, int] | None = None) -> ClientChange:
    """Connect the client's pool, optionally with other pool settings first (names of
    ``PoolParams``: subscription_redundancy, subscription_ack_interval_ms, ping_interval_ms ...)."""
    group, p = _pool(core, client, connected=False)
    changes = dict(settings or {})
    for name, value in changes.items():
        if name not in POOL_LIMITS:
            raise EngineError("invalid_value", name="pool setting", value=str(name)[:80],
                              allowed=", ".join(POOL_LIMITS))
        lo, hi = POOL_LIMITS[name]
        if not isinstance(value, int) or not lo <= value <= hi:
            raise EngineError("value_out_of_range", name=name.replace("_", "-"), value=value, min=lo, max=hi)
    if changes:
        p["params"] = {**p["params"], **changes}
    pending = q.connect(core, group, client)
    return _client_change(core, group, client, "connected", pending)


@operation("geode.disconnect")
def disconnect(core: Kernel, client: str, keepalive: bool = False) -> ClientChange:
    group, p = _pool(core, client, connected=True)
    durable = bool(q.pool_params(p).durable_client_id)
    if keepalive and not durable:
        raise EngineError("gf_not_durable", client=client)
    q.disconnect(core, group, client, keepalive)
    return _client_change(core, group, client, "kept" if keepalive else "disconnected")


@operation("geode.ready")
def ready(core: Kernel, client: str) -> ClientChange:
    group, p = _pool(core, client, connected=True)
    if not q.pool_params(p).subscription_enabled:
        raise EngineError("gf_not_subscribed", client=client)
    sent = q.ready(core, group, client)
    return _client_change(core, group, client, "ready", count=sent)


@operation("geode.register_interest")
def register_interest(core: Kernel, client: str, region: str) -> ClientChange:
    group, p = _pool(core, client)
    if not q.pool_params(p).subscription_enabled:
        raise EngineError("gf_not_subscribed", client=client)
    interest = list(p.get("interest", []))
    if region not in interest:
        interest.append(region)
    p["interest"] = interest
    entries = sum(int(v) for v in q.data(core, group).setdefault("regions", {}).get(region, {}).values())
    return _client_change(core, group, client, "interest", count=entries)


@operation("geode.put")
def put(core: Kernel, client: str, region: str, count: int = 1, key: str = "k") -> PutResult:
    """`count` puts of keys <key>1..<key><count> into a region by the client: one ledger run per
    subscribed pool with interest in the region (the run is that subscriber's), queued on its
    primary and secondaries."""
    if not 1 <= count <= 100_000_000:
        raise EngineError("value_out_of_range", name="count", value=count, min=1, max=100_000_000)
    group, p = _pool(core, client, connected=True)
    if not any(n.proc == "up" for n in core.group_nodes(group)):
        raise EngineError("gf_no_server", cluster=group)
    c = core.clients[client]
    origin = f"{client}:{THREAD}:"
    targets = []
    for name, sp in sorted(q.pools(core, group).items()):
        live = [s for s in q.holders(sp) if q.is_up(core, group, s)]
        if region in sp.get("interest", []) and live:
            targets.append((name, live))
    first = last = ""
    for name, live in targets:
        # the run belongs to the subscriber (its queue, its deliveries, its audit); the EventID's
        # member is the putting client
        run = core.ledger.add(group, name, name, origin, c.next_seq, count, False, core.now_ms)
        for s in live:
            core.ledger.put(node_key(group, s), name, [(run.first, run.end)])
            q.stat(core, group, s, "eventsQueued", count)
        first, last = run.key(run.first), run.key(run.end - 1)
    if targets:
        # message-time-to-live is the cluster's (no member overrides it): the put's expiry position
        ttl = q.server_params(core, group, core.group_nodes(group)[0].name).message_time_to_live_s * 1000
        expiry.reserve(core, group, core.now_ms + ttl)
        if any(s != q.pool(core, group, name).get("primary") for name, live in targets for s in live):
            expiry.note(core, group, core.now_ms + ttl)   # a secondary got the events
    else:
        first, last = f"{origin}{c.next_seq}", f"{origin}{c.next_seq + count - 1}"
    c.next_seq += count
    p["stats"]["puts"] = int(p["stats"].get("puts", 0)) + count
    entries = q.data(core, group).setdefault("regions", {}).setdefault(region, {})
    entries[key] = max(int(entries.get(key, 0)), count)
    sent = sum(q.dispatch(core, group, name) for name, _ in targets)
    return PutResult(client, region, count, first, last, tuple(n for n, _ in targets), sent)


@operation("geode.ack")
def ack(core: Kernel, client: str) -> ClientChange:
    """Send the client's periodic ack now."""
    group, p = _pool(core, client, connected=True)
    n = rg.size(q.ranges_of(p.get("unacked", [])))
    q.on_ack(core, group, client)
    return _client_change(core, group, client, "acked", count=n)


# ---------------------------------------------------------------- gfsh's changes
@operation("geode.alter_runtime")
def alter_runtime(core: Kernel, group: str, names: list[str], message_sync_interval_s: int) -> RuntimeAltered:
    """`alter runtime --message-sync-interval`: applied at once to the running members named (all
    when none), as Geode's function does, and kept until the member restarts."""
    cluster(core, group)
    if not 1 <= message_sync_interval_s <= 3600:
        raise EngineError("gfsh_invalid_option_value", option="message-sync-interval",
                          value=message_sync_interval_s)
    for name in names:
        if name not in core.groups[group].nodes:
            raise EngineError("gfsh_member_not_found", member=name)
    chosen = [core.node(group, n) for n in names] if names else core.group_nodes(group)
    running = [n for n in chosen if n.proc != "down"]
    for n in running:
        q.data(core, group)["members"][n.name].setdefault("runtime", {})["message_sync_interval_s"] = \
            message_sync_interval_s
        if q.data(core, group)["members"][n.name].get("qrm_due") is not None:
            q.cancel_qrm(core, group, n.name)      # the pending tick moves to the new phase
            q.schedule_qrm(core, group, n.name)
    return RuntimeAltered(tuple(members.server_id(core, group, n.name) for n in running))


@operation("geode.start_server")
def start_server(core: Kernel, group: str, name: str) -> ServerStartStop:
    node = core.node(cluster(core, group), name)
    if node.proc != "down":
        raise EngineError("gfsh_server_running", name=name)
    core.fail("restart", node=node)
    info = q.data(core, group)["members"][name]
    return ServerStartStop(name, members.server_id(core, group, name), True, int(info["pid"]), int(info["cache_port"]))


@operation("geode.stop_server")
def stop_server(core: Kernel, group: str, name: str) -> ServerStartStop:
    node = core.node(cluster(core, group), name)
    if node.proc == "down":
        raise EngineError("gfsh_server_not_running", name=name)
    info = q.data(core, group)["members"][name]
    member = members.server_id(core, group, name)
    core.fail("kill", node=node)
    return ServerStartStop(name, member, False, int(info["pid"]), int(info["cache_port"]))
