"""CLI user access levels: may this user run this command here?

Levels are ordered none < read-only < mesh-manager < read-write < admin (docs.solace.com, CLI
User Access Levels). A VPN-scoped command is checked against the user's level for that VPN: the
per-VPN exception if there is one, else the user's default VPN level, raised to read-write for
users whose global level is mesh-manager or above, and to read-only for global read-only users.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from grammar import ACCESS_LEVELS, Access


@dataclass(frozen=True)
class UserAccess:
    name: str
    global_level: str
    default_vpn_level: str = "none"
    vpn_levels: dict[str, str] = field(default_factory=dict)


def _rank(level: str) -> int:
    return ACCESS_LEVELS.index(level)


def effective_level(user: UserAccess, access: Access, vpn: str | None) -> str:
    if access.scope == "global":
        return user.global_level
    level = user.vpn_levels.get(vpn, user.default_vpn_level) if vpn is not None else user.default_vpn_level
    implied = "read-write" if _rank(user.global_level) >= _rank("mesh-manager") else user.global_level
    if user.global_level == "admin":
        implied = "admin"
    return max(level, implied, key=_rank)


def allows_everything(user: UserAccess) -> bool:
    """A global admin: the top level implies every other, global or in any VPN."""
    return user.global_level == "admin"


def allowed(user: UserAccess, access: Access, vpn: str | None) -> bool:
    if allows_everything(user):
        return True
    return _rank(effective_level(user, access, vpn)) >= _rank(access.level)
