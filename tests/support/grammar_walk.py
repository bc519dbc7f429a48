"""Walk the grammar to reach every level: shared by the property and access tests."""

from __future__ import annotations

from collections import deque
from typing import Any

from grammar import Grammar
from grammar.model import Alt, Element, Keyword, Opt, ParamRef, Seq
from solace_shell.lab import Lab
from tests.support.router_engine import router_engine

SAMPLE_VALUES = {
    "vpn-name": "Trading_VPN", "vpn-pattern": "Trading_VPN", "queue-name": "orders", "queue-pattern": "orders",
    "topic": "trading/orders/new", "client-name": "trader", "client-pattern": "trader", "xid": "0021ABC4-00-01",
    "xid-pattern": "*", "user-name": "admin", "router-name": "NY_Appliance1", "site-name": "NY",
    "duration": "1s", "count": "1", "size": "100", "msg-id": "1", "to-msg-id": "2",
}


# Values that name objects the default lab has (or `walk_lab` makes), for lines that enter a level.
PATH_VALUES = {**SAMPLE_VALUES, "topic": "trading/>", "client-username": "default", "client-profile": "default",
               "acl-profile": "default", "telemetry-profile": "trace", "filter-name": "default",
               "rdp-name": "rdp1", "rest-consumer-name": "rc1", "connection-factory-name": "/jms/cf/default"}


def walk_lab(settings: dict[str, Any] | None = None) -> Lab:
    """A fresh default lab plus the objects PATH_VALUES names that the scenario does not make, so
    every level is reached by entering an existing object (a read-only user cannot `create`)."""
    lab = Lab.fresh(settings=settings)
    with lab.store.transaction() as engine:
        router, vpn = "NY_Appliance1", "Trading_VPN"
        router_engine(engine).create_object(router, vpn, "telemetry-profile", ("trace",))
        router_engine(engine).create_object(router, vpn, "telemetry-filter", ("trace", "default"))
        router_engine(engine).create_object(router, vpn, "telemetry-subscription", ("trace", "default", "trading/>"))
        router_engine(engine).create_object(router, vpn, "rest-delivery-point", ("rdp1",))
        router_engine(engine).create_object(router, vpn, "rest-consumer", ("rdp1", "rc1"))
        router_engine(engine).create_object(router, vpn, "queue-binding", ("rdp1", "orders"))
        router_engine(engine).create_object(router, vpn, "connection-factory", ("/jms/cf/default",))
    return lab


def minimal_words(element: Element, values: dict[str, str] = SAMPLE_VALUES) -> list[str]:
    """The shortest word sequence the element accepts (first choice of each alternative)."""
    if isinstance(element, Keyword):
        return [element.word]
    if isinstance(element, ParamRef):
        ptype = element.param.type  # a value in the type's range (integers from 1 where it allows)
        value = values.get(element.param.name, str(max(ptype.min, 1) if ptype.min is not None else 1))
        return [f'"{value}"' if " " in value else value]
    if isinstance(element, Seq):
        return [w for item in element.items for w in minimal_words(item, values)]
    if isinstance(element, Opt):
        return []
    if isinstance(element, Alt):
        return minimal_words(element.choices[0], values)
    raise TypeError(element)


def paths_to_levels(grammar: Grammar, start: str = "exec") -> dict[str, list[str]]:
    """For every router level: the lines that reach it from User EXEC.

    Entering an existing object is preferred over creating one (create fails when it exists, and
    a read-only user may not create): a first walk uses no `create`, a second adds the levels
    only a `create` reaches."""
    paths: dict[str, list[str]] = {start: []}
    for allow_create in (False, True):
        queue = deque(paths)
        while queue:
            mode = queue.popleft()
            for command in grammar.by_mode.get(mode, []):
                if command.syntax.startswith("create") and not allow_create:
                    continue
                if command.enters and not command.transit and command.enters not in paths:
                    paths[command.enters] = paths[mode] + [" ".join(minimal_words(command.element, PATH_VALUES))]
                    queue.append(command.enters)
    return paths
