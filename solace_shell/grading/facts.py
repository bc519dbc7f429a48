"""What grading needs to know of the lab's state at one moment, read in one store call.

A grader checks preconditions on the state *before* a line runs, so the facts are a small frozen
snapshot taken then (replication role, replication queue depth, XA branches, whether the router is
up, per router and Message VPN; each node and group of the HA kernel: process, native state,
whether it serves; the audit's totals), never the lab itself: grading reads, it never changes a lab.

A kernel node is named by its router's name when it is a router (a member of an intra-site
redundancy group), else by its lab-wide key (`<group>.<node>`), so runbooks name it as its
session's lines do.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from state_store.errors import EngineError

from ..router_cli import router_cli

if TYPE_CHECKING:
    from state_store.lab_root.engine import RootEngine as Engine

REPLICATION_QUEUE = "#MSGVPN_REPLICATION_DATA_QUEUE"


@dataclass(frozen=True)
class VpnFacts:
    """One Message VPN on one router. Counts are of the router's own transactions, mirrored
    branches included (a standby holds the mirror of a replicated branch)."""

    role: str | None                 # active | standby; None when the router is down
    local_bridge: str | None         # up | queue-unbound | down; None unless a standby
    replication_spooled: int | None  # messages in the replication queue; None when unknown
    reject_on_discard: bool | None   # the replication queue's reject-msg-to-sender-on-discard
    prepared_xa: int
    completed: int                   # heuristically completed transactions left


@dataclass(frozen=True)
class RouterFacts:
    name: str
    site: str
    up: bool
    vpns: tuple[tuple[str, VpnFacts], ...]

    def vpn(self, name: str) -> VpnFacts | None:
        for vpn_name, facts in self.vpns:
            if vpn_name == name:
                return facts
        return None


@dataclass(frozen=True)
class NodeFacts:
    """One node of the HA kernel (an HA instance, a broker, a server, a redundancy member)."""

    ref: str                         # its router name, else its key
    group: str
    process: str                     # up | down | hung
    state: str                       # the system's native state ("" while down)
    preferred: bool
    serving: bool                    # accepts client work now
    saved: tuple[str, ...] = ()      # the states it keeps on disk (SwiftMQ's ha.state), by file name


@dataclass(frozen=True)
class GroupFacts:
    name: str
    system: str                      # the kernel system that owns it
    nodes: tuple[NodeFacts, ...]
    # per unit of client work the group keeps redundant, the running nodes holding it (None: its
    # system does not count copies)
    copies: tuple[int, ...] | None = None


@dataclass(frozen=True)
class LabFacts:
    routers: tuple[RouterFacts, ...]
    groups: tuple[GroupFacts, ...] = ()
    audit: tuple[tuple[str, int], ...] = ()      # measure -> total now (when asked for)

    def router(self, name: str) -> RouterFacts | None:
        for router in self.routers:
            if router.name == name:
                return router
        return None

    def node(self, ref: str) -> NodeFacts | None:
        for group in self.groups:
            for node in group.nodes:
                if node.ref == ref:
                    return node
        return None

    def group(self, name: str) -> GroupFacts | None:
        for group in self.groups:
            if group.name == name:
                return group
        return None

    @property
    def nodes(self) -> tuple[NodeFacts, ...]:
        return tuple(n for g in self.groups for n in g.nodes)


def _vpn_facts(engine: Engine, router: str, vpn: str, role: str, bridge: str | None) -> VpnFacts:
    try:
        queue = router_cli(engine).queue_detail(router, vpn, REPLICATION_QUEUE)
        spooled: int | None = queue.messages_spooled
        rejects: bool | None = queue.reject_msg_to_sender_on_discard
    except EngineError:
        spooled = rejects = None
    prepared = completed = 0
    for txn in router_cli(engine).transactions(router, vpn=vpn, detail=False):
        if txn.kind == "xa" and txn.state == "prepared":
            prepared += 1
        elif txn.state == "complete":
            completed += 1
    return VpnFacts(role, bridge, spooled, rejects, prepared, completed)


def _routers(engine: Engine) -> list[Any]:
    """The routers of the lab (none when it holds no router CLI's section: a lab of HA systems)."""
    return list(engine.routers())


def read_groups(engine: Engine) -> tuple[GroupFacts, ...]:
    """Every group of the HA kernel with its nodes, in the scenario's order. Reads only."""
    from state_store import loader

    core = engine.kernel()
    routers = {info.name for info in _routers(engine)}
    serving = core.serving()
    out: list[GroupFacts] = []
    for group in core.groups.values():
        nodes = []
        for name in group.nodes:
            node = core.node(group.name, name)
            nodes.append(NodeFacts(name if name in routers else node.key, group.name, node.proc, node.state,
                                   node.preferred, node.key in serving,
                                   tuple(str(node.files[f]) for f in sorted(node.files))))
        model = loader.load_model(group.system)    # None: a group of no registered system
        counter = model.MODEL.copies if model is not None else None
        out.append(GroupFacts(group.name, group.system, tuple(nodes),
                              counter(core, group.name) if counter is not None else None))
    return tuple(out)


def read_facts(engine: Engine, vpn: str | None = None,
               audit: Callable[[Engine], dict[str, int]] | None = None) -> LabFacts:
    """The facts of every router and kernel node of the lab behind `engine`, for the Message VPN
    `vpn` (None: every user Message VPN), with the audit's totals when `audit` reads them. Reads only."""
    out: list[RouterFacts] = []
    for info in _routers(engine):
        vpns: list[tuple[str, VpnFacts]] = []
        try:
            rows = router_cli(engine).vpn_replication(info.name, "*" if vpn is None else vpn) if info.up else []
        except EngineError:     # the router has no such Message VPN
            rows = []
        for row in rows:
            if not row.internal:
                vpns.append((row.name, _vpn_facts(engine, info.name, row.name, row.role, row.local_bridge)))
        out.append(RouterFacts(info.name, info.site, info.up, tuple(vpns)))
    totals = tuple(sorted(audit(engine).items())) if audit is not None else ()
    return LabFacts(tuple(out), read_groups(engine), totals)
