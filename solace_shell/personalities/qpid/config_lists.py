"""`qpid-config queues` and `qpid-config exchanges` as the tool lists what the broker's agent
returns (qpid-config's QueueList, QueueListRecurse and ExchangeList, qpid-cpp 1.39.0).

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


def _rule(width: int) -> str:
    return "=" * (5 * (width // 5 + 5))


def queue_lines(listed: list[Listed], pattern: str) -> list[str]:
    """QueueList: the header and one line per queue whose name holds ``pattern``; nothing when
    none does (the tool then exits 1)."""
    shown = [q for q in listed if pattern in q.name]
    if not shown:
        return []
    width = max([len("Queue Name"), *(len(q.name) for q in shown)])
    lines = [f"{'Queue Name':<{width}}  Attributes", _rule(width)]
    for q in shown:
        args = dict(q.arguments)
        attrs = ["--durable"] * q.durable
        if "qpid.replicate" in args:
            attrs.append(f"--replicate={args['qpid.replicate']}")
        attrs += ["auto-del", "excl"] * q.temporary
        attrs += [" ".join(f"--argument {k}={v}" for k, v in q.arguments if k != "qpid.replicate")]
        lines.append(f"{q.name:<{width}}  {' '.join(attrs)}".rstrip())
    return lines


def queue_binding_lines(core: Kernel, node: Node, listed: list[Listed], pattern: str,
                        ignore_default: bool) -> list[str]:
    """QueueListRecurse: each queue with its bindings (the default exchange's first, left out with
    --ignore-default)."""
    reply, subject = reply_queue(core, node)
    lines: list[str] = []
    for q in listed:
        if pattern not in q.name:
            continue
        lines.append(f"Queue '{q.name}'")
        if not ignore_default:
            lines.append(f"    bind [{q.name}] => ''")
        if q.name == reply:
            lines.append(f"    bind [{subject}] => qmf.default.topic")
        for exchange, key in qpol.bindings_on(core, node, q.name):
            lines.append(f"    bind [{key}] => {exchange or chr(39) * 2}")
    return lines


def exchange_lines(listed: list[Listed], pattern: str, ignore_default: bool) -> list[str]:
    """ExchangeList: the header and one line per exchange whose name holds ``pattern`` (the
    default exchange counted, and left out of the lines with --ignore-default); nothing when none
    does (the tool then exits 1)."""
    shown = [x for x in listed if pattern in x.name]
    if not shown:
        return []
    width = max([len("Exchange Name"), *(len(x.name) for x in shown)])
    lines = [f"{'Type':<10}{'Exchange Name':<{width}}  Attributes", _rule(width + 10)]
    for x in shown:
        if ignore_default and not x.name:
            continue
        args = dict(x.arguments)
        attrs = ["--durable"] * x.durable
        if "qpid.replicate" in args:
            attrs.append(f"--replicate={args['qpid.replicate']}")
        lines.append(f"{x.kind:<10}{x.name:<{width}}  {' '.join(attrs)}".rstrip())
    return lines


def overview_lines(core: Kernel, node: Node) -> list[str]:
    """Overview (qpid-config with no command): the exchanges by type, in the order Python 2's
    dict of types gives, then the queues by durability."""
    listed = exchanges(core, node)
    kinds = [x.kind for x in listed]
    lines = [f"Total Exchanges: {len(listed)}"]
    lines += [f"{kind:>15}: {kinds.count(kind)}" for kind in py2_dict_order(kinds)]
    held = queues(core, node)
    durable = sum(q.durable for q in held)
    return [*lines, "", f"   Total Queues: {len(held)}", f"        durable: {durable}",
            f"    non-durable: {len(held) - durable}"]


def exchange_binding_lines(core: Kernel, node: Node, pattern: str, ignore_default: bool) -> list[str]:
    """ExchangeListRecurse: each exchange with the bindings to it (every queue to the default
    exchange by its name, the tool's reply queue to qmf.default.topic)."""
    held = queues(core, node)
    reply, subject = reply_queue(core, node)
    lines: list[str] = []
    for x in exchanges(core, node):
        if (ignore_default and not x.name) or pattern not in x.name:
            continue
        lines.append(f"Exchange '{x.name}' ({x.kind})")
        for q in held:
            if not x.name:
                lines.append(f"    bind [{q.name}] => {q.name}")
            elif x.name == "qmf.default.topic" and q.name == reply:
                lines.append(f"    bind [{subject}] => {q.name}")
            lines += [f"    bind [{key}] => {q.name}" for exchange, key in qpol.bindings_on(core, node, q.name)
                      if exchange == x.name]
    return lines


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
