"""Named configuration objects: client usernames, client/ACL/telemetry profiles, REST delivery
points (with REST consumers and queue bindings), and per-router singletons (config-sync, the
replication config-sync bridge, the replication mate's transport).

Why one service and one record type (``records.ConfigObject``, attributes in a dict): these objects
have few settings, no hot path and the same life cycle (create, set, reset with `no`, delete); a
spec per kind (``KINDS``) gives its structure, and its settings are the leaves declared for the kind
in grammar/data/leaves.yaml (type, default, range), so every kind is validated the same way and
the engine API stays typed (views in ``state_store.solace.views``). A router's objects are found
through ``BrokerState.objects_by_router``; listings keep creation order (``created_seq``).

Rules the broker has and the engine enforces:
- VPN objects are config-synced to the VPN's replication mate, like queues. A change made while
  the mate's router is down or unreachable is applied locally only and marks this router's VPN
  table Out-Of-Sync (``show config-sync``) until `admin config-sync assert-leader message-vpn <v>`
  pushes the local table to the mate.
- Every VPN has a `default` client username, client profile and ACL profile (builtin: they exist
  without `create` and cannot be deleted).
- Names starting with `#` are reserved: a telemetry profile creates the client profile, ACL
  profile and queue `#telemetry-<name>` (queue ingress down, egress up, non-exclusive, T19) and
  deleting the profile removes them; they cannot be configured or deleted directly.
- A client username's client/ACL profile must exist; a profile in use cannot be deleted.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, replace
from typing import Literal, Protocol, TypeVar, cast

from ..errors import EngineError
from . import leaves
from .leaves import Leaf
from .records import ConfigObject, Queue, Router, Vpn
from .service import Service
from .topics import name_matches
from .views import (
    AclProfileInfo,
    ClientProfileInfo,
    ClientUsernameInfo,
    ConfigSyncBridgeConfig,
    ConfigSyncInfo,
    LeafValues,
    QueueBindingInfo,
    RestConsumerInfo,
    RestDeliveryPointInfo,
    RouterIdentity,
    TelemetryFilterInfo,
    TelemetryProfileInfo,
    VpnRestService,
)


class _Named(Protocol):
    """What a listing sorts and filters a view by."""

    @property
    def name(self) -> str: ...
    @property
    def vpn(self) -> str: ...


NamedView = TypeVar("NamedView", bound=_Named)

ObjectKind = Literal[
    "client-username", "client-profile", "acl-profile", "telemetry-profile", "telemetry-filter",
    "telemetry-subscription", "rest-delivery-point", "rest-consumer", "queue-binding",
    "message-vpn", "config-sync", "replication-config-sync-bridge", "replication-mate", "cli-script",
    "connection-factory",
]
AttrValue = object | None  # a str, int or bool as the CLI gave it; None = restore the default
TELEMETRY_PREFIX = "#telemetry-"
FACTORY_PORT = int(str(leaves.of("message-vpn")["rest-incoming-listen-port"].default))  # the broker's default
DEFAULT_VPN_REST_PORT = 9000  # the software broker's `default` VPN (C06, the codelab)
# A REST consumer's record also keeps when it was last shut down (state for its detail show,
# not a configuration attribute).
SHUTDOWN_AT = "shutdown-at-ms"
REST_AUTH_SCHEMES = leaves.of("rest-consumer")["auth-scheme"].values
_BAD_NAME_CHARS = set("'<>*?&;\"")


@dataclass(frozen=True)
class KindSpec:
    """The structure of one kind of object; its settings are its declared leaves
    (grammar/data/leaves.yaml, ``attrs``)."""

    scope: Literal["vpn", "router"]
    parent: str | None = None
    singleton: bool = False              # one unnamed object (name "") per VPN / router
    builtin: tuple[str, ...] = ()        # names that exist without `create`
    max_name: int = 32
    kind: str = ""                       # the object kind (its key in KINDS)

    @property
    def attrs(self) -> dict[str, Leaf]:
        return leaves.of(self.kind)

    @property
    def builtin_defaults(self) -> dict[str, object]:
        """A builtin object's own defaults where they differ from the kind's."""
        return {name: a.builtin_default for name, a in self.attrs.items() if a.has_builtin_default}


def _kinds(**specs: KindSpec) -> dict[str, KindSpec]:
    return {kind.replace("_", "-"): replace(spec, kind=kind.replace("_", "-")) for kind, spec in specs.items()}


KINDS: dict[str, KindSpec] = _kinds(
    client_username=KindSpec("vpn", builtin=("default",), max_name=189),
    client_profile=KindSpec("vpn", builtin=("default",)),
    acl_profile=KindSpec("vpn", builtin=("default",)),
    telemetry_profile=KindSpec("vpn"),
    telemetry_filter=KindSpec("vpn", parent="telemetry-profile"),
    telemetry_subscription=KindSpec("vpn", parent="telemetry-filter", max_name=250),
    rest_delivery_point=KindSpec("vpn"),
    rest_consumer=KindSpec("vpn", parent="rest-delivery-point"),
    queue_binding=KindSpec("vpn", parent="rest-delivery-point", max_name=200),
    message_vpn=KindSpec("vpn", singleton=True),
    connection_factory=KindSpec("vpn", max_name=256),  # a JNDI connection factory (its properties not modelled)
    config_sync=KindSpec("router", singleton=True),
    replication_config_sync_bridge=KindSpec("router", singleton=True),
    replication_mate=KindSpec("router", singleton=True),
    cli_script=KindSpec("router", max_name=255),
)
# Which attribute of a client username names an object of which kind.
_REFERENCES = {"client-profile": "client-profile", "acl-profile": "acl-profile"}


class ConfigService(Service):
    # ------------------------------------------------------------------ records
    def _rows(self, r: Router, v: Vpn | None, kind: str, parent: ConfigObject | None = None) -> list[ConfigObject]:
        """The objects of one kind under one parent on a router (VPN-level when ``v``), in
        creation order."""
        vid = None if v is None else v.id
        pid = None if parent is None else parent.id
        rows = [o for o in self.st.objects_by_router.get(r.id, {}).values()
                if o.kind == kind and o.vpn_id == vid and o.parent_id == pid]
        rows.sort(key=lambda o: (o.created_seq, o.id))
        return rows

    def _children(self, row: ConfigObject) -> list[ConfigObject]:
        rows = [o for o in self.st.objects_by_router.get(row.router_id, {}).values() if o.parent_id == row.id]
        rows.sort(key=lambda o: (o.created_seq, o.id))
        return rows

    def row(self, r: Router, v: Vpn | None, kind: str, name: str,
            parent: ConfigObject | None = None) -> ConfigObject | None:
        """The stored object ``name`` of ``kind`` (None: never created, or a builtin/singleton
        still at its defaults)."""
        for row in self._rows(r, v, kind, parent):
            if row.name == name:
                return row
        return None

    @staticmethod
    def attrs(row: ConfigObject | None, kind: str) -> dict[str, object]:
        """Every attribute of ``kind`` with its value: the stored ones over the defaults (a
        builtin object's own defaults over the kind's)."""
        spec = KINDS[kind]
        out = {name: a.default for name, a in spec.attrs.items()}
        if row is None or row.managed_by == "builtin":
            out.update(spec.builtin_defaults)
        if row is not None:
            out.update(row.attrs)
        return out

    @classmethod
    def settings(cls, row: ConfigObject | None, kind: str) -> LeafValues:
        """The object's generic leaves (those with words) that are not at their defaults, or that
        current-config prints always."""
        values = cls.attrs(row, kind)
        defaults = {name: leaf.default for name, leaf in KINDS[kind].attrs.items()}
        if row is None or row.managed_by == "builtin":
            defaults.update(KINDS[kind].builtin_defaults)
        return tuple((name, cast(str | int | bool, values[name])) for name, leaf in KINDS[kind].attrs.items()
                     if leaf.cli and (leaf.always or values[name] != defaults[name]))

    def _next_seq(self) -> int:
        return max((o.created_seq for o in self.st.config_objects.values()), default=0) + 1

    def _add_row(self, r: Router, v: Vpn | None, kind: str, name: str,
                 parent: ConfigObject | None = None, managed_by: str = "") -> ConfigObject:
        row = ConfigObject(router_id=r.id, vpn_id=None if v is None else v.id,
                           parent_id=None if parent is None else parent.id, kind=kind, name=name,
                           attrs={}, managed_by=managed_by, created_seq=self._next_seq())
        added: ConfigObject = self.st.add(row)
        return added

    def _resolve(self, r: Router, v: Vpn | None, kind: str, path: tuple[str, ...],
                 *, materialize: bool = False) -> ConfigObject | None:
        """The object at ``path`` (names from the top-level ancestor down); a builtin object
        without a record yet gets one when ``materialize`` (a change is about to be stored)."""
        chain = _chain(kind)
        if len(path) != len(chain):
            raise EngineError("invalid_value", name=kind, value="/".join(path), allowed=f"{len(chain)} names")
        parent: ConfigObject | None = None
        for k, name in zip(chain, path, strict=False):
            row = self.row(r, v, k, name, parent)
            if row is None and (name in KINDS[k].builtin or KINDS[k].singleton):
                if not materialize:
                    return None
                row = self._add_row(r, v, k, name, parent, managed_by="builtin" if KINDS[k].builtin else "")
            if row is None:
                return None
            parent = row
        return parent

    def _exists(self, r: Router, v: Vpn | None, kind: str, path: tuple[str, ...]) -> bool:
        spec = KINDS[kind]
        if spec.singleton or (len(path) == 1 and path[0] in spec.builtin):
            return True
        return self._resolve(r, v, kind, path) is not None

    @staticmethod
    def _not_found(kind: str, path: tuple[str, ...], v: Vpn | None) -> EngineError:
        return EngineError("object_not_found", kind=kind, name=path[-1], vpn=v.name if v else "")

    # ------------------------------------------------------------------ scope
    def _targets(self, router: str, vpn: str | None, kind: str) -> tuple[Router, Vpn | None, list[tuple[Router, Vpn]]]:
        """The router and VPN a change is made on, plus the VPN's reachable config-sync peers
        (the same VPN on the other routers of its group). An unreachable peer marks this
        router's VPN table out of sync."""
        if KINDS[kind].scope == "router":
            return self.lk.router(router, must_be_up=True), None, []
        if vpn is None:
            raise EngineError("vpn_not_found", vpn="", router=router)
        v = self.lk.vpn_rw(router, vpn)
        r = self.lk.router_of(v)
        peers = []
        for m in self.lk.group_members(v):
            if m.id == v.id:
                continue
            mr = self.lk.router_of(m)
            if mr.up and self.lk.sites_linked(r, mr):
                peers.append((mr, m))
            else:
                self._mark_out_of_sync(r, v)
        return r, v, peers

    def _mark_out_of_sync(self, r: Router, v: Vpn) -> None:
        row = self._resolve(r, None, "config-sync", ("",), materialize=True)
        assert row is not None
        tables = _out_of_sync(row)
        if v.name not in tables:
            row.attrs = {**row.attrs, "out-of-sync": [*tables, v.name]}

    # ------------------------------------------------------------------ generic changes
    def create_object(self, router: str, vpn: str | None, kind: ObjectKind, path: tuple[str, ...]) -> None:
        """`create <kind> <name>`: refused with ``object_exists`` when it exists."""
        spec = KINDS[kind]
        name = path[-1]
        if spec.singleton:
            raise EngineError("unknown_option", option=kind)
        if not name or len(name) > spec.max_name:
            raise EngineError("invalid_object_name", kind=kind, name=name, reason="length")
        if kind != "telemetry-subscription" and _BAD_NAME_CHARS & set(name):
            raise EngineError("invalid_object_name", kind=kind, name=name, reason="character")
        if name.startswith("#") and kind != "telemetry-subscription":
            raise EngineError("invalid_object_name", kind=kind, name=name, reason="reserved")
        r, v, peers = self._targets(router, vpn, kind)
        if self._exists(r, v, kind, path):
            raise EngineError("object_exists", kind=kind, name=name, vpn=v.name if v else "")
        targets: list[tuple[Router, Vpn | None]] = [(r, v), *peers]
        for tr, tv in targets:
            if self._exists(tr, tv, kind, path):
                continue
            parent = self._resolve(tr, tv, _chain(kind)[-2], path[:-1], materialize=True) if spec.parent else None
            if spec.parent and parent is None:
                raise self._not_found(_chain(kind)[-2], path[:-1], tv)
            row = self._add_row(tr, tv, kind, name, parent)
            if kind == "rest-consumer":
                row.attrs = {SHUTDOWN_AT: self.lk.now_ms()}
            if kind == "telemetry-profile" and tv is not None:
                self._create_telemetry_objects(tr, tv, name)

    def delete_object(self, router: str, vpn: str | None, kind: ObjectKind, path: tuple[str, ...]) -> None:
        """`no <kind> <name>`: builtin and managed objects cannot be deleted; a profile a client
        username uses cannot be deleted."""
        spec = KINDS[kind]
        name = path[-1]
        r, v, peers = self._targets(router, vpn, kind)
        row = self._resolve(r, v, kind, path)
        if row is None:
            if name in spec.builtin:
                raise EngineError("object_builtin", kind=kind, name=name)
            raise self._not_found(kind, path, v)
        if row.managed_by:
            raise EngineError("object_builtin" if row.managed_by == "builtin" else "object_managed",
                              kind=kind, name=name)
        if kind in _REFERENCES and v is not None:
            for user in self.vpn_usernames(r, v):
                if _profile_of(user, kind) == name:
                    raise EngineError("object_in_use", kind=kind, name=name, user=user.name)
        targets: list[tuple[Router, Vpn | None]] = [(r, v), *peers]
        for tr, tv in targets:
            target = self._resolve(tr, tv, kind, path)
            if target is not None:
                if kind == "telemetry-profile" and tv is not None:
                    self._delete_telemetry_objects(tr, tv, name)
                self._delete_tree(target)

    def _delete_tree(self, row: ConfigObject) -> None:
        for child in self._children(row):
            self._delete_tree(child)
        self.st.remove(row)

    def require_object(self, router: str, vpn: str | None, kind: ObjectKind, path: tuple[str, ...]) -> None:
        """Entering an existing object's level: refused with ``object_not_found`` otherwise."""
        r = self.lk.router(router, must_be_up=True)
        v = None if vpn is None or KINDS[kind].scope == "router" else self.lk.vpn_rw(router, vpn)
        if not self._exists(r, v, kind, path):
            raise self._not_found(kind, path, v)
        row = self._resolve(r, v, kind, path)
        if row is not None and row.managed_by not in ("", "builtin"):
            raise EngineError("object_managed", kind=kind, name=path[-1])

    def set_object_attr(self, router: str, vpn: str | None, kind: ObjectKind, path: tuple[str, ...],
                        attr: str, value: AttrValue = None) -> None:
        """Set one attribute (None restores its default, the `no` form), config-synced."""
        spec = KINDS[kind]
        if attr not in spec.attrs:
            raise EngineError("unknown_option", option=attr)
        r, v, peers = self._targets(router, vpn, kind)
        row = self._resolve(r, v, kind, path)
        if row is None and not self._exists(r, v, kind, path):
            raise self._not_found(kind, path, v)
        if row is not None and row.managed_by not in ("", "builtin"):
            raise EngineError("object_managed", kind=kind, name=path[-1])
        stored = leaves.coerce(spec.attrs[attr], value)
        if kind == "client-username" and attr in _REFERENCES and v is not None \
                and not self._exists(r, v, _REFERENCES[attr], (str(stored),)):
            raise EngineError("object_not_found", kind=_REFERENCES[attr], name=str(stored), vpn=v.name)
        targets: list[tuple[Router, Vpn | None]] = [(r, v), *peers]
        for tr, tv in targets:
            target = self._resolve(tr, tv, kind, path, materialize=True)
            if target is None:
                continue
            attrs = dict(target.attrs)
            default = spec.attrs[attr].default
            if target.managed_by == "builtin":
                default = spec.builtin_defaults.get(attr, default)
            if value is None or stored == default:
                attrs.pop(attr, None)
            else:
                attrs[attr] = stored
            if kind == "rest-consumer" and attr == "enabled" and not stored and target.attrs.get("enabled"):
                attrs[SHUTDOWN_AT] = self.lk.now_ms()
            target.attrs = dict(sorted(attrs.items()))

    # ------------------------------------------------------------------ telemetry side effects
    def _create_telemetry_objects(self, r: Router, v: Vpn, profile: str) -> None:
        name = TELEMETRY_PREFIX + profile
        managed = f"telemetry-profile:{profile}"
        for kind in ("client-profile", "acl-profile"):
            if self.row(r, v, kind, name) is None:
                self._add_row(r, v, kind, name, managed_by=managed)
        if self.lk.find_queue(v, name) is None:
            self.st.add(Queue(vpn_id=v.id, name=name, kind="telemetry", access_type="non-exclusive",
                              permission="consume", ingress_up=False, egress_up=True, shutdown=False))

    def _delete_telemetry_objects(self, r: Router, v: Vpn, profile: str) -> None:
        name = TELEMETRY_PREFIX + profile
        for kind in ("client-profile", "acl-profile"):
            row = self.row(r, v, kind, name)
            if row is not None:
                self.st.remove(row)
        q = self.lk.find_queue(v, name)
        if q is not None:
            runs = self.st.spooled_by_queue.get(q.id)
            copies = list(runs) if runs is not None else []
            for sp in copies:
                for message in self.st.messages_in(sp.message_id, sp.message_id + sp.count):
                    message.note = "queue deleted"
            self.st.remove_run(copies)
            self.st.remove_all(self.st.subs_by_queue.get(q.id, {}).values())
            self.st.remove(q)

    def managed_queue_bind_count(self, v: Vpn, q: Queue) -> int:
        """A telemetry queue is bound by every connected client whose client username uses the
        profile's `#telemetry-<name>` client profile (the trace collector, T19)."""
        r = self.lk.router_of(v)
        users = {u.name for u in self.vpn_usernames(r, v) if u.client_profile == q.name}
        if not users:
            return 0
        return sum(1 for c in self.st.clients.values()
                   if c.router_id == r.id and c.vpn_name == v.name and c.connected_since_ms is not None
                   and c.username in users)

    # ------------------------------------------------------------------ typed reads
    def _vpn_list(self, router: str, vpn_pattern: str) -> tuple[Router, list[Vpn]]:
        r = self.lk.router(router, must_be_up=True)
        return r, [v for v in self.lk.vpns(r, vpn_pattern) if not v.internal]

    def _listing(self, router: str, vpn_pattern: str, pattern: str,
                 per_vpn: Callable[[Router, Vpn], list[NamedView]]) -> list[NamedView]:
        """One kind's views on a router: VPNs by pattern, names by pattern, sorted by (name, VPN)."""
        r, vpns = self._vpn_list(router, vpn_pattern)
        out = [x for v in vpns for x in per_vpn(r, v) if name_matches(pattern, x.name)]
        return sorted(out, key=lambda x: (x.name, x.vpn))

    def _named(self, r: Router, v: Vpn, kind: str) -> list[tuple[str, ConfigObject | None]]:
        """Builtin names first (with their record if materialized), then created objects."""
        rows = self._rows(r, v, kind)
        out: list[tuple[str, ConfigObject | None]] = []
        for name in KINDS[kind].builtin:
            out.append((name, next((row for row in rows if row.name == name), None)))
        out += [(row.name, row) for row in rows if row.name not in KINDS[kind].builtin]
        return out

    def vpn_usernames(self, r: Router, v: Vpn) -> list[ClientUsernameInfo]:
        """The client usernames of one VPN: `default` first, then by creation."""
        out = []
        for name, row in self._named(r, v, "client-username"):
            a = self.attrs(row, "client-username")
            out.append(ClientUsernameInfo(
                name=name, vpn=v.name, enabled=bool(a["enabled"]), client_profile=str(a["client-profile"]),
                acl_profile=str(a["acl-profile"]), password_hash=str(a["password"]),
                builtin=name in KINDS["client-username"].builtin,
                guaranteed_endpoint_permission_override=bool(a["guaranteed-endpoint-permission-override"]),
                subscription_manager=bool(a["subscription-manager"]), settings=self.settings(row, "client-username")))
        return out

    def client_usernames(self, router: str, vpn_pattern: str = "*", pattern: str = "*") -> list[ClientUsernameInfo]:
        return self._listing(router, vpn_pattern, pattern, self.vpn_usernames)

    def vpn_client_profiles(self, r: Router, v: Vpn) -> list[ClientProfileInfo]:
        """The client profiles of one VPN (managed ones included): `default` first, then by creation."""
        out = []
        for name, row in self._named(r, v, "client-profile"):
            a = self.attrs(row, "client-profile")
            out.append(ClientProfileInfo(
                name=name, vpn=v.name,
                reject_msg_to_sender_on_no_subscription_match=bool(a["reject-msg-to-sender-on-no-subscription-match"]),
                builtin=name in KINDS["client-profile"].builtin,
                managed_by="" if row is None or row.managed_by == "builtin" else row.managed_by,
                settings=self.settings(row, "client-profile")))
        return out

    def client_profiles(self, router: str, vpn_pattern: str = "*", pattern: str = "*") -> list[ClientProfileInfo]:
        return self._listing(router, vpn_pattern, pattern, self.vpn_client_profiles)

    def vpn_acl_profiles(self, r: Router, v: Vpn) -> list[AclProfileInfo]:
        """The ACL profiles of one VPN (managed ones included): `default` first, then by creation."""
        out = []
        for name, row in self._named(r, v, "acl-profile"):
            a = self.attrs(row, "acl-profile")
            out.append(AclProfileInfo(
                name=name, vpn=v.name, client_connect_default_action=str(a["client-connect-default-action"]),
                publish_topic_default_action=str(a["publish-topic-default-action"]),
                subscribe_topic_default_action=str(a["subscribe-topic-default-action"]),
                builtin=name in KINDS["acl-profile"].builtin,
                managed_by="" if row is None or row.managed_by == "builtin" else row.managed_by,
                subscribe_share_name_default_action=str(a["subscribe-share-name-default-action"])))
        return out

    def acl_profiles(self, router: str, vpn_pattern: str = "*", pattern: str = "*") -> list[AclProfileInfo]:
        return self._listing(router, vpn_pattern, pattern, self.vpn_acl_profiles)

    def vpn_telemetry_profiles(self, r: Router, v: Vpn) -> list[TelemetryProfileInfo]:
        """The telemetry profiles of one VPN with their filters and subscriptions, by creation."""
        out = []
        for row in self._rows(r, v, "telemetry-profile"):
            a = self.attrs(row, "telemetry-profile")
            filters = []
            for f in self._rows(r, v, "telemetry-filter", row):
                subs = tuple(s.name for s in self._rows(r, v, "telemetry-subscription", f))
                filters.append(TelemetryFilterInfo(f.name, bool(self.attrs(f, "telemetry-filter")["enabled"]), subs,
                                                   self.settings(f, "telemetry-filter")))
            out.append(TelemetryProfileInfo(
                name=row.name, vpn=v.name, receiver_enabled=bool(a["receiver-enabled"]),
                receiver_acl_connect_default_action=str(a["receiver-acl-connect-default-action"]),
                trace_enabled=bool(a["trace-enabled"]), filters=tuple(filters),
                queue=TELEMETRY_PREFIX + row.name, settings=self.settings(row, "telemetry-profile")))
        return out

    def telemetry_profiles(self, router: str, vpn_pattern: str = "*", pattern: str = "*") -> list[TelemetryProfileInfo]:
        return self._listing(router, vpn_pattern, pattern, self.vpn_telemetry_profiles)

    def vpn_rest_delivery_points(self, r: Router, v: Vpn) -> list[RestDeliveryPointInfo]:
        """The REST delivery points of one VPN with their consumers and queue bindings, by creation."""
        out = []
        for row in self._rows(r, v, "rest-delivery-point"):
            a = self.attrs(row, "rest-delivery-point")
            up = bool(a["enabled"]) and r.up and v.enabled
            consumers = []
            for c in self._rows(r, v, "rest-consumer", row):
                ca = self.attrs(c, "rest-consumer")
                c_up = up and bool(ca["enabled"]) and bool(ca["remote-host"])
                count = int(str(ca["outgoing-connection-count"]))
                consumers.append(RestConsumerInfo(
                    name=c.name, enabled=bool(ca["enabled"]), remote_host=str(ca["remote-host"]),
                    remote_port=int(str(ca["remote-port"])), ssl=bool(ca["ssl"]), outgoing_connections=count,
                    up=c_up, connections_up=count if c_up else 0, retry_delay=int(str(ca["retry-delay"])),
                    max_post_wait_time=int(str(ca["max-post-wait-time"])), http_method=str(ca["http-method"]),
                    auth_scheme=str(ca["auth-scheme"]), http_basic_username=str(ca["http-basic-username"]),
                    http_basic_password_hash=str(ca["http-basic-password"]),
                    rejected_status_codes=tuple(int(code) for code in str(ca["rejected-status-codes"]).split()),
                    last_shutdown_ms=_int_or_none(c.attrs.get(SHUTDOWN_AT)),
                    settings=self.settings(c, "rest-consumer")))
            bindings = []
            for b in self._rows(r, v, "queue-binding", row):
                q = self.lk.find_queue(v, b.name)
                bindings.append(QueueBindingInfo(
                    queue=b.name, post_request_target=str(self.attrs(b, "queue-binding")["post-request-target"]),
                    up=up and q is not None and q.egress_up, settings=self.settings(b, "queue-binding")))
            out.append(RestDeliveryPointInfo(
                name=row.name, vpn=v.name, enabled=bool(a["enabled"]), client_profile=str(a["client-profile"]),
                service=str(a["service"]), vendor=str(a["vendor"]), up=up, consumers=tuple(consumers),
                queue_bindings=tuple(bindings), settings=self.settings(row, "rest-delivery-point")))
        return out

    def rest_delivery_points(self, router: str, vpn_pattern: str = "*",
                             pattern: str = "*") -> list[RestDeliveryPointInfo]:
        return self._listing(router, vpn_pattern, pattern, self.vpn_rest_delivery_points)

    def vpn_rest_service(self, r: Router, v: Vpn) -> VpnRestService:
        """The VPN's `service rest` settings; the factory port resolved (0: no listener)."""
        a = self.attrs(self.row(r, v, "message-vpn", ""), "message-vpn")
        port = int(str(a["rest-incoming-listen-port"]))
        if port == FACTORY_PORT:
            port = DEFAULT_VPN_REST_PORT if v.name == "default" else 0
        return VpnRestService(mode=str(a["rest-mode"]), plain_text_enabled=bool(a["rest-incoming-plain-text-enabled"]),
                              listen_port=port)

    def set_vpn_enabled(self, router: str, vpn: str, enabled: bool) -> None:
        """`[no] shutdown` of a Message VPN, on this router only (the admin state is not
        config-synced here: a lab choice). A shut-down VPN serves no client (they are
        disconnected, their transactions end as on any disconnect) and binds no replication
        bridge."""
        v = self.lk.vpn_rw(router, vpn)
        if v.enabled == enabled:
            return
        v.enabled = enabled
        if not enabled:
            self.sv.clients.disconnect_vpn_clients(v, "message vpn shutdown")
        self.sv.replication.refresh()

    def set_rest_listen_port(self, router: str, vpn: str, port: int | None) -> None:
        """`[no] listen-port`: refused while the plain-text listener is up (shut it down first,
        as the broker requires); None restores the factory port."""
        r = self.lk.router(router, must_be_up=True)
        v = self.lk.vpn_rw(router, vpn)
        if self.vpn_rest_service(r, v).plain_text_enabled:
            raise EngineError("service_not_shutdown", service="REST incoming plain-text", vpn=vpn)
        self.set_object_attr(router, vpn, "message-vpn", ("",), "rest-incoming-listen-port", port)

    def vpn_connection_factories(self, r: Router, v: Vpn) -> tuple[str, ...]:
        """The names of the VPN's JNDI connection factories, by creation."""
        return tuple(row.name for row in self._rows(r, v, "connection-factory"))

    def vpn_auth_type(self, r: Router, v: Vpn) -> str:
        """The VPN's `authentication basic auth-type` (internal|ldap|radius|none)."""
        return str(self.attrs(self.row(r, v, "message-vpn", ""), "message-vpn")["authentication-basic-auth-type"])

    # ------------------------------------------------------------------ router level
    def config_sync(self, router: str) -> ConfigSyncInfo:
        """`show config-sync`: Down with the first out-of-sync VPN table named (T26)."""
        r = self.lk.router(router, must_be_up=True)
        row = self.row(r, None, "config-sync", "")
        a = self.attrs(row, "config-sync")
        stored = _out_of_sync(row) if row is not None else []
        names = [v.name for v in self.lk.vpns(r) if not v.internal]
        tables = tuple((i + 1, name) for i, name in enumerate(names) if name in stored)
        enabled = bool(a["enabled"])
        return ConfigSyncInfo(router=r.name, admin_enabled=enabled, oper_up=enabled and not tables,
                              ssl=bool(a["ssl"]), out_of_sync=tables)

    def config_sync_bridge(self, router: str) -> ConfigSyncBridgeConfig:
        r = self.lk.router(router, must_be_up=True)
        a = self.attrs(self.row(r, None, "replication-config-sync-bridge", ""), "replication-config-sync-bridge")
        return ConfigSyncBridgeConfig(
            enabled=bool(a["enabled"]), pre_shared_key_hash=str(a["pre-shared-key"]),
            insecure_upgrade_mode=bool(a["insecure-upgrade-mode"]), ssl=bool(a["ssl"]),
            compressed=bool(a["compressed-data"]))

    def assert_config_sync_leader(self, router: str, vpn: str) -> None:
        """`admin config-sync assert-leader message-vpn <v>`: this router's VPN table wins; it is
        copied to the reachable mates and the table is in sync again. Refused while a mate is
        unreachable (``config_sync_unreachable``)."""
        v = self.lk.vpn_rw(router, vpn)
        r = self.lk.router_of(v)
        peers = []
        for m in self.lk.group_members(v):
            if m.id == v.id:
                continue
            mr = self.lk.router_of(m)
            if not (mr.up and self.lk.sites_linked(r, mr)):
                raise EngineError("config_sync_unreachable", vpn=vpn, router=mr.name)
            peers.append((mr, m))
        top_kinds = ["message-vpn"] + [k for k, spec in KINDS.items()
                                       if spec.scope == "vpn" and spec.parent is None and k != "message-vpn"]
        for mr, m in peers:
            for row in [o for o in self.st.objects_by_router.get(mr.id, {}).values()
                        if o.vpn_id == m.id and o.parent_id is None]:
                self._delete_tree(row)
            for row in [x for k in top_kinds for x in self._rows(r, v, k)]:
                self._copy_tree(row, mr, m, None)
                if row.kind == "telemetry-profile":
                    self._create_telemetry_objects(mr, m, row.name)
        targets: list[tuple[Router, Vpn]] = [(r, v), *peers]
        for target_r, target_v in targets:
            sync_row = self.row(target_r, None, "config-sync", "")
            if sync_row is not None:
                attrs = dict(sync_row.attrs)
                attrs["out-of-sync"] = [n for n in _out_of_sync(sync_row) if n != target_v.name]
                if not attrs["out-of-sync"]:
                    attrs.pop("out-of-sync")
                sync_row.attrs = dict(sorted(attrs.items()))

    def _copy_tree(self, row: ConfigObject, r: Router, v: Vpn, parent: ConfigObject | None) -> None:
        copy = self._add_row(r, v, row.kind, row.name, parent, managed_by=row.managed_by)
        copy.attrs = dict(row.attrs)  # values are str, int or bool: nothing shared stays mutable
        for child in self._children(row):
            self._copy_tree(child, r, v, copy)

    def set_replication_interface(self, router: str, interface: str | None) -> None:
        """`[no] replication interface <name>` (stored; shown by show replication)."""
        r = self.lk.router(router, must_be_up=True)
        r.repl_interface = interface or ""

    def cli_script(self, router: str, name: str) -> list[str]:
        """The lines of a CLI script stored on the router (``script_not_found`` otherwise)."""
        r = self.lk.router(router, must_be_up=True)
        row = self.row(r, None, "cli-script", name)
        if row is None:
            raise EngineError("script_not_found", name=name)
        return str(self.attrs(row, "cli-script")["text"]).split("\n")

    def router_identity(self, router: str) -> RouterIdentity:
        self.lk.router(router, must_be_up=True)  # (a redundancy member's own name, not its site's router's)
        import hashlib  # here only: a start that shows no identity need not load OpenSSL

        digest = hashlib.sha256(router.encode()).digest()[:8]
        return RouterIdentity(router_name=router, mirrors_hostname=True,
                              unique_id=int.from_bytes(digest, "big"))


def _out_of_sync(row: ConfigObject) -> list[str]:
    """The VPN tables a config-sync record marks out of sync (creation order)."""
    value = row.attrs.get("out-of-sync", [])
    return [str(n) for n in value] if isinstance(value, list) else []


def _int_or_none(value: object) -> int | None:
    return value if isinstance(value, int) else None


def _chain(kind: str) -> list[str]:
    """The kinds from the top-level ancestor down to ``kind``."""
    out = [kind]
    while KINDS[out[0]].parent is not None:
        out.insert(0, str(KINDS[out[0]].parent))
    return out


def _profile_of(user: ClientUsernameInfo, kind: str) -> str:
    return user.client_profile if kind == "client-profile" else user.acl_profile
