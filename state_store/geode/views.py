"""What the Geode lab operations and reads return: plain frozen dataclasses (the shell renders them)."""

from __future__ import annotations

from dataclasses import dataclass

from ..kernel import Event


@dataclass(frozen=True)
class ServerView:
    name: str
    process: str               # up | down | hung
    member: str                # member id ("" before its first start)
    cache_port: int
    primaries: int             # pools whose primary queue it hosts
    secondaries: int
    queued: int                # events held in its queues
    events_queued: int         # ClientSubscriptionStats
    events_removed: int
    events_removed_by_qrm: int
    events_expired: int
    message_sync_interval_s: int
    message_time_to_live_s: int


@dataclass(frozen=True)
class PoolView:
    client: str
    client_id: str
    subscribed: bool
    connected: bool
    ready: bool
    durable: str               # durable-client-id, "" for none
    redundancy: int
    primary: str | None
    secondaries: tuple[str, ...]
    queues: tuple[tuple[str, int], ...]   # (server, events held) primary first
    unacked: int
    interest: tuple[str, ...]


@dataclass(frozen=True)
class ClusterView:
    cluster: str
    now_ms: int
    locator: str
    locator_id: str
    servers: tuple[ServerView, ...]
    pools: tuple[PoolView, ...]


@dataclass(frozen=True)
class ServerChange:
    member: str                # g1.s1
    change: str                # started | killed | hung | stopped
    moves: tuple[tuple[str, str, str], ...]   # (client, primary after, secondaries after as a,b or -)


@dataclass(frozen=True)
class LinkChange:
    cluster: str
    up: bool


@dataclass(frozen=True)
class QrmDrop:
    source: str
    target: str


@dataclass(frozen=True)
class ClientChange:
    client: str
    change: str                # connected | disconnected | kept | ready | interest | acked
    primary: str | None
    secondaries: tuple[str, ...]
    pending: int | None        # a durable client's pending events at reconnect (-1: queue timed out)
    count: int                 # events replayed / acked / entries registered


@dataclass(frozen=True)
class PutResult:
    client: str
    region: str
    count: int
    first_id: str
    last_id: str
    subscribers: tuple[str, ...]
    dispatched: int


@dataclass(frozen=True)
class ClientStats:
    client: str
    connected: bool
    primary: str | None
    received: int
    resent: int
    duplicates_discarded: int  # numSequenceViolated
    duplicates_delivered: int
    lost: int
    queued: int                # on its primary, not yet received
    reinitialised: int
    refetched: int
    pending: int | None


@dataclass(frozen=True)
class ClientLog:
    client: str
    events: tuple[Event, ...]


@dataclass(frozen=True)
class ServerLog:
    member: str
    events: tuple[Event, ...]


@dataclass(frozen=True)
class RuntimeAltered:
    members: tuple[str, ...]   # member ids


@dataclass(frozen=True)
class ServerStartStop:
    name: str
    member: str
    started: bool
    pid: int
    cache_port: int
