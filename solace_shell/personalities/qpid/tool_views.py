"""What the tools' commands return (their handlers: ha_handlers.py, config_handlers.py): the data
a tool prints, laid out by tool_renderers.py. Each carries the tool's exit status (`status`), which
the shell keeps for `echo $?`. A tool's help, usage and exception lines stay `ToolResult`s
(state_store.qpid.views): fixed text, printed as the tool printed it.

Why views: the handlers read the broker, the renderers make the text, as for every CLI of the lab
(one model, two displays)."""

from __future__ import annotations

from dataclasses import dataclass

from .config_lists import Listed

Bound = tuple[tuple[str, str], ...]     # (binding key, the exchange or queue at its other end)


@dataclass(frozen=True)
class HaStatus:
    """`qpid-ha status`: the addressed broker's status; with `--all` (`each`) every broker of its
    cluster by address, its status or the client library's error message."""

    brokers: tuple[tuple[str, str], ...]     # (address, status or error); the address "" alone
    each: bool = False
    status: int = 0


@dataclass(frozen=True)
class QueryBlock:
    """One broker's configuration and status as `qpid-ha query` prints it (`error`: the client
    library's message for a broker it could not reach, and nothing else)."""

    address: str
    state: str = ""
    broker_id: str = ""
    brokers_url: str = ""
    public_url: str = ""
    replicate: str = ""
    error: str = ""


@dataclass(frozen=True)
class HaQuery:
    """`qpid-ha query`: the addressed broker's block; with `--all` (`each`) every broker's, each
    after its address."""

    blocks: tuple[QueryBlock, ...]
    each: bool = False
    status: int = 0


@dataclass(frozen=True)
class ConfigOverview:
    """`qpid-config` alone: the exchanges' types (one per exchange, the agent's order) and the
    queues counted."""

    exchange_kinds: tuple[str, ...]
    queues: int
    durable: int
    status: int = 0


@dataclass(frozen=True)
class QueueList:
    """`qpid-config queues [filter]`: the queues whose name holds `pattern` (none: exit 1)."""

    queues: tuple[Listed, ...]
    pattern: str

    def shown(self) -> tuple[Listed, ...]:
        return tuple(q for q in self.queues if self.pattern in q.name)

    @property
    def status(self) -> int:
        return 0 if self.shown() else 1


@dataclass(frozen=True)
class ExchangeList:
    """`qpid-config exchanges [filter]`: the exchanges whose name holds `pattern` (none: exit 1;
    the default exchange counts, but `--ignore-default` leaves its line out)."""

    exchanges: tuple[Listed, ...]
    pattern: str
    ignore_default: bool

    def shown(self) -> tuple[Listed, ...]:
        return tuple(x for x in self.exchanges if self.pattern in x.name)

    @property
    def status(self) -> int:
        return 0 if self.shown() else 1


@dataclass(frozen=True)
class QueueBindings:
    """`qpid-config queues -r`: each queue shown with its bindings (key, exchange; "" the default
    exchange)."""

    queues: tuple[tuple[str, Bound], ...]
    status: int = 0


@dataclass(frozen=True)
class ExchangeBindings:
    """`qpid-config exchanges -r`: each exchange shown (name, type) with the bindings to it (key,
    queue)."""

    exchanges: tuple[tuple[str, str, Bound], ...]
    status: int = 0
