"""The Engine facade: every read and change the shell needs, over one lab's in-memory state.

Get one from ``LabStore.transaction()``; use it only inside that ``with`` block (the store keeps the
state coherent between commands: catch-up with other shells, rollback of a refused command). Every method
either returns a view (``state_store.solace.views``), a count, or None, or raises
``EngineError(code, **params)`` (codes listed in ``state_store.errors``); a refused command leaves
nothing behind because the store puts the state back as it was before the command.

Why a facade over services: the behaviour lives in small services (``state_store.solace.services``:
replication, messaging, clients, transactions, failures, audit, configuration objects), each
type-checked on its own; the Engine is the one typed API the shell sees, and the one place that
says which calls change the state. Those are decorated ``@journaled`` (``state_store.journal``):
a command's effect is the list of its journaled calls, which persistence writes and other shells
replay, so a method that changes anything and is not journaled loses that change across shells.

Arguments: ``router`` is a router hostname (``NY_Appliance1``), ``vpn`` a Message VPN name,
``site`` a site name (``NY``). ``*_pattern`` / ``pattern`` arguments take CLI wildcards ``*`` and
``?``; an exact name that does not exist raises ``*_not_found``. Shows and config ops on a down
router raise ``router_down``; completion reads (``*_names``, ``xids``) never raise.

Public API (J = journaled: changes the state)
  Lab / topology
    routers() -> list[RouterInfo]; sites() -> list[SiteInfo]   (scenario order); status() -> LabStatus
    site_names(); user_names(); user_vpn_names(); replicated_topic_names(router, vpn)   (never raise)
    close()   (the engine is done with: its services let go of one another)
    lab   (the lab's root engine, state_store.lab_root.engine: settings, users, the clock, advance,
      kernel_call and the shared failure verbs are the lab's; now_ms(), kernel(), settings() and
      kernel_call(op, *args) here are the root's, for the router CLI's handlers)
    advance_section(start_ms, ms), after_advance()   (this model's part of the lab's advance)
    fail_site(site) J; restore_site(site) J; replace_site(site) J
    fail_link(site_a=None, site_b=None) J; restore_link(site_a=None, site_b=None) J
    site_change(site, "down"|"up"|"replaced") -> SiteChange; link_change(up, site_a=None, site_b=None)
      -> LinkChange   (the site and link calls above, with the view the lab's verbs print)
    fail_node(failure, target); fail_network(failure, target) -> view | None   (the lab's shared
      failure verbs on a router or the inter-site link `A-B`: state_store.solace.lab_failures)
    ha_node_names_extra(); ha_network_names_extra()   (completion: those targets)
  Intra-site redundancy (state_store.solace.redundancy: a site's primary, backup and monitor)
    redundancy(router) -> RedundancyView; redundancy_group(router) -> RedundancyGroupView
    local_failovers() -> list[(site, ms, from, to)]
    set_redundancy_option(router, "shutdown"|"auto-revert"|"release-activity", on) J
    revert_activity(router) J
  Replication
    vpn_names(router) -> list[str]
    vpn_replication(router, pattern="*") -> list[VpnReplicationRow]
    vpn_replication_detail(router, vpn) -> VpnReplicationDetail
    replication_stats(router, vpn=None) -> ReplicationStats
    system_replication(router) -> SystemReplication
    bridges(router, pattern="*", vpn=None) -> list[BridgeInfo]
    set_replication_role(router, vpn, "active"|"standby") J
    set_replication_enabled(router, vpn, enabled, queue_behaviour="fail-on-existing-queue") J
    set_replication_option(router, vpn, option, value=None) J   (REPLICATION_OPTIONS; None = `no`)
    create_replicated_topic(router, vpn, topic, mode="async") J; delete_replicated_topic(...) J
    set_replicated_topic_mode(router, vpn, topic, mode) J; replicated_topics(router, vpn)
    set_replication_mate(router, "virtual-router-name"|"connect-via", value=None) J   (all VPNs shut down)
  Queues / spool
    queues(router, vpn_pattern="*", queue_pattern="*") -> list[QueueRow]
    queue_detail(router, vpn, queue) -> QueueDetail; queue_names(router, vpn) -> list[str]
    queue_messages(router, vpn, queue, from_rgmid=None, msg_id=None, newest=False, limit=100)
    message_spool(router, vpn=None) -> MessageSpool; queue_name_is_replication(name) -> bool
    create_queue(router, vpn, name) J; delete_queue(router, vpn, name) -> int J
    set_queue_shutdown(router, vpn, queue, shutdown, direction="both"|"ingress"|"egress") J
    add_queue_subscription / remove_queue_subscription(router, vpn, queue, topic) J
    set_queue_option(router, vpn, queue, option, value=None) J   (QUEUE_OPTIONS)
    set_vpn_enabled(router, vpn, enabled) J; set_rest_listen_port(router, vpn, port | None) J
    set_vpn_max_spool(router, vpn, mb=None) J   (the VPN's spool quota; None = lab default)
    delete_messages(router, vpn, queue, from_id=None, to_id=None) -> int J
  Clients / traffic
    clients(router=None, pattern="*", vpn=None) -> list[ClientInfo]; client(name) -> ClientInfo
    client_names(router=None); add_client(name, vpn, hosts, username=None) J; remove_client(name) J
    set_client_running(name, running) -> ClientInfo J; disconnect_client(router, vpn, name) J
    publish(client, topic, count=1, size=None) -> PublishResult J
    consume(client, queue, count=1) -> ConsumeResult J
  Transactions
    tx_local_start/commit/rollback(client) J
    tx_xa_start/end/suspend/resume/prepare/rollback(client, xid) J; tx_xa_commit(client, xid, one_phase=False) J
    transactions(router, xid=None, vpn=None, state=None, replicated=None, detail=True)
    heuristic_commit / heuristic_rollback / heuristic_delete(router, vpn, xid_pattern) -> int J
    xids(router, vpn=None) -> list[str]
  Named configuration objects (state_store.solace.config_objects; kinds in KINDS, path = names from the
  top-level object down, e.g. ("trace", "default") for a telemetry filter)
    create_object / delete_object(router, vpn, kind, path) J; require_object(router, vpn, kind, path)
    set_object_attr(router, vpn, kind, path, attr, value=None) J   (None = default, the `no` form)
    client_usernames / client_profiles / acl_profiles / telemetry_profiles /
      rest_delivery_points(router, vpn_pattern="*", pattern="*") -> typed views
    vpn_auth_type(r, v) -> str   (records, not names: the VPN's authentication basic auth-type)
    config_sync(router) -> ConfigSyncInfo; config_sync_bridge(router) -> ConfigSyncBridgeConfig
    assert_config_sync_leader(router, vpn) J; set_replication_interface(router, name | None) J
    router_identity(router) -> RouterIdentity; cli_script(router, name) -> list[str]   (`source script`)
  Config / audit
    current_config(router, vpn=None) -> RouterConfig
    audit(vpn=None, limit=1000) -> Audit

Secrets: ``set_replication_option("bridge-password", ...)`` and ``set_object_attr`` of a secret
attribute take the clear text as the CLI gives it; the facade hashes it (with a random salt of
its own) before the journaled call, so the journal, and the lab file holding it, never see a clear
secret, and replaying a call does no hashing and gives the same hash.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from ..errors import EngineError
from ..journal import journaled
from ..passwords import HashedSecret, hash_password
from . import lab_failures, redundancy
from .broker_state import BrokerState
from .config_objects import KINDS, AttrValue, ObjectKind
from .messaging import QUEUE_OPTIONS
from .records import Router, Vpn
from .redundancy import RedundancyGroupView, RedundancyView
from .replication import REPLICATION_OPTIONS
from .services import Services
from .views import (
    AclProfileInfo,
    Audit,
    BridgeInfo,
    ClientInfo,
    ClientProfileInfo,
    ClientUsernameInfo,
    ConfigSyncBridgeConfig,
    ConfigSyncInfo,
    ConsumeResult,
    LabStatus,
    LinkChange,
    MessageSpool,
    PublishResult,
    QueueConfig,
    QueueDetail,
    QueueMessage,
    QueueRow,
    ReplicatedTopicInfo,
    ReplicationStats,
    RestDeliveryPointInfo,
    RouterConfig,
    RouterIdentity,
    RouterInfo,
    SiteChange,
    SiteInfo,
    SystemReplication,
    TelemetryProfileInfo,
    TransactionInfo,
    VpnConfig,
    VpnReplicationConfig,
    VpnReplicationDetail,
    VpnReplicationRow,
)

if TYPE_CHECKING:
    from ..kernel import Kernel
    from ..lab_root.engine import RootEngine

# The most messages one publish or consume may ask for: the grammar's `count` type
# (grammar/data/types.yaml). A lab file's journal is replayed through these methods, so a damaged
# file can ask no more than a user could type (tests/model/test_engine_facade.py keeps the two equal).
MAX_COUNT = 100_000_000

SETTING_RULES: dict[str, Any] = {
    "software_version": str,
    "layout": ("A", "B"),
    "product_line": ("enterprise", "standard", "appliance"),
    "replication_drain_rate": int,
    "default_message_size": int,
}


class Engine:
    """The facade over the Solace section of one lab (``BrokerState``), beside the lab's root
    engine (``lab``). It holds nothing but the section, its services and the root engine, so the
    store may keep one across commands on the same state. After an operation of the site
    redundancy groups on the kernel, each site's router is brought in step with its group (the
    root's ``after_kernel_op``), and after no other system's."""

    journal_prefix = "solace."  # its calls as the journal records them (state_store.lab_root.engine)

    def __init__(self, state: BrokerState, lab: RootEngine) -> None:
        self.state = state
        self.lab = lab
        self.sv = Services(state)
        lab.after_kernel_op[redundancy.SYSTEM] = self.sv.redundancy.sync

    # the lab's, for the router CLI's handlers
    def now_ms(self) -> int:
        return self.state.kernel.now_ms

    def kernel(self) -> Kernel:
        return self.state.kernel

    def settings(self) -> dict[str, str]:
        return self.lab.settings()

    def kernel_call(self, op: str, *args: Any) -> Any:
        return self.lab.kernel_call(op, *args)

    def close(self) -> None:
        """This engine is done with (its lab closed, or its state replaced): its services let go
        of one another, so what they held is freed at once (``Services.close``)."""
        self.sv.close()
        del self.lab  # (the root engine holds this one: no cycle left behind)

    # ------------------------------------------------------------------ time
    def advance_section(self, start: int, ms: int) -> tuple[int, list[str]]:
        """This model's part of the lab's advance (``RootEngine.advance``, journaled there), before
        the HA kernel's timers: clients reconnect (before and after), then every bound replication
        stream drains ``replication_drain_rate`` entries per simulated second (fractions carried
        per VPN). Returns the entries drained and the clients that (re)connected."""
        lk = self.sv.lookups
        reconnected = self.sv.clients.reconnect_all()
        lk.set_now_ms(start + ms)
        self.sv.messaging.ack_timer(start, start + ms)  # waiting acks leave at each whole second
        rate = lk.int_setting("replication_drain_rate")
        drained = 0
        for v in lk.user_vpns():
            if not lk.has_entries(v) or lk.binding(v) is None:
                v.drain_carry = 0
                continue
            total = v.drain_carry + rate * ms
            budget, v.drain_carry = divmod(total, 1000)
            if budget:
                drained += self.sv.replication.drain(v, limit=budget)
            if not lk.has_entries(v):
                v.drain_carry = 0
        self.sv.replication.refresh()
        reconnected += [c for c in self.sv.clients.reconnect_all() if c not in reconnected]
        return drained, reconnected

    def after_advance(self) -> None:
        """After the kernel's timers: each site's router in step with its redundancy group."""
        self.sv.redundancy.sync()

    # ------------------------------------------------------------------ intra-site redundancy
    def redundancy(self, router: str) -> RedundancyView:
        """`show redundancy [detail]` on a member or monitor of a redundancy group; the summary of a
        router outside any group (its configuration Disabled)."""
        self.sv.lookups.router(router)
        if redundancy.member_of(self.state.kernel, router) is None:
            return redundancy.standalone_view(router)
        return redundancy.view(self.state.kernel, router)

    def redundancy_group(self, router: str) -> RedundancyGroupView:
        """`show redundancy group`: the group's nodes as ``router`` sees them."""
        self.sv.lookups.router(router)
        return redundancy.group_view(self.state.kernel, router)

    def local_failovers(self) -> list[tuple[str, int, str | None, str]]:
        """Activity moves inside the sites (for the audit): (site, ms, from, to)."""
        return redundancy.local_failovers(self.state.kernel)

    @journaled
    def set_redundancy_option(self, router: str, option: str, on: bool) -> None:
        """`[no] shutdown | auto-revert | release-activity` at (configure/redundancy)."""
        self.sv.lookups.router(router)
        redundancy.configure(self.state.kernel, router, option, bool(on))
        self.sv.redundancy.sync()

    @journaled
    def revert_activity(self, router: str) -> None:
        """`revert-activity` at (admin/redundancy), on the backup holding activity."""
        self.sv.lookups.router(router)
        redundancy.revert_activity(self.state.kernel, router)
        self.sv.redundancy.sync()


    # ------------------------------------------------------------------ lab reads
    def routers(self) -> list[RouterInfo]:
        """In scenario order: the first router is where `solace-shell` starts."""
        st = self.state
        return [RouterInfo(r.name, st.sites[r.site_id].name, r.up, r.ssh_port) for r in st.routers.values()]

    def sites(self) -> list[SiteInfo]:
        out = []
        for s in self.state.sites.values():
            rs = self.sv.lookups.routers_of_site(s)
            out.append(SiteInfo(s.name, tuple(r.name for r in rs), all(r.up for r in rs)))
        return out

    def user_vpn_names(self) -> set[str]:
        """The names of the VPNs the lab console shows (``status().vpns``: every router's
        non-internal VPNs), without building the whole status."""
        return {v.name for v in self.sv.lookups.user_vpns()}

    def site_names(self) -> list[str]:
        """Completion: site names in scenario order."""
        return [s.name for s in self.state.sites.values()]

    def replicated_topic_names(self, router: str, vpn: str | None) -> list[str]:
        """Completion: replicated topics of a VPN on a router."""
        try:
            return [t.topic for t in self.replicated_topics(router, vpn or "")]
        except EngineError:
            return []

    def status(self) -> LabStatus:
        return self.sv.audit.status()

    # ------------------------------------------------------------------ failures
    @journaled
    def fail_site(self, site: str) -> None:
        self.sv.failures.fail_site(site)

    @journaled
    def restore_site(self, site: str) -> None:
        self.sv.failures.restore_site(site)

    @journaled
    def replace_site(self, site: str) -> None:
        self.sv.failures.replace_site(site)

    @journaled
    def fail_link(self, site_a: str | None = None, site_b: str | None = None) -> None:
        self.sv.failures.fail_link(site_a, site_b)

    @journaled
    def restore_link(self, site_a: str | None = None, site_b: str | None = None) -> None:
        self.sv.failures.restore_link(site_a, site_b)

    def site_change(self, site: str, change: str) -> SiteChange:
        """`fail|restore|replace site` (``change`` down, up, replaced) through the journaled call
        above; the view names the site's routers and the clients the change disconnected."""
        return lab_failures.site_change(self, site, change)

    def link_change(self, up: bool, site_a: str | None = None, site_b: str | None = None) -> LinkChange:
        """`fail|restore link` (every link, or the one between two sites) through the journaled call."""
        return lab_failures.link_change(self, up, site_a, site_b)

    def fail_node(self, failure: str, target: str) -> object | None:
        """The lab's shared node failures (`ha kill NY_Appliance1`) on a router, or a member of a
        site's redundancy group by its router name (``lab_failures``); None when the lab has no
        routers (the target is no concern of this model)."""
        return lab_failures.fail_node(self, failure, target)

    def fail_network(self, failure: str, target: str) -> object | None:
        """`ha partition|heal NY-NJ` on an inter-site link; None when the lab has no routers."""
        return lab_failures.fail_network(self, failure, target)

    def ha_node_names_extra(self) -> list[str]:
        """Completion of `ha start|kill|hang|replace`: the routers (after the kernel's nodes)."""
        return [r.name for r in self.routers()]

    def ha_network_names_extra(self) -> list[str]:
        """Completion of `ha partition|heal`: the inter-site links (after the kernel's groups)."""
        return lab_failures.link_names(self)

    # ------------------------------------------------------------------ replication
    def vpn_names(self, router: str) -> list[str]:
        return self.sv.replication.vpn_names(router)

    def vpn_replication(self, router: str, pattern: str = "*") -> list[VpnReplicationRow]:
        return self.sv.replication.vpn_replication(router, pattern)

    def vpn_replication_detail(self, router: str, vpn: str) -> VpnReplicationDetail:
        return self.sv.replication.vpn_replication_detail(router, vpn)

    def replication_stats(self, router: str, vpn: str | None = None) -> ReplicationStats:
        return self.sv.replication.replication_stats(router, vpn)

    def system_replication(self, router: str) -> SystemReplication:
        return self.sv.replication.system_replication(router)

    def bridges(self, router: str, pattern: str = "*", vpn: str | None = None) -> list[BridgeInfo]:
        return self.sv.replication.bridges(router, pattern, vpn)

    def replicated_topics(self, router: str, vpn: str) -> list[ReplicatedTopicInfo]:
        return self.sv.replication.replicated_topics(router, vpn)

    @journaled
    def set_replication_role(self, router: str, vpn: str, role: str) -> None:
        self.sv.replication.set_replication_role(router, vpn, role)

    @journaled
    def set_replication_enabled(self, router: str, vpn: str, enabled: bool,
                                queue_behaviour: str = "fail-on-existing-queue") -> None:
        self.sv.replication.set_replication_enabled(router, vpn, enabled, queue_behaviour)

    def set_replication_option(self, router: str, vpn: str, option: str, value: Any = None) -> None:
        """A clear bridge password is hashed here, before the journaled call (module docstring)."""
        spec = REPLICATION_OPTIONS.get(option)
        if spec is not None and spec.type == "secret" and value and not isinstance(value, HashedSecret):
            self.sv.lookups.vpn_rw(router, vpn)  # refused as the service would, before the costly hash
            value = HashedSecret(hash_password(str(value)))
        self._set_replication_option(router, vpn, option, value)

    @journaled
    def _set_replication_option(self, router: str, vpn: str, option: str, value: Any = None) -> None:
        self.sv.replication.set_replication_option(router, vpn, option, value)

    @journaled
    def create_replicated_topic(self, router: str, vpn: str, topic: str, mode: str = "async") -> None:
        self.sv.replication.create_replicated_topic(router, vpn, topic, mode)

    @journaled
    def delete_replicated_topic(self, router: str, vpn: str, topic: str) -> None:
        self.sv.replication.delete_replicated_topic(router, vpn, topic)

    @journaled
    def set_replicated_topic_mode(self, router: str, vpn: str, topic: str, mode: str) -> None:
        self.sv.replication.set_replicated_topic_mode(router, vpn, topic, mode)

    @journaled
    def set_replication_mate(self, router: str, option: str, value: str | None = None) -> None:
        self.sv.replication.set_replication_mate(router, option, value)

    # ------------------------------------------------------------------ queues / spool
    def queues(self, router: str, vpn_pattern: str | None = "*", queue_pattern: str | None = "*") -> list[QueueRow]:
        return self.sv.messaging.queues(router, vpn_pattern, queue_pattern)

    def queue_detail(self, router: str, vpn: str, queue: str) -> QueueDetail:
        return self.sv.messaging.queue_detail(router, vpn, queue)

    def queue_names(self, router: str, vpn: str) -> list[str]:
        return self.sv.messaging.queue_names(router, vpn)

    def queue_messages(self, router: str, vpn: str, queue: str, *, from_rgmid: int | None = None,
                       msg_id: int | None = None, newest: bool = False, limit: int = 100) -> list[QueueMessage]:
        return self.sv.messaging.queue_messages(router, vpn, queue, from_rgmid=from_rgmid, msg_id=msg_id,
                                                newest=newest, limit=limit)

    def message_spool(self, router: str, vpn: str | None = None) -> MessageSpool:
        return self.sv.messaging.message_spool(router, vpn)

    def queue_name_is_replication(self, name: str) -> bool:
        return self.sv.messaging.queue_name_is_replication(name)

    @journaled
    def create_queue(self, router: str, vpn: str, name: str) -> None:
        self.sv.messaging.create_queue(router, vpn, name)

    @journaled
    def delete_queue(self, router: str, vpn: str, name: str) -> int:
        return self.sv.messaging.delete_queue(router, vpn, name)

    @journaled
    def set_queue_shutdown(self, router: str, vpn: str, queue: str, shutdown: bool,
                           direction: str = "both") -> None:
        self.sv.messaging.set_queue_shutdown(router, vpn, queue, shutdown, direction)

    @journaled
    def add_queue_subscription(self, router: str, vpn: str, queue: str, topic: str) -> None:
        self.sv.messaging.add_queue_subscription(router, vpn, queue, topic)

    @journaled
    def remove_queue_subscription(self, router: str, vpn: str, queue: str, topic: str) -> None:
        self.sv.messaging.remove_queue_subscription(router, vpn, queue, topic)

    @journaled
    def set_queue_option(self, router: str, vpn: str, queue: str, option: str, value: Any = None) -> None:
        self.sv.messaging.set_queue_option(router, vpn, queue, option, value)

    @journaled
    def set_vpn_max_spool(self, router: str, vpn: str, mb: int | None = None) -> None:
        self.sv.messaging.set_vpn_max_spool(router, vpn, mb)

    @journaled
    def delete_messages(self, router: str, vpn: str, queue: str, from_id: int | None = None,
                        to_id: int | None = None) -> int:
        return self.sv.messaging.delete_messages(router, vpn, queue, from_id, to_id)

    # ------------------------------------------------------------------ clients / traffic
    def clients(self, router: str | None = None, pattern: str = "*", vpn: str | None = None) -> list[ClientInfo]:
        return self.sv.clients.clients(router, pattern, vpn)

    def client_names(self, router: str | None = None) -> list[str]:
        return self.sv.clients.client_names(router)

    def client(self, name: str) -> ClientInfo:
        return self.sv.clients.client(name)

    @journaled
    def add_client(self, name: str, vpn: str, hosts: list[str], username: str | None = None) -> ClientInfo:
        return self.sv.clients.add_client(name, vpn, hosts, username)

    @journaled
    def remove_client(self, name: str) -> None:
        self.sv.clients.remove_client(name)

    @journaled
    def set_client_running(self, name: str, running: bool) -> ClientInfo:
        return self.sv.clients.set_client_running(name, running)

    @journaled
    def disconnect_client(self, router: str, vpn: str, name: str) -> None:
        self.sv.clients.disconnect_client(router, vpn, name)

    @journaled
    def publish(self, client: str, topic: str, count: int = 1, size: int | None = None) -> PublishResult:
        _check_count(count)
        return self.sv.messaging.publish(client, topic, count, size)

    @journaled
    def consume(self, client: str, queue: str, count: int = 1) -> ConsumeResult:
        _check_count(count)
        return self.sv.messaging.consume(client, queue, count)

    # ------------------------------------------------------------------ transactions
    @journaled
    def tx_local_start(self, client: str) -> None:
        self.sv.transactions.tx_local_start(client)

    @journaled
    def tx_local_commit(self, client: str) -> None:
        self.sv.transactions.tx_local_commit(client)

    @journaled
    def tx_local_rollback(self, client: str) -> None:
        self.sv.transactions.tx_local_rollback(client)

    @journaled
    def tx_xa_start(self, client: str, xid: str) -> None:
        self.sv.transactions.tx_xa_start(client, xid)

    @journaled
    def tx_xa_end(self, client: str, xid: str) -> None:
        self.sv.transactions.tx_xa_end(client, xid)

    @journaled
    def tx_xa_suspend(self, client: str, xid: str) -> None:
        self.sv.transactions.tx_xa_suspend(client, xid)

    @journaled
    def tx_xa_resume(self, client: str, xid: str) -> None:
        self.sv.transactions.tx_xa_resume(client, xid)

    @journaled
    def tx_xa_prepare(self, client: str, xid: str) -> None:
        self.sv.transactions.tx_xa_prepare(client, xid)

    @journaled
    def tx_xa_commit(self, client: str, xid: str, one_phase: bool = False) -> None:
        self.sv.transactions.tx_xa_commit(client, xid, one_phase)

    @journaled
    def tx_xa_rollback(self, client: str, xid: str) -> None:
        self.sv.transactions.tx_xa_rollback(client, xid)

    @journaled
    def heuristic_commit(self, router: str, vpn: str, xid_pattern: str) -> int:
        return self.sv.transactions.heuristic_commit(router, vpn, xid_pattern)

    @journaled
    def heuristic_rollback(self, router: str, vpn: str, xid_pattern: str) -> int:
        return self.sv.transactions.heuristic_rollback(router, vpn, xid_pattern)

    @journaled
    def heuristic_delete(self, router: str, vpn: str, xid_pattern: str) -> int:
        return self.sv.transactions.heuristic_delete(router, vpn, xid_pattern)

    def transactions(self, router: str, xid: str | None = None, vpn: str | None = None,
                     state: str | None = None, replicated: bool | None = None,
                     detail: bool = True) -> list[TransactionInfo]:
        return self.sv.transactions.transactions(router, xid, vpn, state, replicated, detail)

    def xids(self, router: str, vpn: str | None = None) -> list[str]:
        return self.sv.transactions.xids(router, vpn)

    # ------------------------------------------------------------------ configuration objects
    @journaled
    def create_object(self, router: str, vpn: str | None, kind: ObjectKind, path: tuple[str, ...]) -> None:
        self.sv.config.create_object(router, vpn, kind, path)

    @journaled
    def delete_object(self, router: str, vpn: str | None, kind: ObjectKind, path: tuple[str, ...]) -> None:
        self.sv.config.delete_object(router, vpn, kind, path)

    def require_object(self, router: str, vpn: str | None, kind: ObjectKind, path: tuple[str, ...]) -> None:
        self.sv.config.require_object(router, vpn, kind, path)

    def set_object_attr(self, router: str, vpn: str | None, kind: ObjectKind, path: tuple[str, ...],
                        attr: str, value: AttrValue = None) -> None:
        """A clear secret is hashed here, before the journaled call (module docstring)."""
        spec = KINDS[kind]
        attr_spec = spec.attrs.get(attr)
        if attr_spec is not None and attr_spec.type == "secret" and value and not isinstance(value, HashedSecret):
            value = HashedSecret(hash_password(str(value)))
        self._set_object_attr(router, vpn, kind, path, attr, value)

    @journaled
    def _set_object_attr(self, router: str, vpn: str | None, kind: ObjectKind, path: tuple[str, ...],
                         attr: str, value: AttrValue = None) -> None:
        self.sv.config.set_object_attr(router, vpn, kind, path, attr, value)

    def client_usernames(self, router: str, vpn_pattern: str = "*", pattern: str = "*") -> list[ClientUsernameInfo]:
        return self.sv.config.client_usernames(router, vpn_pattern, pattern)

    def client_profiles(self, router: str, vpn_pattern: str = "*", pattern: str = "*") -> list[ClientProfileInfo]:
        return self.sv.config.client_profiles(router, vpn_pattern, pattern)

    def acl_profiles(self, router: str, vpn_pattern: str = "*", pattern: str = "*") -> list[AclProfileInfo]:
        return self.sv.config.acl_profiles(router, vpn_pattern, pattern)

    def telemetry_profiles(self, router: str, vpn_pattern: str = "*",
                           pattern: str = "*") -> list[TelemetryProfileInfo]:
        return self.sv.config.telemetry_profiles(router, vpn_pattern, pattern)

    @journaled
    def set_vpn_enabled(self, router: str, vpn: str, enabled: bool) -> None:
        self.sv.config.set_vpn_enabled(router, vpn, enabled)

    @journaled
    def set_rest_listen_port(self, router: str, vpn: str, port: int | None) -> None:
        self.sv.config.set_rest_listen_port(router, vpn, port)

    def cli_script(self, router: str, name: str) -> list[str]:
        return self.sv.config.cli_script(router, name)

    def rest_delivery_points(self, router: str, vpn_pattern: str = "*",
                             pattern: str = "*") -> list[RestDeliveryPointInfo]:
        return self.sv.config.rest_delivery_points(router, vpn_pattern, pattern)

    def vpn_auth_type(self, r: Router, v: Vpn) -> str:
        return self.sv.config.vpn_auth_type(r, v)

    def config_sync(self, router: str) -> ConfigSyncInfo:
        return self.sv.config.config_sync(router)

    def config_sync_bridge(self, router: str) -> ConfigSyncBridgeConfig:
        return self.sv.config.config_sync_bridge(router)

    @journaled
    def assert_config_sync_leader(self, router: str, vpn: str) -> None:
        self.sv.config.assert_config_sync_leader(router, vpn)

    @journaled
    def set_replication_interface(self, router: str, interface: str | None) -> None:
        self.sv.config.set_replication_interface(router, interface)

    def router_identity(self, router: str) -> RouterIdentity:
        return self.sv.config.router_identity(router)

    # ------------------------------------------------------------------ current config / audit
    def current_config(self, router: str, vpn: str | None = None) -> RouterConfig:
        """The configuration behind `show current-config [message-vpn <v>]`, as data: the site's
        one configuration (config-sync between a group's members), under the name of the router
        it is asked on."""
        lk, cfg = self.sv.lookups, self.sv.config
        r = lk.router(router, must_be_up=True)
        vpns = [lk.vpn(r, vpn)] if vpn is not None else [v for v in lk.vpns(r) if not v.internal]
        sync = cfg.config_sync(router)
        mate = cfg.attrs(cfg.row(r, None, "replication-mate", ""), "replication-mate")
        member = self.state.kernel.groups and redundancy.member_of(self.state.kernel, router) is not None
        return RouterConfig(
            router=router if member else r.name, vpn=vpn, mate_virtual_router_name=r.mate_name,
            mate_connect_via=r.connect_via, replication_interface=r.repl_interface,
            vpns=tuple(self._vpn_config(v) for v in vpns), mate_transport=str(mate["transport"]),
            config_sync_enabled=sync.admin_enabled, config_sync_ssl=sync.ssl,
            config_sync_bridge=cfg.config_sync_bridge(router))

    def _vpn_config(self, v: Vpn) -> VpnConfig:
        st, lk, cfg = self.state, self.sv.lookups, self.sv.config
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
            replicated_topics=tuple(ReplicatedTopicInfo(t.topic, t.mode) for t in lk.replicated_topics(v)),
            bridge_password_hash=v.bridge_password_hash)
        queues = []
        normal = [q for q in st.queues_by_vpn.get(v.id, {}).values() if q.kind == "normal"]
        for q in sorted(normal, key=lambda q: q.name):
            queues.append(QueueConfig(
                name=q.name, access_type=q.access_type, owner=q.owner, permission=q.permission,
                max_spool_mb=q.max_spool_mb, max_bind_count=q.max_bind_count,
                subscriptions=tuple(sorted(st.subs_by_queue.get(q.id, {}))),
                ingress_up=q.ingress_up, egress_up=q.egress_up, reject_on_discard=q.reject_on_discard,
                reject_when_shutdown=q.reject_when_shutdown,
                settings=tuple((name, getattr(q, leaf.attr) if leaf.attr else q.settings[name])
                               for name, leaf in QUEUE_OPTIONS.items()
                               if leaf.cli and (leaf.always or name in q.settings))))
        r = lk.router_of(v)
        return VpnConfig(
            name=v.name, enabled=v.enabled, replication=replication, queues=tuple(queues),
            authentication_basic_auth_type=cfg.vpn_auth_type(r, v),
            client_profiles=tuple(p for p in cfg.vpn_client_profiles(r, v) if not p.managed_by),
            acl_profiles=tuple(p for p in cfg.vpn_acl_profiles(r, v) if not p.managed_by),
            client_usernames=tuple(cfg.vpn_usernames(r, v)),
            telemetry_profiles=tuple(cfg.vpn_telemetry_profiles(r, v)),
            rest_delivery_points=tuple(cfg.vpn_rest_delivery_points(r, v)), max_spool_mb=v.max_spool_mb,
            rest_service=cfg.vpn_rest_service(r, v),
            settings=cfg.settings(cfg.row(r, v, "message-vpn", ""), "message-vpn"),
            connection_factories=cfg.vpn_connection_factories(r, v))

    def audit(self, vpn: str | None = None, limit: int = 1000) -> Audit:
        return self.sv.audit.audit(vpn, limit)


def _check_count(count: int) -> None:
    """Refuse a count above MAX_COUNT (a count below 1 is the messaging service's refusal)."""
    if count > MAX_COUNT:
        raise EngineError("value_out_of_range", name="count", value=count, min=1, max=MAX_COUNT)
