"""Geode client-subscription-queue HA parameters and their defaults (Geode's documented defaults).

Why: every timing of the model comes from these, so a scenario can shrink or grow them (a short
message-time-to-live for a drill) while the defaults stay Geode's own. Pool attributes belong to a
client's pool, cache and cache-server attributes to the cluster's servers, and the durable client
timeout to the client's properties; their names are Geode's with `_` for `-`.
"""

from __future__ import annotations

from dataclasses import dataclass

from ..kernel.json_params import JsonParams

SYSTEM = "geode"
HOST = "192.0.2.0"            # every member runs on the documentation address of the gfsh samples


@dataclass(frozen=True)
class PoolParams(JsonParams):
    subscription_enabled: bool = False
    subscription_redundancy: int = 0                       # 0: no HA; N: N secondaries; -1: all other servers
    subscription_ack_interval_ms: int = 100
    subscription_message_tracking_timeout_ms: int = 900000  # a client's duplicate tracking entry idles out
    subscription_timeout_multiplier: int = 0               # 0: disabled
    ping_interval_ms: int = 10000                          # also the redundancy satisfier's retry interval
    read_timeout_ms: int = 10000                           # a hung server is noticed after this
    min_connections: int = 1
    max_connections: int = -1
    durable_client_id: str = ""                            # "" for a non-durable client
    durable_client_timeout_s: int = 300


@dataclass(frozen=True)
class ServerParams(JsonParams):
    message_sync_interval_s: int = 1           # <cache message-sync-interval>
    message_time_to_live_s: int = 180          # <cache-server message-time-to-live>
    maximum_message_count: int = 230000        # <cache-server maximum-message-count>
    maximum_time_between_pings_ms: int = 60000  # <cache-server maximum-time-between-pings>


POOL_LIMITS: dict[str, tuple[int, int]] = {
    "subscription_redundancy": (-1, 64),
    "subscription_ack_interval_ms": (1, 3_600_000),
    "subscription_message_tracking_timeout_ms": (1, 86_400_000),
    "subscription_timeout_multiplier": (0, 1000),
    "ping_interval_ms": (1, 3_600_000),
    "read_timeout_ms": (1, 3_600_000),
    "min_connections": (0, 1000),
    "max_connections": (-1, 1000),
    "durable_client_timeout_s": (1, 86_400),
}
SERVER_LIMITS: dict[str, tuple[int, int]] = {
    "message_sync_interval_s": (1, 3600),
    "message_time_to_live_s": (1, 86_400),
    "maximum_message_count": (1, 100_000_000),
    "maximum_time_between_pings_ms": (1, 3_600_000),
}
