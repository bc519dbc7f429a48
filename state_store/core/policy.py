"""The contract between the neutral core and one HA product's state machine.

Why: the core owns nodes, links, timers, the log and the ledger for every product alike; what a
product *does* (its legal state transitions, what a timer means, how it reacts when a process
starts, dies or hangs) is its policy. Policies register by system name, so a snapshot restored
from a lab file finds the policy of each group again.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Protocol

from .timers import Timer

if TYPE_CHECKING:
    from .hacore import HaCore
    from .model import Link, Node


class Policy(Protocol):
    system: str
    # state -> the states it may change to ("" is a node that is down)
    transitions: Mapping[str, frozenset[str]]

    def on_timer(self, core: HaCore, timer: Timer) -> None: ...

    def on_process(self, core: HaCore, node: Node, change: str) -> None:
        """`change` is start | kill | hang; the core has already set `node.proc`."""

    def on_link(self, core: HaCore, link: Link) -> None:
        """A link between two nodes of a group went down or came back (`link.up` is already set)."""

    def allows(self, kind: str, reason: str) -> bool:
        """Message guarantee rule: is this audit finding (loss, duplicate, ...) a documented
        consequence in this product, or a violation of its promise?"""

    def after_change(self, core: HaCore, group: str) -> list[str]:
        """Settle the group after a change or an advance; returns the clients that connected."""


_POLICIES: dict[str, Policy] = {}


def register(policy: Policy) -> None:
    _POLICIES[policy.system] = policy


def policy_for(system: str) -> Policy:
    try:
        return _POLICIES[system]
    except KeyError:
        raise LookupError(f"no HA policy registered for system {system!r}") from None
