"""The SwiftMQ HA Router state machine (HA Controller Swiftlet), as a policy of the neutral core.

Documented behaviour (seed 001 and the SwiftMQ failover pages) and the lab's inferences:
- Start-up reads `ha.state`: STANDALONE starts at once; ACTIVE or STANDBY waits for the other
  instance until the negotiation timeout, then STANDALONE; UNKNOWN (no file) waits forever.
- Two instances that can reach each other connect: INITIALIZE, NEGOTIATE, then the winner goes
  ACTIVE-SYNC-PREPARE (pools frozen), ACTIVE-SYNC (snapshot sent), ACTIVE and the other
  STANDBY-SYNC-PREPARE, STANDBY-SYNC, STANDBY. Each step takes `sync_step_ms` (lab choice); the
  snapshot step takes in addition the store transfer, from the store's size and the maximum packet
  size (params.py). The thread pools of the "Threadpool Freezes" list are frozen in its order on
  entering ACTIVE-SYNC-PREPARE and unfrozen in the same order when the sync ends (ACTIVE) or is
  broken off (STANDALONE); JMS work waits meanwhile (operations.py).
- A long store transfer holds back the ACTIVE's heartbeats ("Missing of heart beats is possible,
  especially during synchronization when a large store is transferred"): when it outlasts the
  missing threshold, the STANDBY closes the channel and goes STANDALONE with the store it had (the
  failover), and the ACTIVE, seeing the channel closed, switches to STANDALONE too.
- Negotiation winner (inferred): the instance that was STANDALONE; else the preferred active;
  else the one whose `ha.state` says ACTIVE; else the one started first. Both STANDALONE is split
  brain: the instance that joined last is shut down with an exception.
- Failure: a process that dies closes the channel, the other side sees it at once (IOException);
  a hung process stops sending heartbeats, so the other side closes the channel when the
  threshold of missed heartbeats is reached (2000 ms x 10 = at most 20 s after the last beat).
  The survivor, ACTIVE or STANDBY, goes STANDALONE and serves the clients.
- Preferred active: when the STANDBY is the preferred instance, the ACTIVE announces a failover in
  10 s and then hands over (both renegotiate; the preferred one wins).
- `ha.state` is written on entering ACTIVE, STANDBY and STANDALONE.
"""

from __future__ import annotations

from collections.abc import Mapping

from ..kernel import Kernel, Link, Node, Timer, register
from ..kernel import ranges as rg
from ..kernel.audit import DUPLICATE_DISCARDED, LOST
from ..kernel.failures import REPLACED
from ..kernel.model import node_key
from .params import SYSTEM, HaParams

UNKNOWN, INITIALIZE, NEGOTIATE = "UNKNOWN", "INITIALIZE", "NEGOTIATE"
ACTIVE_SYNC_PREPARE, ACTIVE_SYNC, ACTIVE = "ACTIVE-SYNC-PREPARE", "ACTIVE-SYNC", "ACTIVE"
STANDBY_SYNC_PREPARE, STANDBY_SYNC, STANDBY = "STANDBY-SYNC-PREPARE", "STANDBY-SYNC", "STANDBY"
STANDALONE = "STANDALONE"
DOWN = ""
FROZEN = frozenset({ACTIVE_SYNC_PREPARE, ACTIVE_SYNC})   # the serving instance's pools are frozen
STATES = (UNKNOWN, INITIALIZE, NEGOTIATE, ACTIVE_SYNC_PREPARE, ACTIVE_SYNC, ACTIVE,
          STANDBY_SYNC_PREPARE, STANDBY_SYNC, STANDBY, STANDALONE)
SAVED_STATES = (UNKNOWN, ACTIVE, STANDBY, STANDALONE)   # what ha.state can hold
HA_STATE_FILE = "ha.state"


def _t(*states: str) -> frozenset[str]:
    return frozenset(states + (DOWN,))


TRANSITIONS: Mapping[str, frozenset[str]] = {
    DOWN: frozenset({UNKNOWN, STANDALONE}),
    UNKNOWN: _t(INITIALIZE, STANDALONE),
    STANDALONE: _t(INITIALIZE),
    INITIALIZE: _t(NEGOTIATE, STANDALONE, UNKNOWN),
    NEGOTIATE: _t(ACTIVE_SYNC_PREPARE, STANDBY_SYNC_PREPARE, STANDALONE, UNKNOWN),
    ACTIVE_SYNC_PREPARE: _t(ACTIVE_SYNC, STANDALONE),
    ACTIVE_SYNC: _t(ACTIVE, STANDALONE),
    ACTIVE: _t(STANDALONE, INITIALIZE),
    STANDBY_SYNC_PREPARE: _t(STANDBY_SYNC, STANDALONE),
    STANDBY_SYNC: _t(STANDBY, STANDALONE),
    STANDBY: _t(STANDALONE, INITIALIZE),
}

# timers of the connection sequence (group-wide: node "")
SEQUENCE = frozenset({"negotiate", "sync-prepare", "sync", "synced", "preferred-failover"})
# reasons for dropping copies (ledger) and for closing the channel (log)
NON_PERSISTENT_IN_TRANSIT = "non-persistent-in-transit"
OVERWRITTEN_BY_SYNC = "overwritten-by-sync"


def params(core: Kernel, group: str) -> HaParams:
    return HaParams.from_dict(core.groups[group].params)


def saved_state(node: Node) -> str:
    return node.files.get(HA_STATE_FILE, UNKNOWN)


def peer_of(core: Kernel, node: Node) -> Node:
    names = core.groups[node.group].nodes
    return core.node(node.group, names[1] if names[0] == node.name else names[0])


def channel(core: Kernel, group: str) -> str:
    """none | connecting | connected: the replication channel of the pair."""
    return str(core.groups[group].data.get("channel", "none"))


def waiting_until(core: Kernel, node: Node) -> int | None:
    """When a waiting instance gives up on negotiation (None: forever, or not waiting)."""
    due = core.groups[node.group].data.get("waiting", {}).get(node.name)
    return None if due is None else int(due)


def serving_node(core: Kernel, group: str) -> Node | None:
    return next((n for n in core.group_nodes(group) if n.proc == "up" and n.serving), None)


class SwiftMqPolicy:
    system = SYSTEM
    transitions = TRANSITIONS

    # -- processes -----------------------------------------------------------------------------------
    def on_process(self, core: Kernel, node: Node, change: str) -> None:
        if change == "start":
            self._start(core, node)
        elif change == "kill":
            self._kill(core, node)
        elif change == "hang":
            self._hang(core, node)

    def _start(self, core: Kernel, node: Node) -> None:
        saved = saved_state(node)
        data = core.groups[node.group].data
        waiting: dict[str, int | None] = data.setdefault("waiting", {})
        core.log(node, "start", saved=saved)
        if saved == STANDALONE:
            core.set_state(node, STANDALONE)
            node.serving = True
        else:
            core.set_state(node, UNKNOWN)
            if saved in (ACTIVE, STANDBY):
                timeout = params(core, node.group).negotiation_timeout_ms
                core.schedule(timeout, node, "negotiation-timeout")
                waiting[node.name] = core.now_ms + timeout
            else:
                waiting[node.name] = None
            core.log(node, "waiting", saved=saved,
                     timeout_ms=None if saved == UNKNOWN else params(core, node.group).negotiation_timeout_ms)
        self.try_connect(core, node.group)

    def _kill(self, core: Kernel, node: Node) -> None:
        was = node.state
        core.set_state(node, DOWN)
        self._stop_serving(core, node)
        core.groups[node.group].data.get("waiting", {}).pop(node.name, None)
        core.timers.cancel_where(node.group, node=node.name)
        peer = peer_of(core, node)
        if channel(core, node.group) != "none" and was != DOWN:
            if peer.proc == "up":
                self._connection_lost(core, peer, "io-exception")
            else:
                self.close_channel(core, node.group)

    def _hang(self, core: Kernel, node: Node) -> None:
        """A hung process sends no heartbeats and raises no IOException at the other side."""
        group = node.group
        core.timers.cancel_where(group, kinds=SEQUENCE)
        peer = peer_of(core, node)
        if channel(core, group) == "none" or peer.proc != "up":
            return
        self._watch(core, peer, node)

    def on_link(self, core: Kernel, link: Link) -> None:
        """A network partition: no IOException, heartbeats stop reaching either side, so each side
        closes the channel when the threshold is reached (and serves alone: split brain ahead)."""
        group = core.nodes[link.a].group
        if link.up:
            self.try_connect(core, group)
            return
        if channel(core, group) == "none":
            return
        core.timers.cancel_where(group, kinds=SEQUENCE)
        a, b = core.group_nodes(group)
        for me, other in ((a, b), (b, a)):
            if me.proc == "up":
                self._watch(core, me, other)

    def _watch(self, core: Kernel, me: Node, other: Node) -> None:
        """`me` closes the channel when the threshold of heartbeats from `other` is missing, counted
        from the last heartbeat it received (heartbeats keep the phase of the connection)."""
        group = me.group
        p = params(core, group)
        since = int(core.groups[group].data.get("connected_ms", core.now_ms))
        last_beat = since + (core.now_ms - since) // p.heartbeat_interval_ms * p.heartbeat_interval_ms
        due = last_beat + p.heartbeat_interval_ms * p.heartbeat_missing_threshold
        core.timers.schedule(max(due, core.now_ms), group, me.name, "heartbeat-missing", {"peer": other.name})

    def allows(self, kind: str, reason: str) -> bool:
        """SwiftMQ promises no persistent loss and no application-visible duplicate across a
        failover. Documented exceptions: non-persistent messages in transit may be lost; resends
        dropped by duplicate detection are the mechanism itself; what the instance made STANDBY
        took while it was STANDALONE is overwritten at sync (the split-brain procedure says to
        pick the survivor); what only a replaced instance's disk held is gone with it (the pair
        protects against one failure, not against losing the disk that held the only copy)."""
        return (kind, reason) in {(LOST, NON_PERSISTENT_IN_TRANSIT), (LOST, OVERWRITTEN_BY_SYNC),
                                  (LOST, REPLACED), (DUPLICATE_DISCARDED, "duplicate-detection")}

    def after_change(self, core: Kernel, group: str) -> list[str]:
        from .operations import reconnect

        connected = reconnect(core, group)
        self._release(core, group)
        return connected

    # -- timers --------------------------------------------------------------------------------------
    def on_timer(self, core: Kernel, timer: Timer) -> None:
        group = timer.group
        if timer.node and core.node(group, timer.node).proc != "up":
            return  # a hung or dead process does nothing
        if timer.kind == "negotiation-timeout":
            node = core.node(group, timer.node)
            if node.state == UNKNOWN:
                core.groups[group].data.get("waiting", {}).pop(node.name, None)
                core.log(node, "negotiation-timeout")
                self._go_standalone(core, node)
            return
        if timer.kind == "heartbeat-missing":
            node = core.node(group, timer.node)
            peer = core.node(group, str(timer.payload["peer"]))
            link = core.link(node.key, peer.key)
            cut = link is not None and not link.up
            unreachable = peer.proc == "hung" or cut or peer.state == ACTIVE_SYNC
            if unreachable and node.state != STANDALONE:
                self._connection_lost(core, node, "heartbeat-missing")
                if peer.proc == "up" and not cut and peer.state in FROZEN:
                    core.log(peer, "channel-closed", cause="io-exception")   # closed by the other side
                    self._go_standalone(core, peer)
            return
        if any(n.proc != "up" for n in core.group_nodes(group)):
            return
        step = {"negotiate": self._negotiate, "sync-prepare": self._sync_prepare, "sync": self._sync,
                "synced": self._synced, "preferred-failover": self._preferred_failover}[timer.kind]
        step(core, group)

    # -- the connection sequence ---------------------------------------------------------------------
    def try_connect(self, core: Kernel, group: str) -> None:
        a, b = core.group_nodes(group)
        link = core.link(a.key, b.key)
        if channel(core, group) != "none" or (link is not None and not link.up):
            return
        if not all(n.proc == "up" and n.state in (UNKNOWN, STANDALONE) for n in (a, b)):
            return
        data = core.groups[group].data
        data["channel"] = "connecting"
        data["connected_ms"] = core.now_ms
        data["before"] = {a.name: a.state, b.name: b.state}
        data["waiting"] = {}
        for n in (a, b):
            core.timers.cancel_where(group, kinds=frozenset({"negotiation-timeout"}), node=n.name)
            core.set_state(n, INITIALIZE)
        core.timers.schedule(core.now_ms + params(core, group).sync_step_ms, group, "", "negotiate")

    def _negotiate(self, core: Kernel, group: str) -> None:
        a, b = core.group_nodes(group)
        data = core.groups[group].data
        before: dict[str, str] = data.get("before", {})
        for n in (a, b):
            core.set_state(n, NEGOTIATE)
        alone = [n for n in (a, b) if before.get(n.name) == STANDALONE]
        if len(alone) == 2:
            # split brain: the instance that joined last is shut down with an exception
            late = max((a, b), key=lambda n: (n.started_ms or 0, core.groups[group].nodes.index(n.name)))
            keep = peer_of(core, late)
            core.log(late, "split-brain-shutdown", peer=keep.name)
            core.set_state(late, DOWN)
            late.proc = "down"
            self._stop_serving(core, late)
            self.close_channel(core, group)
            core.set_state(keep, STANDALONE)
            return
        pref = params(core, group).preferred_active
        if alone:
            winner = alone[0]
        elif pref in (a.name, b.name) and not data.get("keep-roles"):
            winner = core.node(group, pref)
        elif saved_state(b) == ACTIVE and saved_state(a) != ACTIVE:
            winner = b
        else:
            winner = a
        data.pop("keep-roles", None)
        loser = peer_of(core, winner)
        data["winner"] = winner.name
        if loser.serving:
            self._stop_serving(core, loser)
        core.timers.schedule(core.now_ms + params(core, group).sync_step_ms, group, "", "sync-prepare")

    def _pair(self, core: Kernel, group: str) -> tuple[Node, Node]:
        winner = core.node(group, str(core.groups[group].data["winner"]))
        return winner, peer_of(core, winner)

    def _sync_prepare(self, core: Kernel, group: str) -> None:
        winner, loser = self._pair(core, group)
        core.set_state(winner, ACTIVE_SYNC_PREPARE)
        core.set_state(loser, STANDBY_SYNC_PREPARE)
        for pool in params(core, group).freeze_order:
            core.log(winner, "pool-frozen", pool=pool)
        core.timers.schedule(core.now_ms + params(core, group).sync_step_ms, group, "", "sync")

    def _sync(self, core: Kernel, group: str) -> None:
        winner, loser = self._pair(core, group)
        core.set_state(winner, ACTIVE_SYNC)        # every pool reported its freeze
        core.set_state(loser, STANDBY_SYNC)
        p = params(core, group)
        stored = sum(rg.size(rs) for rs in core.ledger.copies.get(winner.key, {}).values())
        size_kb, packets, transfer_ms = p.store_transfer(stored)
        core.log(winner, "store-transfer", messages=stored, size_kb=size_kb, packets=packets,
                 max_packet_kb=p.max_packet_size_kb, transfer_ms=transfer_ms)
        core.timers.schedule(core.now_ms + p.sync_step_ms + transfer_ms, group, "", "synced")
        self._watch(core, loser, winner)   # the transfer holds back the ACTIVE's heartbeats

    def _synced(self, core: Kernel, group: str) -> None:
        winner, loser = self._pair(core, group)
        core.timers.cancel_where(group, kinds=frozenset({"heartbeat-missing"}))   # heartbeats flow again
        core.ledger.replace_image(winner.key, loser.key, OVERWRITTEN_BY_SYNC)
        backlogs = core.groups[group].data.setdefault("backlog", {})
        backlogs[loser.name] = {q: [list(e) for e in runs] for q, runs in backlogs.get(winner.name, {}).items()}
        self._unfreeze(core, winner)
        core.set_state(winner, ACTIVE)
        core.set_state(loser, STANDBY)
        winner.serving = True
        winner.files[HA_STATE_FILE] = ACTIVE
        loser.files[HA_STATE_FILE] = STANDBY
        data = core.groups[group].data
        data["channel"] = "connected"     # heartbeats keep the phase of the connection (connected_ms)
        self._release(core, group)         # the held JMS work runs now, replicated to the STANDBY
        p = params(core, group)
        if p.preferred_active == loser.name:
            core.log(winner, "preferred-failover", delay_ms=p.preferred_failover_delay_ms)
            core.timers.schedule(core.now_ms + p.preferred_failover_delay_ms, group, "", "preferred-failover")

    def _unfreeze(self, core: Kernel, node: Node) -> None:
        """Unfreeze the pools of a frozen instance, in the order of the list."""
        if node.state in FROZEN:
            for pool in params(core, node.group).freeze_order:
                core.log(node, "pool-unfrozen", pool=pool)

    def _release(self, core: Kernel, group: str) -> None:
        from .operations import release_held

        release_held(core, group)

    def _preferred_failover(self, core: Kernel, group: str) -> None:
        winner, loser = self._pair(core, group)
        if winner.state != ACTIVE or loser.state != STANDBY:
            return
        data = core.groups[group].data
        data["before"] = {winner.name: ACTIVE, loser.name: STANDBY}
        for n in (winner, loser):
            core.set_state(n, INITIALIZE)
        core.timers.schedule(core.now_ms + params(core, group).sync_step_ms, group, "", "negotiate")

    # -- failure -------------------------------------------------------------------------------------
    def _connection_lost(self, core: Kernel, survivor: Node, cause: str) -> None:
        group = survivor.group
        before = core.groups[group].data.get("before", {}).get(survivor.name, UNKNOWN)
        watching = [t for t in core.timers.pending() if t.group == group and t.kind == "heartbeat-missing"
                    and t.node != survivor.name]
        self.close_channel(core, group)
        for t in watching:   # the other side of a partition still waits for its own threshold
            core.timers.schedule(t.due_ms, group, t.node, t.kind, t.payload)
        core.log(survivor, "channel-closed", cause=cause)
        if survivor.state in (INITIALIZE, NEGOTIATE) and before != STANDALONE:
            core.set_state(survivor, UNKNOWN)   # never synchronised: waits again
            core.groups[group].data.setdefault("waiting", {})[survivor.name] = None
            return
        self._go_standalone(core, survivor)

    def _go_standalone(self, core: Kernel, node: Node) -> None:
        self._unfreeze(core, node)
        core.set_state(node, STANDALONE)
        node.serving = True
        node.files[HA_STATE_FILE] = STANDALONE
        self._release(core, node.group)

    def close_channel(self, core: Kernel, group: str) -> None:
        """The channel is gone without a failure (both instances are told to stop together)."""
        data = core.groups[group].data
        data["channel"] = "none"
        for key in ("winner", "before", "connected_ms", "keep-roles"):
            data.pop(key, None)
        core.timers.cancel_where(group, kinds=SEQUENCE | {"heartbeat-missing"})

    def _stop_serving(self, core: Kernel, node: Node) -> None:
        """Non-persistent messages live only in the memory of the instance that served them."""
        node.serving = False
        volatile = [(r.first, r.end) for r in core.ledger.runs if r.group == node.group and not r.persistent]
        core.ledger.drop(node.key, NON_PERSISTENT_IN_TRANSIT, only=volatile)
        for c in core.clients.values():
            if c.group == node.group and c.node == node.name:
                c.node = None


POLICY = SwiftMqPolicy()
register(POLICY)

__all__ = [
    "POLICY",
    "FROZEN",
    "SAVED_STATES",
    "STATES",
    "TRANSITIONS",
    "channel",
    "node_key",
    "params",
    "peer_of",
    "saved_state",
    "serving_node",
    "waiting_until",
]
