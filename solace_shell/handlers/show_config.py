"""`show current-config [message-vpn <vpn-name>]` (reference 5.5).

The configuration's secrets (client-username passwords, the replication bridge's password, the
config-sync pre-shared key) are salted hashes; each is shown only to a user who may set that
secret (the access of the command that sets it, read from the grammar). Anyone else sees
`MASKED_SECRET` in its place: a hash can be attacked offline, and the reference gives no layout
per access level (docs/commands.md says so). The decision is made here, on the data; the
renderer prints what it is given.
"""

from __future__ import annotations

import dataclasses
import functools
from collections.abc import Callable
from dataclasses import dataclass

from grammar import ACCESS_LEVELS, Access
from grammar.masking import MASK
from state_store.views import RouterConfig, VpnConfig

from ..access import allowed
from . import Args, HandlerContext, handler
from .show_common import router_of

MASKED_SECRET = MASK
# the handlers of the commands that set each secret (their access decides who sees its hash)
CLIENT_USERNAME_PASSWORD = "config_objects.client_username_password"
BRIDGE_PASSWORD = "config_replication.bridge_client_username"
PRE_SHARED_KEY = "config_system.cs_bridge_psk"

MaySee = Callable[[str, str | None], bool]  # (setter handler, VPN or None) -> may see its hash


@dataclass(frozen=True)
class CurrentConfigShow:
    config: RouterConfig


def setter_access(ctx: HandlerContext, setter: str) -> Access:
    """The access of the commands whose handler is `setter` (the strictest, should they differ)."""
    found = [command.access for commands in ctx.session.lab.grammar.by_mode.values() for command in commands
             if command.handler == setter]
    if not found:  # a grammar without that command: nobody below admin sees the secret
        return Access("global", "admin")
    return max(found, key=lambda access: (access.scope == "global", ACCESS_LEVELS.index(access.level)))


def visible_secrets(config: RouterConfig, may_see: MaySee) -> RouterConfig:
    """`config` with each secret's hash replaced by MASKED_SECRET where `may_see` says no."""
    def shown(secret: str, setter: str, vpn: str | None) -> str:
        return secret if not secret or may_see(setter, vpn) else MASKED_SECRET

    def vpn_config(vpn: VpnConfig) -> VpnConfig:
        rep = vpn.replication
        return dataclasses.replace(
            vpn,
            replication=dataclasses.replace(
                rep, bridge_password_hash=shown(rep.bridge_password_hash, BRIDGE_PASSWORD, vpn.name)),
            client_usernames=tuple(
                dataclasses.replace(u, password_hash=shown(u.password_hash, CLIENT_USERNAME_PASSWORD, vpn.name))
                for u in vpn.client_usernames))

    bridge = config.config_sync_bridge
    return dataclasses.replace(
        config,
        vpns=tuple(vpn_config(vpn) for vpn in config.vpns),
        config_sync_bridge=dataclasses.replace(
            bridge, pre_shared_key_hash=shown(bridge.pre_shared_key_hash, PRE_SHARED_KEY, None)))


@handler("show.current_config")
def show_current_config(ctx: HandlerContext, args: Args) -> CurrentConfigShow:
    config = ctx.engine.current_config(router_of(ctx), args.get("vpn-name"))
    user = ctx.session.user

    @functools.cache
    def may_see(setter: str, vpn: str | None) -> bool:
        return allowed(user, setter_access(ctx, setter), vpn)

    return CurrentConfigShow(visible_secrets(config, may_see))
