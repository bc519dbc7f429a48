"""What the SwiftMQ lab operations return: plain frozen dataclasses (the shell renders them)."""

from __future__ import annotations

from dataclasses import dataclass

from ..kernel import Event


@dataclass(frozen=True)
class InstanceView:
    router: str
    instance: str
    process: str               # up | down | hung
    state: str                 # native HA state, "" while down
    saved: str                 # the ha.state file, "" when there is none
    preferred: bool
    serving: bool
    waiting_until_ms: int | None   # negotiation timeout of a waiting instance
    waiting_forever: bool
    clients: tuple[str, ...]


@dataclass(frozen=True)
class RouterView:
    router: str
    channel: str               # none | connecting | connected
    instances: tuple[InstanceView, ...]
    held: int = 0              # JMS operations waiting for frozen thread pools


@dataclass(frozen=True)
class ProcessChange:
    instance: str              # ha1.A
    change: str                # started | killed | hung
    state: str                 # the instance's state right after
    saved: str                 # its ha.state
    peer: str                  # the other instance
    peer_state: str            # its state right after
    disconnected: tuple[str, ...]   # JMS clients left without a serving instance
    reconnected: tuple[str, ...]    # JMS clients that moved to (or found) a serving instance


@dataclass(frozen=True)
class InstanceReplaced:
    instance: str
    dropped: int               # stored message copies its lost disk held


@dataclass(frozen=True)
class HaFile:
    instance: str
    name: str                  # ha.state
    content: str | None        # None: no such file
    change: str                # shown | deleted | written


@dataclass(frozen=True)
class InstanceLog:
    instance: str
    events: tuple[Event, ...]


@dataclass(frozen=True)
class JmsPublish:
    client: str
    router: str
    instance: str
    queue: str
    count: int
    persistent: bool
    replicated: int
    first_id: str
    last_id: str


@dataclass(frozen=True)
class JmsResend:
    client: str
    router: str
    instance: str
    resent: int
    discarded: int
    accepted: int


@dataclass(frozen=True)
class JmsConsume:
    client: str
    router: str
    instance: str
    queue: str
    received: int
    discarded: int             # duplicates the client's own duplicate detection dropped
    first_id: str | None       # JMS message IDs of the first and last received (None: none)
    last_id: str | None


@dataclass(frozen=True)
class JmsStats:
    client: str
    router: str
    instance: str | None
    sent: int
    received: int
    duplicates_discarded: int  # by the router (resends) and by the client
    duplicates_delivered: int
    lost: int
    reconnects: int


@dataclass(frozen=True)
class LinkChange:
    router: str
    up: bool


@dataclass(frozen=True)
class JmsHeld:
    """A JMS operation that waits: the serving instance's thread pools are frozen for the
    synchronisation with the other instance; it runs when they are unfrozen."""
    client: str
    router: str
    instance: str
    state: str                 # the frozen instance's HA state
    operation: str             # publish | consume | resend
    queue: str                 # "" for resend
    count: int
    persistent: bool
    waiting: int               # operations held on the router, this one included
