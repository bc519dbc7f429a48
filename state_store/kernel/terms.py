"""A system's words for the refusals every HA system shares: which code and which parameter name
it uses when a user names an unknown group or node, or asks for a failure that cannot happen.

Why a record: the lookups (``kernel.lookup``) and the failure checks (``kernel.inject``) are the
same logic for every system; only the codes (``<system>/errors.py``) and the parameter names (a
SwiftMQ "router" and "instance", a Geode "cluster" and "member") are the system's own.
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class SystemTerms:
    system: str                # the registered system whose groups these are
    group: str                 # refusal parameter naming a group: "router", "cluster"
    node: str                  # refusal parameter naming a node: "instance", "member", "broker"
    group_not_found: str       # (group)
    node_not_found: str        # (node)
    node_running: str          # start or replace of a node that is not down (node, process)
    node_down: str             # kill or hang of a node that is down (node)
    node_hung: str             # hang of a node that hangs already (node)
    links_up: str              # heal of a group whose network is whole (group)
    links_down: str            # partition of a group whose network is cut everywhere (group)
