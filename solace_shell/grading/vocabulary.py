"""The declared vocabulary a runbook may use: roles, state checks and outcome measures.

Runbooks are data written by trainers, so everything they can ask of the lab is a name from this
one module; the loader refuses any other name (with the list of known ones), and adding a check
means adding one entry here. Each check is asked of one subject on the facts taken at one moment
(`facts.LabFacts`): a router (for the runbook's Message VPN), a node of the HA kernel or a group of
them; `state-<state>` asks a node's native state, whatever system it belongs to, `saved-<state>`
the state it keeps on disk, `every-<node check>` asks a node check of each node of a group and
`some-<node check>` of at least one; `redundant` asks whether a copy of the group's client work
could take over (from the copies its system counts, `SystemModel.copies`). A role names
routers or nodes through the facts taken when the session (or the transcript, or the lab after a
`lab> reset`) started, or when the procedure began (the `-at-begin` sources).
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass, fields
from typing import Any, Literal

from state_store.kernel.audit import AuditTotals
from state_store.solace.views import SolaceAuditTotals

from .facts import GroupFacts, LabFacts, NodeFacts, RouterFacts, VpnFacts

VpnTest = Callable[[RouterFacts, VpnFacts | None], bool]
Subject = Literal["router", "node", "group"]


@dataclass(frozen=True)
class CheckKind:
    name: str
    help: str
    test: Callable[[Any, VpnFacts | None], bool]      # (RouterFacts | NodeFacts | GroupFacts, vpn)
    subject: Subject = "router"


def _node(test: Callable[[NodeFacts], bool]) -> Callable[[Any, VpnFacts | None], bool]:
    return lambda node, vpn: test(node)


def _group(test: Callable[[GroupFacts], bool]) -> Callable[[Any, VpnFacts | None], bool]:
    return lambda group, vpn: test(group)


def _serving(group: GroupFacts) -> int:
    return sum(n.serving for n in group.nodes)


def _role(wanted: str) -> VpnTest:
    return lambda router, vpn: router.up and vpn is not None and vpn.role == wanted


CHECKS: dict[str, CheckKind] = {c.name: c for c in (
    CheckKind("active", "the Message VPN is replication-active on the router", _role("active")),
    CheckKind("standby", "the Message VPN is replication-standby on the router", _role("standby")),
    CheckKind("replication-queue-drained", "the router's replication queue for the Message VPN holds no message",
              lambda router, vpn: router.up and vpn is not None and vpn.replication_spooled == 0),
    CheckKind("replication-queue-rejects-on-discard",
              "the router's replication queue refuses to the publisher what it cannot store "
              "(reject-msg-to-sender-on-discard, the default)",
              lambda router, vpn: router.up and vpn is not None and vpn.reject_on_discard is True),
    CheckKind("bridge-bound", "the router's replication bridge is bound to its mate's replication queue",
              lambda router, vpn: router.up and vpn is not None and vpn.local_bridge == "up"),
    CheckKind("prepared-xa-transactions", "the router holds a PREPARED XA branch of the Message VPN",
              lambda router, vpn: vpn is not None and vpn.prepared_xa > 0),
    CheckKind("completed-transactions", "the router holds a heuristically completed transaction of the Message VPN",
              lambda router, vpn: vpn is not None and vpn.completed > 0),
    CheckKind("router-up", "the router is in service", lambda router, vpn: router.up),
    CheckKind("router-down", "the router is out of service (failed)", lambda router, vpn: not router.up),
    CheckKind("process-up", "the node's process runs", _node(lambda n: n.process == "up"), "node"),
    CheckKind("process-down", "the node's process is stopped (killed, crashed or shut down)",
              _node(lambda n: n.process == "down"), "node"),
    CheckKind("process-hung", "the node's process hangs", _node(lambda n: n.process == "hung"), "node"),
    CheckKind("serving", "the node serves clients now", _node(lambda n: n.process == "up" and n.serving), "node"),
    CheckKind("preferred", "the node is its group's preferred active one", _node(lambda n: n.preferred), "node"),
    CheckKind("one-serving", "exactly one node of the group serves clients", _group(lambda g: _serving(g) == 1),
              "group"),
    CheckKind("split-brain", "more than one node of the group serves clients on its own",
              _group(lambda g: _serving(g) > 1), "group"),
    CheckKind("all-up", "every node of the group runs", _group(lambda g: all(n.process == "up" for n in g.nodes)),
              "group"),
    CheckKind("redundant", "every unit of client work the group keeps redundant (a subscription queue with "
              "redundancy, replicated queues) is held by two running nodes or more: a copy can take over",
              _group(lambda g: g.copies is not None and all(c >= 2 for c in g.copies)), "group"),
)}
NEGATION = "not-"   # `not-<check>`: the check does not hold
STATE = "state-"    # `state-<state>`: a node is in that native state (any case: `state-active` is ACTIVE)
SAVED = "saved-"    # `saved-<state>`: a node keeps that state on disk (SwiftMQ's ha.state)
EVERY = "every-"    # `every-<node check>` of a group: each of its nodes passes the node check
SOME = "some-"      # `some-<node check>` of a group: at least one of its nodes passes the node check
_STATE_NAME = re.compile(r"[a-z][a-z0-9-]*")


@dataclass(frozen=True)
class RoleSource:
    name: str
    help: str
    pick: Callable[[LabFacts, str], tuple[str, ...]]


def _routers_with(role: str) -> Callable[[LabFacts, str], tuple[str, ...]]:
    def pick(facts: LabFacts, vpn: str) -> tuple[str, ...]:
        return tuple(r.name for r in facts.routers
                     if (v := r.vpn(vpn)) is not None and v.role == role)
    return pick


def _nodes(test: Callable[[NodeFacts], bool]) -> Callable[[LabFacts, str], tuple[str, ...]]:
    return lambda facts, vpn: tuple(n.ref for n in facts.nodes if test(n))


def _preferred_groups(facts: LabFacts) -> frozenset[str]:
    return frozenset(n.group for n in facts.nodes if n.preferred)


ROLE_SOURCES: dict[str, RoleSource] = {s.name: s for s in (
    RoleSource("active-at-start", "the routers where the Message VPN was replication-active at the start",
               _routers_with("active")),
    RoleSource("standby-at-start", "the routers where the Message VPN was replication-standby at the start",
               _routers_with("standby")),
    RoleSource("preferred", "the nodes that are their group's preferred active one", _nodes(lambda n: n.preferred)),
    RoleSource("not-preferred", "the other nodes of the groups that have a preferred active node",
               lambda facts, vpn: tuple(n.ref for n in facts.nodes
                                        if not n.preferred and n.group in _preferred_groups(facts))),
    RoleSource("serving-at-begin", "the nodes that served clients when the procedure began",
               _nodes(lambda n: n.process == "up" and n.serving)),
    RoleSource("down-at-begin", "the nodes whose process was stopped when the procedure began",
               _nodes(lambda n: n.process == "down")),
)}
AT_BEGIN = "-at-begin"      # a role source read when the procedure begins, not when the session starts

# Outcome measures, one vocabulary for every system: the audit totals every system reports
# (state_store.kernel.audit.AuditTotals fields, `_` written `-`).
AUDIT_MEASURES = tuple(f.name.replace("_", "-") for f in fields(AuditTotals))
# What only a router runbook measures: the counts only the Message VPN's audit has (the fields
# SolaceAuditTotals adds) and `leftover-transactions`: PREPARED or heuristically completed
# transactions of the VPN on any router.
LEFTOVER = "leftover-transactions"
ROUTER_MEASURES = (*(f.name.replace("_", "-") for f in fields(SolaceAuditTotals)
                     if f.name.replace("_", "-") not in AUDIT_MEASURES), LEFTOVER)
# The Solace lab's words for measures (its audit prints `spooled` for what is stored on a queue)
ROUTER_ALIASES = {"spooled": "stored"}
ROUTER_SYSTEM = "solace"    # the system whose runbooks grade router sessions and the Message VPN's audit
MEASURES = (*AUDIT_MEASURES, *ROUTER_MEASURES, *ROUTER_ALIASES)  # every measure a runbook may name


def measures_of(system: str) -> tuple[str, ...]:
    """The measures a runbook of `system` may name."""
    return MEASURES if system == ROUTER_SYSTEM else AUDIT_MEASURES


def audit_measures(totals: AuditTotals, system: str) -> dict[str, int]:
    """The measures of `system` an audit's totals give (all but `leftover-transactions`, which the
    facts give), each under the name a runbook uses."""
    aliases = ROUTER_ALIASES if system == ROUTER_SYSTEM else {}
    return {m: int(getattr(totals, aliases.get(m, m).replace("-", "_"))) for m in measures_of(system)
            if m != LEFTOVER}


def check_holds(name: str, facts: LabFacts, subject: str, vpn: str) -> bool:
    """Whether the check `name` (maybe `not-<check>`) holds of the router, node or group named
    `subject` (a check of a subject not in the lab does not hold)."""
    negated = name.startswith(NEGATION)
    base = name[len(NEGATION):] if negated else name
    kind = CHECKS.get(base)
    if base.startswith(EVERY):
        group = facts.group(subject)
        holds = group is not None and all(_node_holds(base[len(EVERY):], n) for n in group.nodes)
    elif base.startswith(SOME):
        group = facts.group(subject)
        holds = group is not None and any(_node_holds(base[len(SOME):], n) for n in group.nodes)
    elif kind is None:                      # state-<state>, saved-<state>
        node = facts.node(subject)
        holds = node is not None and _node_holds(base, node)
    elif kind.subject == "router":
        router = facts.router(subject)
        holds = router is not None and kind.test(router, router.vpn(vpn))
    elif kind.subject == "node":
        node = facts.node(subject)
        holds = node is not None and kind.test(node, None)
    else:
        group = facts.group(subject)
        holds = group is not None and kind.test(group, None)
    return holds != negated


def _node_holds(name: str, node: NodeFacts) -> bool:
    """A node check, `state-<state>` or `saved-<state>` of one node."""
    if name.startswith(STATE):
        return node.state.lower() == name[len(STATE):]
    if name.startswith(SAVED):
        return name[len(SAVED):] in (s.lower() for s in node.saved)
    return bool(CHECKS[name].test(node, None))


def _is_node_check(name: str) -> bool:
    for family in (STATE, SAVED):
        if name.startswith(family) and _STATE_NAME.fullmatch(name[len(family):]):
            return True
    kind = CHECKS.get(name)
    return kind is not None and kind.subject == "node"


def is_check(name: str) -> bool:
    base = name.removeprefix(NEGATION)
    for family in (EVERY, SOME):
        if base.startswith(family):
            return _is_node_check(base[len(family):])
    return base in CHECKS or _is_node_check(base)
