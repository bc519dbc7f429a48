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
from .params import PARAM_LIMITS, HaParams, QueueParams


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
        return EntityView("HA Controller Swiftlet", "HA Controller Swiftlet", (
            Property("negotiation-timeout", str(hp.negotiation_timeout_ms), False),
            Property("preferred-active", _bool(instance is not None and hp.preferred_active == instance), False),
        ), ("spool", "usage"))
    if path == ("sys$hacontroller", "spool"):
        return EntityView("Spool", "Spool", (
            Property("directory", hp.spool_directory, False),
            Property("max-cache-size", str(hp.spool_max_cache_size_kb), False),
        ), ())
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
        return EntityView("Queue", "Queue", (
            Property("duplicate-detection-backlog-size", str(qp.duplicate_backlog_size), False),
            Property("duplicate-detection-enabled", _bool(qp.duplicate_detection), False),
        ), ())
    raise EngineError("swift_unknown_context", context="/".join(path))


_WRITABLE: dict[tuple[tuple[str, ...], str], str] = {
    (("sys$hacontroller",), "negotiation-timeout"): "negotiation_timeout_ms",
    (("sys$hacontroller",), "preferred-active"): "preferred_active",
    (("sys$hacontroller", "spool"), "max-cache-size"): "spool_max_cache_size_kb",
    (("sys$hacontroller", "spool"), "directory"): "spool_directory",
}


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
    if len(path) == 3:   # a queue
        q = group.data["queues"][path[2]]
        if prop == "duplicate-detection-enabled":
            q["duplicate_detection"] = _parse_bool(prop, text)
        else:
            q["duplicate_backlog_size"] = _parse_int(prop, text, PARAM_LIMITS["duplicate_backlog_size"])
        return
    key = _WRITABLE[(path, prop)]
    if key == "preferred_active":
        instance = node_for(core, router)
        if _parse_bool(prop, text):
            group.params[key] = instance or ""
        elif group.params.get(key) == instance:
            group.params[key] = ""
    elif key == "spool_directory":
        if not text:
            raise EngineError("swift_invalid_value", property=prop, value=text)
        group.params[key] = text
    else:
        group.params[key] = _parse_int(prop, text, PARAM_LIMITS[key])


def _parse_bool(prop: str, text: str) -> bool:
    if text.lower() not in ("true", "false"):
        raise EngineError("swift_invalid_value", property=prop, value=text)
    return text.lower() == "true"


def _parse_int(prop: str, text: str, low: int) -> int:
    if not text.isdigit() or int(text) < low:
        raise EngineError("swift_invalid_value", property=prop, value=text)
    return int(text)
