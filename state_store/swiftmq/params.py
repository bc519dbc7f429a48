"""SwiftMQ HA Controller Swiftlet parameters and their defaults (the seed's values).

Why: every timing of the state machine comes from these, so a scenario can shrink or grow them
(e.g. a short negotiation timeout for a drill) and the defaults stay those the seed documents.
`sync_step_ms` is the lab's own choice (how long each synchronisation step takes): the seed gives
no figure, only the order of the steps. The store transfer of ACTIVE-SYNC takes longer with the
store: its size (stored messages x `message_size_kb`) cut into replication packets of at most
`max_packet_size_kb`, each taking `packet_transfer_ms` on the channel (both lab choices).
The image passes through the spool, whose memory cache holds `spool_max_cache_size_kb`; what does
not fit swaps to disk in `spool_directory` (documented) and costs `swap_packet_ms` per replication
packet written there and read back (lab choice), so a store larger than the cache syncs longer.
`threadpool_freezes` is the "Threadpool Freezes" list, frozen and unfrozen in its order: entries
`name:pool` (or a bare `pool`, named by its position 01, 02, ...) kept in name order, as the
management tree lists an entity list's entries; the seed names no pools, so the default names
are the lab's own.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Literal

from ..kernel.json_params import JsonParams
from ..scenario_spec import OPT, Bool, Int, Spec, Str, spec_map

SYSTEM = "swiftmq"
# synthesized pool names (the seed documents the list, not its entries)
DEFAULT_FREEZES = "jms.connection,jms.session,queue.timeout,routing,store.log"


@dataclass(frozen=True)
class HaParams(JsonParams):
    negotiation_timeout_ms: int = 120000        # min 1000
    preferred_active: str = ""                  # an instance name, "" for none
    heartbeat_interval_ms: int = 2000
    heartbeat_missing_threshold: int = 10
    max_packet_size_kb: int = 128
    spool_max_cache_size_kb: int = 5120         # min 1024
    spool_directory: str = "./"
    preferred_failover_delay_ms: int = 10000
    sync_step_ms: int = 250                     # lab choice: one step of INITIALIZE .. ACTIVE
    message_size_kb: int = 1                    # lab choice: the store size of one message
    packet_transfer_ms: int = 10                # lab choice: one replication packet on the channel
    swap_packet_ms: int = 2                     # lab choice: one packet swapped to disk and read back
    threadpool_freezes: str = DEFAULT_FREEZES   # comma-separated `name:pool` or `pool`, in name order

    @property
    def freeze_entries(self) -> tuple[tuple[str, str], ...]:
        """The "Threadpool Freezes" list as (entry name, pool name), in name order."""
        return freeze_entries(self.threadpool_freezes)

    @property
    def freeze_order(self) -> tuple[str, ...]:
        return tuple(pool for _, pool in self.freeze_entries)

    def store_transfer(self, messages: int) -> tuple[int, int, int]:
        """(store size in KB, replication packets, transfer time in ms) of a store image."""
        size_kb = messages * self.message_size_kb
        packets = -(-size_kb // self.max_packet_size_kb)
        return size_kb, packets, packets * self.packet_transfer_ms

    def spool_swap(self, size_kb: int) -> tuple[int, int, int]:
        """(KB swapped to disk, messages they hold, extra ms) when an image of ``size_kb`` passes
        the spool: what exceeds the memory cache is written to the spool directory and read back."""
        swapped_kb = max(0, size_kb - self.spool_max_cache_size_kb)
        messages = -(-swapped_kb // self.message_size_kb)
        packets = -(-swapped_kb // self.max_packet_size_kb)
        return swapped_kb, messages, packets * self.swap_packet_ms


@dataclass(frozen=True)
class QueueParams(JsonParams):
    duplicate_detection: bool = True
    duplicate_backlog_size: int = 2000          # JMS message IDs per queue
    log_duplicates: bool = False


# Each parameter declared once: its kind, least value, scenario spec and path, and where the admin
# CLI shows and sets it; the scenario schema, the limits, the CLI's properties and their parsing
# are derived from these (scenario.py, mgmt.py). A field of HaParams / QueueParams without a leaf
# is the lab's own (neither in a scenario nor in the CLI).
Kind = Literal["int", "text", "bool", "instance"]   # instance: a node name, shown and set as "is it me"
_NAME = Str(64)
_MS = Int(1, 24 * 3600 * 1000)
_COUNT = Int(1, 1_000_000)
HA_CONTROLLER = ("sys$hacontroller",)
SPOOL = ("sys$hacontroller", "spool")
REPLICATION_CHANNEL = ("sys$hacontroller", "replication-channel")
THREADPOOL_FREEZES = ("sys$hacontroller", "threadpool-freezes")


@dataclass(frozen=True)
class Leaf:
    key: str                         # the HaParams / QueueParams field
    kind: Kind
    spec: Spec                       # its type and range in a scenario
    low: int | None = None           # integers: the least value (scenario and CLI)
    cli: str = ""                    # its property in the admin CLI ("" for none)
    context: tuple[str, ...] = ()    # the entity showing it (queues: their own entity)
    scenario: tuple[str, ...] = ()   # its path in a scenario entry (default: the key)

    @property
    def path(self) -> tuple[str, ...]:
        return self.scenario or (self.key,)


ROUTER_LEAVES: tuple[Leaf, ...] = (
    Leaf("preferred_active", "instance", _NAME, cli="preferred-active", context=HA_CONTROLLER),
    Leaf("negotiation_timeout_ms", "int", _MS, 1000, "negotiation-timeout", HA_CONTROLLER),
    Leaf("heartbeat_interval_ms", "int", _MS, 1, "heartbeat-interval", REPLICATION_CHANNEL),
    Leaf("heartbeat_missing_threshold", "int", _COUNT, 1, "heartbeat-missing-threshold", REPLICATION_CHANNEL),
    Leaf("max_packet_size_kb", "int", _COUNT, 1, "max-packet-size", REPLICATION_CHANNEL),
    Leaf("spool_directory", "text", Str(255), cli="directory", context=SPOOL, scenario=("spool", "directory")),
    Leaf("spool_max_cache_size_kb", "int", _COUNT, 1024, "max-cache-size", SPOOL,
         ("spool", "max_cache_size_kb")),
    Leaf("preferred_failover_delay_ms", "int", _MS, 0),
    Leaf("sync_step_ms", "int", _MS, 1),
    Leaf("message_size_kb", "int", _COUNT, 1),
    Leaf("packet_transfer_ms", "int", _MS, 0),
    Leaf("swap_packet_ms", "int", _MS, 0),
    Leaf("threadpool_freezes", "text", Str(1000)),   # the CLI's entity list THREADPOOL_FREEZES (mgmt.py)
)
QUEUE_LEAVES: tuple[Leaf, ...] = (
    Leaf("duplicate_backlog_size", "int", _COUNT, 1, "duplicate-detection-backlog-size"),
    Leaf("duplicate_detection", "bool", Bool(), cli="duplicate-detection-enabled"),
    Leaf("log_duplicates", "bool", Bool()),
)


def section_fields(leaves: tuple[Leaf, ...]) -> dict[str, tuple[Spec, bool]]:
    """The scenario entry's optional keys for these leaves (a two-part path nests a mapping)."""
    out: dict[str, tuple[Spec, bool]] = {}
    nested: dict[str, dict[str, tuple[Spec, bool]]] = {}
    for leaf in leaves:
        if len(leaf.path) == 1:
            out[leaf.path[0]] = (leaf.spec, OPT)
        else:
            nested.setdefault(leaf.path[0], {})[leaf.path[1]] = (leaf.spec, OPT)
    out.update({key: (spec_map(**fields), OPT) for key, fields in nested.items()})
    return out


def scenario_values(leaves: tuple[Leaf, ...], entry: dict[str, Any]) -> dict[str, Any]:
    """The values a checked scenario entry gives, by field."""
    out: dict[str, Any] = {}
    for leaf in leaves:
        where: Any = entry
        for part in leaf.path[:-1]:
            where = where.get(part) or {}
        if leaf.path[-1] in where:
            out[leaf.key] = where[leaf.path[-1]]
    return out


def freeze_entries(text: str) -> tuple[tuple[str, str], ...]:
    """Parse a "Threadpool Freezes" list (`name:pool` or `pool`, comma-separated) into (name, pool)
    in name order; a bare pool is named by its position (01, 02, ...)."""
    out: list[tuple[str, str]] = []
    for position, item in enumerate((i.strip() for i in text.split(",") if i.strip()), 1):
        name, sep, pool = item.partition(":")
        out.append((name.strip(), pool.strip()) if sep else (f"{position:02d}", item))
    return tuple(sorted(out, key=lambda entry: entry[0]))


def freeze_text(entries: tuple[tuple[str, str], ...]) -> str:
    """The list's text form (`name:pool,...`), the inverse of ``freeze_entries``."""
    return ",".join(f"{name}:{pool}" for name, pool in sorted(entries))
