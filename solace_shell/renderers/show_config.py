"""`show current-config` as a CLI script (reference 5.5 [FIX]; layout details INFER).

The engine returns the configuration as data (`state_store.views.RouterConfig`); this module
decides the script: which command says each setting, in which section and order. The script
starts `home` / `enable` / `configure`; each section prints as a comment header (`! <title>` and a
dashed comment rule); levels are entered and left with `exit` as the entries' contexts change,
indented two spaces per level below `configure`; a `create ...` (which enters the object's level)
is wrapped in the `ignore-already-exists` pragmas so the script can run twice. Passwords print as
`<redacted>`: the engine never hands them out.
"""

from __future__ import annotations

from dataclasses import dataclass

from state_store.views import RouterConfig, VpnConfig

from ..handlers.show_config import CurrentConfigShow
from . import renderer
from .tables import text

PRAGMA_ON = "! pragma:interpreter:ignore-already-exists"
PRAGMA_OFF = "! pragma:interpreter:no-ignore-already-exists"


@dataclass(frozen=True)
class _Entry:
    context: tuple[str, ...]  # levels entered, e.g. ('message-vpn "Trading_VPN"', "replication")
    command: str  # e.g. 'state "active"'


def _switch(on: bool, yes: str, no: str) -> str:
    return yes if on else no


def _router_section(config: RouterConfig) -> list[_Entry]:
    ctx = ("replication",)
    out = []
    if config.mate_virtual_router_name:
        out.append(_Entry(ctx, f'mate virtual-router-name "{config.mate_virtual_router_name}"'))
        out.append(_Entry(ctx, f'mate connect-via "{config.mate_connect_via}"'))
    if config.replication_interface:
        out.append(_Entry(ctx, f'interface "{config.replication_interface}"'))
    out.append(_Entry(ctx, "config-sync bridge no shutdown"))
    return out


def _vpn_section(vpn: VpnConfig) -> list[_Entry]:
    return [_Entry((), f'create message-vpn "{vpn.name}"'),
            _Entry((f'message-vpn "{vpn.name}"',), _switch(vpn.enabled, "no shutdown", "shutdown"))]


def _replication_section(vpn: VpnConfig) -> list[_Entry]:
    rep = vpn.replication
    ctx = (f'message-vpn "{vpn.name}"', "replication")
    ack, bridge, queue = ctx + ("ack-propagation",), ctx + ("bridge",), ctx + ("queue",)
    out = [
        _Entry(ack, f"interval messages {rep.ack_propagation_interval}"),
        _Entry(ack, _switch(rep.ack_propagation_enabled, "no shutdown", "shutdown")),
        _Entry(bridge, f'authentication auth-scheme "{rep.bridge_auth_scheme}"'),
    ]
    if rep.bridge_client_username:
        out.append(_Entry(bridge, f'authentication basic client-username "{rep.bridge_client_username}"'
                          + (" password <redacted>" if rep.bridge_password_set else "")))
    out += [
        _Entry(bridge, _switch(rep.bridge_compressed, "compressed-data", "no compressed-data")),
        _Entry(bridge, f"message-spool window-size {rep.bridge_window_size}"),
        _Entry(bridge, f"retry-delay {rep.bridge_retry_delay}"),
        _Entry(bridge, _switch(rep.bridge_ssl, "ssl", "no ssl")),
        _Entry(bridge, f'unidirectional client-profile "{rep.bridge_client_profile}"'),
        _Entry(queue, f"max-spool-usage {rep.queue_max_spool_mb}"),
        _Entry(queue, _switch(rep.queue_reject_msg_to_sender_on_discard, "reject-msg-to-sender-on-discard",
                              "no reject-msg-to-sender-on-discard")),
        _Entry(ctx, _switch(rep.reject_msg_when_sync_ineligible, "reject-msg-when-sync-ineligible",
                            "no reject-msg-when-sync-ineligible")),
        _Entry(ctx, f'transaction-replication-mode "{rep.transaction_replication_mode}"'),
    ]
    for topic in rep.replicated_topics:
        out.append(_Entry(ctx + (f'create replicated-topic "{topic.topic}"',), f'replication-mode "{topic.mode}"'))
    out.append(_Entry(ctx, f'state "{rep.role}"'))
    out.append(_Entry(ctx, _switch(rep.enabled, "no shutdown", "shutdown")))
    return out


def _queue_section(vpn: VpnConfig) -> list[_Entry]:
    out = []
    for q in vpn.queues:
        ctx = (f'message-spool message-vpn "{vpn.name}"', f'create queue "{q.name}"')
        out.append(_Entry(ctx, f'access-type "{q.access_type}"'))
        if q.owner:
            out.append(_Entry(ctx, f'owner "{q.owner}"'))
        out.append(_Entry(ctx, f'permission all "{q.permission}"'))
        out.append(_Entry(ctx, f"max-spool-usage {q.max_spool_mb}"))
        out.append(_Entry(ctx, f"max-bind-count {q.max_bind_count}"))
        out += [_Entry(ctx, f'subscription topic "{topic}"') for topic in q.subscriptions]
        if q.ingress_up and q.egress_up:
            out.append(_Entry(ctx, "no shutdown"))
        elif q.ingress_up:
            out.append(_Entry(ctx, "no shutdown ingress"))
        elif q.egress_up:
            out.append(_Entry(ctx, "no shutdown egress"))
    return out


def _sections(config: RouterConfig) -> list[tuple[str, list[_Entry]]]:
    sections = []
    if config.vpn is None:
        sections.append(("Configure Replication", _router_section(config)))
    for vpn in config.vpns:
        sections.append(("Configure Message VPN", _vpn_section(vpn)))
        sections.append(("Configure Replication", _replication_section(vpn)))
        queues = _queue_section(vpn)
        if queues:
            sections.append(("Configure Queues", queues))
    return sections


def _indent(depth: int) -> str:
    return "  " * (depth + 1)


def _emit(lines: list[str], command: str, depth: int) -> None:
    if command.startswith("create "):
        lines += [PRAGMA_ON, _indent(depth) + command, PRAGMA_OFF]
    else:
        lines.append(_indent(depth) + command)


def _level_of(command: str) -> str:
    """The level a command enters (`create message-vpn "X"` enters `message-vpn "X"`)."""
    return command[len("create "):] if command.startswith("create ") else command


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
