"""Shared plumbing of the Engine mixins: lookups that raise the right EngineError, settings,
counter maintenance and the small SQL helpers the bulk paths use.

Why a base: each behaviour module (replication, messaging, clients, transactions, audit) needs the
same name->row lookups and the same rules for "is this VPN serving?"; keeping them in one place
keeps those rules identical everywhere.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from sqlalchemy import select, text
from sqlalchemy.orm import Session

from . import clock
from .errors import EngineError
from .models import Client, HaGroup, Link, Queue, ReplicatedTopic, Router, Setting, Site, Vpn
from .topics import has_wildcard, name_matches

if TYPE_CHECKING:
    from .models import Txn
    from .views import ClientInfo, PublishResult

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


@dataclass
class Topology:
    """The lab's shape: sites, routers, links, HA groups and VPNs, loaded once per transaction.

    Why: no command inserts or deletes these rows (only a scenario or a lab reset does, in a
    transaction of its own), yet nearly every command looks several of them up. Loading the few
    rows once and holding them here turns those lookups into dictionary reads, and the strong
    references keep the objects in the session's identity map (which holds them only weakly), so
    changes made during the command stay visible through every path."""

    sites: list[Site]
    routers: list[Router]
    links: list[Link]
    groups: dict[int, HaGroup]
    vpns: list[Vpn]
    repl_queues: dict[int, Queue]  # by VPN id; scenarios create them, commands never do
    site_by_name: dict[str, Site] = field(init=False)
    router_by_id: dict[int, Router] = field(init=False)
    router_by_name: dict[str, Router] = field(init=False)
    vpn_by_id: dict[int, Vpn] = field(init=False)
    user_vpns: list[Vpn] = field(init=False)  # the non-internal VPNs, by id
    vpn_by_router_name: dict[tuple[int, str], Vpn] = field(init=False)
    vpns_by_router: dict[int, list[Vpn]] = field(init=False)
    vpns_by_group: dict[int, list[Vpn]] = field(init=False)

    def __post_init__(self) -> None:
        self.site_by_name = {s.name: s for s in self.sites}
        self.router_by_id = {r.id: r for r in self.routers}
        self.router_by_name = {}
        for r in self.routers:  # the first of a duplicated name wins, as `.first()` did
            self.router_by_name.setdefault(r.name, r)
        self.vpn_by_id = {v.id: v for v in self.vpns}
        self.user_vpns = [v for v in self.vpns if not v.internal]
        self.vpn_by_router_name = {}
        self.vpns_by_router = {}
        self.vpns_by_group = {}
        for v in self.vpns:
            self.vpn_by_router_name.setdefault((v.router_id, v.name), v)
            self.vpns_by_router.setdefault(v.router_id, []).append(v)
            self.vpns_by_group.setdefault(v.group_id, []).append(v)

    def attach(self, session: Session) -> None:
        """Make the rows of an earlier transaction persistent in ``session`` again, without SQL."""
        for rows in (self.sites, self.routers, self.links, self.groups.values(), self.vpns,
                     self.repl_queues.values()):
            session.add_all(rows)

    @classmethod
    def load(cls, session: Session) -> Topology:
        return cls(
            sites=list(session.scalars(select(Site).order_by(Site.id))),
            routers=list(session.scalars(select(Router).order_by(Router.id))),
            links=list(session.scalars(select(Link).order_by(Link.id))),
            groups={g.id: g for g in session.scalars(select(HaGroup))},
            vpns=list(session.scalars(select(Vpn).order_by(Vpn.id))),
            repl_queues={q.vpn_id: q for q in session.scalars(
                select(Queue).where(Queue.kind == "replication").order_by(Queue.id))},
        )


class EngineBase:
    def __init__(self, session: Session, topology: Topology | None = None) -> None:
        self.s = session
        self._topology: Topology | None = None
        self._detached = topology  # from an earlier transaction; attached on first use
        self._now: int | None = None
        self._settings: dict[str, str] = {}

    @property
    def loaded_topology(self) -> Topology | None:
        return self._topology or self._detached

    @property
    def topo(self) -> Topology:
        if self._topology is None:
            if self._detached is not None:
                self._detached.attach(self.s)
                self._topology = self._detached
            else:
                self._topology = Topology.load(self.s)
        return self._topology

    def _managed_queue_bind_count(self, v: Vpn, q: Queue) -> int:
        """Binds on a queue another object created (a telemetry profile's); see config_objects."""
        return 0

    # ------------------------------------------------------------------ sql
    def _sql(self, sql: str, params: dict[str, Any] | None = None) -> Any:
        return self.s.execute(text(sql), params or {})

    def _scalar(self, sql: str, params: dict[str, Any] | None = None) -> Any:
        return self.s.execute(text(sql), params or {}).scalar()

    # ------------------------------------------------------------------ clock / settings
    def now_ms(self) -> int:
        if self._now is None:
            self._now = clock.now_ms(self.s)
        return self._now

    def _set_now_ms(self, value: int) -> None:
        clock.set_now_ms(self.s, value)
        self._now = value

    def _setting(self, key: str) -> str:
        if key not in self._settings:
            row = self.s.get(Setting, key)
            self._settings[key] = row.value if row else SETTING_DEFAULTS[key]
        return self._settings[key]

    def _int_setting(self, key: str) -> int:
        return int(self._setting(key))

    # ------------------------------------------------------------------ lookups
    def _router(self, name: str, *, must_be_up: bool = False) -> Router:
        r = self.topo.router_by_name.get(name)
        if r is None:
            raise EngineError("router_not_found", router=name)
        if must_be_up and not r.up:
            raise EngineError("router_down", router=name)
        return r

    def _site(self, name: str) -> Site:
        site = self.topo.site_by_name.get(name)
        if site is None:
            raise EngineError("site_not_found", site=name)
        return site

    def _routers_of_site(self, site: Site) -> list[Router]:
        return sorted((r for r in self.topo.routers if r.site_id == site.id), key=lambda r: r.name)

    def _vpn(self, router: Router, name: str) -> Vpn:
        v = self.topo.vpn_by_router_name.get((router.id, name))
        if v is None:
            raise EngineError("vpn_not_found", vpn=name, router=router.name)
        return v

    def _vpn_rw(self, router_name: str, vpn_name: str) -> Vpn:
        """A VPN to configure: router must exist and be up, VPN must exist and not be internal."""
        r = self._router(router_name, must_be_up=True)
        v = self._vpn(r, vpn_name)
        if v.internal:
            raise EngineError("vpn_internal", vpn=vpn_name)
        return v

    def _vpns(self, router: Router, pattern: str | None = None) -> list[Vpn]:
        rows = self.topo.vpns_by_router.get(router.id, [])
        out = [v for v in rows if name_matches(pattern, v.name)]
        if pattern is not None and not has_wildcard(pattern) and not out:
            raise EngineError("vpn_not_found", vpn=pattern, router=router.name)
        return sorted(out, key=_name_key)

    def _router_of(self, vpn: Vpn) -> Router:
        return self.topo.router_by_id[vpn.router_id]

    def _group(self, vpn: Vpn) -> HaGroup:
        return self.topo.groups[vpn.group_id]

    def _group_members(self, vpn: Vpn) -> list[Vpn]:
        return list(self.topo.vpns_by_group.get(vpn.group_id, []))

    def _mate(self, vpn: Vpn) -> Vpn | None:
        """The replication mate: the same VPN on the other site's router."""
        for v in self._group_members(vpn):
            if v.id != vpn.id:
                return v
        return None

    def _queue(self, vpn: Vpn, name: str) -> Queue:
        q = self.s.scalars(select(Queue).where(Queue.vpn_id == vpn.id, Queue.name == name)).first()
        if q is None:
            raise EngineError("queue_not_found", queue=name, vpn=vpn.name)
        return q

    def _repl_queue(self, vpn: Vpn) -> Queue | None:
        return self.topo.repl_queues.get(vpn.id)

    def _client(self, name: str) -> Client:
        c = self.s.scalars(select(Client).where(Client.name == name)).first()
        if c is None:
            raise EngineError("client_not_found", client=name)
        return c

    def _replicated_topics(self, vpn: Vpn) -> list[ReplicatedTopic]:
        return list(self.s.scalars(
            select(ReplicatedTopic).where(ReplicatedTopic.vpn_id == vpn.id).order_by(ReplicatedTopic.topic)
        ))

    # ------------------------------------------------------------------ topology rules
    def _sites_linked(self, a: Router, b: Router) -> bool:
        if a.site_id == b.site_id:
            return True
        for link in self.topo.links:
            if {link.site_a_id, link.site_b_id} == {a.site_id, b.site_id}:
                return link.up
        return False

    def _serving(self, vpn: Vpn) -> bool:
        """Accepts clients and publishes: router up, VPN up, and replication-active or not
        replicated (replication shut down)."""
        if vpn.internal or not vpn.enabled:
            return False
        if not self._router_of(vpn).up:
            return False
        return (not vpn.repl_enabled) or vpn.role == "active"

    def _has_entries(self, vpn: Vpn) -> bool:
        return self._scalar("SELECT 1 FROM repl_entry WHERE vpn_id=:v LIMIT 1", {"v": vpn.id}) is not None

    def _binding(self, holder: Vpn) -> Vpn | None:
        """The standby VPN whose bridge is bound to ``holder``'s replication queue, or None.

        Bound when both routers are up, their sites are linked, replication is enabled on both,
        the mate is standby, and the holder is active -- or the holder is a standby that still
        has undrained entries and its mate is standby (the window of a controlled failover
        between `replication state standby` on the old site and `active` on the new one)."""
        if holder.internal or not holder.repl_enabled:
            return None
        mate = self._mate(holder)
        if mate is None or not mate.repl_enabled or mate.role != "standby":
            return None
        hr, mr = self._router_of(holder), self._router_of(mate)
        if not (hr.up and mr.up and self._sites_linked(hr, mr)):
            return None
        if holder.role == "active":
            return mate
        return mate if self._has_entries(holder) else None

    # ------------------------------------------------------------------ counters
    def _adjust_queue(self, q: Queue, dcount: int, dbytes: int) -> None:
        if not dcount and not dbytes:
            return
        q.msg_count = max(0, q.msg_count + dcount)
        q.bytes = max(0, q.bytes + dbytes)
        if q.bytes > q.hwm_bytes:
            q.hwm_bytes = q.bytes
        if dbytes > 0:
            router = self._router_of(self.topo.vpn_by_id[q.vpn_id])
            total = self._router_spool_bytes(router)
            if total > router.spool_hwm_bytes:
                router.spool_hwm_bytes = total

    def _router_spool_bytes(self, router: Router) -> int:
        self.s.flush()
        return int(self._scalar(
            "SELECT COALESCE(SUM(q.bytes),0) FROM queue q JOIN vpn v ON v.id=q.vpn_id "
            "WHERE v.router_id=:r", {"r": router.id}) or 0)

    def _queues_by_id(self, ids: Iterable[int]) -> dict[int, Queue]:
        return {i: self.s.get(Queue, i) for i in ids}  # type: ignore[misc]

    if TYPE_CHECKING:
        # What the behaviour mixins call on one another, declared once here (the definition lives in
        # the module named) so each mixin type-checks on its own and mypy holds every definition to
        # its declared signature. Type-checking only: at run time the Engine's MRO finds the mixin's.
        def _connected_client(self, name: str) -> tuple[Client, Vpn, Router]:      # clients
            raise NotImplementedError

        def _client_info(self, c: Client) -> ClientInfo:                            # clients
            raise NotImplementedError

        def _disconnect_vpn_clients(self, v: Vpn, reason: str) -> None:            # clients
            raise NotImplementedError

        def _disconnect_router_clients(self, r: Router, reason: str) -> None:      # clients
            raise NotImplementedError

        def _select(self, sql: str, params: dict[str, Any]) -> int:                # messaging
            raise NotImplementedError

        def _publish_now(self, v: Vpn, r: Router, client_name: str, topic: str, count: int,
                         size: int) -> PublishResult:                              # messaging
            raise NotImplementedError

        def _consume_selected(self, v: Vpn, r: Router, client_name: str,
                              txn_key: str | None) -> int:                         # messaging
            raise NotImplementedError

        def _refresh(self) -> None:                                                 # replication
            raise NotImplementedError

        def _replication_mode(self, v: Vpn, topic: str) -> str | None:             # replication
            raise NotImplementedError

        def _append_tx_entry(self, v: Vpn, payload: dict[str, Any]) -> None:       # replication
            raise NotImplementedError

        def _drain(self, holder: Vpn, limit: int | None = None, upto_seq: int | None = None) -> int:  # replication
            raise NotImplementedError

        def _matching_queues(self, v: Vpn, topic: str) -> list[Queue]:             # replication
            raise NotImplementedError

        def _wildcard_vpns(self, r: Router, pattern: str | None) -> list[Vpn]:     # replication
            raise NotImplementedError

        def _sync_eligible(self, v: Vpn) -> bool | None:                            # replication
            raise NotImplementedError

        def _take_pending_acks(self, v: Vpn) -> int:                                # messaging
            raise NotImplementedError

        def _drop_pending_acks(self, v: Vpn) -> None:                               # messaging
            raise NotImplementedError

        def _open_txn(self, c: Client) -> Txn | None:                               # transactions
            raise NotImplementedError

        def _rollback_txn(self, t: Txn, emit: bool = True, heuristic: str | None = None) -> None:  # transactions
            raise NotImplementedError


def _name_key(v: Any) -> tuple[int, str]:
    """CLI sort: '#' names first, then by name."""
    return (0 if v.name.startswith("#") else 1, v.name)
