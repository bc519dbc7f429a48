"""The `swiftmq:` section of a scenario: its schema (checked by the scenario loader with line
numbers), its cross-reference checks, and building the HA routers into the core.

Format:
  swiftmq:
    routers:
      - name*: ha1
        instances*: [A, B]                 (exactly two)
        preferred_active: A                (default: none)
        negotiation_timeout_ms: 120000     (>= 1000)
        heartbeat_interval_ms: 2000
        heartbeat_missing_threshold: 10
        max_packet_size_kb: 128
        spool: {max_cache_size_kb: 5120 (>= 1024), directory: ./}
        preferred_failover_delay_ms: 10000
        sync_step_ms: 250                  (lab choice: one synchronisation step)
        message_size_kb: 1                 (lab choice: store size of one message)
        packet_transfer_ms: 10             (lab choice: one replication packet on the channel)
        swap_packet_ms: 2                  (lab choice: one packet swapped to the spool directory and back)
        threadpool_freezes: "jms.connection,jms.session,queue.timeout,routing,store.log"
                                           (entries `name:pool` or `pool` (named 01, 02, ... by
                                           position), frozen/unfrozen in name order; the pool
                                           names are the lab's)
        replication_channel: {listener: A, connector: B, port: 4001}
        ha_state: {A: ACTIVE}              (ha.state files at load: UNKNOWN ACTIVE STANDBY STANDALONE)
        start: [A, B]                      (instances started at load, in this order)
        queues: - {name*, duplicate_detection: true, duplicate_backlog_size: 2000, log_duplicates: false}
        clients: - {name*}                 (JMS clients of this router)
"""

from __future__ import annotations

from typing import Any

from ..kernel import Client, Group, Kernel, Node
from ..kernel.model import node_key
from ..kernel.plugin import Err
from ..scenario_spec import OPT, REQ, DictOf, Enum, Int, ListOf, Str, line_of, spec_map
from ..section_checks import claim, named
from . import operations as swift_lab
from .params import QUEUE_LEAVES, ROUTER_LEAVES, SYSTEM, HaParams, QueueParams, scenario_values, section_fields
from .policy import SAVED_STATES

_NAME = Str(64)

SCHEMA = spec_map(routers=(ListOf(spec_map(
    name=(_NAME, REQ),
    instances=(ListOf(_NAME, 2), REQ),
    **section_fields(ROUTER_LEAVES),
    replication_channel=(spec_map(listener=(_NAME, OPT), connector=(_NAME, OPT), port=(Int(1, 65535), OPT)), OPT),
    ha_state=(DictOf(Enum(SAVED_STATES)), OPT),
    start=(ListOf(_NAME, 2), OPT),
    queues=(ListOf(spec_map(name=(Str(200), REQ), **section_fields(QUEUE_LEAVES)), 100), OPT),
    clients=(ListOf(spec_map(name=(_NAME, REQ)), 100), OPT),
), 16), REQ))


def check(err: Err, section: Any, other_names: set[str]) -> None:
    """Cross-references of the section; `other_names` are the scenario's Solace routers and
    clients (a SwiftMQ router or client may not reuse one)."""
    seen: set[str] = set()
    for r in named(section, "routers"):
        name = r["name"]
        claim(err, line_of(r, "name"), f"swiftmq router {name!r}", name, seen, other_names)
        inst = [i for i in r.get("instances") or [] if i is not None]
        if len(inst) != 2 or inst[0] == inst[1]:
            err(line_of(r, "instances"), f"swiftmq router {name!r}: an HA router has exactly two instances")
        for key in ("preferred_active",):
            if r.get(key) is not None and r[key] not in inst:
                err(line_of(r, key), f"swiftmq router {name!r}: {key} {r[key]!r} is not one of its instances")
        channel = r.get("replication_channel") or {}
        for key in ("listener", "connector"):
            if channel.get(key) is not None and channel[key] not in inst:
                err(line_of(channel, key), f"swiftmq router {name!r}: {key} {channel[key]!r} is not an instance")
        for i in r.get("ha_state") or {}:
            if i not in inst:
                err(line_of(r["ha_state"], i), f"swiftmq router {name!r}: ha_state for {i!r}, not an instance")
        starts = r.get("start") or []
        for n, i in enumerate(starts):
            if i is not None and i not in inst:
                err(line_of(starts, n), f"swiftmq router {name!r}: cannot start {i!r}, not an instance")
        for leaf in ROUTER_LEAVES:
            where = r if len(leaf.path) == 1 else (r.get(leaf.path[0]) or {})
            value = where.get(leaf.path[-1]) if isinstance(where, dict) else None
            if leaf.low is not None and isinstance(value, int) and value < leaf.low:
                err(line_of(where, leaf.path[-1]), f"swiftmq router {name!r}: {leaf.key} must be at least {leaf.low}")
        queues: set[str] = set()
        for q in named(r, "queues"):
            if q["name"] in queues:
                err(line_of(q, "name"), f"swiftmq router {name!r}: queue {q['name']!r} defined twice")
            queues.add(q["name"])
            for leaf in QUEUE_LEAVES:
                value = q.get(leaf.key)
                if leaf.low is not None and isinstance(value, int) and value < leaf.low:
                    err(line_of(q, leaf.key), f"{leaf.key} must be at least {leaf.low}")
        for c in named(r, "clients"):
            claim(err, line_of(c, "name"), f"JMS client {c['name']!r}", c["name"], seen, other_names)


def holds_groups(section: Any) -> bool:
    return isinstance(section, dict) and bool(section.get("routers"))


def build(core: Kernel, section: Any) -> None:
    """Add every router of the section to the core (instances down unless started)."""
    for r in section.get("routers") or []:
        name = r["name"]
        hp = HaParams.from_dict(scenario_values(ROUTER_LEAVES, r))
        channel = r.get("replication_channel") or {}
        a, b = r["instances"]
        data: dict[str, Any] = {
            "channel": "none",
            "replication_channel": {"listener": channel.get("listener", a), "connector": channel.get("connector", b),
                                    "port": channel.get("port", 4001)},
            "queues": {q["name"]: QueueParams.from_dict(scenario_values(QUEUE_LEAVES, q)).to_dict()
                       for q in r.get("queues") or []},
        }
        core.add_group(Group(name, SYSTEM, [a, b], hp.to_dict(), data))
        for i in (a, b):
            files = {"ha.state": r["ha_state"][i]} if i in (r.get("ha_state") or {}) else {}
            if files.get("ha.state") == "UNKNOWN":
                files = {}
            core.add_node(Node(name, i, preferred=hp.preferred_active == i, files=files))
        core.link_all(name)
        for c in r.get("clients") or []:
            core.clients[c["name"]] = Client(c["name"], name)
        for i in r.get("start") or []:
            swift_lab.start(core, node_key(name, i))
