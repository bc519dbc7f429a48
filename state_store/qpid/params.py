"""Qpid C++ HA broker options (``ha-*``, link intervals) and the lab's own timings, with defaults.

Why: every timing of the HA module comes from these, so a scenario can shrink them for a drill
(``ha_backup_timeout_ms: 500``) while the defaults stay the documented ones. Times are in
milliseconds (the options themselves take seconds). ``catchup_ms`` is the lab's choice (how long a
backup takes to catch up all queues): the documentation gives no figure.
"""

from __future__ import annotations

from dataclasses import dataclass

from ..kernel.json_params import JsonParams

SYSTEM = "qpid"
PORT = 5672
REPLICATE_LEVELS = ("none", "configuration", "all")
MANAGER_MODES = ("off", "on", "split")


@dataclass(frozen=True)
class QpidParams(JsonParams):
    ha_cluster: bool = False
    ha_queue_replication: bool = False
    ha_public_url: str = ""
    ha_replicate: str = "none"
    ha_username: str = ""
    ha_password_set: bool = False          # the password itself is not kept in the lab
    ha_mechanism: str = ""
    ha_backup_timeout_ms: int = 10000
    ha_flow_messages: int = 1000           # 0: no limit
    ha_flow_bytes: int = 0                 # 0: no limit
    link_maintenance_interval_ms: int = 2000
    link_heartbeat_interval_ms: int = 120000
    client_heartbeat_ms: int = 0           # 0: off
    catchup_ms: int = 500                  # lab choice
    manager: str = "off"                   # the resource manager: off | on | split (misconfigured)
    manager_poll_ms: int = 1000            # rgmanager status_poll_interval


# the least value each integer option takes
PARAM_LIMITS: dict[str, int] = {
    "ha_backup_timeout_ms": 1,
    "ha_flow_messages": 0,
    "ha_flow_bytes": 0,
    "link_maintenance_interval_ms": 1,
    "link_heartbeat_interval_ms": 1,
    "client_heartbeat_ms": 0,
    "catchup_ms": 1,
    "manager_poll_ms": 1,
}
