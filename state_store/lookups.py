"""Lookups and topology rules every service shares: name -> record with the right EngineError, the
lab clock and settings, "is this VPN serving?", the replication binding, queue counters.

Why one service: replication, messaging, clients and transactions all ask the same questions; one
place keeps those rules identical everywhere.
"""

from __future__ import annotations

from .broker_state import BrokerState
from .errors import EngineError
from .records import Client, HaGroup, Queue, ReplicatedTopic, Router, Site, Vpn
from .topics import has_wildcard, name_matches

REPL_QUEUE = "#MSGVPN_REPLICATION_DATA_QUEUE"
REPL_BRIDGE = "#MSGVPN_REPLICATION_BRIDGE"
MB = 1048576

SETTING_DEFAULTS: dict[str, str] = {
    "software_version": "10.4.1.52",
    "layout": "B",
    "product_line": "enterprise",
    "replication_drain_rate": "1000",
    "default_message_size": "600",
}


def name_key(v: Vpn | Queue) -> tuple[int, str]:
    """CLI sort: '#' names first, then by name."""
    return (0 if v.name.startswith("#") else 1, v.name)


class Lookups:
    def __init__(self, st: BrokerState) -> None:
        self.st = st

    # ------------------------------------------------------------------ clock / settings
    def now_ms(self) -> int:
        return self.st.now_ms

    def set_now_ms(self, value: int) -> None:
        self.st.now_ms = value

    def setting(self, key: str) -> str:
        return self.st.settings.get(key, SETTING_DEFAULTS[key])

    def int_setting(self, key: str) -> int:
        return int(self.setting(key))

    # ------------------------------------------------------------------ lookups
    def router(self, name: str, *, must_be_up: bool = False) -> Router:
        r = self.st.router_by_name.get(name)
        if r is None:
            raise EngineError("router_not_found", router=name)
        if must_be_up and not r.up:
            raise EngineError("router_down", router=name)
        return r

    def site(self, name: str) -> Site:
        site = self.st.site_by_name.get(name)
        if site is None:
            raise EngineError("site_not_found", site=name)
        return site

    def routers_of_site(self, site: Site) -> list[Router]:
        return sorted((r for r in self.st.routers.values() if r.site_id == site.id), key=lambda r: r.name)

    def vpn(self, router: Router, name: str) -> Vpn:
        v = self.st.vpns_by_router.get(router.id, {}).get(name)
        if v is None:
            raise EngineError("vpn_not_found", vpn=name, router=router.name)
        return v

    def vpn_rw(self, router_name: str, vpn_name: str) -> Vpn:
        """A VPN to configure: router must exist and be up, VPN must exist and not be internal."""
        r = self.router(router_name, must_be_up=True)
        v = self.vpn(r, vpn_name)
        if v.internal:
            raise EngineError("vpn_internal", vpn=vpn_name)
        return v

    def vpns(self, router: Router, pattern: str | None = None) -> list[Vpn]:
        rows = self.st.vpns_by_router.get(router.id, {}).values()
        out = [v for v in rows if name_matches(pattern, v.name)]
        if pattern is not None and not has_wildcard(pattern) and not out:
            raise EngineError("vpn_not_found", vpn=pattern, router=router.name)
        return sorted(out, key=name_key)

    def user_vpns(self) -> list[Vpn]:
        """The non-internal VPNs of every router, by id."""
        return [v for v in self.st.vpns.values() if not v.internal]

    def router_of(self, vpn: Vpn) -> Router:
        return self.st.routers[vpn.router_id]

    def group(self, vpn: Vpn) -> HaGroup:
        return self.st.groups[vpn.group_id]

    def group_members(self, vpn: Vpn) -> list[Vpn]:
        return list(self.st.vpns_by_group.get(vpn.group_id, {}).values())

    def mate(self, vpn: Vpn) -> Vpn | None:
        """The replication mate: the same VPN on the other site's router."""
        for v in self.st.vpns_by_group.get(vpn.group_id, {}).values():
            if v.id != vpn.id:
                return v
        return None

    def find_queue(self, vpn: Vpn, name: str) -> Queue | None:
        return self.st.queues_by_vpn.get(vpn.id, {}).get(name)

    def queue(self, vpn: Vpn, name: str) -> Queue:
        q = self.find_queue(vpn, name)
        if q is None:
            raise EngineError("queue_not_found", queue=name, vpn=vpn.name)
        return q

    def queues_of(self, vpn: Vpn) -> list[Queue]:
        """Every queue of ``vpn`` (the replication queue included), by id."""
        return sorted(self.st.queues_by_vpn.get(vpn.id, {}).values(), key=lambda q: q.id)

    def repl_queue(self, vpn: Vpn) -> Queue | None:
        q = self.st.queues_by_vpn.get(vpn.id, {}).get(REPL_QUEUE)
        return q if q is not None and q.kind == "replication" else None

    def find_client(self, name: str) -> Client | None:
        return self.st.client_by_name.get(name)

    def client(self, name: str) -> Client:
        c = self.st.client_by_name.get(name)
        if c is None:
            raise EngineError("client_not_found", client=name)
        return c

    def replicated_topics(self, vpn: Vpn) -> list[ReplicatedTopic]:
        return sorted(self.st.topics_by_vpn.get(vpn.id, {}).values(), key=lambda t: t.topic)

    # ------------------------------------------------------------------ topology rules
    def sites_linked(self, a: Router, b: Router) -> bool:
        sa, sb = a.site_id, b.site_id
        if sa == sb:
            return True
        for link in self.st.links.values():
            if (link.site_a_id == sa and link.site_b_id == sb) or (link.site_a_id == sb and link.site_b_id == sa):
                return link.up
        return False

    def serving(self, vpn: Vpn) -> bool:
        """Accepts clients and publishes: router up, VPN up, and replication-active or not
        replicated (replication shut down)."""
        if vpn.internal or not vpn.enabled:
            return False
        if not self.st.routers[vpn.router_id].up:
            return False
        return (not vpn.repl_enabled) or vpn.role == "active"

    def has_entries(self, vpn: Vpn) -> bool:
        return bool(self.st.repl_by_vpn.get(vpn.id))

    def binding(self, holder: Vpn) -> Vpn | None:
        """The standby VPN whose bridge is bound to ``holder``'s replication queue, or None.

        Bound when both routers are up, their sites are linked, both VPNs are enabled (not shut
        down) with replication enabled, the mate is standby, and the holder is active -- or the
        holder is a standby that still has undrained entries and its mate is standby (the window
        of a controlled failover between `replication state standby` on the old site and
        `active` on the new one)."""
        if holder.internal or not holder.repl_enabled or not holder.enabled:
            return None
        if holder.role != "active" and not self.st.repl_by_vpn.get(holder.id):
            return None  # what the last line answers a standby with nothing to drain, asked first
        mate = self.mate(holder)
        if mate is None or not mate.enabled or not mate.repl_enabled or mate.role != "standby":
            return None
        routers = self.st.routers
        hr, mr = routers[holder.router_id], routers[mate.router_id]
        if not (hr.up and mr.up and self.sites_linked(hr, mr)):
            return None
        if holder.role == "active":
            return mate
        return mate if self.st.repl_by_vpn.get(holder.id) else None

    # ------------------------------------------------------------------ counters
    def adjust_queue(self, q: Queue, dcount: int, dbytes: int) -> None:
        if self._count(q, dcount, dbytes):
            self._router_high_water(self.router_of(self.st.vpns[q.vpn_id]))

    def grow_queues(self, grown: list[tuple[Queue, int, int]]) -> None:
        """``adjust_queue`` for (queue, messages, bytes) all added (none negative): a router's
        total only grows meanwhile, so its high-water mark is checked once, at the end."""
        routers: dict[int, Router] = {}
        for q, dcount, dbytes in grown:
            if self._count(q, dcount, dbytes):
                router = self.router_of(self.st.vpns[q.vpn_id])
                routers[router.id] = router
        for router in routers.values():
            self._router_high_water(router)

    @staticmethod
    def _count(q: Queue, dcount: int, dbytes: int) -> bool:
        """Apply a change to a queue's counters (never below zero) and its high-water mark;
        whether its bytes grew, so that its router's mark may have moved."""
        if not dcount and not dbytes:
            return False
        q.msg_count = max(0, q.msg_count + dcount)
        q.bytes = max(0, q.bytes + dbytes)
        if q.bytes > q.hwm_bytes:
            q.hwm_bytes = q.bytes
        return dbytes > 0

    def _router_high_water(self, router: Router) -> None:
        total = self.router_spool_bytes(router)
        if total > router.spool_hwm_bytes:
            router.spool_hwm_bytes = total

    def vpn_spool_bytes(self, vpn: Vpn) -> int:
        """The bytes spooled on every queue of ``vpn`` (the replication queue included)."""
        total = 0
        for q in self.st.queues_by_vpn.get(vpn.id, {}).values():  # (a loop: every publish asks)
            total += q.bytes
        return total

    def router_spool_bytes(self, router: Router) -> int:
        """The bytes spooled on every queue of every VPN of ``router``. (Plain loops: every
        publish and every drained batch asks.)"""
        total = 0
        by_vpn = self.st.queues_by_vpn
        for v in self.st.vpns_by_router.get(router.id, {}).values():
            queues = by_vpn.get(v.id)
            if queues:
                for q in queues.values():
                    total += q.bytes
        return total
