"""`show current-config` as a CLI script (reference 5.5 [FIX]; layout details INFER).

The engine returns the configuration as data (`state_store.views.RouterConfig`); this module
decides the script: which command says each setting, in which section and order. Two rules make
the script re-runnable (tests/test_current_config_roundtrip.py): every line is one the grammar
accepts at the level the script is at, and objects come before what refers to them (profiles
before client usernames, queues before REST queue bindings, the system replication mate before
any VPN enables replication). Setting values print unquoted keywords (`state active`) and quoted
names (`queue "q"`); secrets print as the salted hash (`encrypted-password "scrypt$..."`), which
re-runs without revealing them.

Shape: `home` / `enable` / `configure`; each section is a comment header (`! <title>` and a
dashed comment rule); levels are entered and left with `exit` as the entries' contexts change,
indented two spaces per level below `configure`; a `create ...` (which enters the object's level)
is wrapped in the `ignore-already-exists` pragmas so the script can run twice. The objects a
telemetry profile creates (`#telemetry-<name>`) are not printed: the profile re-creates them.
"""

from __future__ import annotations

from dataclasses import dataclass

from state_store.messaging import VPN_MAX_SPOOL
from state_store.views import (
    AclProfileInfo,
    ClientProfileInfo,
    ClientUsernameInfo,
    RestDeliveryPointInfo,
    RouterConfig,
    VpnConfig,
)

from ..handlers.show_config import CurrentConfigShow
from . import renderer
from .tables import text

PRAGMA_ON = "! pragma:interpreter:ignore-already-exists"
PRAGMA_OFF = "! pragma:interpreter:no-ignore-already-exists"


@dataclass(frozen=True)
class _Entry:
    context: tuple[str, ...]  # levels entered, e.g. ('message-vpn "Trading_VPN"', "replication")
    command: str  # e.g. "state active"


def _switch(on: bool, yes: str, no: str) -> str:
    return yes if on else no


def _shutdown(enabled: bool) -> str:
    return _switch(enabled, "no shutdown", "shutdown")


def q(value: str) -> str:
    """A name or free-text value, quoted as the broker prints it."""
    return f'"{value}"'


def _router_section(config: RouterConfig) -> list[_Entry]:
    mate, ctx = ("replication", "mate"), ("replication",)
    out = []
    if config.mate_virtual_router_name:
        out.append(_Entry(mate, f"virtual-router-name {q(config.mate_virtual_router_name)}"))
    else:
        out.append(_Entry(mate, "no virtual-router-name"))
    if config.mate_connect_via:
        transport = "" if config.mate_transport == "plain-text" else f" {config.mate_transport}"
        out.append(_Entry(mate, f"connect-via {q(config.mate_connect_via)}{transport}"))
    else:
        out.append(_Entry(mate, "no connect-via"))
    out.append(_Entry(ctx, f"interface {q(config.replication_interface)}" if config.replication_interface
                      else "no interface"))
    bridge = ctx + ("config-sync", "bridge")
    b = config.config_sync_bridge
    if b.pre_shared_key_hash:
        out.append(_Entry(bridge, f"authentication pre-shared-key encrypted-key {q(b.pre_shared_key_hash)}"))
    out += [
        _Entry(bridge, _switch(b.insecure_upgrade_mode, "authentication insecure-upgrade-mode",
                               "no authentication insecure-upgrade-mode")),
        _Entry(bridge, _switch(b.compressed, "compressed-data", "no compressed-data")),
        _Entry(bridge, _switch(b.ssl, "ssl", "no ssl")),
        _Entry(bridge, _shutdown(b.enabled)),
    ]
    return out


def _config_sync_section(config: RouterConfig) -> list[_Entry]:
    ctx = ("config-sync",)
    return [_Entry(ctx, _switch(config.config_sync_ssl, "ssl", "no ssl")),
            _Entry(ctx, _shutdown(config.config_sync_enabled))]


def _vpn_section(vpn: VpnConfig) -> list[_Entry]:
    return [_Entry((f"message-vpn {q(vpn.name)}",),
                   f"authentication basic auth-type {vpn.authentication_basic_auth_type}")]


def _level(kind: str, name: str, vpn: str, builtin: bool) -> str:
    """The line that enters an object's level at `configure`: `create` unless it is builtin."""
    enter = f"{kind} {q(name)} message-vpn {q(vpn)}"
    return enter if builtin else f"create {enter}"


def _client_profiles(vpn: VpnConfig) -> list[_Entry]:
    out = []
    default = ClientProfileInfo("default", vpn.name, False, True, "")
    for p in vpn.client_profiles:
        if p.builtin and p == default:
            continue
        ctx = (_level("client-profile", p.name, vpn.name, p.builtin),)
        out.append(_Entry(ctx, _switch(p.reject_msg_to_sender_on_no_subscription_match,
                                       "message-spool reject-msg-to-sender-on-no-subscription-match",
                                       "no message-spool reject-msg-to-sender-on-no-subscription-match")))
    return out


def _acl_profiles(vpn: VpnConfig) -> list[_Entry]:
    out = []
    default = AclProfileInfo("default", vpn.name, "allow", "allow", "allow", True, "")
    for p in vpn.acl_profiles:
        if p.builtin and p == default:
            continue
        ctx = (_level("acl-profile", p.name, vpn.name, p.builtin),)
        out += [_Entry(ctx, f"client-connect default-action {p.client_connect_default_action}"),
                _Entry(ctx, f"publish-topic default-action {p.publish_topic_default_action}"),
                _Entry(ctx, f"subscribe-topic default-action {p.subscribe_topic_default_action}")]
    return out


def _telemetry_profiles(vpn: VpnConfig) -> list[_Entry]:
    out = []
    for p in vpn.telemetry_profiles:
        ctx = (f"message-vpn {q(vpn.name)}", f"create telemetry-profile {q(p.name)}")
        out += [_Entry(ctx, f"receiver acl connect default-action {p.receiver_acl_connect_default_action}"),
                _Entry(ctx, _switch(p.receiver_enabled, "no receiver shutdown", "receiver shutdown"))]
        trace = ctx + ("trace",)
        for f in p.filters:
            fctx = trace + (f"create filter {q(f.name)}",)
            out += [_Entry(fctx, f"create subscription {q(topic)}") for topic in f.subscriptions]
            out.append(_Entry(fctx, _shutdown(f.enabled)))
        out.append(_Entry(trace, _shutdown(p.trace_enabled)))
    return out


def _client_usernames(vpn: VpnConfig) -> list[_Entry]:
    out = []
    default = ClientUsernameInfo("default", vpn.name, True, "default", "default", "", True)
    for u in vpn.client_usernames:
        if u.builtin and u == default:
            continue
        ctx = (_level("client-username", u.name, vpn.name, u.builtin),)
        out += [_Entry(ctx, f"client-profile {q(u.client_profile)}"),
                _Entry(ctx, f"acl-profile {q(u.acl_profile)}"),
                _Entry(ctx, f"encrypted-password {q(u.password_hash)}" if u.password_hash else "no password"),
                _Entry(ctx, _shutdown(u.enabled))]
    return out


def _rest_delivery_points(vpn: VpnConfig) -> list[_Entry]:
    out = []
    for p in vpn.rest_delivery_points:
        ctx = (f"message-vpn {q(vpn.name)}", "rest", f"create rest-delivery-point {q(p.name)}")
        out.append(_Entry(ctx, f"client-profile {q(p.client_profile)}"))
        out.append(_Entry(ctx, f"service {q(p.service)}" if p.service else "no service"))
        out.append(_Entry(ctx, f"vendor {q(p.vendor)}" if p.vendor else "no vendor"))
        out += _rdp_children(ctx, p)
        out.append(_Entry(ctx, _shutdown(p.enabled)))
    return out


def _rdp_children(ctx: tuple[str, ...], p: RestDeliveryPointInfo) -> list[_Entry]:
    out = []
    for c in p.consumers:
        cctx = ctx + (f"create rest-consumer {q(c.name)}",)
        auth = cctx + ("authentication",)
        out += [_Entry(auth, f"auth-scheme {c.auth_scheme}"),
                _Entry(auth, f"http-basic username {q(c.http_basic_username)}" if c.http_basic_username
                       else "no http-basic username"),
                _Entry(auth, f"http-basic encrypted-password {q(c.http_basic_password_hash)}"
                       if c.http_basic_password_hash else "no http-basic password"),
                _Entry(cctx, f"remote host {q(c.remote_host)}" if c.remote_host else "no remote host"),
                _Entry(cctx, f"remote max-post-wait-time {c.max_post_wait_time}"),
                _Entry(cctx, f"remote outgoing-connection-count {c.outgoing_connections}"),
                _Entry(cctx, f"remote port {c.remote_port}"),
                _Entry(cctx, f"remote http-method {c.http_method}"),
                _Entry(cctx, f"remote retry delay {c.retry_delay}"),
                _Entry(cctx, _switch(c.ssl, "remote ssl", "no remote ssl")),
                _Entry(cctx, _shutdown(c.enabled))]
    for b in p.queue_bindings:
        bctx = ctx + (f"create queue-binding {q(b.queue)}",)
        out.append(_Entry(bctx, f"post-request-target {q(b.post_request_target)}" if b.post_request_target
                          else "no post-request-target"))
    return out


def _replication_section(vpn: VpnConfig) -> list[_Entry]:
    rep = vpn.replication
    ctx = (f"message-vpn {q(vpn.name)}", "replication")
    ack, bridge, queue = ctx + ("ack-propagation",), ctx + ("bridge",), ctx + ("queue",)
    out = [
        _Entry(ack, f"interval messages {rep.ack_propagation_interval}"),
        _Entry(ack, _shutdown(rep.ack_propagation_enabled)),
        _Entry(bridge, f"authentication auth-scheme {rep.bridge_auth_scheme}"),
    ]
    if rep.bridge_client_username:
        secret = f" encrypted-password {q(rep.bridge_password_hash)}" if rep.bridge_password_hash else ""
        out.append(_Entry(bridge, f"authentication basic client-username {q(rep.bridge_client_username)}{secret}"))
    else:
        out.append(_Entry(bridge, "authentication basic no client-username"))
    out += [
        _Entry(bridge, _switch(rep.bridge_compressed, "compressed-data", "no compressed-data")),
        _Entry(bridge, f"message-spool window-size {rep.bridge_window_size}"),
        _Entry(bridge, f"retry-delay {rep.bridge_retry_delay}"),
        _Entry(bridge, _switch(rep.bridge_ssl, "ssl", "no ssl")),
        _Entry(bridge, f"unidirectional client-profile {q(rep.bridge_client_profile)}"),
        _Entry(queue, f"max-spool-usage {rep.queue_max_spool_mb}"),
        _Entry(queue, _switch(rep.queue_reject_msg_to_sender_on_discard, "reject-msg-to-sender-on-discard",
                              "no reject-msg-to-sender-on-discard")),
        _Entry(ctx, _switch(rep.reject_msg_when_sync_ineligible, "reject-msg-when-sync-ineligible",
                            "no reject-msg-when-sync-ineligible")),
        _Entry(ctx, f"transaction-replication-mode {rep.transaction_replication_mode}"),
    ]
    for topic in rep.replicated_topics:
        out.append(_Entry(ctx + (f"create replicated-topic {q(topic.topic)}",), f"replication-mode {topic.mode}"))
    out.append(_Entry(ctx, f"state {rep.role}"))
    out.append(_Entry(ctx, _shutdown(rep.enabled)))
    return out


def _queue_section(vpn: VpnConfig) -> list[_Entry]:
    out = []
    if vpn.max_spool_mb != VPN_MAX_SPOOL[2]:  # the VPN's spool quota, printed when not the lab default
        out.append(_Entry((f"message-spool message-vpn {q(vpn.name)}",), f"max-spool-usage {vpn.max_spool_mb}"))
    for qc in vpn.queues:
        ctx = (f"message-spool message-vpn {q(vpn.name)}", f"create queue {q(qc.name)}")
        out.append(_Entry(ctx, f"access-type {qc.access_type}"))
        out.append(_Entry(ctx, f"owner {q(qc.owner)}" if qc.owner else "no owner"))
        out.append(_Entry(ctx, f"permission all {qc.permission}"))
        out.append(_Entry(ctx, f"max-spool-usage {qc.max_spool_mb}"))
        out.append(_Entry(ctx, f"max-bind-count {qc.max_bind_count}"))
        out += [_Entry(ctx, f"subscription topic {q(topic)}") for topic in qc.subscriptions]
        if not qc.reject_on_discard:  # printed when not the default (C13: on, not when shut down)
            out.append(_Entry(ctx, "no reject-msg-to-sender-on-discard"))
        elif qc.reject_when_shutdown:
            out.append(_Entry(ctx, "reject-msg-to-sender-on-discard including-when-shutdown"))
        if qc.ingress_up and qc.egress_up:
            out.append(_Entry(ctx, "no shutdown"))
        else:
            out.append(_Entry(ctx, "shutdown"))
            if qc.ingress_up or qc.egress_up:
                out.append(_Entry(ctx, "no shutdown ingress" if qc.ingress_up else "no shutdown egress"))
    return out


def _sections(config: RouterConfig) -> list[tuple[str, list[_Entry]]]:
    sections = []
    if config.vpn is None:
        sections.append(("Configure Replication", _router_section(config)))
        sections.append(("Configure Config-Sync", _config_sync_section(config)))
    for vpn in config.vpns:
        sections += [
            ("Configure Message VPN", _vpn_section(vpn)),
            ("Configure Client Profiles", _client_profiles(vpn)),
            ("Configure ACL Profiles", _acl_profiles(vpn)),
            ("Configure Telemetry Profiles", _telemetry_profiles(vpn)),
            ("Configure Client Usernames", _client_usernames(vpn)),
            ("Configure Queues", _queue_section(vpn)),
            ("Configure REST Delivery Points", _rest_delivery_points(vpn)),
            ("Configure Replication", _replication_section(vpn)),
        ]
    return [(title, entries) for title, entries in sections if entries]


def _indent(depth: int) -> str:
    return "  " * (depth + 1)


def _emit(lines: list[str], command: str, depth: int) -> None:
    if command.startswith("create "):
        lines += [PRAGMA_ON, _indent(depth) + command, PRAGMA_OFF]
    else:
        lines.append(_indent(depth) + command)


def _level_of(command: str) -> str:
    """The level a command enters (`create queue "X"` enters `queue "X"`)."""
    return command.removeprefix("create ")


@renderer(CurrentConfigShow)
def current_config(result: CurrentConfigShow) -> str:
    lines = ["home", "enable", "configure"]
    for title, entries in _sections(result.config):
        lines += ["", f"! {title}", "! " + "-" * len(title)]
        stack: list[str] = []
        for entry in entries:
            context = [_level_of(level) for level in entry.context]
            common = 0
            while common < min(len(stack), len(context)) and stack[common] == context[common]:
                common += 1
            while len(stack) > common:
                lines.append(_indent(len(stack)) + "exit")
                stack.pop()
            for raw in entry.context[common:]:
                _emit(lines, raw, len(stack))
                stack.append(_level_of(raw))
            _emit(lines, entry.command, len(stack))
            if entry.command.startswith("create "):
                stack.append(_level_of(entry.command))
        while stack:
            lines.append(_indent(len(stack)) + "exit")
            stack.pop()
    return text(lines)
