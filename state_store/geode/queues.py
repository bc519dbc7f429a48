"""The client subscription queues of a Geode cluster: placement, dispatch, acks, queue-removal
messages, failover, redundancy restoration, orphan expiry and durable clients.

Documented behaviour (Geode's client/server event messaging pages) and the lab's choices:
- The unit of HA is one client pool's subscription queue: one primary and min(R, up servers - 1)
  secondaries (R = subscription-redundancy, -1 = all other servers). Servers are chosen least
  loaded first (queues hosted, then primary queues hosted, then scenario order), so pools and
  their primaries spread over the servers.
- Every event carries an EventID (member, thread, sequence). A put goes into the queue of every
  subscribed pool with interest in its region, on the primary and on every secondary; the primary
  dispatches at once to a connected, ready client. The client acks what it received every
  subscription-ack-interval; the primary then removes those events and, at its next
  message-sync-interval tick (a fixed phase from the cluster's creation), sends a queue-removal
  message (QRM) to each secondary. So a secondary holds everything the primary does plus the
  events acked since the last tick.
- The client manages redundancy. A lost primary is replaced by the longest-lived secondary (first
  in the backup list), which resends what it still holds; the client discards every event whose
  sequence is at most the last it saw for that (member, thread) (numSequenceViolated), unless that
  tracking entry idled out (subscription-message-tracking-timeout). A lost server is replaced by a
  spare server at once; with none, the exact "Redundancy level ... is not satisfied" line is logged
  and the satisfier retries every ping-interval. With R = -1 it looks every ping-interval for good
  (Geode's QueueManagerImpl reschedules its satisfier whenever the level is -1), so a server that
  starts again becomes a secondary. Without a secondary, failover reinitialises the client
  (interest entries destroyed and fetched again, no listener events).
- A secondary expires queued events older than message-time-to-live (orphans a lost QRM left).
- A durable client's queue outlives its disconnect for durable-client-timeout; it is replayed after
  readyForEvents. Offline, it cannot fail over: its queue dies with its queue servers.
Cost: everything works on ledger runs and id ranges, never on single events.
"""

from __future__ import annotations

from typing import Any

from ..kernel import DeliveryRun, Event, Kernel, Node, ResendRun
from ..kernel import ranges as rg
from ..kernel.model import node_key
from ..kernel.ranges import Range
from . import expiry, members
from .params import HOST, PoolParams, ServerParams

# ledger reasons for the last copy of an event going
SERVER_DIED = "queue-server-died"
SERVER_HUNG = "queue-server-hung"
OFFLINE_DURABLE = "durable-client-offline"
DURABLE_TIMEOUT = "durable-client-timeout"
CLIENT_CLOSED = "client-closed"
EXPIRED_TTL = "message-time-to-live"
ONLINE = "online"


# ---------------------------------------------------------------- data access
def data(core: Kernel, group: str) -> dict[str, Any]:
    return core.groups[group].data


def pools(core: Kernel, group: str) -> dict[str, dict[str, Any]]:
    found: dict[str, dict[str, Any]] = data(core, group).setdefault("pools", {})
    return found


def pool(core: Kernel, group: str, client: str) -> dict[str, Any]:
    return pools(core, group)[client]


def pool_params(p: dict[str, Any]) -> PoolParams:
    return PoolParams.from_dict(p["params"])


def server_params(core: Kernel, group: str, server: str) -> ServerParams:
    values = dict(core.groups[group].params)
    values.update(data(core, group)["members"][server].get("runtime", {}))
    return ServerParams.from_dict(values)


def servers(core: Kernel, group: str) -> list[Node]:
    return core.group_nodes(group)


def is_up(core: Kernel, group: str, server: str | None) -> bool:
    return server is not None and core.node(group, server).proc == "up"


def ranges_of(value: Any) -> list[Range]:
    return [(int(a), int(b)) for a, b in value]


def store(ranges: list[Range]) -> list[list[int]]:
    return [[a, b] for a, b in ranges]


def held(core: Kernel, group: str, server: str, client: str) -> list[Range]:
    return core.ledger.held(node_key(group, server), client)


def holders(p: dict[str, Any]) -> list[str]:
    return ([p["primary"]] if p.get("primary") else []) + list(p.get("secondaries", []))


def stat(core: Kernel, group: str, server: str, name: str, add: int) -> None:
    stats = data(core, group).setdefault("stats", {}).setdefault(server, {})
    stats[name] = int(stats.get(name, 0)) + add


def client_log(core: Kernel, group: str, client: str, level: str, code: str, **params: Any) -> None:
    """A line of the client's log (rendered by the shell from its code)."""
    core.events.append(Event(core.now_ms, group, client, code, {"level": level, **params}))


def load(core: Kernel, group: str, server: str) -> int:
    """Subscription queues a server hosts (the locator's queue load)."""
    return sum(1 for p in pools(core, group).values() if server in holders(p))


def primaries(core: Kernel, group: str, server: str) -> int:
    return sum(1 for p in pools(core, group).values() if p.get("primary") == server)


def _endpoint(core: Kernel, group: str, server: str) -> dict[str, Any]:
    return {"server": server, "member": members.server_id(core, group, server),
            "port": members.cache_port(core, group, server), "host": HOST}


def _spares(core: Kernel, group: str, p: dict[str, Any]) -> list[str]:
    taken = set(holders(p))
    primary = p.get("primary")
    out = []
    for n in servers(core, group):
        if n.proc != "up" or n.name in taken:
            continue
        if primary is not None:
            link = core.link(node_key(group, primary), n.key)
            if link is not None and not link.up:
                continue   # no initial image across a cut network
        out.append(n)
    order = {n.name: i for i, n in enumerate(servers(core, group))}
    return [n.name for n in sorted(out, key=lambda n: (load(core, group, n.name), primaries(core, group, n.name),
                                                       order[n.name]))]


def wanted(core: Kernel, group: str, p: dict[str, Any]) -> int:
    """The secondaries the pool's redundancy asks for, given the servers up now."""
    r = pool_params(p).subscription_redundancy
    up = sum(1 for n in servers(core, group) if n.proc == "up")
    others = max(up - 1, 0)
    return others if r == -1 else min(r, others)


# ---------------------------------------------------------------- placement and redundancy
def satisfy(core: Kernel, group: str, client: str, startup: bool = False) -> None:
    """The client's redundancy satisfier: a primary, then secondaries from spare servers at once;
    when short, log it and retry every ping-interval."""
    p = pool(core, group, client)
    if not p.get("connected"):
        return
    pp = pool_params(p)
    if p.get("primary") is None:
        spares = _spares(core, group, p)
        if not spares:
            code = "no-primary-startup" if startup else "primary-discovery-failed"
            client_log(core, group, client, "warn" if startup else "error", code)
            _retry(core, group, client, pp)
            return
        primary = spares[0]
        p["primary"] = primary
        if p.get("had_primary") and p.get("interest"):   # it lost its queue: a non-HA failover
            _reinitialise(core, group, client, primary)
        p["had_primary"] = True
        client_log(core, group, client, "info", "updater-ready", **_endpoint(core, group, primary))
    r = pp.subscription_redundancy
    while r == -1 or len(p["secondaries"]) < r:
        spares = _spares(core, group, p)
        if not spares:
            break
        new = spares[0]
        core.ledger.put(node_key(group, new), client, held(core, group, p["primary"], client))  # initial image
        p["secondaries"].append(new)
        due = _expires_from(core, group, new, client)
        if due is not None:
            expiry.note(core, group, due)
        client_log(core, group, client, "info", "redundant-added", **_endpoint(core, group, new))
    count = len(p["secondaries"])
    if r == -1:   # "all other servers": the satisfier keeps looking, so a server that comes back is added
        _retry(core, group, client, pp)
    elif count < r:
        if p.get("short_logged") != count:
            code = "redundancy-startup" if startup else "redundancy-not-satisfied"
            client_log(core, group, client, "warn", code, level_wanted=r, current=count)
            p["short_logged"] = count
        _retry(core, group, client, pp)
    else:
        p.pop("short_logged", None)


def _retry(core: Kernel, group: str, client: str, pp: PoolParams) -> None:
    p = pool(core, group, client)
    if p.get("retry_due") is None:
        p["retry_due"] = core.now_ms + pp.ping_interval_ms
        core.timers.schedule(p["retry_due"], group, "", "satisfy", {"client": client})


def on_retry(core: Kernel, group: str, client: str) -> None:
    p = pool(core, group, client)
    p["retry_due"] = None
    satisfy(core, group, client)
    dispatch(core, group, client)


def _reinitialise(core: Kernel, group: str, client: str, server: str) -> None:
    """Non-HA failover: the client destroys its entries of interest and fetches them again from
    the new server; listeners are not told (no events)."""
    p = pool(core, group, client)
    regions = data(core, group).setdefault("regions", {})
    entries = sum(sum(int(v) for v in regions.get(r, {}).values()) for r in p.get("interest", []))
    p["stats"]["reinits"] = int(p["stats"].get("reinits", 0)) + 1
    p["stats"]["refetched"] = int(p["stats"].get("refetched", 0)) + entries
    client_log(core, group, client, "info", "reinitialised", entries=entries, server=server,
               regions=",".join(p.get("interest", [])))


# ---------------------------------------------------------------- dispatch and acks
def dispatch(core: Kernel, group: str, client: str) -> int:
    """The primary sends what the client has not received yet; returns the count sent."""
    p = pool(core, group, client)
    primary = p.get("primary")
    if not (p.get("connected") and p.get("ready") and is_up(core, group, primary)):
        return 0
    assert primary is not None
    pending = rg.subtract(list(held(core, group, primary, client)), ranges_of(p["unacked"]))
    for a, b in pending:
        receive(core, group, client, a, b, primary, resend=False)
    _unacked_add(core, group, client, pending)
    return rg.size(pending)


def _unacked_add(core: Kernel, group: str, client: str, ids: list[Range]) -> None:
    if not ids:
        return
    p = pool(core, group, client)
    p["unacked"] = store(rg.normalize(ranges_of(p["unacked"]) + ids))
    if p.get("ack_due") is None:
        p["ack_due"] = core.now_ms + pool_params(p).subscription_ack_interval_ms
        core.timers.schedule(p["ack_due"], group, "", "ack", {"client": client})


def receive(core: Kernel, group: str, client: str, a: int, b: int, server: str, resend: bool) -> None:
    """The client gets ids a..b-1 from ``server``: it discards each event whose sequence is at most
    the last it saw for that (member, thread), unless that tracking entry idled out."""
    p = pool(core, group, client)
    seen: dict[str, list[int]] = p.setdefault("seen", {})
    tracking = pool_params(p).subscription_message_tracking_timeout_ms
    st = p["stats"]
    key = node_key(group, server)
    for x, y, run in list(core.ledger.spans([(a, b)])):
        s0 = run.first_seq + (x - run.first)
        n = y - x
        entry = seen.get(run.origin)
        last = int(entry[0]) if entry is not None else 0
        live = entry is not None and core.now_ms - int(entry[1]) <= tracking
        dups = min(max(last - s0 + 1, 0), n)
        if resend:
            st["resent"] = int(st.get("resent", 0)) + n
        if dups and live:
            core.ledger.resent(ResendRun(client, x, dups, core.now_ms, key))
            st["discarded"] = int(st.get("discarded", 0)) + dups
        elif dups:   # the tracking entry idled out: the duplicates reach the application
            core.ledger.deliver(DeliveryRun(client, x, dups, core.now_ms, key, duplicate=True))
            st["dups_delivered"] = int(st.get("dups_delivered", 0)) + dups
        if n > dups:
            core.ledger.deliver(DeliveryRun(client, x + dups, n - dups, core.now_ms, key))
            st["received"] = int(st.get("received", 0)) + n - dups
        seen[run.origin] = [max(last, s0 + n - 1), core.now_ms]


def on_ack(core: Kernel, group: str, client: str) -> None:
    """The client's periodic ack: the primary removes what was acked; the secondaries learn of it
    at the primary's next queue-removal message."""
    p = pool(core, group, client)
    p["ack_due"] = None
    primary = p.get("primary")
    acked = ranges_of(p["unacked"])
    if not acked or not is_up(core, group, primary) or not p.get("connected"):
        return
    assert primary is not None
    before = rg.size(held(core, group, primary, client))
    core.ledger.remove(node_key(group, primary), client, acked)
    stat(core, group, primary, "eventsRemoved", before - rg.size(held(core, group, primary, client)))
    p["to_qrm"] = store(rg.normalize(ranges_of(p.get("to_qrm", [])) + acked))
    p["unacked"] = []
    schedule_qrm(core, group, primary)


def schedule_qrm(core: Kernel, group: str, server: str) -> None:
    """Make sure the server's next queue-removal tick is pending: the next multiple of its
    message-sync-interval counted from the cluster's start. A tick is scheduled only while the
    server has acknowledged events to report (a tick with nothing to send changes nothing), so an
    idle cluster costs no timers however long the clock runs."""
    info = data(core, group)["members"][server]
    if info.get("qrm_due") is not None or not is_up(core, group, server):
        return
    interval = server_params(core, group, server).message_sync_interval_s * 1000
    epoch = int(data(core, group).get("epoch_ms", 0))
    due = epoch + ((core.now_ms - epoch) // interval + 1) * interval
    info["qrm_due"] = due
    core.timers.schedule(due, group, server, "qrm")


def cancel_qrm(core: Kernel, group: str, server: str) -> None:
    info = data(core, group)["members"][server]
    if info.get("qrm_due") is not None:
        core.timers.cancel_where(group, kinds=frozenset({"qrm"}), node=server)
        info["qrm_due"] = None


def on_qrm(core: Kernel, group: str, server: str) -> None:
    """A primary's queue-removal messages to the secondaries of each pool it serves."""
    data(core, group)["members"][server]["qrm_due"] = None
    if not is_up(core, group, server):
        return
    drops: list[list[str]] = data(core, group).setdefault("drop_qrm", [])
    for client, p in sorted(pools(core, group).items()):
        acked = ranges_of(p.get("to_qrm", []))
        if p.get("primary") != server or not acked:
            continue
        for sec in p["secondaries"]:
            if [server, sec] in drops:
                drops.remove([server, sec])
                core.log(core.node(group, server), "qrm-dropped", to=sec, client=client, count=rg.size(acked))
                continue
            link = core.link(node_key(group, server), node_key(group, sec))
            if (link is not None and not link.up) or not is_up(core, group, sec):
                continue
            before = rg.size(held(core, group, sec, client))
            core.ledger.remove(node_key(group, sec), client, acked)
            stat(core, group, sec, "eventsRemovedByQrm", before - rg.size(held(core, group, sec, client)))
        p["to_qrm"] = []


def _expires_from(core: Kernel, group: str, secondary: str, client: str) -> int | None:
    """When the oldest event of the client's queue on ``secondary`` is older than the server's
    message-time-to-live (None: it holds none). Reads the copies without adding an empty entry."""
    ids = core.ledger.copies.get(node_key(group, secondary), {}).get(client, [])
    oldest = min((run.published_ms for _, _, run in core.ledger.spans(ids)), default=None)
    if oldest is None:
        return None
    return oldest + server_params(core, group, secondary).message_time_to_live_s * 1000


def on_expiry(core: Kernel, group: str) -> None:
    """The cluster's armed expiry timer (``expiry``): the expiry pass, then the first position at
    which it can find something again is armed."""
    expiry.fired(core, group)
    due = on_expire(core, group)
    if due is not None:
        expiry.note(core, group, due)


def on_expire(core: Kernel, group: str) -> int | None:
    """Secondaries expire every queued event older than message-time-to-live (orphans). Returns
    when the oldest event a secondary still holds expires (None: they hold none); a secondary that
    is not up counts too: it expires nothing now, and arming early only costs a pass that finds
    nothing."""
    due: list[int] = []
    for client, p in sorted(pools(core, group).items()):
        for sec in p.get("secondaries", []):
            if not is_up(core, group, sec):
                later = _expires_from(core, group, sec, client)
                due += [] if later is None else [later]
                continue
            ttl = server_params(core, group, sec).message_time_to_live_s * 1000
            old = []
            for x, y, run in core.ledger.spans(rg.normalize(held(core, group, sec, client))):
                if run.published_ms + ttl <= core.now_ms:
                    old.append((x, y))
                else:
                    due.append(run.published_ms + ttl)
            if old:
                core.ledger.remove(node_key(group, sec), client, old)
                core.ledger.note_gone(old, EXPIRED_TTL)
                stat(core, group, sec, "eventsExpired", rg.size(old))
    return min(due, default=None)


# ---------------------------------------------------------------- losing a server
def lose_server(core: Kernel, group: str, server: str, reason: str) -> None:
    """A server's queues are gone (it died, or a hung one was given up): drop its copies, then
    every pool that used it fails over or restores its redundancy."""
    touched = []
    for client, p in sorted(pools(core, group).items()):
        if server not in holders(p):
            continue
        why = reason if p.get("connected") else OFFLINE_DURABLE
        core.ledger.drop(node_key(group, server), why, only=list(held(core, group, server, client)))
        touched.append(client)
    for client in touched:
        _fail_over(core, group, client, server)


def _fail_over(core: Kernel, group: str, client: str, server: str) -> None:
    p = pool(core, group, client)
    if not p.get("connected"):   # an offline durable client cannot fail over
        if p.get("primary") == server:
            p["primary"] = p["secondaries"].pop(0) if p["secondaries"] else None
        elif server in p["secondaries"]:
            p["secondaries"].remove(server)
        return
    if server in p["secondaries"]:
        p["secondaries"].remove(server)
        client_log(core, group, client, "warn", "redundant-lost", **_endpoint(core, group, server))
        satisfy(core, group, client)
        return
    client_log(core, group, client, "warn", "primary-crashed", **_endpoint(core, group, server))
    client_log(core, group, client, "warn", "primary-lost")
    p["unacked"], p["to_qrm"] = [], []
    if p["secondaries"]:
        new = p["secondaries"].pop(0)      # the longest-lived secondary
        p["primary"] = new
        client_log(core, group, client, "info", "updater-ready", **_endpoint(core, group, new))
        if p.get("ready"):
            queued = list(held(core, group, new, client))
            for a, b in queued:
                receive(core, group, client, a, b, new, resend=True)
            _unacked_add(core, group, client, rg.normalize(queued))
        satisfy(core, group, client)
    else:
        p["primary"] = None
        satisfy(core, group, client)       # non-HA failover: a new primary and a reinitialised cache
        dispatch(core, group, client)


def copies(core: Kernel, group: str) -> tuple[int, ...]:
    """For each subscription queue kept with redundancy (its pool's subscription-redundancy is not
    0; its client connected, or durable and away with its queue kept), how many running servers
    hold it: 2 or more while a secondary can take over from its primary."""
    out = []
    for p in pools(core, group).values():
        pp = pool_params(p)
        if not pp.subscription_enabled or pp.subscription_redundancy == 0 or p.get("queue_gone"):
            continue
        if p.get("connected") or p.get("away_since") is not None:
            out.append(sum(1 for s in holders(p) if is_up(core, group, s)))
    return tuple(out)


def drop_queue(core: Kernel, group: str, client: str, reason: str) -> None:
    p = pool(core, group, client)
    for s in holders(p):
        core.ledger.drop(node_key(group, s), reason, only=list(held(core, group, s, client)))
    p["primary"], p["secondaries"], p["unacked"], p["to_qrm"] = None, [], [], []


# ---------------------------------------------------------------- clients coming and going
def connect(core: Kernel, group: str, client: str) -> int | None:
    """The pool connects: a non-durable client gets new queues and is ready at once; a durable
    client finds its queue again (its pending count) or, after its timeout, a new one (-1), and
    waits for readyForEvents. Returns the pending count of a durable client (None otherwise)."""
    p = pool(core, group, client)
    pp = pool_params(p)
    p["connected"], p["connected_ms"] = True, core.now_ms
    pending: int | None = None
    if pp.durable_client_id:
        p["ready"] = False
        if p.get("away_since") is not None:
            if p.get("queue_gone"):
                pending = -1
            else:
                alive = [s for s in holders(p) if is_up(core, group, s)]
                p["primary"] = alive[0] if alive else None
                p["secondaries"] = alive[1:]
                pending = rg.size(held(core, group, alive[0], client)) if alive else -1
            p["pending"] = pending
        p["away_since"] = None
        p.pop("queue_gone", None)
    else:
        p["ready"] = True
    if not pp.subscription_enabled:
        return pending
    startup = p.get("primary") is None
    p.pop("short_logged", None)
    if startup:
        p["had_primary"] = False
    satisfy(core, group, client, startup=startup)
    if p.get("primary") is not None and not startup:
        client_log(core, group, client, "info", "updater-ready", **_endpoint(core, group, p["primary"]))
    dispatch(core, group, client)
    return pending


def disconnect(core: Kernel, group: str, client: str, keepalive: bool) -> None:
    """Pool close: the client first sends the acks it owes (a lab inference: a clean close leaves
    nothing received unacknowledged); a durable client closing with keepalive keeps its queues
    for its timeout; every other close drops them."""
    p = pool(core, group, client)
    pp = pool_params(p)
    on_ack(core, group, client)
    p["connected"], p["ready"] = False, False
    p["ack_due"] = p["retry_due"] = None
    if pp.durable_client_id and keepalive:
        p["away_since"] = core.now_ms
        p["unacked"] = []
        core.timers.schedule(core.now_ms + pp.durable_client_timeout_s * 1000, group, "", "durable-timeout",
                             {"client": client, "since": core.now_ms})
        return
    drop_queue(core, group, client, CLIENT_CLOSED)


def on_durable_timeout(core: Kernel, group: str, client: str, since: int) -> None:
    p = pool(core, group, client)
    if p.get("connected") or p.get("away_since") != since:
        return
    drop_queue(core, group, client, DURABLE_TIMEOUT)
    p["queue_gone"] = True


def ready(core: Kernel, group: str, client: str) -> int:
    """readyForEvents: the primary replays the durable client's queue."""
    p = pool(core, group, client)
    p["ready"] = True
    return dispatch(core, group, client)
