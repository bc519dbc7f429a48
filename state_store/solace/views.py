"""Plain dataclasses the engine returns, frozen for the type checker (``state_store.solace.frozen``):
what the shell renders.

Why: handlers and renderers must never see the engine's records; these views carry the data the CLI
layouts print (reference solace-cli.md sections 3-5), already computed, but never its text: states
are bools or the model's own words ("active", "queue-unbound", "exclusive"), durations and ages are
ints in ms, sizes are bytes and MB, and N/A is ``None``. The router CLI's renderers
(``solace_shell.personalities.solace.renderers``) make the flag letters, "Up"/"Yes"/"N/A" words
and columns, so the engine serves other front ends (JSON through ``dataclasses.asdict``) unchanged.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from ..kernel.audit import AuditTotals
from ..lab_root.users import AdvanceResult as AdvanceResult  # the lab root's views, re-exported
from ..lab_root.users import UserInfo as UserInfo
from .frozen import statically_frozen

MB = 1048576
# The values of an object's generic leaves (those a command only sets, grammar/data/leaves.yaml)
# that differ from their defaults, as (leaf name, value) in declaration order.
LeafValues = tuple[tuple[str, str | int | bool], ...]


# ---------------------------------------------------------------- lab topology
@statically_frozen
@dataclass(frozen=True)
class RouterInfo:
    name: str
    site: str
    up: bool
    ssh_port: int  # from the scenario; 0: none (`solace-shell serve` gives it one)


@statically_frozen
@dataclass(frozen=True)
class SiteInfo:
    name: str
    routers: tuple[str, ...]
    up: bool  # all its routers up


@statically_frozen
@dataclass(frozen=True)
class SiteChange:
    """A site failed, restored or replaced (`fail|restore|replace site`, or the shared failure
    verbs on its one router): its routers and the clients the change disconnected."""

    site: str
    change: str                # down | up | replaced
    routers: tuple[str, ...]
    disconnected: tuple[str, ...]


@statically_frozen
@dataclass(frozen=True)
class LinkChange:
    """The inter-site link failed or restored (`fail|restore link`, `ha partition|heal <site>-<site>`)."""

    up: bool



# ---------------------------------------------------------------- replication
@statically_frozen
@dataclass(frozen=True)
class VpnReplicationRow:
    """One row of ``show message-vpn <p> replication``: the state behind its eight flags.

    An internal VPN (``internal``) has no replication state: every flag prints N/A, whatever the
    other fields hold. ``None`` is N/A for the one field."""

    name: str
    internal: bool
    admin_enabled: bool
    role: str  # active|standby
    local_bridge: str | None  # up|queue-unbound|down; None unless an enabled standby
    remote_bridge_up: bool | None  # None unless an enabled active
    queue_bound: bool | None  # the replication queue bound by the mate's bridge; as remote_bridge_up
    sync_eligible: bool | None  # None unless an enabled active with a sync replicated topic
    reject_sync_ineligible: bool
    trm: str  # transaction replication mode: sync|async
    vpn_enabled: bool = True  # the Message VPN itself is not shut down


@statically_frozen
@dataclass(frozen=True)
class ReplicatedTopicInfo:
    topic: str
    mode: str  # sync|async


@statically_frozen
@dataclass(frozen=True)
class VpnReplicationDetail:
    name: str
    router: str
    flags: VpnReplicationRow
    admin_enabled: bool
    role: str  # active|standby
    local_bridge_name: str  # the bridge states are those of ``flags``
    remote_bridge_name: str
    queue_name: str
    queue_max_spool_mb: int
    queue_reject_msg_to_sender_on_discard: bool
    queue_messages_spooled: int
    queue_usage_mb: float
    reject_msg_when_sync_ineligible: bool
    sync_eligible: bool | None  # None = N/A
    sync_ineligible_reason: str | None  # remote-bridge-down|standby-catching-up; None when eligible or N/A
    transaction_replication_mode: str
    ack_propagation_enabled: bool
    ack_propagation_interval: int
    bridge_auth_scheme: str
    bridge_client_username: str
    bridge_password_configured: bool
    bridge_compressed: bool
    bridge_ssl: bool
    bridge_retry_delay: int
    bridge_window_size: int
    bridge_client_profile: str
    mate_router: str | None
    replicated_topics: tuple[ReplicatedTopicInfo, ...]


@statically_frozen
@dataclass(frozen=True)
class ReplicationStats:
    """``show replication stats`` / ``show message-vpn X replication stats`` counters."""

    scope: str  # router name or vpn name
    sync_msgs_queued_to_standby: int = 0
    sync_msgs_queued_to_standby_as_async: int = 0
    async_msgs_queued_to_standby: int = 0
    promoted_msgs_queued_to_standby: int = 0
    pruned_locally_consumed_msgs: int = 0
    transitions_to_ineligible: int = 0
    ack_msgs_sent_to_standby: int = 0
    reconcile_requests_from_standby: int = 0
    msgs_received_from_active: int = 0
    ack_msgs_received_from_active: int = 0
    reconcile_requests_sent_to_active: int = 0
    out_of_sequence_acks_received: int = 0
    transactions_received_from_active: int = 0
    rejected_repl_queue_full: int = 0
    rejected_sync_ineligible: int = 0
    not_replicated: int = 0


@statically_frozen
@dataclass(frozen=True)
class SystemReplication:
    """``show replication``: per-router system-level replication config."""

    router: str
    interface: str
    mate_virtual_router_name: str
    connect_via: str
    port_plain: int
    port_compressed: int
    port_ssl: int
    config_sync_bridge_up: bool  # the mate's router is up and reachable
    stats: ReplicationStats


# ---------------------------------------------------------------- queues / spool
@statically_frozen
@dataclass(frozen=True)
class QueueRow:
    name: str
    vpn: str
    messages_spooled: int
    usage_mb: float
    hwm_mb: float
    bind_count: int
    ingress_up: bool
    egress_up: bool
    access_type: str  # exclusive|non-exclusive
    durable: bool


@statically_frozen
@dataclass(frozen=True)
class QueueDetail:
    name: str
    vpn: str
    router: str
    kind: str  # normal|replication|telemetry (a telemetry profile's queue)
    access_type: str  # exclusive|non-exclusive
    durable: bool
    owner: str
    permission: str  # no-access|read-only|consume|modify-topic|delete
    ingress_up: bool
    egress_up: bool
    shutdown: bool
    max_spool_mb: int
    messages_spooled: int
    usage_mb: float
    hwm_mb: float
    bind_count: int
    max_bind_count: int
    subscriptions: tuple[str, ...]
    reject_msg_to_sender_on_discard: bool


@statically_frozen
@dataclass(frozen=True)
class QueueMessage:
    msg_id: int
    replication_group_msg_id: int
    spooled_ms: int
    size: int
    topic: str
    locked_by_transaction: bool = False


@statically_frozen
@dataclass(frozen=True)
class MessageSpool:
    router: str
    vpn: str | None
    router_up: bool  # the spool is active (AD-Active) while its router is up
    max_spool_mb: int
    messages_spooled: int
    usage_mb: float
    hwm_mb: float
    queues: int
    transactions: int
    # a member of a redundancy group: its role (Primary | Backup) and its spool's status
    # (AD-Active | AD-Standby | AD-Disabled); None for a router outside a group
    ha_role: str | None = None
    ha_spool_status: str | None = None


# ---------------------------------------------------------------- transactions
@statically_frozen
@dataclass(frozen=True)
class TxnMessage:
    msg_id: int | None  # spool message id (None for a publish not yet spooled)
    replication_group_msg_id: int | None
    topic: str | None  # publisher messages
    endpoint_type: str | None  # 'queue' for consumer messages
    endpoint_name: str | None


@statically_frozen
@dataclass(frozen=True)
class TransactionInfo:
    router: str
    xid: str | None  # None for local
    vpn: str
    kind: str  # xa|local
    state: str  # active|suspended|idle|prepared|complete
    replicated: bool  # started while its VPN was replication active
    heuristic: str | None  # committed|rolled back
    last_state_change_ms: int  # time since the last state change
    messages_spooled: int
    messages_published: int
    messages_consumed: int
    client_num: int  # the client's number on its router (its id `#000c000N`)
    client_name: str
    client_username: str
    mirror: bool
    published: tuple[TxnMessage, ...] = ()
    consumed: tuple[TxnMessage, ...] = ()

    @property
    def mirrored(self) -> bool:
        """What `show transaction` calls Replicated: a replicated transaction in a state the
        standby mirrors; ACTIVE is never mirrored (seed 004)."""
        return self.replicated and self.state != "active"


# ---------------------------------------------------------------- clients / bridges
@statically_frozen
@dataclass(frozen=True)
class ClientInfo:
    name: str
    vpn: str
    username: str
    router: str | None  # connected router, None if disconnected
    status: str  # connected|disconnected
    connected_since_ms: int | None
    hosts: tuple[str, ...]
    transacted: bool  # has an open local transaction
    reconnects: int
    last_disconnect_reason: str


@statically_frozen
@dataclass(frozen=True)
class BridgeInfo:
    name: str  # #MSGVPN_REPLICATION_BRIDGE
    vpn: str
    router: str
    admin_enabled: bool
    establisher: str  # local|remote: which end connects
    local_bridge: str  # up|queue-unbound|down (the B flag of the VPN's replication row)
    queue_bound: bool  # bound to the mate's replication queue
    queue_name: str
    remote_vpn: str
    remote_router: str  # the mate's router name, "" without a mate
    uptime_ms: int  # 0 while not bound
    redundancy: str  # auto|primary|backup
    ssl: bool
    compressed: bool


# ---------------------------------------------------------------- config
@statically_frozen
@dataclass(frozen=True)
class QueueConfig:
    """A queue's configuration, as `show current-config` needs it (no counters)."""

    name: str
    access_type: str  # exclusive|non-exclusive
    owner: str
    permission: str
    max_spool_mb: int
    max_bind_count: int
    subscriptions: tuple[str, ...]  # sorted
    ingress_up: bool
    egress_up: bool
    reject_on_discard: bool = True  # reject-msg-to-sender-on-discard
    reject_when_shutdown: bool = False  # ... including-when-shutdown
    settings: LeafValues = ()


@statically_frozen
@dataclass(frozen=True)
class VpnReplicationConfig:
    """A Message VPN's replication settings (the `replication` level and its sub-levels)."""

    enabled: bool
    role: str  # active|standby
    transaction_replication_mode: str  # sync|async
    reject_msg_when_sync_ineligible: bool
    queue_max_spool_mb: int
    queue_reject_msg_to_sender_on_discard: bool
    ack_propagation_enabled: bool
    ack_propagation_interval: int
    bridge_auth_scheme: str
    bridge_client_username: str
    bridge_password_set: bool  # the password itself never leaves the engine
    bridge_compressed: bool
    bridge_window_size: int
    bridge_retry_delay: int
    bridge_ssl: bool
    bridge_client_profile: str
    replicated_topics: tuple[ReplicatedTopicInfo, ...]  # sorted by topic
    bridge_password_hash: str = ""  # salted hash (the re-runnable `encrypted-password` form)


# ---------------------------------------------------------------- named configuration objects
@statically_frozen
@dataclass(frozen=True)
class ClientUsernameInfo:
    name: str
    vpn: str
    enabled: bool
    client_profile: str
    acl_profile: str
    password_hash: str  # "" = no password; never the password itself
    builtin: bool       # the VPN's `default` object (exists without `create`)
    guaranteed_endpoint_permission_override: bool = False
    subscription_manager: bool = False
    settings: LeafValues = ()


@statically_frozen
@dataclass(frozen=True)
class ClientProfileInfo:
    name: str
    vpn: str
    reject_msg_to_sender_on_no_subscription_match: bool
    builtin: bool
    managed_by: str  # "" or the telemetry profile that created it
    settings: LeafValues = ()


@statically_frozen
@dataclass(frozen=True)
class AclProfileInfo:
    name: str
    vpn: str
    client_connect_default_action: str  # allow | disallow
    publish_topic_default_action: str
    subscribe_topic_default_action: str
    builtin: bool
    managed_by: str
    subscribe_share_name_default_action: str = "allow"


@statically_frozen
@dataclass(frozen=True)
class TelemetryFilterInfo:
    name: str
    enabled: bool
    subscriptions: tuple[str, ...]  # creation order
    settings: LeafValues = ()


@statically_frozen
@dataclass(frozen=True)
class TelemetryProfileInfo:
    name: str
    vpn: str
    receiver_enabled: bool
    receiver_acl_connect_default_action: str  # allow | disallow
    trace_enabled: bool
    filters: tuple[TelemetryFilterInfo, ...]  # creation order
    queue: str  # the #telemetry-<name> queue it created
    settings: LeafValues = ()


@statically_frozen
@dataclass(frozen=True)
class RestConsumerInfo:
    name: str
    enabled: bool
    remote_host: str
    remote_port: int
    ssl: bool
    outgoing_connections: int
    up: bool
    connections_up: int
    retry_delay: int = 3
    max_post_wait_time: int = 30
    http_method: str = "post"
    auth_scheme: str = "none"
    http_basic_username: str = ""
    http_basic_password_hash: str = ""   # salted hash; "" = no password
    rejected_status_codes: tuple[int, ...] = ()  # HTTP status codes that reject the message, ascending
    # lab clock (ms) of the consumer's last shutdown (its creation counts: it starts shut down);
    # state, not configuration, so a replayed configuration compares equal without it
    last_shutdown_ms: int | None = field(default=None, compare=False)
    settings: LeafValues = ()


@statically_frozen
@dataclass(frozen=True)
class QueueBindingInfo:
    queue: str
    post_request_target: str
    up: bool
    settings: LeafValues = ()


@statically_frozen
@dataclass(frozen=True)
class RestDeliveryPointInfo:
    name: str
    vpn: str
    enabled: bool
    client_profile: str
    up: bool
    consumers: tuple[RestConsumerInfo, ...]      # creation order
    queue_bindings: tuple[QueueBindingInfo, ...]  # creation order
    service: str = ""
    vendor: str = ""
    settings: LeafValues = ()


@statically_frozen
@dataclass(frozen=True)
class ConfigSyncInfo:
    """`show config-sync`: the router's config-sync status."""

    router: str
    admin_enabled: bool
    oper_up: bool
    ssl: bool
    out_of_sync: tuple[tuple[int, str], ...]  # (table number, VPN) of VPN tables out of sync


@statically_frozen
@dataclass(frozen=True)
class ConfigSyncBridgeConfig:
    enabled: bool
    pre_shared_key_hash: str  # "" = none; never the key itself
    insecure_upgrade_mode: bool
    ssl: bool
    compressed: bool


@statically_frozen
@dataclass(frozen=True)
class RouterIdentity:
    """`show router-name`: the router name (mirroring the hostname) and its unique id."""

    router_name: str
    mirrors_hostname: bool
    unique_id: int  # 64 bits, stable per router name (printed as eight colon-separated hex bytes)


@statically_frozen
@dataclass(frozen=True)
class VpnRestService:
    """A Message VPN's `service rest` settings."""

    mode: str = "messaging"          # messaging | gateway
    plain_text_enabled: bool = True  # incoming plain-text listener admin state
    listen_port: int = 0             # incoming plain-text port; 0 = none


@statically_frozen
@dataclass(frozen=True)
class VpnConfig:
    name: str
    enabled: bool
    replication: VpnReplicationConfig
    queues: tuple[QueueConfig, ...]  # sorted by name; reserved queues excluded
    authentication_basic_auth_type: str = "radius"
    client_profiles: tuple[ClientProfileInfo, ...] = ()    # user and builtin, not managed
    acl_profiles: tuple[AclProfileInfo, ...] = ()
    client_usernames: tuple[ClientUsernameInfo, ...] = ()
    telemetry_profiles: tuple[TelemetryProfileInfo, ...] = ()
    rest_delivery_points: tuple[RestDeliveryPointInfo, ...] = ()
    max_spool_mb: int = 60000  # message-spool max-spool-usage of the VPN
    rest_service: VpnRestService = VpnRestService()
    settings: LeafValues = ()  # the VPN's own generic leaves (its `message-vpn` object's)
    connection_factories: tuple[str, ...] = ()  # JNDI, by creation


@statically_frozen
@dataclass(frozen=True)
class RouterConfig:
    """The configuration of one router, or of one of its VPNs (``vpn`` set): the data behind
    `show current-config`; the renderer decides the script's words and order."""

    router: str
    vpn: str | None
    mate_virtual_router_name: str
    mate_connect_via: str
    replication_interface: str
    vpns: tuple[VpnConfig, ...]
    mate_transport: str = "plain-text"  # plain-text | compressed | ssl (software broker connect-via)
    config_sync_enabled: bool = True
    config_sync_ssl: bool = False
    config_sync_bridge: ConfigSyncBridgeConfig = ConfigSyncBridgeConfig(True, "", True, False, False)


# ---------------------------------------------------------------- operation results
@statically_frozen
@dataclass(frozen=True)
class PublishResult:
    client: str
    router: str | None
    vpn: str
    topic: str
    requested: int
    accepted: int  # spooled locally (or pending in the client's transaction)
    rejected: int
    replicated: int  # placed on the replication stream
    not_replicated: int  # replicated topic but queue full (reject-on-discard off)
    queues: tuple[str, ...]  # local queues that received it
    first_rgmid: int | None
    last_rgmid: int | None
    transacted: bool
    reject_reason: str | None = None


@statically_frozen
@dataclass(frozen=True)
class ConsumeResult:
    client: str
    router: str
    vpn: str
    queue: str
    requested: int
    consumed: int
    rgmids: tuple[int, ...]  # first 1000 at most
    transacted: bool
    # the consumed rgmids as ranges (first, last), in the order consumed, the first 100 at most:
    # a million consecutive messages are one range, which `rgmids` cannot show
    rgmid_ranges: tuple[tuple[int, int], ...] = ()



# ---------------------------------------------------------------- status / audit
@statically_frozen
@dataclass(frozen=True)
class VpnStatus:
    router: str
    vpn: str
    replication_enabled: bool  # False: replication shut down
    role: str
    repl_queue_messages: int
    repl_queue_entries: int  # messages + acks + transaction states


@statically_frozen
@dataclass(frozen=True)
class MemberStatus:
    """A router or monitor of a redundancy group as the lab console's status shows it."""

    router: str
    process: str   # up | down | hung (down too while its site is failed)
    activity: str  # active | standby | released | shutdown | monitor | - (process not up)


@statically_frozen
@dataclass(frozen=True)
class LabStatus:
    """The lab at a glance, in the lab console's order (`AuditService.status`)."""

    now_ms: int
    sites: tuple[SiteInfo, ...]
    routers: tuple[RouterInfo, ...]
    link_up: bool
    vpns: tuple[VpnStatus, ...]
    clients: tuple[ClientInfo, ...]
    split_brains: tuple[SplitBrain, ...] = ()
    members: tuple[MemberStatus, ...] = ()  # the redundancy groups' routers and monitors (none: no group)


@statically_frozen
@dataclass(frozen=True)
class AuditEntry:
    """Messages of one outcome of the kernel's vocabulary (``state_store.kernel.audit``):
    DUPLICATE_DELIVERED, LOST or STRANDED (lost to the serving site while its copies are only
    where the VPN does not serve). The lab console prints its own words for them."""

    vpn: str
    rgmid: int
    topic: str
    outcome: str  # DUPLICATE_DELIVERED | LOST | STRANDED
    deliveries: int
    clients: tuple[str, ...]
    routers: tuple[str, ...]
    where: tuple[tuple[str, str], ...]  # (router, queue) still holding it
    notes: tuple[str, ...]  # the messages' ledger notes, first seen first, no repeats
    # messages rgmid .. rgmid + count - 1, all with this outcome and these details, as long as they
    # last: the same messages give the same entries whatever runs the ledger holds them in
    count: int = 1
    reason: str = ""  # a reason code of the kernel's vocabulary (NOT_REPLICATED), "" for none


@dataclass(frozen=True)
class SolaceAuditTotals(AuditTotals):
    """The kernel's totals (``state_store.kernel.audit.AuditTotals``) as the Message VPN's audit
    counts them, and the counts only a router has.

    ``stored``: never delivered, still spooled somewhere (the lab console's word: "spooled");
    ``lost`` is "not available to the serving site": never delivered and no copy where the VPN
    serves, so it includes ``stranded`` (stored, copies only on routers where the VPN is not
    serving); ``not_replicated``: accepted but never replicated (queue full, reject-on-discard
    off); ``discarded`` is 0 (the Message VPN drops no duplicate).

    A plain frozen dataclass, not ``statically_frozen``: it extends the kernel's, and an audit
    makes one."""

    delivered_once: int = 0
    rejected: int = 0  # refused publishes (not in 'published')
    in_transaction: int = 0  # consumed inside a still-open transaction


@statically_frozen
@dataclass(frozen=True)
class SpoolWhere:
    router: str
    vpn: str
    queue: str
    messages: int


@statically_frozen
@dataclass(frozen=True)
class XaResolution:
    """How one site ended an XA branch: outcome 'committed' | 'rolled back'; heuristic when an
    operator did it (admin message-spool) rather than the transaction manager."""

    router: str
    outcome: str
    heuristic: bool


@statically_frozen
@dataclass(frozen=True)
class XaIssue:
    """A consequence of skipping seed 000 steps 4/6 or of acting on the wrong site.

    kind:
    - ``wrong-site``: ``resolution`` was a heuristic action on a replicated copy (a mirror:
      on the new active site after a failover, or on a standby), not on the site that ran the
      branch (seed: only on the formerly active Message VPN);
    - ``inconsistent``: the branch was committed on one site and rolled back on another
      (``others`` lists every site's last resolution);
    - ``after-failback``: ``resolution`` ended the formerly active site's own branch while that
      site was active again, after the mate had already resolved it (``others``);
    - ``left-prepared``: the formerly active site (now standby) still holds the branch
      PREPARED (step 4 not done); ``others`` are the mate's resolutions so far;
    - ``left-complete``: a heuristically completed branch not deleted (step 6 not done);
      ``resolution`` is its heuristic outcome;
    - ``ended-on-standby``: the broker rolled back a branch that was not PREPARED (``state``)
      when its VPN went standby on ``router`` (not a mistake: nothing is left to address)."""

    vpn: str
    xid: str
    kind: str
    router: str
    resolution: XaResolution | None = None
    others: tuple[XaResolution, ...] = ()
    state: str = ""  # ended-on-standby: the state the branch was in (active|suspended|idle)


@statically_frozen
@dataclass(frozen=True)
class SplitBrain:
    """A Message VPN replication-active on more than one up router of its replication group."""

    vpn: str
    routers: tuple[str, ...]


@statically_frozen
@dataclass(frozen=True)
class Audit:
    vpn: str | None
    totals: SolaceAuditTotals
    problems: tuple[AuditEntry, ...]  # duplicate-delivered / lost / stranded, at most `limit`
    spooled_where: tuple[SpoolWhere, ...] = field(default_factory=tuple)
    xa_issues: tuple[XaIssue, ...] = ()
    split_brains: tuple[SplitBrain, ...] = ()
