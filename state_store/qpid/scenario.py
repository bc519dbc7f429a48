"""The `qpid:` section of a scenario: its schema (checked with line numbers by the scenario
loader), its cross-checks, and building the clusters on the kernel.

Format (every broker option of the HA module with its default; times in milliseconds):
  qpid:
    clusters:
      - name*: c1
        brokers*: [b1, b2, b3]               (host names, unique in the lab; 1..16)
        ha_cluster: true                     (qpidd default no; a cluster section means yes)
        ha_queue_replication: false
        ha_public_url: ""                    (legacy amq.failover only)
        ha_replicate: none                   (none | configuration | all)
        ha_username: "", ha_password: (secret: kept only as "set"), ha_mechanism: ""
        ha_backup_timeout_ms: 10000
        ha_flow_messages: 1000               (0: no limit)
        ha_flow_bytes: 0                     (0: no limit)
        link_maintenance_interval_ms: 2000
        link_heartbeat_interval_ms: 120000
        client_heartbeat_ms: 0               (0: off)
        catchup_ms: 500                      (lab choice: how long catching up takes)
        manager: off                         (off | on | split: the resource manager)
        manager_poll_ms: 1000                (rgmanager status_poll_interval)
        vip: c1-vip                          (a virtual IP's host name: it follows the primary)
        start: [b1, b2, b3]                  (brokers started at load, in this order)
        queues: - {name*, replicate: none|configuration|all (default: ha_replicate), durable: false}
        clients: - {name*, hosts: [b1, b2]}  (AMQP clients; with hosts they connect at load)
"""

from __future__ import annotations

from typing import Any

from ..kernel import Client, Group, Kernel, Node
from ..kernel.model import node_key
from ..kernel.plugin import Err
from ..scenario_spec import OPT, REQ, Bool, Enum, Int, ListOf, Str, line_of, spec_map
from ..section_checks import claim, named
from . import operations as qpid_lab
from . import policy as p
from .params import MANAGER_MODES, PARAM_LIMITS, REPLICATE_LEVELS, SYSTEM, QpidParams

_NAME = Str(64, forbidden=" .:@/,")
_MS = Int(0, 24 * 3600 * 1000)

SCHEMA = spec_map(clusters=(ListOf(spec_map(
    name=(_NAME, REQ),
    brokers=(ListOf(_NAME, 16), REQ),
    ha_cluster=(Bool(), OPT),
    ha_queue_replication=(Bool(), OPT),
    ha_public_url=(Str(255), OPT),
    ha_replicate=(Enum(REPLICATE_LEVELS), OPT),
    ha_username=(Str(64), OPT),
    ha_password=(Str(128, secret=True), OPT),
    ha_mechanism=(Str(64), OPT),
    ha_backup_timeout_ms=(_MS, OPT),
    ha_flow_messages=(Int(0, 100_000_000), OPT),
    ha_flow_bytes=(Int(0, 1 << 40), OPT),
    link_maintenance_interval_ms=(_MS, OPT),
    link_heartbeat_interval_ms=(_MS, OPT),
    client_heartbeat_ms=(_MS, OPT),
    catchup_ms=(_MS, OPT),
    manager=(Enum(MANAGER_MODES), OPT),
    manager_poll_ms=(_MS, OPT),
    vip=(_NAME, OPT),
    start=(ListOf(_NAME, 16), OPT),
    queues=(ListOf(spec_map(name=(Str(200, forbidden=" "), REQ), replicate=(Enum(REPLICATE_LEVELS), OPT),
                            durable=(Bool(), OPT)), 100), OPT),
    clients=(ListOf(spec_map(name=(_NAME, REQ), hosts=(ListOf(_NAME, 16), OPT)), 100), OPT),
), 8), REQ))


def check(err: Err, section: Any, other_names: set[str]) -> None:
    """Cross-references: broker and client names unique in the lab, lists naming brokers of
    their cluster, option limits."""
    seen: set[str] = set()
    for c in named(section, "clusters"):
        name = c["name"]
        claim(err, line_of(c, "name"), f"qpid cluster {name!r}", name, seen, other_names)
        brokers = [b for b in c.get("brokers") or [] if b is not None]
        if not brokers:
            err(line_of(c, "brokers"), f"qpid cluster {name!r}: at least one broker")
        for i, b in enumerate(brokers):
            claim(err, line_of(c["brokers"], i), f"qpid cluster {name!r}: broker {b!r}", b, seen, other_names)
        vip = c.get("vip")
        if vip is not None:
            claim(err, line_of(c, "vip"), f"qpid cluster {name!r}: vip {vip!r}", vip, seen, other_names)
        for i, b in enumerate(c.get("start") or []):
            if b is not None and b not in brokers:
                err(line_of(c["start"], i), f"qpid cluster {name!r}: cannot start {b!r}, not one of its brokers")
        for key, low in PARAM_LIMITS.items():
            if isinstance(c.get(key), int) and c[key] < low:
                err(line_of(c, key), f"qpid cluster {name!r}: {key} must be at least {low}")
        queues: set[str] = set()
        for q in named(c, "queues"):
            if q["name"] in queues:
                err(line_of(q, "name"), f"qpid cluster {name!r}: queue {q['name']!r} defined twice")
            queues.add(q["name"])
        for cl in named(c, "clients"):
            claim(err, line_of(cl, "name"), f"AMQP client {cl['name']!r}", cl["name"], seen, other_names)
            for i, h in enumerate(cl.get("hosts") or []):
                if h is not None and h not in brokers and h != vip:
                    err(line_of(cl["hosts"], i), f"AMQP client {cl['name']!r}: {h!r} is not a broker of {name!r}")


def holds_groups(section: Any) -> bool:
    return isinstance(section, dict) and bool(section.get("clusters"))


def build(core: Kernel, section: Any) -> None:
    """Add every cluster of the section (brokers down unless started)."""
    for c in section.get("clusters") or []:
        name = c["name"]
        values = {k: c[k] for k in QpidParams.__dataclass_fields__ if k in c}
        values.setdefault("ha_cluster", True)
        values["ha_password_set"] = bool(c.get("ha_password"))   # the secret itself is never kept
        qp = QpidParams.from_dict(values)
        brokers = list(c["brokers"])
        first = brokers[0]
        data: dict[str, Any] = {
            "queues": {q["name"]: {"replicate": q.get("replicate"), "home": first, "durable": bool(q.get("durable"))}
                       for q in c.get("queues") or []},
            "upstream": {}, "ready": [], "expected": {}, "saw_primary": {}, "had_primary": False,
            "clients": {}, "vip": c.get("vip"),
        }
        core.add_group(Group(name, SYSTEM, brokers, qp.to_dict(), data))
        for b in brokers:
            core.add_node(Node(name, b))
        core.link_all(name)
        for cl in c.get("clients") or []:
            core.clients[cl["name"]] = Client(cl["name"], name)
            rec = qpid_lab.new_client_record()
            rec["hosts"] = list(cl.get("hosts") or [])
            data["clients"][cl["name"]] = rec
        for b in c.get("start") or []:
            qpid_lab.start(core, node_key(name, b))
        p.POLICY.start_manager(core, name)
