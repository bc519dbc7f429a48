"""What the Qpid lab operations return: plain frozen dataclasses (the shell renders them)."""

from __future__ import annotations

from dataclasses import dataclass

from ..kernel import Event


@dataclass(frozen=True)
class BrokerView:
    cluster: str
    broker: str
    process: str               # up | down | hung
    status: str                # "" while down
    upstream: str              # the primary a backup replicates from, "" for none
    isolated: bool
    clients: tuple[str, ...]


@dataclass(frozen=True)
class ClusterView:
    cluster: str
    now_ms: int
    manager: str
    brokers: tuple[BrokerView, ...]


@dataclass(frozen=True)
class BrokerChange:
    broker: str
    change: str                # started | killed | hung | replaced | isolated | reconnected
    status: str


@dataclass(frozen=True)
class ManagerChange:
    cluster: str
    mode: str
    poll_ms: int


@dataclass(frozen=True)
class BrokerLog:
    broker: str
    events: tuple[Event, ...]


@dataclass(frozen=True)
class ToolResult:
    """What a tool printed and its exit status."""

    lines: tuple[str, ...]
    status: int


@dataclass(frozen=True)
class ClientConnect:
    client: str
    tried: tuple[tuple[str, str], ...]    # (address, outcome): rejected | refused | connected
    node: str | None


@dataclass(frozen=True)
class ClientPublish:
    client: str
    broker: str
    queue: str
    count: int
    acked: int
    in_doubt: int
    blocked: str               # "" | recovering | stalled-backup | unsettled


@dataclass(frozen=True)
class ClientConsume:
    client: str
    broker: str
    queue: str
    received: int
    duplicates: int
    acked: bool


@dataclass(frozen=True)
class ClientStats:
    client: str
    broker: str | None
    sent: int
    acked: int
    in_doubt: int
    resent: int
    already_held: int          # of the resent: those the new primary held already (duplicates)
    received: int
    duplicates: int
    lost: int
