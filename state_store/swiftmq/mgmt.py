"""The HA router's management tree as the SwiftMQ admin CLI sees it (`cc`, `lc`, `set`).

Why a model of its own: `lc` prints entities, entity lists and properties in a fixed layout, and
the values must come from the lab (the HA state of the instance the CLI is connected to, the
Swiftlet's parameters, the queues). Only the part the HA drills need is modelled: the HA Controller
Swiftlet (its replication channel, spool, "Threadpool Freezes" list and Usage) and the queues
with duplicate detection. The Swiftlet's, spool's and freeze list's names follow the configuration
reference (`threadpool-freezes` entries with a `poolname`, listed in name order as entity lists
are); the replication channel's property names and the Usage's are the lab's; the tree is the
lab's, not a copy of a real router's. `new`/`delete` act on the freeze list only, with the texts
of the router's entity lists.
"""

from __future__ import annotations

from dataclasses import dataclass

from ..errors import EngineError
from ..kernel import Kernel, operation
from . import policy as p
from .params import (
    HA_CONTROLLER,
    QUEUE_LEAVES,
    REPLICATION_CHANNEL,
    ROUTER_LEAVES,
    SPOOL,
    THREADPOOL_FREEZES,
    HaParams,
    Leaf,
    QueueParams,
    freeze_text,
)

ENTRY_NAME_CHARS = frozenset("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789._-$")


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
    if path == HA_CONTROLLER:
        return EntityView("HA Controller Swiftlet", "HA Controller Swiftlet",
                          _settable(ROUTER_LEAVES, HA_CONTROLLER, hp.to_dict(), instance),
                          ("replication-channel", "spool", "threadpool-freezes", "usage"))
    if path == REPLICATION_CHANNEL:
        return EntityView("Replication Channel", "Replication Channel",
                          _settable(ROUTER_LEAVES, REPLICATION_CHANNEL, hp.to_dict(), instance), ())
    if path == SPOOL:
        return EntityView("Spool", "Spool", _settable(ROUTER_LEAVES, SPOOL, hp.to_dict(), instance), ())
    if path == THREADPOOL_FREEZES:
        return EntityListView("Threadpool Freezes", "Threadpools to freeze during Init",
                              tuple(name for name, _ in hp.freeze_entries))
    if len(path) == 3 and path[:2] == THREADPOOL_FREEZES and path[2] in dict(hp.freeze_entries):
        return EntityView("Threadpool Freeze", "Threadpool Freeze",
                          (Property("poolname", dict(hp.freeze_entries)[path[2]], False),), ())
    if path == ("sys$hacontroller", "usage"):
        node = core.node(router, instance) if instance is not None else None
        cached, swapped, messages = p.spool_usage(core, router)
        return EntityView("Usage", "Usage", (
            Property("ha-state", node.state if node is not None else p.UNKNOWN, True),
            Property("preferred-active", _bool(node is not None and hp.preferred_active == node.name), True),
            Property("replication-channel", "connected" if p.channel(core, router) == "connected"
                     else "disconnected", True),
            Property("spool-cache-size", str(cached), True),
            Property("spool-swap-size", str(swapped), True),
            Property("spool-swapped-messages", str(messages), True),
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
    if path[:2] == THREADPOOL_FREEZES:   # an entry's poolname
        _set_freezes(group.params, {**dict(HaParams.from_dict(group.params).freeze_entries),
                                    path[2]: _pool(prop, text)})
        return
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


def _pool(prop: str, text: str) -> str:
    if not text or "," in text or ":" in text:
        raise EngineError("swift_invalid_value", property=prop, value=text)
    return text


def _set_freezes(params: dict[str, object], entries: dict[str, str]) -> None:
    params["threadpool_freezes"] = freeze_text(tuple(entries.items()))


@operation("swiftmq.new_entity")
def new_entity(core: Kernel, router: str, path: tuple[str, ...], name: str, props: tuple[tuple[str, str], ...]) -> None:
    """`new <name> [<prop> <value> ...]` in an entity list: only the "Threadpool Freezes" list takes
    new entries here (each needs its `poolname`); it is replicated to the STANDBY like `set`."""
    view = entity(core, router, path)
    if path != THREADPOOL_FREEZES or not isinstance(view, EntityListView):
        raise EngineError("swift_not_a_list")
    entries = dict(HaParams.from_dict(core.groups[router].params).freeze_entries)
    if name in entries:
        raise EngineError("swift_entity_defined", entity=name)
    if not name.strip(".") or len(name) > 64 or not set(name) <= ENTRY_NAME_CHARS:   # `..` is a path
        raise EngineError("swift_invalid_value", property="name", value=name)
    pool = None
    for prop, value in props:
        if prop != "poolname":
            raise EngineError("swift_unknown_entity_property", property=prop)
        pool = _pool(prop, value)
    if pool is None:
        raise EngineError("swift_mandatory_property", property="poolname")
    entries[name] = pool
    _set_freezes(core.groups[router].params, entries)


@operation("swiftmq.delete_entity")
def delete_entity(core: Kernel, router: str, path: tuple[str, ...], name: str) -> None:
    """`delete <entity>` in the "Threadpool Freezes" list."""
    view = entity(core, router, path)
    if path != THREADPOOL_FREEZES or not isinstance(view, EntityListView):
        raise EngineError("swift_not_a_list")
    entries = dict(HaParams.from_dict(core.groups[router].params).freeze_entries)
    if name not in entries:
        raise EngineError("swift_unknown_entity", entity=name)
    del entries[name]
    _set_freezes(core.groups[router].params, entries)
