"""The Geode cluster as a policy of the kernel: server processes, timers and message guarantees.

A cache server is `online` while its process runs (up or hung) and down otherwise; a restarted
server is a new member (new member id) with empty queues. What the client pools do when a server
goes is in queues.py. A hung server holds its connections: its clients notice only after their
pool's read-timeout, then treat it as lost (a lab inference: Geode gives no figure for a hung
subscription endpoint other than the read timeout).
"""

from __future__ import annotations

from collections.abc import Mapping

from ..kernel import Kernel, Link, Node, Timer, register
from ..kernel.audit import DUPLICATE_DELIVERED, DUPLICATE_DISCARDED, LOST
from . import expiry, members
from . import queues as q
from .params import SYSTEM

DOWN = ""
TRANSITIONS: Mapping[str, frozenset[str]] = {DOWN: frozenset({q.ONLINE}), q.ONLINE: frozenset({DOWN})}
# loss reasons Geode documents: an offline durable client's queue dies with its servers or its
# timeout; a closed non-durable client's queue goes with it
ALLOWED_LOSS = frozenset({q.OFFLINE_DURABLE, q.DURABLE_TIMEOUT, q.CLIENT_CLOSED})


class GeodePolicy:
    system = SYSTEM
    transitions = TRANSITIONS

    def on_process(self, core: Kernel, node: Node, change: str) -> None:
        group = node.group
        if change == "start":
            d = q.data(core, group)
            d["next_view"] = int(d.get("next_view", 1)) + 1
            info = d["members"][node.name]
            if info.get("started"):
                d["members"][node.name] = info = members.restarted(info, int(d["next_view"]))
            else:
                info["view"] = int(d["next_view"])
            info["started"] = True
            info.pop("runtime", None)        # alter runtime is not persisted in cluster config here
            d.setdefault("stats", {})[node.name] = {}
            core.set_state(node, q.ONLINE)
            node.serving = True
            info["qrm_due"] = None
            core.log(node, "server-started", member=members.server_id(core, group, node.name))
        elif change == "kill":
            q.cancel_qrm(core, group, node.name)
            core.timers.cancel_where(group, kinds=frozenset({"hang-detect"}), node=node.name)
            core.set_state(node, DOWN)
            node.serving = False
            core.log(node, "server-stopped")
            q.lose_server(core, group, node.name, q.SERVER_DIED)
            core.ledger.drop(node.key, q.SERVER_DIED)
        elif change == "hang":
            q.cancel_qrm(core, group, node.name)
            core.log(node, "server-hung")
            timeout = min((q.pool_params(p).read_timeout_ms for p in q.pools(core, group).values()
                           if node.name in q.holders(p)), default=10000)
            core.schedule(timeout, node, "hang-detect")

    def on_link(self, core: Kernel, link: Link) -> None:
        """A cut link loses the queue-removal messages across it (orphans) and keeps a new
        secondary from taking its initial image across it; nothing else."""

    def on_timer(self, core: Kernel, timer: Timer) -> None:
        group = timer.group
        if timer.kind == "qrm":
            q.on_qrm(core, group, timer.node)
        elif timer.kind == "ack":
            q.on_ack(core, group, str(timer.payload["client"]))
        elif timer.kind == "satisfy":
            q.on_retry(core, group, str(timer.payload["client"]))
        elif timer.kind == expiry.KIND:
            q.on_expiry(core, group)
        elif timer.kind == expiry.LEGACY_KIND:   # one per put, from a lab file written before
            q.on_expire(core, group)
        elif timer.kind == "hang-detect":
            if core.node(group, timer.node).proc == "hung":
                node = core.node(group, timer.node)
                node.serving = False
                q.lose_server(core, group, timer.node, q.SERVER_HUNG)
                core.ledger.drop(node.key, q.SERVER_HUNG)
        elif timer.kind == "durable-timeout":
            q.on_durable_timeout(core, group, str(timer.payload["client"]), int(timer.payload["since"]))

    def allows(self, outcome: str, reason: str) -> bool:
        if outcome == DUPLICATE_DISCARDED:
            return True
        if outcome == DUPLICATE_DELIVERED:   # only once a client's tracking entry idled out
            return True
        if outcome == LOST:
            return reason in ALLOWED_LOSS
        return False

    def after_change(self, core: Kernel, group: str) -> list[str]:
        return []


POLICY = GeodePolicy()
register(POLICY)
