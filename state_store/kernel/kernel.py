"""Kernel: the one owner of the HA lab state (groups, nodes, links, timers, log, ledger, clients).

Why: one simulated clock and one timer queue for every HA system, so time moves the same way for
all of them; each group's timers are dispatched to the policy of its system, and every state
change is checked against that policy's transition table (an illegal one is a bug, raised as
IllegalTransition, never silently applied). Changes come only through journaled operations
(``kernel.ops``) and the lab's ``advance``; `snapshot()` is plain JSON for the lab file's periodic
snapshot rows, and `restore()` gives the same kernel back.
"""

from __future__ import annotations

from typing import Any

from .audit import AuditTotals, Finding, audit
from .failures import LINK_FAILURES, PROCESS_CHANGE, REPLACED, Failure
from .ledger import Ledger
from .model import Client, Event, Group, JsonValue, Link, Node, node_key
from .policy import Policy, policy_for
from .timers import TimerQueue

SNAPSHOT_VERSION = 2   # 1: one ledger record per message (still read)


class IllegalTransition(RuntimeError):
    def __init__(self, node: str, old: str, new: str) -> None:
        super().__init__(f"{node}: {old or 'down'} -> {new or 'down'} is not a legal transition")


class Kernel:
    def __init__(self, now_ms: int = 0) -> None:
        self.now_ms = now_ms
        self.groups: dict[str, Group] = {}
        self.nodes: dict[str, Node] = {}
        self.links: list[Link] = []
        self.timers = TimerQueue()
        self.events: list[Event] = []
        self.ledger = Ledger()
        self.clients: dict[str, Client] = {}

    # -- shape ---------------------------------------------------------------------------------------
    def add_group(self, group: Group) -> None:
        self.groups[group.name] = group

    def add_node(self, node: Node) -> None:
        self.nodes[node.key] = node

    def policy(self, group: str) -> Policy:
        return policy_for(self.groups[group].system)

    def node(self, group: str, name: str) -> Node:
        return self.nodes[node_key(group, name)]

    def group_nodes(self, group: str) -> list[Node]:
        return [self.node(group, n) for n in self.groups[group].nodes]

    def link_all(self, group: str) -> None:
        """Join every two nodes of the group by a link that is up, in node order: every system's
        nodes reach each other on one network until a failure cuts it."""
        keys = [node_key(group, n) for n in self.groups[group].nodes]
        for i, a in enumerate(keys):
            self.links += [Link(a, b, True) for b in keys[i + 1:]]

    def link(self, a: str, b: str) -> Link | None:
        return next((lk for lk in self.links if {lk.a, lk.b} == {a, b}), None)

    # -- changes -------------------------------------------------------------------------------------
    def log(self, node: Node, code: str, **params: JsonValue) -> None:
        self.events.append(Event(self.now_ms, node.group, node.name, code, dict(params)))

    def set_state(self, node: Node, new: str, **params: JsonValue) -> None:
        """Change a node's native state, checked against its policy; logged as event `state`."""
        old = node.state
        if new == old:
            return
        if new not in self.policy(node.group).transitions.get(old, frozenset()):
            raise IllegalTransition(node.key, old, new)
        node.state = new
        self.log(node, "state", old=old, new=new, **params)

    def set_process(self, node: Node, change: str) -> None:
        """start | kill | hang a node's process, then let its policy react."""
        node.proc = {"start": "up", "kill": "down", "hang": "hung"}[change]  # type: ignore[assignment]
        if change == "start":
            node.started_ms = self.now_ms
        self.policy(node.group).on_process(self, node, change)

    def fail(self, failure: Failure, node: Node | None = None, link: Link | None = None) -> None:
        """Apply one failure of the shared vocabulary (``kernel.failures``): the neutral part here,
        the reaction in the group's policy. ``replace`` (a stopped node's disk lost) empties the
        node's files and copies; the system's operation decides when it may happen."""
        if failure in LINK_FAILURES:
            assert link is not None
            self.set_link(link, failure == "heal")
            return
        assert node is not None
        if failure == "replace":
            node.files.clear()
            self.ledger.drop(node.key, REPLACED)
            return
        self.set_process(node, PROCESS_CHANGE[failure])

    def set_link(self, link: Link, up: bool) -> None:
        """Cut or restore a link; the policy of the group its nodes belong to reacts."""
        link.up = up
        self.policy(self.nodes[link.a].group).on_link(self, link)

    def after_change(self) -> list[str]:
        """Let every policy settle its groups after a change or an advance (clients reconnect);
        returns the clients that connected, by name."""
        out: list[str] = []
        for group in self.groups.values():
            out += self.policy(group.name).after_change(self, group.name)
        return out

    def schedule(self, delay_ms: int, node: Node, kind: str, **payload: JsonValue) -> int:
        return self.timers.schedule(self.now_ms + delay_ms, node.group, node.name, kind, dict(payload))

    def advance_to(self, to_ms: int, from_ms: int | None = None) -> list[str]:
        """Run every timer due by `to_ms` in (due, sequence) order, each with the clock at its due
        time (not before ``from_ms``, where the advance started: the lab may have moved the clock
        to `to_ms` already for its own work), then set the clock to `to_ms`; returns the clients
        that (re)connected."""
        clock = self.now_ms if from_ms is None else from_ms
        for timer in self.timers.pop_due(to_ms):
            clock = max(clock, timer.due_ms)
            self.now_ms = clock
            self.policy(timer.group).on_timer(self, timer)
        self.now_ms = max(clock, to_ms)
        return self.after_change()

    def serving(self) -> frozenset[str]:
        """The node keys that serve clients now."""
        return frozenset(n.key for n in self.nodes.values() if n.proc == "up" and n.serving)

    def audit(self, group: str | None = None, client: str | None = None) -> tuple[AuditTotals, tuple[Finding, ...]]:
        return audit(self.ledger, lambda g, outcome, reason: self.policy(g).allows(outcome, reason), self.serving(),
                     group, client)

    # -- snapshot ------------------------------------------------------------------------------------
    def snapshot(self) -> dict[str, Any]:
        return {
            "version": SNAPSHOT_VERSION,
            "now_ms": self.now_ms,
            "groups": [[g.name, g.system, g.nodes, g.params, g.data] for g in self.groups.values()],
            "nodes": [[n.group, n.name, n.proc, n.state, n.files, n.started_ms, n.preferred, n.serving]
                      for n in self.nodes.values()],
            "links": [[lk.a, lk.b, lk.up] for lk in self.links],
            "timers": self.timers.snapshot(),
            "events": [[e.at_ms, e.group, e.node, e.code, e.params] for e in self.events],
            "ledger": self.ledger.snapshot(),
            "clients": [[c.name, c.group, c.node, c.next_seq, c.reconnects, [list(r) for r in c.last_sent],
                         c.connected_once]
                        for c in self.clients.values()],
        }

    @classmethod
    def restore(cls, data: dict[str, Any]) -> Kernel:
        version = data.get("version")
        if version not in (1, SNAPSHOT_VERSION):
            raise ValueError(f"HA kernel snapshot version {version!r}, expected {SNAPSHOT_VERSION}")
        core = cls(int(data["now_ms"]))
        for name, system, nodes, params, gdata in data["groups"]:
            core.add_group(Group(name, system, list(nodes), dict(params), dict(gdata)))
        for group, name, proc, state, files, started, preferred, serving in data["nodes"]:
            core.add_node(Node(group, name, proc, state, dict(files), started, bool(preferred), bool(serving)))
        core.links = [Link(a, b, bool(up)) for a, b, up in data["links"]]
        core.timers = TimerQueue.restore(data["timers"])
        core.events = [Event(int(at), g, n, code, dict(p)) for at, g, n, code, p in data["events"]]
        restore = Ledger.restore if version == SNAPSHOT_VERSION else Ledger.restore_v1
        core.ledger = restore(data["ledger"])
        for name, group, node, seq, reconnects, last, once in data["clients"]:
            sent = ([(int(a), int(b)) for a, b in last] if version == SNAPSHOT_VERSION
                    else [(int(i), int(i) + 1) for i in last])
            core.clients[name] = Client(name, group, node, int(seq), int(reconnects), bool(once), sent)
        return core
