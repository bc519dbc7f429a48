"""The Engine facade: every read and change the shell needs, bound to one DB transaction.

Get one from ``LabStore.transaction()``; it is only valid inside that ``with`` block. Every method
either returns a view (``state_store.views``), a count, or None, or raises
``EngineError(code, **params)`` (codes listed in ``state_store.errors``); a refusal is raised
before/without leaving changes behind because the store rolls the transaction back.

Arguments: ``router`` is a router hostname (``NY_Appliance1``), ``vpn`` a Message VPN name,
``site`` a site name (``NY``). ``*_pattern`` / ``pattern`` arguments take CLI wildcards ``*`` and
``?``; an exact name that does not exist raises ``*_not_found``. Shows and config ops on a down
router raise ``router_down``; completion reads (``*_names``, ``xids``) never raise.

Public API
  Lab / topology
    routers() -> list[RouterInfo]; sites() -> list[SiteInfo]   (scenario order); status() -> LabStatus
    site_names(); user_names(); replicated_topic_names(router, vpn)   (completion, never raise)
    settings() -> dict[str, str]; set_setting(key, value)
    user(name) -> UserInfo | None; users() -> list[UserInfo]; verify_password(name, pw) -> bool
    now_ms() -> int; advance(ms) -> AdvanceResult   (also runs the HA core's timers: one clock)
    ha_core() -> HaCore   (the SwiftMQ routers etc., state_store.core; lab ops in state_store.swiftmq.lab)
    fail_site(site); restore_site(site); replace_site(site)
    fail_link(site_a=None, site_b=None); restore_link(site_a=None, site_b=None)
  Replication
    vpn_names(router) -> list[str]
    vpn_replication(router, pattern="*") -> list[VpnReplicationRow]
    vpn_replication_detail(router, vpn) -> VpnReplicationDetail
    replication_stats(router, vpn=None) -> ReplicationStats
    system_replication(router) -> SystemReplication
    bridges(router, pattern="*", vpn=None) -> list[BridgeInfo]
    set_replication_role(router, vpn, "active"|"standby")
    set_replication_enabled(router, vpn, enabled, queue_behaviour="fail-on-existing-queue")
    set_replication_option(router, vpn, option, value=None)   (REPLICATION_OPTIONS; None = `no`)
    create_replicated_topic(router, vpn, topic, mode="async"); delete_replicated_topic(...)
    set_replicated_topic_mode(router, vpn, topic, mode); replicated_topics(router, vpn)
    set_replication_mate(router, "virtual-router-name"|"connect-via", value=None)   (all VPNs shut down)
  Queues / spool
    queues(router, vpn_pattern="*", queue_pattern="*") -> list[QueueRow]
    queue_detail(router, vpn, queue) -> QueueDetail; queue_names(router, vpn) -> list[str]
    queue_messages(router, vpn, queue, from_rgmid=None, msg_id=None, newest=False, limit=100)
    message_spool(router, vpn=None) -> MessageSpool
    create_queue(router, vpn, name); delete_queue(router, vpn, name) -> int
    set_queue_shutdown(router, vpn, queue, shutdown, direction="both"|"ingress"|"egress")
    add_queue_subscription / remove_queue_subscription(router, vpn, queue, topic)
    set_queue_option(router, vpn, queue, option, value=None)   (QUEUE_OPTIONS)
    delete_messages(router, vpn, queue, from_id=None, to_id=None) -> int
  Clients / traffic
    clients(router=None, pattern="*", vpn=None) -> list[ClientInfo]; client(name) -> ClientInfo
    client_names(router=None); add_client(name, vpn, hosts, username=None); remove_client(name)
    set_client_running(name, running) -> ClientInfo; disconnect_client(router, vpn, name)
    publish(client, topic, count=1, size=None) -> PublishResult
    consume(client, queue, count=1) -> ConsumeResult
  Transactions
    tx_local_start/commit/rollback(client)
    tx_xa_start/end/suspend/resume/prepare/rollback(client, xid); tx_xa_commit(client, xid, one_phase=False)
    transactions(router, xid=None, vpn=None, state=None, replicated=None, detail=True)
    heuristic_commit / heuristic_rollback / heuristic_delete(router, vpn, xid_pattern) -> int
    xids(router, vpn=None) -> list[str]
  Named configuration objects (state_store.config_objects; kinds in KINDS, path = names from the
  top-level object down, e.g. ("trace", "default") for a telemetry filter)
    create_object / delete_object / require_object(router, vpn, kind, path)
    set_object_attr(router, vpn, kind, path, attr, value=None)   (None = default, the `no` form)
    client_usernames / client_profiles / acl_profiles / telemetry_profiles /
      rest_delivery_points(router, vpn_pattern="*", pattern="*") -> typed views
    config_sync(router) -> ConfigSyncInfo; config_sync_bridge(router) -> ConfigSyncBridgeConfig
    assert_config_sync_leader(router, vpn); set_replication_interface(router, name | None)
    router_identity(router) -> RouterIdentity
  Config / audit
    current_config(router, vpn=None) -> RouterConfig
    audit(vpn=None, limit=1000) -> Audit
"""

from __future__ import annotations

from typing import Any

from sqlalchemy import select

from .audit import AuditMixin
from .base import SETTING_DEFAULTS
from .clients import ClientsMixin
from .config_objects import ConfigObjectsMixin
from .core.persist import HaCoreMixin
from .errors import EngineError
from .failures import FailuresMixin
from .messaging import MessagingMixin
from .models import Queue, Setting, Subscription, User, Vpn
from .passwords import verify_password as _verify
from .replication import ReplicationMixin
from .transactions import TransactionsMixin
from .views import (
    AdvanceResult,
    QueueConfig,
    ReplicatedTopicInfo,
    RouterConfig,
    RouterInfo,
    SiteInfo,
    UserInfo,
    VpnConfig,
    VpnReplicationConfig,
)

SETTING_RULES: dict[str, Any] = {
    "software_version": str,
    "layout": ("A", "B"),
    "product_line": ("enterprise", "standard", "appliance"),
    "replication_drain_rate": int,
    "default_message_size": int,
}


class Engine(ReplicationMixin, MessagingMixin, ClientsMixin, TransactionsMixin, FailuresMixin,
             AuditMixin, HaCoreMixin, ConfigObjectsMixin):
    # ------------------------------------------------------------------ time
    def advance(self, ms: int) -> AdvanceResult:
        """Move the simulated clock. Clients reconnect (before and after), then every bound
        replication stream drains ``replication_drain_rate`` entries per simulated second
        (fractions carried per VPN)."""
        if ms < 0:
            raise EngineError("invalid_value", name="duration", value=ms, allowed=">= 0")
        start = self.now_ms()
        reconnected = self._reconnect_all()
        self._set_now_ms(start + ms)
        self._ack_timer(start, start + ms)  # waiting acks leave at each whole second
        rate = self._int_setting("replication_drain_rate")
        drained = 0
        for v in self.topo.user_vpns:
            if not self._has_entries(v) or self._binding(v) is None:
                v.drain_carry = 0
                continue
            total = v.drain_carry + rate * ms
            budget, v.drain_carry = divmod(total, 1000)
            if budget:
                drained += self._drain(v, limit=budget)
            if not self._has_entries(v):
                v.drain_carry = 0
        self._refresh()
        reconnected += [c for c in self._reconnect_all() if c not in reconnected]
        reconnected += [c for c in self.advance_ha_core(start + ms) if c not in reconnected]
        self.s.flush()
        return AdvanceResult(from_ms=start, to_ms=start + ms, drained=drained,
                             reconnected=tuple(reconnected))

    # ------------------------------------------------------------------ lab reads
    def routers(self) -> list[RouterInfo]:
        """In scenario order: the first router is where `solace-shell` starts."""
        sites = {s.id: s.name for s in self.topo.sites}
        return [RouterInfo(r.name, sites[r.site_id], r.up) for r in self.topo.routers]

    def sites(self) -> list[SiteInfo]:
        out = []
        for s in self.topo.sites:
            rs = self._routers_of_site(s)
            out.append(SiteInfo(s.name, tuple(r.name for r in rs), all(r.up for r in rs)))
        return out

    def site_names(self) -> list[str]:
        """Completion: site names in scenario order."""
        return [s.name for s in self.sites()]

    def user_names(self) -> list[str]:
        """Completion: CLI user names."""
        return [u.name for u in self.users()]

    def replicated_topic_names(self, router: str, vpn: str | None) -> list[str]:
        """Completion: replicated topics of a VPN on a router."""
        try:
            return [t.topic for t in self.replicated_topics(router, vpn or "")]
        except EngineError:
            return []

    def settings(self) -> dict[str, str]:
        out = dict(SETTING_DEFAULTS)
        out.update({s.key: s.value for s in self.s.scalars(select(Setting))})
        return out

    def set_setting(self, key: str, value: Any) -> None:
        rule = SETTING_RULES.get(key)
        if rule is None:
            raise EngineError("unknown_setting", name=key)
        if isinstance(rule, tuple):
            if str(value) not in rule:
                raise EngineError("invalid_value", name=key, value=value, allowed="|".join(rule))
        elif rule is int:
            try:
                ok = int(value) >= 1
            except (TypeError, ValueError):
                ok = False
            if not ok:
                raise EngineError("invalid_value", name=key, value=value, allowed="integer >= 1")
            value = int(value)
        row = self.s.get(Setting, key)
        if row is None:
            self.s.add(Setting(key=key, value=str(value)))
        else:
            row.value = str(value)
        self._settings.pop(key, None)
        self.s.flush()

    def user(self, name: str) -> UserInfo | None:
        u = self.s.scalars(select(User).where(User.name == name)).first()
        return UserInfo(u.name, u.scope, u.level, u.vpn, u.lab_admin) if u else None

    def users(self) -> list[UserInfo]:
        return [UserInfo(u.name, u.scope, u.level, u.vpn, u.lab_admin)
                for u in self.s.scalars(select(User).order_by(User.name))]

    def verify_password(self, name: str, password: str) -> bool:
        u = self.s.scalars(select(User).where(User.name == name)).first()
        return _verify(password, u.password_hash if u is not None else None)  # same work either way

    # ------------------------------------------------------------------ current config
    def current_config(self, router: str, vpn: str | None = None) -> RouterConfig:
        """The configuration behind `show current-config [message-vpn <v>]`, as data."""
        r = self._router(router, must_be_up=True)
        vpns = [self._vpn(r, vpn)] if vpn is not None else [v for v in self._vpns(r) if not v.internal]
        sync = self.config_sync(router)
        mate = self._attrs(self._row(r, None, "replication-mate", ""), "replication-mate")
        return RouterConfig(
            router=r.name, vpn=vpn, mate_virtual_router_name=r.mate_name,
            mate_connect_via=r.connect_via, replication_interface=r.repl_interface,
            vpns=tuple(self._vpn_config(v) for v in vpns), mate_transport=str(mate["transport"]),
            config_sync_enabled=sync.admin_enabled, config_sync_ssl=sync.ssl,
            config_sync_bridge=self.config_sync_bridge(router))

    def _vpn_config(self, v: Vpn) -> VpnConfig:
        replication = VpnReplicationConfig(
            enabled=v.repl_enabled, role=v.role, transaction_replication_mode=v.trm,
            reject_msg_when_sync_ineligible=v.reject_sync_ineligible,
            queue_max_spool_mb=v.rq_max_spool_mb,
            queue_reject_msg_to_sender_on_discard=v.rq_reject_on_discard,
            ack_propagation_enabled=v.ack_prop_enabled, ack_propagation_interval=v.ack_interval,
            bridge_auth_scheme=v.bridge_auth_scheme, bridge_client_username=v.bridge_username,
            bridge_password_set=bool(v.bridge_password_hash), bridge_compressed=v.bridge_compressed,
            bridge_window_size=v.bridge_window_size, bridge_retry_delay=v.bridge_retry_delay,
            bridge_ssl=v.bridge_ssl, bridge_client_profile=v.bridge_client_profile,
            replicated_topics=tuple(ReplicatedTopicInfo(t.topic, t.mode) for t in self._replicated_topics(v)),
            bridge_password_hash=v.bridge_password_hash)
        queues = []
        for q in sorted(self.s.scalars(select(Queue).where(Queue.vpn_id == v.id, Queue.kind == "normal")),
                        key=lambda q: q.name):
            subs = tuple(sorted(
                s.topic for s in self.s.scalars(select(Subscription).where(Subscription.queue_id == q.id))))
            queues.append(QueueConfig(
                name=q.name, access_type=q.access_type, owner=q.owner, permission=q.permission,
                max_spool_mb=q.max_spool_mb, max_bind_count=q.max_bind_count, subscriptions=subs,
                ingress_up=q.ingress_up, egress_up=q.egress_up))
        r = self._router_of(v)
        return VpnConfig(
            name=v.name, enabled=v.enabled, replication=replication, queues=tuple(queues),
            authentication_basic_auth_type=self.vpn_auth_type(r, v),
            client_profiles=tuple(p for p in self._client_profiles(r, v) if not p.managed_by),
            acl_profiles=tuple(p for p in self._acl_profiles(r, v) if not p.managed_by),
            client_usernames=tuple(self._usernames(r, v)),
            telemetry_profiles=tuple(self._telemetry_profiles(r, v)),
            rest_delivery_points=tuple(self._rest_delivery_points(r, v)))
