"""SQLAlchemy 2.x declarative schema of the lab.

Why this shape:
- Configuration rows (site, router, VPN, queue, client, user) are few and are read/written through
  the ORM: they are small and the code stays readable.
- High-volume rows (the publication ledger ``message``, queue copies ``spooled``, the ordered
  replication stream ``repl_entry``, the ``delivery`` ledger) are only touched with Core bulk SQL
  (INSERT..SELECT, set-based DELETE) so a million messages stay cheap. Shows never COUNT(*) them:
  ``queue`` rows carry maintained counters (count, bytes, high-water mark).
- The HA vocabulary is kept general where it costs nothing: an ``ha_group`` (for Solace: one
  replicated Message VPN name across sites) has member ``vpn`` rows (the nodes), each with a role.
  Other HA systems can add their own group/node tables later without touching these.
"""

from __future__ import annotations

from sqlalchemy import ForeignKey, Index, Integer, String, Text, UniqueConstraint
from sqlalchemy.orm import DeclarativeBase, Mapped, mapped_column

# 4: cli_user.lab_admin; 5: config_object (named configuration objects)
SCHEMA_VERSION = "5"


class Base(DeclarativeBase):
    pass


class Meta(Base):
    """Key/value bookkeeping: schema_version, now_ms, id counters."""

    __tablename__ = "meta"
    key: Mapped[str] = mapped_column(String, primary_key=True)
    value: Mapped[str] = mapped_column(Text)


class Setting(Base):
    """Lab settings (software version, layout, drain rate...), values stored as text."""

    __tablename__ = "setting"
    key: Mapped[str] = mapped_column(String, primary_key=True)
    value: Mapped[str] = mapped_column(Text)


class Site(Base):
    __tablename__ = "site"
    id: Mapped[int] = mapped_column(primary_key=True)
    name: Mapped[str] = mapped_column(String, unique=True)


class Link(Base):
    """A WAN link between two sites (replication traffic needs it up)."""

    __tablename__ = "link"
    id: Mapped[int] = mapped_column(primary_key=True)
    site_a_id: Mapped[int] = mapped_column(ForeignKey("site.id"))
    site_b_id: Mapped[int] = mapped_column(ForeignKey("site.id"))
    up: Mapped[bool] = mapped_column(default=True)


class Router(Base):
    """One broker (a node). ``up`` false = failed; its spool stays on disk."""

    __tablename__ = "router"
    id: Mapped[int] = mapped_column(primary_key=True)
    name: Mapped[str] = mapped_column(String, unique=True)
    site_id: Mapped[int] = mapped_column(ForeignKey("site.id"))
    up: Mapped[bool] = mapped_column(default=True)
    next_msg_id: Mapped[int] = mapped_column(Integer, default=1)
    msg_id_seed: Mapped[int] = mapped_column(Integer, default=1)
    generation: Mapped[int] = mapped_column(Integer, default=1)  # bumped by replace_site
    # system-level replication config (show replication)
    repl_interface: Mapped[str] = mapped_column(String, default="")
    mate_name: Mapped[str] = mapped_column(String, default="")  # v:<router>
    connect_via: Mapped[str] = mapped_column(String, default="")
    port_plain: Mapped[int] = mapped_column(Integer, default=55555)
    port_compressed: Mapped[int] = mapped_column(Integer, default=55003)
    port_ssl: Mapped[int] = mapped_column(Integer, default=55443)
    max_spool_mb: Mapped[int] = mapped_column(Integer, default=60000)
    spool_hwm_bytes: Mapped[int] = mapped_column(Integer, default=0)


class HaGroup(Base):
    """An HA group: for Solace, one replicated Message VPN name; owns the group message-ID counter."""

    __tablename__ = "ha_group"
    id: Mapped[int] = mapped_column(primary_key=True)
    system: Mapped[str] = mapped_column(String, default="solace-replication")
    name: Mapped[str] = mapped_column(String, unique=True)
    next_rgmid: Mapped[int] = mapped_column(Integer, default=1)
    rgmid_seed: Mapped[int] = mapped_column(Integer, default=1)


class Vpn(Base):
    """A Message VPN on one router: a node of its HA group, with its replication settings."""

    __tablename__ = "vpn"
    __table_args__ = (UniqueConstraint("router_id", "name"),)
    id: Mapped[int] = mapped_column(primary_key=True)
    router_id: Mapped[int] = mapped_column(ForeignKey("router.id"))
    group_id: Mapped[int] = mapped_column(ForeignKey("ha_group.id"))
    name: Mapped[str] = mapped_column(String)
    internal: Mapped[bool] = mapped_column(default=False)  # #config-sync
    enabled: Mapped[bool] = mapped_column(default=True)  # message VPN itself (no shutdown)
    # replication
    repl_enabled: Mapped[bool] = mapped_column(default=False)  # replication no shutdown
    role: Mapped[str] = mapped_column(String, default="standby")  # active|standby
    role_since_ms: Mapped[int] = mapped_column(Integer, default=0)
    trm: Mapped[str] = mapped_column(String, default="async")
    reject_sync_ineligible: Mapped[bool] = mapped_column(default=False)
    rq_max_spool_mb: Mapped[int] = mapped_column(Integer, default=60000)
    rq_reject_on_discard: Mapped[bool] = mapped_column(default=True)
    ack_prop_enabled: Mapped[bool] = mapped_column(default=True)
    ack_interval: Mapped[int] = mapped_column(Integer, default=20)
    bridge_auth_scheme: Mapped[str] = mapped_column(String, default="basic")
    bridge_username: Mapped[str] = mapped_column(String, default="")
    bridge_password_hash: Mapped[str] = mapped_column(String, default="")
    bridge_compressed: Mapped[bool] = mapped_column(default=False)
    bridge_retry_delay: Mapped[int] = mapped_column(Integer, default=3)
    bridge_ssl: Mapped[bool] = mapped_column(default=False)
    bridge_window_size: Mapped[int] = mapped_column(Integer, default=255)
    bridge_client_profile: Mapped[str] = mapped_column(String, default="#client-profile")
    # computed-state bookkeeping (refreshed after every change; never shown as stored text)
    bridge_up_since_ms: Mapped[int | None] = mapped_column(Integer, nullable=True)
    sync_eligible: Mapped[bool] = mapped_column(default=False)
    drain_carry: Mapped[int] = mapped_column(Integer, default=0)  # rate*ms remainder (/1000)
    # statistics counters
    st_sync_queued: Mapped[int] = mapped_column(Integer, default=0)
    st_sync_as_async: Mapped[int] = mapped_column(Integer, default=0)
    st_async_queued: Mapped[int] = mapped_column(Integer, default=0)
    st_promoted_queued: Mapped[int] = mapped_column(Integer, default=0)
    st_pruned: Mapped[int] = mapped_column(Integer, default=0)
    st_to_ineligible: Mapped[int] = mapped_column(Integer, default=0)
    st_acks_sent: Mapped[int] = mapped_column(Integer, default=0)
    st_msgs_received: Mapped[int] = mapped_column(Integer, default=0)
    st_acks_received: Mapped[int] = mapped_column(Integer, default=0)
    st_tx_received: Mapped[int] = mapped_column(Integer, default=0)
    st_rejected_full: Mapped[int] = mapped_column(Integer, default=0)
    st_not_replicated: Mapped[int] = mapped_column(Integer, default=0)
    st_rejected_sync: Mapped[int] = mapped_column(Integer, default=0)


class ReplicatedTopic(Base):
    __tablename__ = "replicated_topic"
    __table_args__ = (UniqueConstraint("vpn_id", "topic"),)
    id: Mapped[int] = mapped_column(primary_key=True)
    vpn_id: Mapped[int] = mapped_column(ForeignKey("vpn.id"))
    topic: Mapped[str] = mapped_column(String)
    mode: Mapped[str] = mapped_column(String, default="async")


class Queue(Base):
    """A queue; kind 'replication' is the VPN's #MSGVPN_REPLICATION_DATA_QUEUE (its entries are
    ``repl_entry`` rows; only message entries are counted here)."""

    __tablename__ = "queue"
    __table_args__ = (UniqueConstraint("vpn_id", "name"),)
    id: Mapped[int] = mapped_column(primary_key=True)
    vpn_id: Mapped[int] = mapped_column(ForeignKey("vpn.id"))
    name: Mapped[str] = mapped_column(String)
    kind: Mapped[str] = mapped_column(String, default="normal")
    access_type: Mapped[str] = mapped_column(String, default="exclusive")
    durable: Mapped[bool] = mapped_column(default=True)
    owner: Mapped[str] = mapped_column(String, default="")
    permission: Mapped[str] = mapped_column(String, default="no-access")
    shutdown: Mapped[bool] = mapped_column(default=False)  # admin shutdown (both directions)
    ingress_up: Mapped[bool] = mapped_column(default=True)
    egress_up: Mapped[bool] = mapped_column(default=True)
    max_spool_mb: Mapped[int] = mapped_column(Integer, default=5000)
    max_bind_count: Mapped[int] = mapped_column(Integer, default=1000)
    msg_count: Mapped[int] = mapped_column(Integer, default=0)
    bytes: Mapped[int] = mapped_column(Integer, default=0)
    hwm_bytes: Mapped[int] = mapped_column(Integer, default=0)


class Subscription(Base):
    __tablename__ = "subscription"
    __table_args__ = (UniqueConstraint("queue_id", "topic"),)
    id: Mapped[int] = mapped_column(primary_key=True)
    queue_id: Mapped[int] = mapped_column(ForeignKey("queue.id"))
    topic: Mapped[str] = mapped_column(String)


class Client(Base):
    """A messaging client: follows its host list (router names) to an active VPN."""

    __tablename__ = "client"
    id: Mapped[int] = mapped_column(primary_key=True)
    name: Mapped[str] = mapped_column(String, unique=True)
    vpn_name: Mapped[str] = mapped_column(String)
    username: Mapped[str] = mapped_column(String, default="default")
    hosts: Mapped[str] = mapped_column(Text)  # comma-separated router names, in order
    router_id: Mapped[int | None] = mapped_column(ForeignKey("router.id"), nullable=True)
    connected_since_ms: Mapped[int | None] = mapped_column(Integer, nullable=True)
    client_num: Mapped[int] = mapped_column(Integer, default=1)  # for the #000c0001 style id
    wants_connection: Mapped[bool] = mapped_column(default=True)
    reconnects: Mapped[int] = mapped_column(Integer, default=0)
    last_disconnect_reason: Mapped[str] = mapped_column(String, default="")


class User(Base):
    __tablename__ = "cli_user"
    id: Mapped[int] = mapped_column(primary_key=True)
    name: Mapped[str] = mapped_column(String, unique=True)
    password_hash: Mapped[str] = mapped_column(String)
    scope: Mapped[str] = mapped_column(String, default="global")  # global|vpn
    level: Mapped[str] = mapped_column(String, default="read-only")
    vpn: Mapped[str | None] = mapped_column(String, nullable=True)
    lab_admin: Mapped[bool] = mapped_column(default=False)  # may open the lab console


class Message(Base):
    """The publication ledger: one row per message ever accepted (keyed by group + rgmid)."""

    __tablename__ = "message"
    __table_args__ = (Index("ix_message_group_rgmid", "group_id", "rgmid"),)
    id: Mapped[int] = mapped_column(primary_key=True)
    group_id: Mapped[int] = mapped_column(Integer)
    vpn_name: Mapped[str] = mapped_column(String)
    rgmid: Mapped[int] = mapped_column(Integer)
    topic: Mapped[str] = mapped_column(String)
    size: Mapped[int] = mapped_column(Integer)
    client_name: Mapped[str] = mapped_column(String)
    router_name: Mapped[str] = mapped_column(String)
    published_ms: Mapped[int] = mapped_column(Integer)
    # 1 replicated (queued for the mate), 0 replicated topic but not replicated, NULL not replicated topic
    replicated: Mapped[int | None] = mapped_column(Integer, nullable=True)
    note: Mapped[str | None] = mapped_column(String, nullable=True)


class Spooled(Base):
    """A copy of a message in a (normal) queue on one router; txn_id set = locked by a transaction."""

    __tablename__ = "spooled"
    __table_args__ = (
        Index("ix_spooled_queue", "queue_id", "id"),
        Index("ix_spooled_message", "message_id"),
    )
    id: Mapped[int] = mapped_column(primary_key=True)
    queue_id: Mapped[int] = mapped_column(Integer)
    message_id: Mapped[int] = mapped_column(Integer)
    msg_id: Mapped[int] = mapped_column(Integer)  # router-local message id
    spooled_ms: Mapped[int] = mapped_column(Integer)
    size: Mapped[int] = mapped_column(Integer)
    txn_id: Mapped[int | None] = mapped_column(Integer, nullable=True)


class ReplEntry(Base):
    """The ordered replication stream held by a VPN's #MSGVPN_REPLICATION_DATA_QUEUE.

    kind: 'msg' (message_id, topic, size), 'ack' (message_id consumed from queue_name),
    'tx' (transaction state mirror: payload is JSON)."""

    __tablename__ = "repl_entry"
    __table_args__ = (
        Index("ix_repl_vpn_seq", "vpn_id", "seq"),
        Index("ix_repl_message", "message_id"),
    )
    seq: Mapped[int] = mapped_column(primary_key=True)
    vpn_id: Mapped[int] = mapped_column(Integer)
    kind: Mapped[str] = mapped_column(String)
    message_id: Mapped[int | None] = mapped_column(Integer, nullable=True)
    msg_id: Mapped[int | None] = mapped_column(Integer, nullable=True)
    topic: Mapped[str | None] = mapped_column(String, nullable=True)
    size: Mapped[int] = mapped_column(Integer, default=0)
    queue_name: Mapped[str | None] = mapped_column(String, nullable=True)
    payload: Mapped[str | None] = mapped_column(Text, nullable=True)
    queued_ms: Mapped[int] = mapped_column(Integer, default=0)


class Delivery(Base):
    """One row per consumption (what the audit counts)."""

    __tablename__ = "delivery"
    __table_args__ = (Index("ix_delivery_message", "message_id"),)
    id: Mapped[int] = mapped_column(primary_key=True)
    message_id: Mapped[int] = mapped_column(Integer)
    client_name: Mapped[str] = mapped_column(String)
    router_name: Mapped[str] = mapped_column(String)
    queue_name: Mapped[str] = mapped_column(String)
    at_ms: Mapped[int] = mapped_column(Integer)
    txn_key: Mapped[str | None] = mapped_column(String, nullable=True)  # commit that acked it


class Rejection(Base):
    """Refused publishes (counted, never in the ledger)."""

    __tablename__ = "rejection"
    id: Mapped[int] = mapped_column(primary_key=True)
    vpn_name: Mapped[str] = mapped_column(String)
    client_name: Mapped[str] = mapped_column(String)
    router_name: Mapped[str] = mapped_column(String)
    topic: Mapped[str] = mapped_column(String)
    count: Mapped[int] = mapped_column(Integer)
    reason: Mapped[str] = mapped_column(String)
    at_ms: Mapped[int] = mapped_column(Integer)


class Txn(Base):
    """A transaction on one router (a mirrored copy on the mate is its own row, mirror=True)."""

    __tablename__ = "txn"
    id: Mapped[int] = mapped_column(primary_key=True)
    router_id: Mapped[int] = mapped_column(ForeignKey("router.id"))
    vpn_id: Mapped[int] = mapped_column(ForeignKey("vpn.id"))
    kind: Mapped[str] = mapped_column(String)  # xa|local
    xid: Mapped[str | None] = mapped_column(String, nullable=True)
    client_name: Mapped[str] = mapped_column(String)
    client_username: Mapped[str] = mapped_column(String, default="default")
    client_num: Mapped[int] = mapped_column(Integer, default=1)
    state: Mapped[str] = mapped_column(String)  # active|suspended|idle|prepared|complete
    replicated: Mapped[bool] = mapped_column(default=False)
    mirror: Mapped[bool] = mapped_column(default=False)
    heuristic: Mapped[str | None] = mapped_column(String, nullable=True)
    last_change_ms: Mapped[int] = mapped_column(Integer, default=0)
    associated: Mapped[bool] = mapped_column(default=False)  # XA branch associated with its client


class TxnOp(Base):
    """A message published (pending: topic/count/size) or consumed (a spooled copy) in a txn."""

    __tablename__ = "txn_op"
    __table_args__ = (Index("ix_txn_op_txn", "txn_id"),)
    id: Mapped[int] = mapped_column(primary_key=True)
    txn_id: Mapped[int] = mapped_column(Integer)
    op: Mapped[str] = mapped_column(String)  # publish|consume
    topic: Mapped[str | None] = mapped_column(String, nullable=True)
    count: Mapped[int] = mapped_column(Integer, default=1)
    size: Mapped[int] = mapped_column(Integer, default=600)
    message_id: Mapped[int | None] = mapped_column(Integer, nullable=True)
    msg_id: Mapped[int | None] = mapped_column(Integer, nullable=True)
    queue_name: Mapped[str | None] = mapped_column(String, nullable=True)


class ConfigObject(Base):
    """A named configuration object (client username, client/ACL/telemetry profile, REST delivery
    point and their children, per-router singletons such as config-sync), one row per router.

    Why one table: these objects are few, have a handful of settings each and no hot path; one
    shape (kind, name, parent, typed attributes kept as JSON) serves them all, while the engine
    validates every attribute against its kind's spec (``state_store.config_objects.KINDS``) and
    returns typed views. ``vpn_id`` is NULL for router-level objects; ``managed_by`` names the
    object that created this one (a telemetry profile's queue-side profiles), "" for user objects."""

    __tablename__ = "config_object"
    __table_args__ = (Index("ix_config_object_lookup", "router_id", "kind", "vpn_id", "name"),)
    id: Mapped[int] = mapped_column(primary_key=True)
    router_id: Mapped[int] = mapped_column(ForeignKey("router.id"))
    vpn_id: Mapped[int | None] = mapped_column(ForeignKey("vpn.id"), nullable=True)
    parent_id: Mapped[int | None] = mapped_column(ForeignKey("config_object.id"), nullable=True)
    kind: Mapped[str] = mapped_column(String)
    name: Mapped[str] = mapped_column(String)
    attrs: Mapped[str] = mapped_column(Text, default="{}")  # JSON object: attribute -> value
    managed_by: Mapped[str] = mapped_column(String, default="")
    created_seq: Mapped[int] = mapped_column(Integer, default=0)  # creation order, for listings
