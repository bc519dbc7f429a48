"""The HA-system-neutral objects of the lab: groups, nodes, links, clients and the event log.

Why: every HA system of the lab (SwiftMQ router pairs; Geode, Qpid and a Solace HA pair next) is a
group of nodes joined by links, whose processes are started, killed or hang, and which keep some
state on disk (SwiftMQ's `ha.state`). Plain dataclasses, no SQL and no display text: the log holds
event codes with parameters, which the system's shell part renders.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Literal

from .ranges import Range

JsonValue = Any  # what a JSON document may hold (str, int, bool, None, lists, dicts)
Process = Literal["up", "down", "hung"]
PROCESSES: tuple[str, ...] = ("up", "down", "hung")


def node_key(group: str, name: str) -> str:
    """The lab-wide name of a node: `<group>.<node>` (`ha1.A`)."""
    return f"{group}.{name}"


@dataclass
class Group:
    name: str
    system: str                                   # the registered system whose policy owns it
    nodes: list[str]                              # node names in scenario order
    params: dict[str, JsonValue] = field(default_factory=dict)
    data: dict[str, JsonValue] = field(default_factory=dict)   # the policy's own group state


@dataclass
class Node:
    group: str
    name: str
    proc: Process = "down"
    state: str = ""                               # native state string ("" while down)
    files: dict[str, str] = field(default_factory=dict)        # persisted files, e.g. ha.state
    started_ms: int | None = None
    preferred: bool = False
    serving: bool = False                         # accepts client work now

    @property
    def key(self) -> str:
        return node_key(self.group, self.name)


@dataclass
class Link:
    a: str                                        # node keys
    b: str
    up: bool = True


@dataclass(frozen=True)
class Event:
    """One line of a node's log, as a code and parameters (rendered by the shell)."""

    at_ms: int
    group: str
    node: str                                     # node name within the group
    code: str
    params: dict[str, JsonValue] = field(default_factory=dict)


@dataclass
class Client:
    name: str
    group: str
    node: str | None = None                       # connected node name, None while reconnecting
    next_seq: int = 1                             # next origin sequence number (JMS message IDs)
    reconnects: int = 0
    connected_once: bool = False
    last_sent: list[Range] = field(default_factory=list)   # ledger ids of the last publish
