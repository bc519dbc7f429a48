"""The Qpid C++ broker's HA module (active/passive, hot standby) as a policy of the kernel.

Documented behaviour (the ha module's README, the broker book's HA chapter, the code's status
table) and the lab's inferences:
- Statuses joining, catchup, ready, recovering, active, standalone; the legal changes are exactly
  the code's table (``CHECKED``). Any other change shuts the broker down, logging
  ``Illegal state transition: <from> -> <to>``.
- A broker starts standalone and goes joining; nothing promotes by itself. A backup connects to the
  primary at its next link-maintenance tick (joining -> catchup), wipes its store, catches up
  (``catchup_ms``, lab choice) and becomes ready (``Backup is ready``).
- Promotion (by the resource manager or ``qpid-ha --cluster-manager promote``): a ready backup, or a
  joining broker whose status check found no established cluster, becomes recovering; it delays
  acknowledgement on behalf of every *expected* backup (those ready under the old primary) until
  each has failed over (queue-snapshot handshake) or ``ha_backup_timeout_ms`` passes (then
  ``Recovering backup timed out``, the backup demoted ready -> catchup), then goes active.
- Delayed completion: an enqueue to a queue replicated ``all`` completes when every backup
  subscribed to the primary (catching up or ready: a QueueGuard is set when a backup first
  subscribes) has it; a hung (stalled) backup blocks completion until the primary drops it, 2 x
  ``link_heartbeat_interval_ms`` after its last heartbeat. A dequeue completes what a guard still
  held, so a consumed message is never resent as in doubt.
- Clients retry their address list; backups reject them; in-doubt messages are resent to the new
  primary (duplicates: exactly those it already held).
- The resource manager (``manager``): off, on (one quorate manager: promotes a ready backup of the
  majority side, stops a primary cut off in a minority) or split (misconfigured: one manager per
  side of a partition, each promotes: two primaries). Inferred: when a partition heals with two
  primaries, the one with fewer connected backups (on a tie: the one promoted first) is told it is
  a backup and shuts down (active is terminal).
"""

from __future__ import annotations

import uuid
from collections.abc import Mapping
from typing import Any

from ..kernel import Kernel, Link, Node, Timer, register
from ..kernel import ranges as rg
from ..kernel.audit import DUPLICATE_DELIVERED, LOST
from ..kernel.failures import REPLACED
from .params import PORT, SYSTEM, QpidParams

JOINING, CATCHUP, READY = "joining", "catchup", "ready"
RECOVERING, ACTIVE, STANDALONE = "recovering", "active", "standalone"
DOWN = ""
STATUSES = (JOINING, CATCHUP, READY, RECOVERING, ACTIVE, STANDALONE)
PRIMARY = frozenset({RECOVERING, ACTIVE, STANDALONE})
# Membership::checkTransition: the only legal changes of a running broker
CHECKED: frozenset[tuple[str, str]] = frozenset({
    (STANDALONE, JOINING), (JOINING, CATCHUP), (JOINING, RECOVERING), (CATCHUP, READY),
    (READY, RECOVERING), (READY, CATCHUP), (RECOVERING, ACTIVE)})


def _t(*states: str) -> frozenset[str]:
    return frozenset(states + (DOWN,))


# what the kernel accepts: the checked table, start-up (down -> standalone) and shutdown (-> down)
TRANSITIONS: Mapping[str, frozenset[str]] = {
    DOWN: frozenset({STANDALONE}),
    STANDALONE: _t(JOINING),
    JOINING: _t(CATCHUP, RECOVERING),
    CATCHUP: _t(READY),
    READY: _t(RECOVERING, CATCHUP),
    RECOVERING: _t(ACTIVE),
    ACTIVE: _t(),
}

# ledger reasons
BROKER_STOPPED = "broker-stopped"            # in memory only (transient, or a queue not durable)
STORE_WIPED = "backup-store-wiped"           # a joining backup discards its store
BACKUP_DISCARDED = "backup-discarded"        # queue-snapshot handshake: not on the primary
SPLIT_BRAIN = "split-brain"                  # taken by a second primary that shut down


def params(core: Kernel, group: str) -> QpidParams:
    return QpidParams.from_dict(core.groups[group].params)


def data(core: Kernel, group: str) -> dict[str, Any]:
    return core.groups[group].data


def system_id(node: Node) -> str:
    """The broker's system ID (deterministic per cluster and broker name)."""
    return str(uuid.uuid5(uuid.NAMESPACE_DNS, f"{node.group}.{node.name}.qpid"))


def short_id(node: Node) -> str:
    return system_id(node)[:8]


def address(name: str) -> str:
    return f"{name}:{PORT}"


def brokers_url(core: Kernel, group: str) -> str:
    return "amqp:" + ",".join(f"tcp:{address(n)}" for n in core.groups[group].nodes)


def is_primary(node: Node) -> bool:
    return node.proc == "up" and node.state in PRIMARY and node.state != STANDALONE


def alive(node: Node) -> bool:
    return node.proc == "up"


def queue_level(core: Kernel, group: str, queue: str) -> str:
    q = data(core, group)["queues"][queue]
    return str(q.get("replicate") or params(core, group).ha_replicate)


# exchanges every broker has; bindings to them are never replicated
BUILT_IN_EXCHANGES = ("", "amq.direct", "amq.topic", "amq.fanout", "amq.match", "qpid.management")


def exchange_level(core: Kernel, group: str, exchange: str) -> str:
    found = data(core, group).get("exchanges", {}).get(exchange, {})
    return str(found.get("replicate") or params(core, group).ha_replicate)


def exchange_on(core: Kernel, node: Node, exchange: str) -> bool:
    if exchange in BUILT_IN_EXCHANGES:
        return True
    found = data(core, node.group).get("exchanges", {}).get(exchange)
    if found is None:
        return False
    return exchange_level(core, node.group, exchange) != "none" or found.get("home") == node.name


def bindings_on(core: Kernel, node: Node, queue: str) -> list[tuple[str, str]]:
    """(exchange, key) of the queue's bindings on this broker: a binding to a built-in exchange
    lives only where it was made; one to a replicated exchange reaches every broker."""
    out: list[tuple[str, str]] = []
    for exchange, q, key, home in data(core, node.group).get("bindings", []):
        if q != queue or not queue_on(core, node, queue) or not exchange_on(core, node, exchange):
            continue
        if exchange in BUILT_IN_EXCHANGES or exchange_level(core, node.group, exchange) == "none":
            if home != node.name:
                continue
        out.append((str(exchange), str(key)))
    return out


def replicated(core: Kernel, group: str, queue: str) -> bool:
    return queue_level(core, group, queue) == "all"


def queue_on(core: Kernel, node: Node, queue: str) -> bool:
    """Does the queue exist on this broker: replicated configuration reaches every broker, an
    unreplicated queue lives where it was declared."""
    q = data(core, node.group)["queues"].get(queue)
    if q is None:
        return False
    return (queue_level(core, node.group, queue) != "none" or q.get("home") == node.name
            or node.name in q.get("also", ()))


def reachable(core: Kernel, a: Node, b: Node) -> bool:
    link = core.link(a.key, b.key)
    return link is None or link.up


def primaries(core: Kernel, group: str) -> list[Node]:
    return [n for n in core.group_nodes(group) if is_primary(n)]


def copies(core: Kernel, group: str) -> tuple[int, ...]:
    """The cluster's replicated queues as one unit of client work: while a primary runs, it and
    its ready backups hold them (1 + ready backups); no primary, no unit served."""
    nodes = core.group_nodes(group)
    if not any(n.proc == "up" and is_primary(n) for n in nodes):
        return ()
    return (1 + sum(1 for n in nodes if n.proc == "up" and n.state == READY),)


def upstream(core: Kernel, node: Node) -> Node | None:
    name = data(core, node.group)["upstream"].get(node.name)
    return None if name is None else core.node(node.group, name)


def ready_set(core: Kernel, group: str) -> list[str]:
    found: list[str] = data(core, group)["ready"]
    return found


class QpidPolicy:
    system = SYSTEM
    transitions = TRANSITIONS

    # -- status --------------------------------------------------------------------------------------
    def status(self, core: Kernel, node: Node, new: str) -> bool:
        """Change a running broker's status through the code's check; an illegal change shuts it
        down (logged). Returns whether the change happened."""
        old = node.state
        if old == new:
            return True
        if (old, new) not in CHECKED:
            core.log(node, "illegal", old=old, new=new)
            self.shutdown(core, node)
            return False
        core.log(node, "status", old=old, new=new, id=short_id(node))
        core.set_state(node, new)
        if new == READY:
            core.log(node, "backup-ready", id=short_id(node))
        return True

    def shutdown(self, core: Kernel, node: Node) -> None:
        node.proc = "down"
        self._stopped(core, node)

    # -- processes -----------------------------------------------------------------------------------
    def on_process(self, core: Kernel, node: Node, change: str) -> None:
        if change == "start":
            self._start(core, node)
        elif change == "kill":
            self._stopped(core, node)
        elif change == "hang":
            self._hung(core, node)

    def _start(self, core: Kernel, node: Node) -> None:
        d = data(core, node.group)
        core.set_state(node, STANDALONE)
        core.log(node, "start", id=short_id(node))
        if not params(core, node.group).ha_cluster:
            node.serving = True
            return
        self.status(core, node, JOINING)
        if node.name in d["ready"]:   # no longer ready: it will not be an expected backup
            d["ready"].remove(node.name)
        # the status check: is there an established cluster (a primary) to join?
        d["saw_primary"][node.name] = any(is_primary(n) and reachable(core, n, node)
                                          for n in core.group_nodes(node.group) if n is not node)
        d["upstream"][node.name] = None
        self.schedule_link_check(core, node)

    def _stopped(self, core: Kernel, node: Node) -> None:
        """The process is gone: memory lost (durable queues' persistent copies stay on disk)."""
        d = data(core, node.group)
        was_primary = node.state in PRIMARY
        top = upstream(core, node)
        if not was_primary and top is not None and top.proc == "up" and node.name in d["ready"]:
            d["ready"].remove(node.name)      # its primary sees it go: no longer an expected backup
        core.set_state(node, DOWN)
        node.serving = False
        core.timers.cancel_where(node.group, node=node.name)
        volatile = [(r.first, r.end) for r in core.ledger.runs
                    if r.group == node.group and not r.persistent]
        core.ledger.drop(node.key, BROKER_STOPPED, only=volatile)
        d["upstream"][node.name] = None
        d["expected"].pop(node.name, None)
        if was_primary:
            for other in core.group_nodes(node.group):
                if d["upstream"].get(other.name) == node.name:
                    d["upstream"][other.name] = None
                    if alive(other):
                        self.schedule_link_check(core, other)
        for c in core.clients.values():
            if c.group == node.group and c.node == node.name:
                c.node = None

    def _hung(self, core: Kernel, node: Node) -> None:
        """A hung broker answers nothing but keeps its sockets: its peers notice only when its
        heartbeats have been missing for 2 x link-heartbeat-interval."""
        p = params(core, node.group)
        core.timers.cancel_where(node.group, node=node.name)
        due = core.now_ms + 2 * p.link_heartbeat_interval_ms
        core.timers.schedule(due, node.group, "", "heartbeat-missing", {"broker": node.name})

    # -- links ---------------------------------------------------------------------------------------
    def on_link(self, core: Kernel, link: Link) -> None:
        a, b = core.nodes[link.a], core.nodes[link.b]
        d = data(core, a.group)
        if not link.up:
            for me, other in ((a, b), (b, a)):
                if d["upstream"].get(me.name) == other.name:   # a backup lost its primary
                    d["upstream"][me.name] = None
                    if me.name in d["ready"] and is_primary(other):
                        d["ready"].remove(me.name)
                    if alive(me):
                        self.schedule_link_check(core, me)
            return
        self.resolve_primaries(core, a.group)

    def resolve_primaries(self, core: Kernel, group: str) -> None:
        """Two primaries that can reach each other: the one with fewer connected backups (on a tie
        the one promoted first) is told it is a backup and shuts down (active is terminal)."""
        d = data(core, group)
        d.setdefault("promoted_at", {})
        tops = primaries(core, group)
        for i, p1 in enumerate(tops):
            for p2 in tops[i + 1:]:
                if not (alive(p1) and alive(p2) and reachable(core, p1, p2)):
                    continue
                rank = {n.name: (sum(1 for up in d["upstream"].values() if up == n.name),
                                 int(d["promoted_at"].get(n.name, 0))) for n in (p1, p2)}
                loser = p2 if rank[p1.name] > rank[p2.name] else p1
                held = [r for qs in core.ledger.copies.get(loser.key, {}).values() for r in qs]
                others = [r for n in core.group_nodes(group) if n is not loser
                          for qs in core.ledger.copies.get(n.key, {}).values() for r in qs]
                d.setdefault("split_brain", {})[loser.name] = [list(r) for r in rg.subtract(held, others)]
                core.log(loser, "illegal", old=loser.state, new=JOINING)
                self.shutdown(core, loser)
                core.ledger.note_gone(held, SPLIT_BRAIN)

    # -- backups -------------------------------------------------------------------------------------
    def schedule_link_check(self, core: Kernel, node: Node) -> None:
        """The backup's next link-maintenance tick (phase: its start)."""
        p = params(core, node.group)
        step = p.link_maintenance_interval_ms
        since = node.started_ms or 0
        due = since + ((core.now_ms - since) // step + 1) * step
        core.timers.cancel_where(node.group, kinds=frozenset({"link-check"}), node=node.name)
        core.timers.schedule(due, node.group, node.name, "link-check")

    def _link_check(self, core: Kernel, node: Node) -> None:
        d = data(core, node.group)
        if d["upstream"].get(node.name) is not None or node.state in PRIMARY:
            return
        top = next((n for n in core.group_nodes(node.group)
                    if is_primary(n) and n is not node and reachable(core, n, node)), None)
        if top is None:
            self.schedule_link_check(core, node)
            return
        self.connect(core, node, top)

    def connect(self, core: Kernel, node: Node, top: Node) -> None:
        d = data(core, node.group)
        d["upstream"][node.name] = top.name
        d["saw_primary"][node.name] = True
        core.log(node, "connected", primary=address(top.name), id=short_id(node), status=node.state)
        expected = d["expected"].get(top.name, [])
        if node.state == JOINING:
            if not self.status(core, node, CATCHUP):
                return
            wiped = [r for qs in core.ledger.copies.get(node.key, {}).values() for r in qs]
            split = [(int(a), int(b)) for a, b in d.get("split_brain", {}).pop(node.name, [])]
            if split:    # what it took as a second primary: gone with its store
                core.ledger.drop(node.key, SPLIT_BRAIN, only=split)
            core.ledger.drop(node.key, STORE_WIPED)
            if wiped:
                core.log(node, "store-wiped", count=rg.size(wiped), id=short_id(node))
            self._catch_up(core, node)
        elif node.state == CATCHUP:
            self._catch_up(core, node)
        elif node.state == READY and node.name in expected:
            self.handshake(core, node, top)
            expected.remove(node.name)
            if node.name not in d["ready"]:
                d["ready"].append(node.name)
            self.check_recovered(core, top)
        elif node.state == READY and top.state == ACTIVE and node.name in d["ready"]:
            self.handshake(core, node, top)
        elif node.state == READY:
            if node.name in d["ready"]:
                d["ready"].remove(node.name)
            if self.status(core, node, CATCHUP):
                self._catch_up(core, node)

    def _catch_up(self, core: Kernel, node: Node) -> None:
        core.schedule(params(core, node.group).catchup_ms, node, "caught-up")

    def _caught_up(self, core: Kernel, node: Node) -> None:
        top = upstream(core, node)
        if node.state != CATCHUP or top is None or not alive(top):
            return
        self.handshake(core, node, top)
        if self.status(core, node, READY):
            if node.name not in ready_set(core, node.group):
                ready_set(core, node.group).append(node.name)

    def handshake(self, core: Kernel, backup: Node, top: Node) -> None:
        """The queue-snapshot exchange: messages already on the backup are not sent again, those the
        primary no longer has are discarded by the backup, the rest is replicated."""
        for queue in sorted(data(core, backup.group)["queues"]):
            if not replicated(core, backup.group, queue):
                continue
            mine = list(core.ledger.held(backup.key, queue))
            theirs = list(core.ledger.held(top.key, queue))
            kept = rg.size(rg.intersect(mine, theirs))
            gone = rg.subtract(mine, theirs)
            if gone:
                core.ledger.drop(backup.key, BACKUP_DISCARDED, only=gone)
            core.ledger.copies.setdefault(backup.key, {})[queue] = list(theirs)
            sent = rg.size(rg.subtract(theirs, mine))
            if mine or theirs:
                core.log(backup, "snapshot", queue=queue, kept=kept, discarded=rg.size(gone), sent=sent,
                         id=short_id(backup), status=backup.state)

    # -- primary -------------------------------------------------------------------------------------
    def promote(self, core: Kernel, node: Node) -> str:
        """Backup::promote. Returns "" when promoted or ignored, else the refusal text."""
        d = data(core, node.group)
        if node.state in PRIMARY:
            core.log(node, "ignoring-promotion", id=short_id(node), status=node.state)
            return ""
        if node.state == CATCHUP:
            return "Still catching up, cannot be promoted."
        if node.state == JOINING and d["saw_primary"].get(node.name):
            return "Joining active cluster, cannot be promoted."
        expected = [n for n in d["ready"] if n != node.name] if node.state == READY else []
        if not self.status(core, node, RECOVERING):
            return ""
        d["upstream"][node.name] = None
        d["had_primary"] = True
        d.setdefault("promoted_at", {})[node.name] = core.now_ms
        d["ready"] = []
        d["expected"][node.name] = list(expected)
        core.timers.cancel_where(node.group, kinds=frozenset({"link-check", "caught-up"}), node=node.name)
        core.log(node, "promoted", id=short_id(node), status=node.state)
        core.log(node, "recovering-backups", backups=[address(n) for n in expected], id=short_id(node),
                 status=node.state)
        node.serving = True
        for other in core.group_nodes(node.group):   # the other backups fail over to it
            if other is not node and alive(other) and other.state not in PRIMARY:
                d["upstream"][other.name] = None
                self.schedule_link_check(core, other)
        if expected:
            core.schedule(params(core, node.group).ha_backup_timeout_ms, node, "backup-timeout")
        self.check_recovered(core, node)
        return ""

    def check_recovered(self, core: Kernel, top: Node) -> None:
        if top.state == RECOVERING and not data(core, top.group)["expected"].get(top.name):
            core.log(top, "all-recovered", id=short_id(top), status=top.state)
            core.timers.cancel_where(top.group, kinds=frozenset({"backup-timeout"}), node=top.name)
            self.status(core, top, ACTIVE)

    def _backup_timeout(self, core: Kernel, top: Node) -> None:
        d = data(core, top.group)
        if top.state != RECOVERING:
            return
        for name in d["expected"].get(top.name, []):
            core.log(top, "backup-timed-out", backup=address(name), id=short_id(top), status=top.state)
            late = core.node(top.group, name)
            if alive(late) and late.state == READY:
                if self.status(core, late, CATCHUP) and d["upstream"].get(name) == top.name:
                    self._catch_up(core, late)
        d["expected"][top.name] = []
        self.status(core, top, ACTIVE)

    # -- the resource manager --------------------------------------------------------------------------
    def start_manager(self, core: Kernel, group: str) -> None:
        core.timers.cancel_where(group, kinds=frozenset({"manager-poll"}))
        p = params(core, group)
        if p.manager != "off":
            core.timers.schedule(core.now_ms + p.manager_poll_ms, group, "", "manager-poll")

    def sides(self, core: Kernel, group: str) -> list[list[Node]]:
        """The brokers' machines grouped by the network (a partition splits them)."""
        left = core.group_nodes(group)
        out: list[list[Node]] = []
        while left:
            side = [left.pop(0)]
            grew = True
            while grew:
                grew = False
                for n in list(left):
                    if any(reachable(core, n, m) for m in side):
                        side.append(n)
                        left.remove(n)
                        grew = True
            out.append(side)
        return out

    def _manager_poll(self, core: Kernel, group: str) -> None:
        p = params(core, group)
        total = len(core.groups[group].nodes)
        for side in self.sides(core, group):
            quorate = 2 * len(side) > total
            if p.manager == "on" and not quorate:
                for n in side:
                    if is_primary(n):
                        core.log(n, "manager-stop", id=short_id(n), status=n.state)
                        self.shutdown(core, n)
                continue
            self._manage(core, group, side)
        self.start_manager(core, group)

    def _manage(self, core: Kernel, group: str, side: list[Node]) -> None:
        d = data(core, group)
        live = [n for n in side if n.proc == "up"]
        if any(is_primary(n) for n in live):
            return
        ready = [n for n in live if n.state == READY]
        if ready:
            core.log(ready[0], "manager-promote", id=short_id(ready[0]), status=ready[0].state)
            self.promote(core, ready[0])
            return
        joining = [n for n in live if n.state == JOINING and not d["saw_primary"].get(n.name)]
        if joining and len(joining) == len(live) and not d.get("had_primary"):
            core.log(joining[0], "manager-promote", id=short_id(joining[0]), status=joining[0].state)
            self.promote(core, joining[0])

    # -- kernel hooks --------------------------------------------------------------------------------
    def on_timer(self, core: Kernel, timer: Timer) -> None:
        group = timer.group
        if timer.kind == "manager-poll":
            self._manager_poll(core, group)
            return
        if timer.kind == "heartbeat-missing":
            self._heartbeat_missing(core, core.node(group, str(timer.payload["broker"])))
            return
        node = core.node(group, timer.node)
        if node.proc != "up":
            return
        if timer.kind == "link-check":
            self._link_check(core, node)
        elif timer.kind == "caught-up":
            self._caught_up(core, node)
        elif timer.kind == "backup-timeout":
            self._backup_timeout(core, node)

    def _heartbeat_missing(self, core: Kernel, hung: Node) -> None:
        """2 x link-heartbeat-interval without a heartbeat from a hung broker: its peers close the
        connection (a primary drops the stalled backup; backups lose a hung primary)."""
        if hung.proc != "hung":
            return
        d = data(core, hung.group)
        top = upstream(core, hung)
        if top is not None:
            core.log(top, "backup-disconnected", backup=address(hung.name), id=short_id(top), status=top.state)
            d["upstream"][hung.name] = None
            if hung.name in d["ready"]:
                d["ready"].remove(hung.name)
        for other in core.group_nodes(hung.group):
            if d["upstream"].get(other.name) == hung.name:
                d["upstream"][other.name] = None
                self.schedule_link_check(core, other)
        if params(core, hung.group).client_heartbeat_ms:   # clients notice only with heartbeats on
            for c in core.clients.values():
                if c.group == hung.group and c.node == hung.name:
                    c.node = None

    def allows(self, outcome: str, reason: str) -> bool:
        """At-least-once: duplicates are the documented price; losses are documented only for what
        no ready backup held (a queue not replicated, memory of stopped brokers, stores wiped by
        joining backups, what the backup discards at failover, a replaced disk). What a second
        primary took during a split brain is a violation: two primaries are the operator's fault."""
        if outcome == DUPLICATE_DELIVERED:
            return True
        return outcome == LOST and reason in {BROKER_STOPPED, STORE_WIPED, BACKUP_DISCARDED, REPLACED}

    def after_change(self, core: Kernel, group: str) -> list[str]:
        from .operations import settle

        return settle(core, group)


POLICY = QpidPolicy()
register(POLICY)
