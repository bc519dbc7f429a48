"""The contract between the kernel and one HA system's state machine.

Why: the kernel owns nodes, links, timers, the log and the ledger for every system alike; what a
system *does* (its legal state transitions, what a timer means, how it reacts when a process
starts, dies or hangs, or when a link goes) is its policy. Policies register by system name when the
system's model is imported, which the lab's loader (``state_store.loader``) does for every system a
lab holds, a kernel restored from a lab file included, before anything runs on it.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Protocol

from .timers import Timer

if TYPE_CHECKING:
    from .kernel import Kernel
    from .model import Link, Node


class Policy(Protocol):
    system: str
    # state -> the states it may change to ("" is a node that is down)
    transitions: Mapping[str, frozenset[str]]

    def on_timer(self, kernel: Kernel, timer: Timer) -> None: ...

    def on_process(self, kernel: Kernel, node: Node, change: str) -> None:
        """`change` is start | kill | hang; the kernel has already set `node.proc`."""

    def on_link(self, kernel: Kernel, link: Link) -> None:
        """A link between two nodes of a group went down or came back (`link.up` is already set)."""

    def allows(self, outcome: str, reason: str) -> bool:
        """Message guarantee rule: is this audit finding (an outcome of ``kernel.audit.OUTCOMES``
        with its reason) a documented consequence in this system, or a violation of its promise?"""

    def after_change(self, kernel: Kernel, group: str) -> list[str]:
        """Settle the group after a change or an advance; returns the clients that connected."""


_POLICIES: dict[str, Policy] = {}


def register(policy: Policy) -> None:
    _POLICIES[policy.system] = policy


def policy_for(system: str) -> Policy:
    found = _POLICIES.get(system)
    if found is None:
        raise LookupError(f"no HA policy registered for system {system!r}")
    return found
