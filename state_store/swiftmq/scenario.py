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
        replication_channel: {listener: A, connector: B, port: 4001}
        ha_state: {A: ACTIVE}              (ha.state files at load: UNKNOWN ACTIVE STANDBY STANDALONE)
        start: [A, B]                      (instances started at load, in this order)
        queues: - {name*, duplicate_detection: true, duplicate_backlog_size: 2000, log_duplicates: false}
        clients: - {name*}                 (JMS clients of this router)
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from ..core import Client, Group, HaCore, Link, Node
from ..core.model import node_key
from . import lab as swift_lab
from .params import PARAM_LIMITS, SYSTEM, HaParams, QueueParams
from .policy import SAVED_STATES

_INT, _STR, _BOOL = "int", "str", "bool"
REQ, OPT = True, False


def _m(**fields: tuple[Any, bool]) -> tuple[str, dict[str, tuple[Any, bool]]]:
    return ("map", fields)


SCHEMA = _m(routers=(("list", _m(
    name=(_STR, REQ),
    instances=(("list", _STR), REQ),
    preferred_active=(_STR, OPT),
    negotiation_timeout_ms=(_INT, OPT),
    heartbeat_interval_ms=(_INT, OPT),
    heartbeat_missing_threshold=(_INT, OPT),
    max_packet_size_kb=(_INT, OPT),
    spool=(_m(max_cache_size_kb=(_INT, OPT), directory=(_STR, OPT)), OPT),
    preferred_failover_delay_ms=(_INT, OPT),
    sync_step_ms=(_INT, OPT),
    replication_channel=(_m(listener=(_STR, OPT), connector=(_STR, OPT), port=(_INT, OPT)), OPT),
    ha_state=(("dict", ("enum", SAVED_STATES)), OPT),
    start=(("list", _STR), OPT),
    queues=(("list", _m(name=(_STR, REQ), duplicate_detection=(_BOOL, OPT),
                        duplicate_backlog_size=(_INT, OPT), log_duplicates=(_BOOL, OPT))), OPT),
    clients=(("list", _m(name=(_STR, REQ))), OPT),
)), REQ))

Err = Callable[[int, str], None]


def _line(obj: Any, key: Any = None) -> int:
    lines = getattr(obj, "lines", None)
    if key is not None and lines is not None:
        try:
            return int(lines[key])
        except (KeyError, IndexError):
            pass
    return int(getattr(obj, "line", 0))


def check(err: Err, section: Any, other_names: set[str]) -> None:
    """Cross-references of the section; `other_names` are the scenario's Solace routers and
    clients (a SwiftMQ router or client may not reuse one)."""
    seen: set[str] = set()
    for r in (section or {}).get("routers") or []:
        if not isinstance(r, dict) or r.get("name") is None:
            continue
        name = r["name"]
        if name in seen or name in other_names:
            err(_line(r, "name"), f"swiftmq router {name!r}: name already used")
        seen.add(name)
        inst = [i for i in r.get("instances") or [] if i is not None]
        if len(inst) != 2 or inst[0] == inst[1]:
            err(_line(r, "instances"), f"swiftmq router {name!r}: an HA router has exactly two instances")
        for key in ("preferred_active",):
            if r.get(key) is not None and r[key] not in inst:
                err(_line(r, key), f"swiftmq router {name!r}: {key} {r[key]!r} is not one of its instances")
        channel = r.get("replication_channel") or {}
        for key in ("listener", "connector"):
            if channel.get(key) is not None and channel[key] not in inst:
                err(_line(channel, key), f"swiftmq router {name!r}: {key} {channel[key]!r} is not an instance")
        for i in r.get("ha_state") or {}:
            if i not in inst:
                err(_line(r["ha_state"], i), f"swiftmq router {name!r}: ha_state for {i!r}, not an instance")
        starts = r.get("start") or []
        for n, i in enumerate(starts):
            if i is not None and i not in inst:
                err(_line(starts, n), f"swiftmq router {name!r}: cannot start {i!r}, not an instance")
        limits = dict(r)
        limits.update({"spool_max_cache_size_kb": (r.get("spool") or {}).get("max_cache_size_kb")})
        for key, low in PARAM_LIMITS.items():
            if isinstance(limits.get(key), int) and limits[key] < low:
                err(_line(r, key), f"swiftmq router {name!r}: {key} must be at least {low}")
        queues: set[str] = set()
        for q in r.get("queues") or []:
            if isinstance(q, dict) and q.get("name") is not None:
                if q["name"] in queues:
                    err(_line(q, "name"), f"swiftmq router {name!r}: queue {q['name']!r} defined twice")
                queues.add(q["name"])
                size = q.get("duplicate_backlog_size")
                if isinstance(size, int) and size < 1:
                    err(_line(q, "duplicate_backlog_size"), "duplicate_backlog_size must be at least 1")
        for c in r.get("clients") or []:
            if isinstance(c, dict) and c.get("name") is not None:
                if c["name"] in seen or c["name"] in other_names:
                    err(_line(c, "name"), f"JMS client {c['name']!r}: name already used")
                seen.add(c["name"])


def build(core: HaCore, section: Any) -> None:
    """Add every router of the section to the core (instances down unless started)."""
    for r in section.get("routers") or []:
        name = r["name"]
        spool = r.get("spool") or {}
        values = {k: r[k] for k in HaParams.__dataclass_fields__ if k in r}
        if "max_cache_size_kb" in spool:
            values["spool_max_cache_size_kb"] = spool["max_cache_size_kb"]
        if "directory" in spool:
            values["spool_directory"] = spool["directory"]
        hp = HaParams.from_dict(values)
        channel = r.get("replication_channel") or {}
        a, b = r["instances"]
        data: dict[str, Any] = {
            "channel": "none",
            "replication_channel": {"listener": channel.get("listener", a), "connector": channel.get("connector", b),
                                    "port": channel.get("port", 4001)},
            "queues": {q["name"]: QueueParams.from_dict({k: v for k, v in q.items() if k != "name"}).to_dict()
                       for q in r.get("queues") or []},
        }
        core.add_group(Group(name, SYSTEM, [a, b], hp.to_dict(), data))
        for i in (a, b):
            files = {"ha.state": r["ha_state"][i]} if i in (r.get("ha_state") or {}) else {}
            if files.get("ha.state") == "UNKNOWN":
                files = {}
            core.add_node(Node(name, i, preferred=hp.preferred_active == i, files=files))
        core.links.append(Link(node_key(name, a), node_key(name, b), True))
        for c in r.get("clients") or []:
            core.clients[c["name"]] = Client(c["name"], name)
        for i in r.get("start") or []:
            swift_lab.start(core, node_key(name, i))
