"""Walk the grammar to reach every level: shared by the property and access tests."""

from __future__ import annotations

from collections import deque

from grammar import Grammar
from grammar.model import Alt, Element, Keyword, Opt, ParamRef, Seq

SAMPLE_VALUES = {
    "vpn-name": "Trading_VPN", "vpn-pattern": "Trading_VPN", "queue-name": "orders", "queue-pattern": "orders",
    "topic": "trading/orders/new", "client-name": "trader", "client-pattern": "trader", "xid": "0021ABC4-00-01",
    "xid-pattern": "*", "user-name": "admin", "router-name": "NY_Appliance1", "site-name": "NY",
    "duration": "1s", "count": "1", "size": "100", "msg-id": "1", "to-msg-id": "2",
}


# Values that name objects the default lab has, for lines that enter a level.
PATH_VALUES = {**SAMPLE_VALUES, "topic": "trading/>"}


def minimal_words(element: Element, values: dict[str, str] = SAMPLE_VALUES) -> list[str]:
    """The shortest word sequence the element accepts (first choice of each alternative)."""
    if isinstance(element, Keyword):
        return [element.word]
    if isinstance(element, ParamRef):
        value = values.get(element.param.name, "1")
        return [f'"{value}"' if " " in value else value]
    if isinstance(element, Seq):
        return [w for item in element.items for w in minimal_words(item, values)]
    if isinstance(element, Opt):
        return []
    if isinstance(element, Alt):
        return minimal_words(element.choices[0], values)
    raise TypeError(element)


def paths_to_levels(grammar: Grammar, start: str = "exec") -> dict[str, list[str]]:
    """For every router level: the lines that reach it from User EXEC."""
    paths = {start: []}
    queue = deque([start])
    while queue:
        mode = queue.popleft()
        # Prefer entering an existing object over creating one (create fails when it exists).
        for command in sorted(grammar.by_mode.get(mode, []), key=lambda c: c.syntax.startswith("create")):
            if command.enters and not command.transit and command.enters not in paths:
                paths[command.enters] = paths[mode] + [" ".join(minimal_words(command.element, PATH_VALUES))]
                queue.append(command.enters)
    return paths
