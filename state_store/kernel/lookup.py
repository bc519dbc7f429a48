"""A system's groups, nodes, clients and log lines on the kernel, found by the names a user types.

Why shared: every system reads its groups and nodes from the kernel the same way and refuses an
unknown name in one line (``EngineError``) before anything changes; only the refusal code and
its parameter's name are the system's (``SystemTerms``).
"""

from __future__ import annotations

from ..errors import EngineError
from .kernel import Kernel
from .model import Event, Node
from .terms import SystemTerms


def groups(core: Kernel, terms: SystemTerms) -> list[str]:
    """The system's groups, in scenario order."""
    return [g.name for g in core.groups.values() if g.system == terms.system]


def group(core: Kernel, terms: SystemTerms, name: str) -> str:
    """``name`` when it is one of the system's groups; refused otherwise."""
    if name not in groups(core, terms):
        raise EngineError(terms.group_not_found, **{terms.group: name})
    return name


def node(core: Kernel, terms: SystemTerms, key: str) -> Node:
    """The system's node ``<group>.<node>``; refused when no group of the system has it."""
    found = core.nodes.get(key)
    if found is None or core.groups[found.group].system != terms.system:
        raise EngineError(terms.node_not_found, **{terms.node: key})
    return found


def node_keys(core: Kernel, terms: SystemTerms) -> list[str]:
    """Every node of the system as ``<group>.<node>``, group by group in scenario order."""
    return [n.key for g in groups(core, terms) for n in core.group_nodes(g)]


def client_names(core: Kernel, terms: SystemTerms) -> list[str]:
    """The clients of the system's groups, by name."""
    mine = groups(core, terms)
    return sorted(c.name for c in core.clients.values() if c.group in mine)


def events(core: Kernel, group: str, name: str) -> tuple[Event, ...]:
    """The log lines of one node (or client) of ``group``, oldest first."""
    return tuple(e for e in core.events if e.group == group and e.node == name)


def node_events(core: Kernel, node: Node) -> tuple[Event, ...]:
    return events(core, node.group, node.name)
