"""What the broker's agent returns to `qpid-config queues` and `qpid-config exchanges` (qpid-cpp
1.39.0), which the tool lists (config_handlers.py, tool_renderers.py).

What the broker holds beyond the lab's own queues and exchanges:
- the tool's own reply queue: BrokerAgent subscribes to ``qmf.default.topic/direct.<uuid>``, so
  the Python client declares the exclusive auto-delete queue ``<session>.<destination>``, that is
  ``<connection uuid>:0.0``, bound to qmf.default.topic with that subject;
- the standard exchanges (Broker.cpp: the default one, amq.*, qpid.management, qmf.default.*,
  all declared with ``qpid.replicate=none``; amq.* durable since a store is always set) and the
  HA module's ``amq.failover`` (HaBroker.cpp);
- on the primary, the arguments Primary::queueCreate/exchangeCreate add: ``qpid.replicate`` set to
  the level in use (``none`` for a temporary queue such as the reply queue) and, when replicated,
  ``qpid.ha-uuid``; backups hold the replicated queues with the primary's arguments. A standalone
  broker (ha-cluster=no) has no primary role to add them, nor amq.failover.

The agent returns objects ordered by their QMF object name, that is by name. The uuids are
derived from the lab (the queue, or the broker and the clock) so a replay prints the same."""

from __future__ import annotations

import uuid
from dataclasses import dataclass

from state_store.kernel import Kernel, Node
from state_store.qpid import policy as qpol

# (name, type, durable) as Broker.cpp and HaBroker.cpp declare them
STANDARD_EXCHANGES = (("", "direct", False), ("amq.direct", "direct", True), ("amq.topic", "topic", True),
                      ("amq.fanout", "fanout", True), ("amq.match", "headers", True),
                      ("qpid.management", "management-topic", False),
                      ("qmf.default.topic", "management-topic", False),
                      ("qmf.default.direct", "management-direct", False))
FAILOVER_EXCHANGE = ("amq.failover", "amq.failover", False)


@dataclass(frozen=True)
class Listed:
    """One queue or exchange as the agent describes it."""

    name: str
    kind: str = ""
    durable: bool = False
    temporary: bool = False                       # auto-delete and exclusive
    arguments: tuple[tuple[str, str], ...] = ()


def _uuid4(seed: str) -> str:
    return str(uuid.UUID(bytes=uuid.uuid5(uuid.NAMESPACE_URL, seed).bytes, version=4))


def reply_queue(core: Kernel, node: Node) -> tuple[str, str]:
    """The tool's own reply queue on ``node`` and the subject it is bound with."""
    seed = f"{node.group}.{node.name}.{core.now_ms}"
    return f"{_uuid4(seed + '.connection')}:0.0", f"direct.{_uuid4(seed + '.reply-to')}"


def _ha_arguments(core: Kernel, node: Node, name: str, level: str) -> tuple[tuple[str, str], ...]:
    """``qpid.replicate`` (and ``qpid.ha-uuid`` when replicated) as the primary sets them."""
    out = [("qpid.replicate", level)]
    if level != "none":
        out.append(("qpid.ha-uuid", _uuid4(f"{node.group}.{name}.ha-uuid")))
    return tuple(out)


def _in_cluster(node: Node) -> bool:
    """A broker of an HA cluster (not one started with ha-cluster=no)."""
    return node.state != qpol.STANDALONE


def queues(core: Kernel, node: Node) -> list[Listed]:
    """The queues the broker at ``node`` holds, its agent's order: in a cluster with the
    arguments its primary set; on a standalone broker with the level the declare gave, if any."""
    records = core.groups[node.group].data["queues"]
    out = []
    for q in records:
        if not qpol.queue_on(core, node, q):
            continue
        if _in_cluster(node):
            arguments = _ha_arguments(core, node, q, qpol.queue_level(core, node.group, q))
        else:
            given = records[q].get("replicate")
            arguments = (("qpid.replicate", str(given)),) if given else ()
        out.append(Listed(q, durable=bool(records[q].get("durable")), arguments=arguments))
    primary = node.state in (qpol.ACTIVE, qpol.RECOVERING)
    out.append(Listed(reply_queue(core, node)[0], temporary=True,
                      arguments=(("qpid.replicate", "none"),) if primary else ()))
    return sorted(out, key=lambda x: x.name.encode())


def exchanges(core: Kernel, node: Node) -> list[Listed]:
    """The exchanges the broker at ``node`` holds, its agent's order."""
    none = (("qpid.replicate", "none"),)
    out = [Listed(n, kind, durable, arguments=none) for n, kind, durable in STANDARD_EXCHANGES]
    if _in_cluster(node):
        out.append(Listed(*FAILOVER_EXCHANGE))
    for name, record in qpol.data(core, node.group).get("exchanges", {}).items():
        if not qpol.exchange_on(core, node, name):
            continue
        if _in_cluster(node):
            arguments = _ha_arguments(core, node, name, qpol.exchange_level(core, node.group, name))
        else:
            given = record.get("replicate")
            arguments = (("qpid.replicate", str(given)),) if given else ()
        out.append(Listed(name, str(record.get("type")), arguments=arguments))
    return sorted(out, key=lambda x: x.name.encode())


def _py2_str_hash(text: str) -> int:
    """Python 2's hash of a byte string on a 64-bit build (unsigned, for slot arithmetic)."""
    data = text.encode("utf-8")
    if not data:
        return 0
    mask = (1 << 64) - 1
    x = (data[0] << 7) & mask
    for byte in data:
        x = ((1000003 * x) & mask) ^ byte
    x ^= len(data)
    return (1 << 64) - 2 if x == mask else x       # -1 is reserved: -2


def py2_dict_order(keys: list[str]) -> list[str]:
    """The order Python 2 iterates a dict of string keys inserted in this order: open addressing
    in a table of 8 slots, perturbed probing, resized to 4x the entries when two thirds full."""
    size = 8
    table: list[str | None] = [None] * size

    def place(slots: list[str | None], key: str) -> None:
        h = _py2_str_hash(key)
        mask, perturb = len(slots) - 1, h
        i = h & mask
        while slots[i] is not None:
            i = ((i << 2) + i + perturb + 1) & ((1 << 64) - 1)
            perturb >>= 5
            i &= mask
        slots[i] = key

    used = 0
    for key in dict.fromkeys(keys):
        place(table, key)
        used += 1
        if used * 3 >= size * 2:
            size = 8
            while size <= 4 * used:
                size <<= 1
            old = [k for k in table if k is not None]
            table = [None] * size
            for k in old:
                place(table, k)
    return [k for k in table if k is not None]
