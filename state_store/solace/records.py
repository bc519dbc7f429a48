"""The broker model's records: plain typed objects, one class per kind of thing the lab holds.

Why plain slotted dataclasses: the model lives in memory (``state_store.solace.broker_state.BrokerState``) and
every command reads and changes these objects directly; attribute access must cost nothing, and
the same field names as the stored tables (``state_store.lab_tables``) keep persistence a mechanical
mapping. Ids are assigned by ``BrokerState.add``.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any


@dataclass(slots=True, eq=False)
class Site:
    name: str
    id: int = 0


@dataclass(slots=True, eq=False)
class Link:
    """A WAN link between two sites (replication traffic needs it up)."""

    site_a_id: int
    site_b_id: int
    id: int = 0
    up: bool = True


@dataclass(slots=True, eq=False)
class Router:
    """One broker (a node). ``up`` false = failed; its spool stays on disk."""

    name: str
    site_id: int
    id: int = 0
    up: bool = True
    next_msg_id: int = 1
    msg_id_seed: int = 1
    generation: int = 1  # bumped by replace_site
    repl_interface: str = ""
    mate_name: str = ""  # v:<router>
    connect_via: str = ""
    port_plain: int = 55555
    port_compressed: int = 55003
    port_ssl: int = 55443
    max_spool_mb: int = 60000
    spool_hwm_bytes: int = 0
    ssh_port: int = 0  # the scenario's SSH port for the router; 0: `serve` gives it one


@dataclass(slots=True, eq=False)
class HaGroup:
    """An HA group: for Solace, one replicated Message VPN name; owns the group message-ID counter."""

    name: str
    id: int = 0
    system: str = "solace-replication"
    next_rgmid: int = 1
    rgmid_seed: int = 1


@dataclass(slots=True, eq=False)
class Vpn:
    """A Message VPN on one router: a node of its HA group, with its replication settings."""

    router_id: int
    group_id: int
    name: str
    id: int = 0
    internal: bool = False  # #config-sync
    enabled: bool = True  # message VPN itself (no shutdown)
    repl_enabled: bool = False  # replication no shutdown
    role: str = "standby"  # active|standby
    role_since_ms: int = 0
    trm: str = "async"
    reject_sync_ineligible: bool = False
    rq_max_spool_mb: int = 60000
    rq_reject_on_discard: bool = True
    ack_prop_enabled: bool = True
    ack_interval: int = 20
    bridge_auth_scheme: str = "basic"
    bridge_username: str = ""
    bridge_password_hash: str = ""
    bridge_compressed: bool = False
    bridge_retry_delay: int = 3
    bridge_ssl: bool = False
    bridge_window_size: int = 255
    bridge_client_profile: str = "#client-profile"
    # computed-state bookkeeping (refreshed after every change; never shown as stored text)
    bridge_up_since_ms: int | None = None
    sync_eligible: bool = False
    drain_carry: int = 0  # rate*ms remainder (/1000)
    st_sync_queued: int = 0
    st_sync_as_async: int = 0
    st_async_queued: int = 0
    st_promoted_queued: int = 0
    st_pruned: int = 0
    st_to_ineligible: int = 0
    st_acks_sent: int = 0
    st_msgs_received: int = 0
    st_acks_received: int = 0
    st_tx_received: int = 0
    st_rejected_full: int = 0
    st_not_replicated: int = 0
    st_rejected_sync: int = 0
    max_spool_mb: int = 60000  # the VPN's spool quota (message-spool max-spool-usage); lab default, see docs/lab.md


@dataclass(slots=True, eq=False)
class ReplicatedTopic:
    vpn_id: int
    topic: str
    id: int = 0
    mode: str = "async"


@dataclass(slots=True, eq=False)
class Queue:
    """A queue; kind 'replication' is the VPN's #MSGVPN_REPLICATION_DATA_QUEUE (its entries are
    ``repl_entry`` rows; only message entries are counted here)."""

    vpn_id: int
    name: str
    id: int = 0
    kind: str = "normal"
    access_type: str = "exclusive"
    durable: bool = True
    owner: str = ""
    permission: str = "no-access"
    shutdown: bool = False  # admin shutdown (both directions)
    ingress_up: bool = True
    egress_up: bool = True
    max_spool_mb: int = 5000
    max_bind_count: int = 1000
    msg_count: int = 0
    bytes: int = 0
    hwm_bytes: int = 0
    reject_on_discard: bool = True  # reject-msg-to-sender-on-discard (C13: Yes by default)
    reject_when_shutdown: bool = False  # ... including-when-shutdown (C13: No by default)
    # the generic leaves of grammar/data/leaves.yaml `queue` without a field of their own, when not
    # at their defaults (replaced whole on a change, never changed in place)
    settings: dict[str, Any] = field(default_factory=dict)


@dataclass(slots=True, eq=False)
class Subscription:
    queue_id: int
    topic: str
    id: int = 0


@dataclass(slots=True, eq=False)
class Client:
    """A messaging client: follows its host list (router names) to an active VPN."""

    name: str
    vpn_name: str
    hosts: str  # comma-separated router names, in order
    id: int = 0
    username: str = "default"
    router_id: int | None = None
    connected_since_ms: int | None = None
    client_num: int = 1  # for the #000c0001 style id
    wants_connection: bool = True
    reconnects: int = 0
    last_disconnect_reason: str = ""


@dataclass(slots=True, eq=False)
class Message:
    """The publication ledger: one record per run of ``count`` accepted messages that share every
    field (ids ``id`` .. ``id + count - 1``, rgmids ``rgmid`` .. ``rgmid + count - 1``)."""

    group_id: int
    vpn_name: str
    rgmid: int
    topic: str
    size: int
    client_name: str
    router_name: str
    published_ms: int
    id: int = 0
    # 1 replicated (queued for the mate), 0 replicated topic but not replicated, None not replicated topic
    replicated: int | None = None
    note: str | None = None
    count: int = 1

    def split(self, k: int) -> Message:
        """Keep the first ``k`` messages; return the rest as a new run (not filed)."""
        tail = Message(self.group_id, self.vpn_name, self.rgmid + k, self.topic, self.size, self.client_name,
                       self.router_name, self.published_ms, self.id + k, self.replicated, self.note,
                       self.count - k)
        self.count = k
        return tail


@dataclass(slots=True, eq=False)
class Spooled:
    """Copies of ``count`` messages in a (normal) queue on one router, one run: consecutive copy ids
    from ``id``, message ids from ``message_id`` and router-local message ids from ``msg_id``, the
    same size, time and lock; txn_id set = locked by a transaction."""

    queue_id: int
    message_id: int
    msg_id: int  # router-local message id
    spooled_ms: int
    size: int
    id: int = 0
    txn_id: int | None = None
    count: int = 1

    def split(self, k: int) -> Spooled:
        """Keep the first ``k`` copies; return the rest as a new run (not filed)."""
        tail = Spooled(self.queue_id, self.message_id + k, self.msg_id + k, self.spooled_ms, self.size,
                       self.id + k, self.txn_id, self.count - k)
        self.count = k
        return tail


@dataclass(slots=True, eq=False)
class ReplEntry:
    """The ordered replication stream held by a VPN's #MSGVPN_REPLICATION_DATA_QUEUE.

    kind: 'msg' (message_id, topic, size), 'ack' (message_id consumed from queue_name),
    'tx' (transaction state mirror: payload is JSON). A 'msg' or 'ack' entry is a run of
    ``count`` messages: seqs, message ids and router-local message ids consecutive from its own."""

    vpn_id: int
    kind: str
    seq: int = 0
    message_id: int | None = None
    msg_id: int | None = None
    topic: str | None = None
    size: int = 0
    queue_name: str | None = None
    payload: str | None = None
    queued_ms: int = 0
    count: int = 1

    def split(self, k: int) -> ReplEntry:
        """Keep the first ``k`` entries of a 'msg' or 'ack' run; return the rest as a new run (not filed)."""
        assert self.message_id is not None and self.msg_id is not None
        tail = ReplEntry(self.vpn_id, self.kind, self.seq + k, self.message_id + k, self.msg_id + k, self.topic,
                         self.size, self.queue_name, self.payload, self.queued_ms, self.count - k)
        self.count = k
        return tail


@dataclass(slots=True, eq=False)
class Delivery:
    """A run of ``count`` consumptions (what the audit counts): messages ``message_id`` ..
    ``message_id + count - 1``, each delivered once to the same client, from the same queue, at
    the same time (ids reserved for the whole run)."""

    message_id: int
    client_name: str
    router_name: str
    queue_name: str
    at_ms: int
    id: int = 0
    txn_key: str | None = None  # commit that acked it
    count: int = 1


@dataclass(slots=True, eq=False)
class Rejection:
    """Refused publishes (counted, never in the ledger): one record per VPN, client, router, topic
    and reason, whose ``count`` every later refusal of that kind adds to (``BrokerState.add``), so
    a lab refusing all day holds one record; ``at_ms`` is the first refusal's (never shown)."""

    vpn_name: str
    client_name: str
    router_name: str
    topic: str
    count: int
    reason: str
    at_ms: int
    id: int = 0


@dataclass(slots=True, eq=False)
class Txn:
    """A transaction on one router (a mirrored copy on the mate is its own row, mirror=True)."""

    router_id: int
    vpn_id: int
    kind: str  # xa|local
    client_name: str
    state: str  # active|suspended|idle|prepared|complete
    id: int = 0
    xid: str | None = None
    client_username: str = "default"
    client_num: int = 1
    replicated: bool = False
    mirror: bool = False
    heuristic: str | None = None
    last_change_ms: int = 0
    associated: bool = False  # XA branch associated with its client


@dataclass(slots=True, eq=False)
class TxnOp:
    """Messages published (pending: topic/count/size) or consumed (a run of ``count`` spooled
    copies locked: message ids and router-local message ids consecutive from its own) in a txn."""

    txn_id: int
    op: str  # publish|consume
    id: int = 0
    topic: str | None = None
    count: int = 1
    size: int = 600
    message_id: int | None = None
    msg_id: int | None = None
    queue_name: str | None = None


@dataclass(slots=True, eq=False)
class ConfigObject:
    """A named configuration object (client username, client/ACL/telemetry profile, REST delivery
    point and their children, per-router singletons such as config-sync), one row per router.

    Why one table: these objects are few, have a handful of settings each and no hot path; one
    shape (kind, name, parent, typed attributes kept as JSON) serves them all, while the engine
    validates every attribute against its kind's spec (``state_store.solace.config_objects.KINDS``) and
    returns typed views. ``vpn_id`` is NULL for router-level objects; ``managed_by`` names the
    object that created this one (a telemetry profile's queue-side profiles), "" for user objects."""

    router_id: int
    kind: str
    name: str
    id: int = 0
    vpn_id: int | None = None
    parent_id: int | None = None
    attrs: dict[str, Any] = field(default_factory=dict)  # JSON object: attribute -> value
    managed_by: str = ""
    created_seq: int = 0  # creation order, for listings


@dataclass(slots=True, eq=False)
class SettledMessages:
    """Messages whose fate is settled for good, folded out of the ledger (``state_store.solace.settle``):
    per VPN name, how many (each published and delivered exactly once, no copy of it left
    anywhere and nothing left that names it) and how many of them were never replicated. The
    audit adds them to its totals; they can never be listed as a problem."""

    vpn_name: str
    messages: int = 0
    not_replicated: int = 0
    id: int = 0
