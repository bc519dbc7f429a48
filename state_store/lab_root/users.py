"""The lab's CLI users: one record per person who may log in, whatever systems the lab runs.

Why at the root: a login (the REPL's, SSH's password or public key) happens before any CLI runs,
so the users belong to the lab, not to one system. The record keeps the fields and the kind name
(``users``) lab files have always stored, so older files read as they are.
"""

from __future__ import annotations

from dataclasses import dataclass

# the access levels and scopes a CLI user of the lab may have (grammar.ACCESS_LEVELS, as stored)
ACCESS_LEVELS = ("none", "read-only", "mesh-manager", "read-write", "admin")
USER_SCOPES = ("global", "vpn")


@dataclass(slots=True, eq=False)
class LabUser:
    name: str
    password_hash: str
    id: int = 0
    scope: str = "global"  # global|vpn
    level: str = "read-only"
    vpn: str | None = None
    lab_admin: bool = False  # may open the lab console
    ssh_keys: str = ""  # OpenSSH public key lines, one per line: `solace-shell serve` logins without a password


@dataclass(frozen=True)
class UserInfo:
    name: str
    scope: str  # global | vpn
    level: str  # none|read-only|read-write|admin|mesh-manager
    vpn: str | None
    lab_admin: bool  # the lab-administration right: may open the lab console (the trainer)


@dataclass(frozen=True)
class AdvanceResult:
    """What moving the lab's clock did: every section's drained entries and (re)connected clients."""

    from_ms: int
    to_ms: int
    drained: int  # replication entries applied on standbys
    reconnected: tuple[str, ...]


def unusable_user(users: list[LabUser]) -> str | None:
    """A CLI user this program cannot place (an unknown level or scope), else None."""
    for user in sorted(users, key=lambda u: u.name):
        if user.level not in ACCESS_LEVELS:
            return f"CLI user {user.name!r} has an unknown access level {user.level!r}"
        if user.scope not in USER_SCOPES:
            return f"CLI user {user.name!r} has an unknown scope {user.scope!r}"
    return None
