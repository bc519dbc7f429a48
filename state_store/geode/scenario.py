"""The `geode:` section of a scenario: its schema (checked by the scenario loader with line
numbers), its cross-reference checks, and building the clusters on the kernel.

Format (every parameter optional, at Geode's default when absent):
  geode:
    clusters:
      - name*: g1
        locator: locator1                      (default: locator1)
        servers*: [s1, s2, s3]                 (cache servers, 1..16)
        start: [s1, s2, s3]                    (started at load, in this order; default: all)
        message_sync_interval_s: 1             (cache)
        message_time_to_live_s: 180            (cache-server)
        maximum_message_count: 230000          (cache-server)
        maximum_time_between_pings_ms: 60000   (cache-server)
        clients:
          - name*: c1
            subscription_enabled: false        (pool)
            subscription_redundancy: 0         (pool; -1 = all other servers)
            subscription_ack_interval_ms: 100
            subscription_message_tracking_timeout_ms: 900000
            subscription_timeout_multiplier: 0
            ping_interval_ms: 10000
            read_timeout_ms: 10000
            min_connections: 1
            max_connections: -1
            durable_client_id: ""              (client properties)
            durable_client_timeout_s: 300
            interest: [r1]                     (regions registered at load)
            connect: true                      (connected at load, readyForEvents sent)
"""

from __future__ import annotations

from typing import Any

from ..kernel import Client, Group, Kernel, Node
from ..kernel.plugin import Err
from ..scenario_spec import OPT, REQ, Bool, Int, ListOf, Str, line_of, spec_map
from ..section_checks import claim, named
from . import members
from . import queues as q
from .params import POOL_LIMITS, SERVER_LIMITS, SYSTEM, PoolParams, ServerParams

_NAME = Str(64, forbidden="'<>*?&;\"`|$\\ .,=")

_POOL_FIELDS = {k: (Int(*POOL_LIMITS[k]), OPT) for k in POOL_LIMITS}
_SERVER_FIELDS = {k: (Int(*SERVER_LIMITS[k]), OPT) for k in SERVER_LIMITS}

SCHEMA = spec_map(clusters=(ListOf(spec_map(
    name=(_NAME, REQ),
    locator=(_NAME, OPT),
    servers=(ListOf(_NAME, 16), REQ),
    start=(ListOf(_NAME, 16), OPT),
    clients=(ListOf(spec_map(
        name=(_NAME, REQ),
        subscription_enabled=(Bool(), OPT),
        durable_client_id=(_NAME, OPT),
        interest=(ListOf(_NAME, 100), OPT),
        connect=(Bool(), OPT),
        **_POOL_FIELDS,
    ), 100), OPT),
    **_SERVER_FIELDS,
), 16), REQ))


def check(err: Err, section: Any, other_names: set[str]) -> None:
    """Cross-references: names unique across the lab (clusters, servers' clients), servers to
    start among the cluster's, durable ids unique, a durable or interest-registering client
    subscription-enabled."""
    seen: set[str] = set()
    durable: set[str] = set()
    for c in named(section, "clusters"):
        name = c["name"]
        claim(err, line_of(c, "name"), f"geode cluster {name!r}", name, seen, other_names)
        servers = [s for s in c.get("servers") or [] if s is not None]
        if len(set(servers)) != len(servers):
            err(line_of(c, "servers"), f"geode cluster {name!r}: a server is named twice")
        if not servers and c.get("servers") is not None:
            err(line_of(c, "servers"), f"geode cluster {name!r}: at least one server")
        if c.get("locator") is not None and c["locator"] in servers:
            err(line_of(c, "locator"), f"geode cluster {name!r}: locator {c['locator']!r} is also a server")
        starts = c.get("start") or []
        for i, s in enumerate(starts):
            if s is not None and s not in servers:
                err(line_of(starts, i), f"geode cluster {name!r}: cannot start {s!r}, not one of its servers")
        for cl in named(c, "clients"):
            cname = cl["name"]
            claim(err, line_of(cl, "name"), f"geode client {cname!r}", cname, seen, other_names | set(servers))
            subscribed = bool(cl.get("subscription_enabled"))
            did = cl.get("durable_client_id")
            if did is not None:
                if did in durable:
                    err(line_of(cl, "durable_client_id"), f"geode client {cname!r}: durable_client_id {did!r} "
                        "already used")
                durable.add(did)
            for key in ("durable_client_id", "interest", "subscription_redundancy"):
                if cl.get(key) is not None and not subscribed:
                    err(line_of(cl, key), f"geode client {cname!r}: {key} needs subscription_enabled: true")


def holds_groups(section: Any) -> bool:
    return isinstance(section, dict) and bool(section.get("clusters"))


def build(core: Kernel, section: Any) -> None:
    """Add every cluster: servers (started unless `start` says otherwise), links between every
    two servers, the locator, then the clients (connected and registered as the section says)."""
    for c in section.get("clusters") or []:
        name = c["name"]
        servers = list(c["servers"])
        sp = ServerParams.from_dict({k: c[k] for k in SERVER_LIMITS if k in c})
        data: dict[str, Any] = {
            "epoch_ms": core.now_ms,
            "next_view": 1,
            "locator": {"name": c.get("locator") or "locator1", "pid": 216, "view": 1, "port": 33368},
            "members": {s: members.new_server_member(i, 0) for i, s in enumerate(servers)},
            "pools": {}, "stats": {}, "regions": {}, "drop_qrm": [],
        }
        core.add_group(Group(name, SYSTEM, servers, sp.to_dict(), data))
        for s in servers:
            core.add_node(Node(name, s))
        core.link_all(name)
        for s in c.get("start") if c.get("start") is not None else servers:
            core.fail("restart", node=core.node(name, s))
        connects = []
        for i, cl in enumerate(c.get("clients") or []):
            params = PoolParams.from_dict({k: v for k, v in cl.items() if k in PoolParams.__dataclass_fields__})
            core.clients[cl["name"]] = Client(cl["name"], name)
            data["pools"][cl["name"]] = {
                "params": params.to_dict(), "id": members.client_id(cl["name"], i), "connected": False,
                "ready": False, "primary": None, "secondaries": [], "unacked": [], "to_qrm": [],
                "interest": list(cl.get("interest") or []), "seen": {}, "stats": {}, "away_since": None,
            }
            if cl.get("connect", True):
                connects.append(cl["name"])
        for cname in connects:
            q.connect(core, name, cname)
            q.ready(core, name, cname)      # a durable client sends readyForEvents at start-up too
