"""SwiftMQ HA Controller Swiftlet parameters and their defaults (the seed's values).

Why: every timing of the state machine comes from these, so a scenario can shrink or grow them
(e.g. a short negotiation timeout for a drill) and the defaults stay those the seed documents.
`sync_step_ms` is the lab's own choice (how long each synchronisation step takes): the seed gives
no figure, only the order of the steps.
"""

from __future__ import annotations

from dataclasses import dataclass, fields
from typing import Any

SYSTEM = "swiftmq"


@dataclass(frozen=True)
class HaParams:
    negotiation_timeout_ms: int = 120000        # min 1000
    preferred_active: str = ""                  # an instance name, "" for none
    heartbeat_interval_ms: int = 2000
    heartbeat_missing_threshold: int = 10
    max_packet_size_kb: int = 128
    spool_max_cache_size_kb: int = 5120         # min 1024
    spool_directory: str = "./"
    preferred_failover_delay_ms: int = 10000
    sync_step_ms: int = 250                     # lab choice: one step of INITIALIZE .. ACTIVE

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> HaParams:
        known = {f.name for f in fields(cls)}
        return cls(**{k: v for k, v in data.items() if k in known})

    def to_dict(self) -> dict[str, Any]:
        return {f.name: getattr(self, f.name) for f in fields(self)}


@dataclass(frozen=True)
class QueueParams:
    duplicate_detection: bool = True
    duplicate_backlog_size: int = 2000          # JMS message IDs per queue
    log_duplicates: bool = False

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> QueueParams:
        known = {f.name for f in fields(cls)}
        return cls(**{k: v for k, v in data.items() if k in known})

    def to_dict(self) -> dict[str, Any]:
        return {f.name: getattr(self, f.name) for f in fields(self)}


PARAM_LIMITS: dict[str, int] = {
    "negotiation_timeout_ms": 1000,
    "heartbeat_interval_ms": 1,
    "heartbeat_missing_threshold": 1,
    "max_packet_size_kb": 1,
    "spool_max_cache_size_kb": 1024,
    "preferred_failover_delay_ms": 0,
    "sync_step_ms": 1,
    "duplicate_backlog_size": 1,
}
