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
    now_ms() -> int; advance(ms) -> AdvanceResult
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
  Config / audit
    current_config(router, vpn=None) -> CurrentConfig
    audit(vpn=None, limit=1000) -> Audit
"""

from __future__ import annotations

from typing import Any, Optional

from sqlalchemy import select

from .audit import AuditMixin
from .base import SETTING_DEFAULTS
from .clients import ClientsMixin
from .errors import EngineError
from .failures import FailuresMixin
from .messaging import MessagingMixin
from .models import Queue, Setting, Subscription, User
from .passwords import verify_password as _verify
from .replication import ReplicationMixin
from .transactions import TransactionsMixin
from .views import (
    AdvanceResult,
    ConfigEntry,
    ConfigSection,
    CurrentConfig,
    RouterInfo,
    SiteInfo,
    UserInfo,
)

SETTING_RULES: dict[str, Any] = {
    "software_version": str,
    "layout": ("A", "B"),
    "replication_drain_rate": int,
    "default_message_size": int,
}


class Engine(ReplicationMixin, MessagingMixin, ClientsMixin, TransactionsMixin, FailuresMixin,
             AuditMixin):
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

    def replicated_topic_names(self, router: str, vpn: Optional[str]) -> list[str]:
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

    def user(self, name: str) -> Optional[UserInfo]:
        u = self.s.scalars(select(User).where(User.name == name)).first()
        return UserInfo(u.name, u.scope, u.level, u.vpn, u.lab_admin) if u else None

    def users(self) -> list[UserInfo]:
        return [UserInfo(u.name, u.scope, u.level, u.vpn, u.lab_admin)
                for u in self.s.scalars(select(User).order_by(User.name))]

    def verify_password(self, name: str, password: str) -> bool:
        u = self.s.scalars(select(User).where(User.name == name)).first()
        return _verify(password, u.password_hash if u is not None else None)  # same work either way

    # ------------------------------------------------------------------ current config
    def current_config(self, router: str, vpn: Optional[str] = None) -> CurrentConfig:
        """What `show current-config [message-vpn <v>]` prints, as ordered sections of
        (context levels, command) entries; values are quoted as the CLI prints them."""
        r = self._router(router, must_be_up=True)
        sections: list[ConfigSection] = []
        if vpn is None:
            rep = []
            if r.mate_name:
                rep.append(ConfigEntry(("replication",), f'mate virtual-router-name "{r.mate_name}"'))
                rep.append(ConfigEntry(("replication",), f'mate connect-via "{r.connect_via}"'))
            if r.repl_interface:
                rep.append(ConfigEntry(("replication",), f'interface "{r.repl_interface}"'))
            rep.append(ConfigEntry(("replication",), "config-sync bridge no shutdown"))
            sections.append(ConfigSection("Configure Replication", tuple(rep)))
        vpns = [self._vpn(r, vpn)] if vpn is not None else [v for v in self._vpns(r) if not v.internal]
        for v in vpns:
            ctx = (f'message-vpn "{v.name}"',)
            sections.append(ConfigSection("Configure Message VPN", (
                ConfigEntry((), f'create message-vpn "{v.name}"'),
                ConfigEntry(ctx, "no shutdown" if v.enabled else "shutdown"),
            )))
            rctx = ctx + ("replication",)
            e = [
                ConfigEntry(rctx + ("ack-propagation",), f"interval messages {v.ack_interval}"),
                ConfigEntry(rctx + ("ack-propagation",), "no shutdown" if v.ack_prop_enabled else "shutdown"),
                ConfigEntry(rctx + ("bridge",), f'authentication auth-scheme "{v.bridge_auth_scheme}"'),
            ]
            if v.bridge_username:
                e.append(ConfigEntry(rctx + ("bridge",), f'authentication basic client-username "{v.bridge_username}"'
                                     + (" password <redacted>" if v.bridge_password_hash else "")))
            e += [
                ConfigEntry(rctx + ("bridge",), "compressed-data" if v.bridge_compressed else "no compressed-data"),
                ConfigEntry(rctx + ("bridge",), f"message-spool window-size {v.bridge_window_size}"),
                ConfigEntry(rctx + ("bridge",), f"retry-delay {v.bridge_retry_delay}"),
                ConfigEntry(rctx + ("bridge",), "ssl" if v.bridge_ssl else "no ssl"),
                ConfigEntry(rctx + ("bridge",), f'unidirectional client-profile "{v.bridge_client_profile}"'),
                ConfigEntry(rctx + ("queue",), f"max-spool-usage {v.rq_max_spool_mb}"),
                ConfigEntry(rctx + ("queue",), "reject-msg-to-sender-on-discard" if v.rq_reject_on_discard
                            else "no reject-msg-to-sender-on-discard"),
                ConfigEntry(rctx, "reject-msg-when-sync-ineligible" if v.reject_sync_ineligible
                            else "no reject-msg-when-sync-ineligible"),
                ConfigEntry(rctx, f'transaction-replication-mode "{v.trm}"'),
            ]
            for t in self._replicated_topics(v):
                e.append(ConfigEntry(rctx + (f'create replicated-topic "{t.topic}"',), f'replication-mode "{t.mode}"'))
            e.append(ConfigEntry(rctx, f'state "{v.role}"'))
            e.append(ConfigEntry(rctx, "no shutdown" if v.repl_enabled else "shutdown"))
            sections.append(ConfigSection("Configure Replication", tuple(e)))
            qe = []
            for q in sorted(self.s.scalars(select(Queue).where(Queue.vpn_id == v.id, Queue.kind == "normal")),
                            key=lambda q: q.name):
                qctx = (f'message-spool message-vpn "{v.name}"', f'create queue "{q.name}"')
                qe.append(ConfigEntry(qctx, f'access-type "{q.access_type}"'))
                if q.owner:
                    qe.append(ConfigEntry(qctx, f'owner "{q.owner}"'))
                qe.append(ConfigEntry(qctx, f'permission all "{q.permission}"'))
                qe.append(ConfigEntry(qctx, f"max-spool-usage {q.max_spool_mb}"))
                qe.append(ConfigEntry(qctx, f"max-bind-count {q.max_bind_count}"))
                for sub in sorted(s.topic for s in self.s.scalars(select(Subscription).where(Subscription.queue_id == q.id))):
                    qe.append(ConfigEntry(qctx, f'subscription topic "{sub}"'))
                if q.ingress_up and q.egress_up:
                    qe.append(ConfigEntry(qctx, "no shutdown"))
                elif q.ingress_up:
                    qe.append(ConfigEntry(qctx, "no shutdown ingress"))
                elif q.egress_up:
                    qe.append(ConfigEntry(qctx, "no shutdown egress"))
            if qe:
                sections.append(ConfigSection("Configure Queues", tuple(qe)))
        return CurrentConfig(router=r.name, vpn=vpn, sections=tuple(sections))
