"""How the tools print what their commands return (tool_views.py): qpid-ha's status and query
lines, qpid-config's overview and listings as its QueueList, QueueListRecurse, ExchangeList and
ExchangeListRecurse print them (qpid-cpp 1.39.0), trailing blanks cut as the shell shows them."""

from __future__ import annotations

from ...renderers import renderer
from .config_lists import Listed, py2_dict_order
from .tool_views import (
    Bound,
    ConfigOverview,
    ExchangeBindings,
    ExchangeList,
    HaQuery,
    HaStatus,
    QueryBlock,
    QueueBindings,
    QueueList,
)


def _lines(lines: list[str]) -> str:
    return "\n".join(line.rstrip() for line in lines)


@renderer(HaStatus)
def ha_status(r: HaStatus) -> str:
    return _lines([f"{address} {status}" if r.each else status for address, status in r.brokers])


def _query_rows(b: QueryBlock) -> list[str]:
    rows = [("Status:", b.state), ("Broker ID:", b.broker_id), ("Brokers URL:", b.brokers_url),
            ("Public URL:", b.public_url), ("Replicate: ", b.replicate)]
    return [f"{k:<20} {v}" for k, v in rows]


@renderer(HaQuery)
def ha_query(r: HaQuery) -> str:
    if not r.each:
        return _lines(_query_rows(r.blocks[0]))
    lines: list[str] = []
    for b in r.blocks:
        if b.error:
            lines += [f"{b.address} {b.error}", ""]
        else:
            lines += [f"{'Address:':<20} {b.address}", *_query_rows(b), ""]
    return _lines(lines)


@renderer(ConfigOverview)
def overview(r: ConfigOverview) -> str:
    """Overview (qpid-config with no command): the exchanges by type, in the order Python 2's
    dict of types gives, then the queues by durability."""
    kinds = list(r.exchange_kinds)
    lines = [f"Total Exchanges: {len(kinds)}"]
    lines += [f"{kind:>15}: {kinds.count(kind)}" for kind in py2_dict_order(kinds)]
    return _lines([*lines, "", f"   Total Queues: {r.queues}", f"        durable: {r.durable}",
                   f"    non-durable: {r.queues - r.durable}"])


def _rule(width: int) -> str:
    return "=" * (5 * (width // 5 + 5))


def _replicate(listed: Listed) -> list[str]:
    args = dict(listed.arguments)
    attrs = ["--durable"] * listed.durable
    if "qpid.replicate" in args:
        attrs.append(f"--replicate={args['qpid.replicate']}")
    return attrs


@renderer(QueueList)
def queue_list(r: QueueList) -> str:
    """QueueList: the header and one line per queue shown; nothing when none is."""
    shown = r.shown()
    if not shown:
        return ""
    width = max([len("Queue Name"), *(len(q.name) for q in shown)])
    lines = [f"{'Queue Name':<{width}}  Attributes", _rule(width)]
    for q in shown:
        attrs = _replicate(q)
        attrs += ["auto-del", "excl"] * q.temporary
        attrs += [" ".join(f"--argument {k}={v}" for k, v in q.arguments if k != "qpid.replicate")]
        lines.append(f"{q.name:<{width}}  {' '.join(attrs)}")
    return _lines(lines)


@renderer(ExchangeList)
def exchange_list(r: ExchangeList) -> str:
    """ExchangeList: the header and one line per exchange shown (the default exchange's left out
    with --ignore-default); nothing when none is."""
    shown = r.shown()
    if not shown:
        return ""
    width = max([len("Exchange Name"), *(len(x.name) for x in shown)])
    lines = [f"{'Type':<10}{'Exchange Name':<{width}}  Attributes", _rule(width + 10)]
    lines += [f"{x.kind:<10}{x.name:<{width}}  {' '.join(_replicate(x))}" for x in shown
              if not (r.ignore_default and not x.name)]
    return _lines(lines)


def _bindings(bound: Bound, to_exchange: bool) -> list[str]:
    return [f"    bind [{key}] => {other or chr(39) * 2 if to_exchange else other}" for key, other in bound]


@renderer(QueueBindings)
def queue_bindings(r: QueueBindings) -> str:
    """QueueListRecurse: each queue with its bindings ('' names the default exchange)."""
    return _lines([line for name, bound in r.queues for line in (f"Queue '{name}'", *_bindings(bound, True))])


@renderer(ExchangeBindings)
def exchange_bindings(r: ExchangeBindings) -> str:
    """ExchangeListRecurse: each exchange with the bindings to it."""
    return _lines([line for name, kind, bound in r.exchanges
                   for line in (f"Exchange '{name}' ({kind})", *_bindings(bound, False))])
