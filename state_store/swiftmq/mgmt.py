"""The HA router's management tree as the SwiftMQ admin CLI sees it (`cc`, `lc`, `set`).

Why a model of its own: `lc` prints entities, entity lists and properties in a fixed layout, and
the values must come from the lab (the HA state of the instance the CLI is connected to, the
Swiftlet's parameters, the queues). Only the part the HA drills need is modelled: the HA Controller
Swiftlet (with its spool and its Usage) and the queues with duplicate detection. Entity and property
names other than `ha-state`/`preferred-active`/`replication-channel` follow the configuration
reference's attribute names; the tree is the lab's, not a copy of a real router's.
"""

from __future__ import annotations

from dataclasses import dataclass

from ..errors import EngineError
from ..kernel import Kernel, operation
from . import policy as p
from .params import HA_CONTROLLER, QUEUE_LEAVES, ROUTER_LEAVES, SPOOL, HaParams, Leaf, QueueParams


@dataclass(frozen=True)
class Property:
    name: str
    value: str
    read_only: bool


@dataclass(frozen=True)
class EntityView:
    name: str
    description: str
    properties: tuple[Property, ...]
    sub_entities: tuple[str, ...]


@dataclass(frozen=True)
class EntityListView:
    name: str
    description: str
    entities: tuple[str, ...]


def _bool(flag: bool) -> str:
    return "true" if flag else "false"


def resolve(current: tuple[str, ...], path: str) -> tuple[str, ...]:
    """`/a/b` is absolute, `b` and `../b` relative to `current`."""
    parts = list(current) if not path.startswith("/") else []
    for seg in path.split("/"):
        if seg in ("", "."):
            continue
        if seg == "..":
            if parts:
                parts.pop()
            continue
        parts.append(seg)
    return tuple(parts)


def _shown(leaf: Leaf, value: object, instance: str | None) -> str:
    if leaf.kind == "instance":   # shown as whether the instance the CLI talks to is the one named
        return _bool(instance is not None and value == instance)
    if leaf.kind == "bool":
        return _bool(bool(value))
    return str(value)


def _settable(leaves: tuple[Leaf, ...], context: tuple[str, ...], values: dict[str, object],
              instance: str | None) -> tuple[Property, ...]:
    """The properties the leaves give this entity, by name (as `lc` lists them)."""
    return tuple(Property(leaf.cli, _shown(leaf, values[leaf.key], instance), False)
                 for leaf in sorted(leaves, key=lambda leaf: leaf.cli) if leaf.cli and leaf.context == context)


def node_for(core: Kernel, router: str) -> str | None:
    node = p.serving_node(core, router)
    return None if node is None else node.name


def entity(core: Kernel, router: str, path: tuple[str, ...]) -> EntityView | EntityListView:
    group = core.groups[router]
    hp = HaParams.from_dict(group.params)
    queues: dict[str, dict[str, object]] = group.data.get("queues", {})
    instance = node_for(core, router)
    if path == ():
        return EntityView(router, "Router", (), ("sys$hacontroller", "sys$queuemanager"))
    if path == ("sys$hacontroller",):
        return EntityView("HA Controller Swiftlet", "HA Controller Swiftlet",
                          _settable(ROUTER_LEAVES, HA_CONTROLLER, hp.to_dict(), instance), ("spool", "usage"))
    if path == ("sys$hacontroller", "spool"):
        return EntityView("Spool", "Spool", _settable(ROUTER_LEAVES, SPOOL, hp.to_dict(), instance), ())
    if path == ("sys$hacontroller", "usage"):
        node = core.node(router, instance) if instance is not None else None
        return EntityView("Usage", "Usage", (
            Property("ha-state", node.state if node is not None else p.UNKNOWN, True),
            Property("preferred-active", _bool(node is not None and hp.preferred_active == node.name), True),
            Property("replication-channel", "connected" if p.channel(core, router) == "connected"
                     else "disconnected", True),
        ), ())
    if path == ("sys$queuemanager",):
        return EntityView("Queue Manager Swiftlet", "Queue Manager Swiftlet", (), ("queues",))
    if path == ("sys$queuemanager", "queues"):
        return EntityListView("Queues", "Queue Definitions", tuple(sorted(queues)))
    if len(path) == 3 and path[:2] == ("sys$queuemanager", "queues") and path[2] in queues:
        qp = QueueParams.from_dict(dict(queues[path[2]]))
        return EntityView("Queue", "Queue", _settable(QUEUE_LEAVES, (), qp.to_dict(), instance), ())
    raise EngineError("swift_unknown_context", context="/".join(path))


@operation("swiftmq.set_property")
def set_property(core: Kernel, router: str, path: tuple[str, ...], prop: str, value: str | None) -> None:
    """Change a property on the ACTIVE; the configuration controller replicates it to the STANDBY
    (in the lab both instances share the router's configuration)."""
    view = entity(core, router, path)
    props = {pr.name: pr for pr in view.properties} if isinstance(view, EntityView) else {}
    if prop not in props:
        raise EngineError("swift_unknown_property", property=prop)
    if props[prop].read_only:
        raise EngineError("swift_read_only", property=prop)
    group = core.groups[router]
    text = "" if value is None else value
    queue = len(path) == 3
    leaves, context = (QUEUE_LEAVES, ()) if queue else (ROUTER_LEAVES, path)
    leaf = next(leaf for leaf in leaves if leaf.cli == prop and leaf.context == context)
    target: dict[str, object] = group.data["queues"][path[2]] if queue else group.params
    if leaf.kind == "instance":
        instance = node_for(core, router)
        if _parse_bool(prop, text):
            target[leaf.key] = instance or ""
        elif target.get(leaf.key) == instance:
            target[leaf.key] = ""
    elif leaf.kind == "text":
        if not text:
            raise EngineError("swift_invalid_value", property=prop, value=text)
        target[leaf.key] = text
    elif leaf.kind == "bool":
        target[leaf.key] = _parse_bool(prop, text)
    else:
        target[leaf.key] = _parse_int(prop, text, leaf.low or 0)


def _parse_bool(prop: str, text: str) -> bool:
    if text.lower() not in ("true", "false"):
        raise EngineError("swift_invalid_value", property=prop, value=text)
    return text.lower() == "true"


def _parse_int(prop: str, text: str, low: int) -> int:
    if not text.isdigit() or int(text) < low:
        raise EngineError("swift_invalid_value", property=prop, value=text)
    return int(text)
