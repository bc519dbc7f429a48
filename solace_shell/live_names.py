"""Live object names for Tab completion: VPNs, queues, XIDs, clients, routers, sites, users, ...

A grammar parameter names its source with `complete:` (see grammar/data/params.yaml); this module
asks the engine for the names of that source in one read-only transaction. Names are cached for a
keystroke burst (a short time-to-live, and `invalidate()` after every command), and completion never
crashes: an engine that raises simply offers no names.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Callable, Iterable
from pathlib import Path
from typing import TYPE_CHECKING, Any

from .router_cli import router_cli

if TYPE_CHECKING:
    from state_store.lab_root.engine import RootEngine as Engine

    from .lab import Lab

log = logging.getLogger(__name__)

# How long names stay cached without a command in between (one burst of Tab presses).
BURST_SECONDS = 2.0

def _object_names(listing: Callable[[str, str], list[Any]], router: str | None, vpn: str | None) -> list[str]:
    """Names of named configuration objects: the VPN's when the level carries one, else every VPN's."""
    return [item.name for item in listing(router, vpn or "*")] if router else []


# Each engine source: (engine, router, vpn) -> names. Per-router sources get a router (at the lab
# console, each router in turn); per-VPN sources are only asked with a VPN.
EngineSource = Callable[["Engine", "str | None", "str | None"], list[str]]
ENGINE_SOURCES: dict[str, EngineSource] = {
    "vpn": lambda engine, router, vpn: router_cli(engine).vpn_names(router) if router else [],
    "queue": lambda engine, router, vpn: router_cli(engine).queue_names(router, vpn) if router and vpn else [],
    "xid": lambda engine, router, vpn: router_cli(engine).xids(router, vpn) if router else [],  # no VPN: every XID
    "client": lambda engine, router, vpn: router_cli(engine).client_names(router),
    "topic": lambda engine, router, vpn:
        router_cli(engine).replicated_topic_names(router, vpn) if router and vpn else [],
    "site": lambda engine, router, vpn: router_cli(engine).site_names(),
    "user": lambda engine, router, vpn: engine.user_names(),
    # the HA-core systems' names are the lab's, not a router's
    "ha-instance": lambda engine, router, vpn: engine.ha_instance_names(),
    "ha-router": lambda engine, router, vpn: engine.ha_router_names(),
    # the targets of the shared failure verbs: the kernel's nodes (groups) and the lab's routers (links)
    "ha-node": lambda engine, router, vpn: engine.ha_node_names(),
    "ha-network": lambda engine, router, vpn: engine.ha_network_names(),
    "jms-client": lambda engine, router, vpn: engine.jms_client_names(),
    "ha-queue": lambda engine, router, vpn: engine.ha_queue_names(),
    # named configuration objects: the VPN's when the level carries one, else every VPN's
    "client-username": lambda engine, router, vpn: _object_names(router_cli(engine).client_usernames, router, vpn),
    "client-profile": lambda engine, router, vpn: _object_names(router_cli(engine).client_profiles, router, vpn),
    "acl-profile": lambda engine, router, vpn: _object_names(router_cli(engine).acl_profiles, router, vpn),
    "telemetry-profile": lambda engine, router, vpn: _object_names(router_cli(engine).telemetry_profiles, router, vpn),
    "rdp": lambda engine, router, vpn: _object_names(router_cli(engine).rest_delivery_points, router, vpn),
}
# Sources the lab answers without the engine.
LAB_SOURCES = frozenset({"router", "scenario"})
# The one list of completion sources: every grammar parameter's `complete:` must be one of these
# (checked at start-up, see solace_shell.registries).
COMPLETION_SOURCES = frozenset(ENGINE_SOURCES) | LAB_SOURCES
# Sources that need a VPN: without one (none on the line nor carried by the level) they offer nothing.
NEEDS_VPN = frozenset({"queue", "topic"})
# Sources asked per router: at the lab console (no router) they offer the names of every router.
PER_ROUTER = frozenset({"vpn", "queue", "xid", "topic", "client-username", "client-profile", "acl-profile",
                        "telemetry-profile", "rdp"})


def scenario_files(directories: Iterable[Path] | None = None) -> list[str]:
    """Scenario files: the bundled scenarios and YAML files in the current directory."""
    if directories is None:
        bundled = Path(__file__).resolve().parent.parent / "state_store" / "scenarios"
        directories = (bundled, Path.cwd())
    out: set[str] = set()
    for directory in directories:
        try:
            for path in directory.iterdir():
                if path.suffix in (".yaml", ".yml") and path.is_file():
                    out.add(str(path) if directory != Path.cwd() else path.name)
        except OSError:
            continue
    return sorted(out)


class LiveNames:
    """Names from one lab for completion, cached per keystroke burst."""

    def __init__(self, lab: Lab, ttl: float = BURST_SECONDS, clock: Callable[[], float] = time.monotonic) -> None:
        self.lab = lab
        self.ttl = ttl
        self._clock = clock
        self._cache: dict[tuple[str, str | None, str | None], tuple[float, list[str]]] = {}

    def invalidate(self) -> None:
        """Forget every cached name (after a command ran: it may have created or deleted some)."""
        self._cache.clear()

    def names(self, source: str, router: str | None, vpn: str | None = None) -> list[str]:
        """The names of `source` on `router` (within `vpn` for per-VPN sources); [] on any problem."""
        key = (source, router, vpn)
        now = self._clock()
        hit = self._cache.get(key)
        if hit is not None and now - hit[0] <= self.ttl:
            return hit[1]
        try:
            found = self._fetch(source, router, vpn)
        except Exception:  # completion must never cost the user their line
            log.debug("live names for %s failed", source, exc_info=True)
            found = []
        self._cache[key] = (now, found)
        return found

    def _fetch(self, source: str, router: str | None, vpn: str | None) -> list[str]:
        if source == "router":
            return sorted(self.lab.routers())
        if source == "scenario":
            return scenario_files()
        fetch = ENGINE_SOURCES.get(source)
        if fetch is None or (source in NEEDS_VPN and not vpn):
            return []
        routers: list[str | None] = [router]
        if router is None and source in PER_ROUTER:
            routers = list(self.lab.routers())
        out: list[str] = []
        with self.lab.store.transaction() as engine:
            for r in routers:
                out += fetch(engine, r, vpn)
        return list(dict.fromkeys(out))   # the engine's order ('#' internal VPNs first), once each
