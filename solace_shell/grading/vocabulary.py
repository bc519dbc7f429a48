"""The declared vocabulary a runbook may use: roles, state checks and outcome measures.

Runbooks are data written by trainers, so everything they can ask of the lab is a name from this
one module; the loader refuses any other name (with the list of known ones), and adding a check
means adding one entry here. Each check is asked of one router, for the runbook's Message VPN, on
the facts taken at one moment (`facts.LabFacts`); a role names routers through the facts taken when
the session (or the transcript, or the lab after a `lab> reset`) started.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from .facts import LabFacts, RouterFacts, VpnFacts

VpnTest = Callable[[RouterFacts, VpnFacts | None], bool]


@dataclass(frozen=True)
class CheckKind:
    name: str
    help: str
    test: VpnTest


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
)}
NEGATION = "not-"   # `not-<check>`: the check does not hold


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


ROLE_SOURCES: dict[str, RoleSource] = {s.name: s for s in (
    RoleSource("active-at-start", "the routers where the Message VPN was replication-active at the start",
               _routers_with("active")),
    RoleSource("standby-at-start", "the routers where the Message VPN was replication-standby at the start",
               _routers_with("standby")),
)}

# Audit totals a runbook's expected outcome may name (state_store.views.AuditTotals fields), and
# `leftover-transactions`: PREPARED or heuristically completed transactions of the VPN on any router.
AUDIT_MEASURES = ("lost", "duplicated", "stranded", "spooled", "not-replicated", "in-transaction", "rejected")
LEFTOVER = "leftover-transactions"
MEASURES = (*AUDIT_MEASURES, LEFTOVER)


def check_holds(name: str, router: RouterFacts | None, vpn: str) -> bool:
    """Whether the check `name` (maybe `not-<check>`) holds of `router` (None: not in the lab)."""
    negated = name.startswith(NEGATION)
    kind = CHECKS[name[len(NEGATION):] if negated else name]
    holds = router is not None and kind.test(router, router.vpn(vpn))
    return holds != negated


def is_check(name: str) -> bool:
    return name.removeprefix(NEGATION) in CHECKS
