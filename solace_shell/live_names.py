"""Live object names for Tab completion: VPNs, queues, XIDs, clients, routers, sites, users, ...

A grammar parameter names its source with `complete:` (see grammar/data/params.yaml); this module
asks the engine for the names of that source in one read-only transaction. Names are cached for a
keystroke burst (a short time-to-live, and `invalidate()` after every command), and completion never
crashes: an engine that raises, or does not have the method yet, simply offers no names.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Callable, Iterable
from pathlib import Path
from typing import Any

log = logging.getLogger(__name__)

# How long names stay cached without a command in between (one burst of Tab presses).
BURST_SECONDS = 2.0

# Each source: engine methods to try, in order, with how to call them. The first method the
# engine has wins; its result may be names (str) or views with a `name` (or `xid`, `topic`) field.
_Call = tuple[str, Callable[[str | None, str | None], tuple[Any, ...]]]
_ROUTER: Callable[[str | None, str | None], tuple[Any, ...]] = lambda router, vpn: (router,)
_ROUTER_VPN: Callable[[str | None, str | None], tuple[Any, ...]] = lambda router, vpn: (router, vpn)
_NONE: Callable[[str | None, str | None], tuple[Any, ...]] = lambda router, vpn: ()

ENGINE_SOURCES: dict[str, tuple[_Call, ...]] = {
    "vpn": (("vpn_names", _ROUTER),),
    "queue": (("queue_names", _ROUTER_VPN),),
    "xid": (("xids", _ROUTER_VPN),),                 # vpn may be None: every XID on the router
    "client": (("client_names", _ROUTER),),
    "topic": (("replicated_topic_names", _ROUTER_VPN), ("replicated_topics", _ROUTER_VPN)),
    "site": (("site_names", _NONE), ("sites", _NONE)),
    "user": (("user_names", _NONE), ("users", _NONE)),
    # named configuration objects: the VPN's when the level carries one, else every VPN's
    "client-username": (("client_usernames", _ROUTER_VPN),),
    "client-profile": (("client_profiles", _ROUTER_VPN),),
    "acl-profile": (("acl_profiles", _ROUTER_VPN),),
    "telemetry-profile": (("telemetry_profiles", _ROUTER_VPN),),
    "rdp": (("rest_delivery_points", _ROUTER_VPN),),
}
# Sources that need a VPN: without one (none on the line nor carried by the level) they offer nothing.
NEEDS_VPN = frozenset({"queue", "topic"})
# Sources asked per router: at the lab console (no router) they offer the names of every router.
PER_ROUTER = frozenset({"vpn", "queue", "xid", "topic", "client-username", "client-profile", "acl-profile",
                        "telemetry-profile", "rdp"})
_NAME_FIELDS = ("name", "xid", "topic")


def _names_of(items: Iterable[Any]) -> list[str]:
    out: list[str] = []
    for item in items:
        if isinstance(item, str):
            out.append(item)
            continue
        for attr in _NAME_FIELDS:
            value = getattr(item, attr, None)
            if isinstance(value, str):
                out.append(value)
                break
    return list(dict.fromkeys(out))   # the engine's order ('#' internal VPNs first), once each


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

    def __init__(self, lab: Any, ttl: float = BURST_SECONDS, clock: Callable[[], float] = time.monotonic) -> None:
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
            routers = getattr(self.lab, "routers", None)
            if callable(routers):
                return sorted(routers())
        if source == "scenario":
            return scenario_files()
        calls = ENGINE_SOURCES.get(source)
        if calls is None:
            return []
        if source in NEEDS_VPN and not vpn:
            return []
        store = getattr(self.lab, "store", None)
        if store is None:
            return []
        routers: list[str | None] = [router]
        if router is None and source in PER_ROUTER:
            routers = list(self.lab.routers())
        out: list[str] = []
        with store.transaction() as engine:
            for method, build_args in calls:
                fn = getattr(engine, method, None)
                if callable(fn):
                    for r in routers:
                        out += _names_of(fn(*build_args(r, vpn)))
                    break
            else:
                if source == "site" and callable(getattr(engine, "status", None)):
                    out = _names_of(engine.status().sites)   # no site list yet: the lab status has them
        return list(dict.fromkeys(out))
