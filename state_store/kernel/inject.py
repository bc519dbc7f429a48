"""Injecting a failure of the shared vocabulary into a system's node or group network, after the
refusals every system makes alike.

Why shared: a process that is not down cannot start or be replaced, one that is down cannot be
killed or hang, a hung one cannot hang again, and a network that is already whole (cut) cannot be
healed (partitioned); every system refuses these in one line before anything changes, in its own
words (``SystemTerms``). What a system adds (clients that move, what a lost disk held, the view
it returns) stays in its operations.
"""

from __future__ import annotations

from ..errors import EngineError
from . import lookup
from .failures import Failure
from .kernel import Kernel
from .model import Node
from .terms import SystemTerms

# a node failure as the change a lab verb reports
DONE: dict[str, str] = {"restart": "started", "kill": "killed", "hang": "hung", "replace": "replaced"}


def check_node_failure(core: Kernel, terms: SystemTerms, key: str, failure: Failure) -> Node:
    """The node ``key`` when ``failure`` (restart, kill, hang, replace) can happen to it now;
    refused otherwise. Nothing changes."""
    node = lookup.node(core, terms, key)
    if failure in ("restart", "replace") and node.proc != "down":
        raise EngineError(terms.node_running, **{terms.node: key}, process=node.proc)
    if failure in ("kill", "hang") and node.proc == "down":
        raise EngineError(terms.node_down, **{terms.node: key})
    if failure == "hang" and node.proc == "hung":
        raise EngineError(terms.node_hung, **{terms.node: key})
    return node


def node_failure(core: Kernel, terms: SystemTerms, key: str, failure: Failure) -> Node:
    """Check, then apply ``failure`` to the node ``key`` (its policy reacts); returns the node."""
    node = check_node_failure(core, terms, key, failure)
    core.fail(failure, node=node)
    return node


def group_links(core: Kernel, terms: SystemTerms, name: str, up: bool) -> str:
    """Heal (``up``) or cut every link between two nodes of the group ``name``; refused when all of
    them are so already. Returns the group."""
    group = lookup.group(core, terms, name)
    keys = {n.key for n in core.group_nodes(group)}
    links = [lk for lk in core.links if lk.a in keys and lk.b in keys]
    if all(lk.up == up for lk in links):
        raise EngineError(terms.links_up if up else terms.links_down, **{terms.group: name})
    for lk in links:
        if lk.up != up:
            core.fail("heal" if up else "partition", link=lk)
    return group
