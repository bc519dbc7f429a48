"""Password guessing, held back: tries per connection, growing delays, and lock-outs per source
address and per user name.

Why per source and per user: a guesser from one address is slowed and then locked out whatever
names it tries; guessers spread over many addresses against one user are stopped by the user's
count. Names are counted whether or not the lab has such a user, so a lock-out (or a delay) never
tells a name that exists from one that does not. A successful login clears its source's and its
user's counts. The cost: a guesser can lock a user out of password logins for `lockout_seconds`
(keys still work), and trainees behind one NAT address share their source's count.

All of it runs on the event loop (no lock, no I/O): `LoginGuard` only counts and answers.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass, fields

# The scenario's `settings:` keys (all optional): `ssh_` and a field of `AuthLimits`.
SETTING_PREFIX = "ssh_"
MAX_RECORDS = 100_000  # per table: what the guard remembers at most


@dataclass(frozen=True)
class AuthLimits:
    """How hard password guessing is made. Defaults are safe for a classroom."""

    max_auth_tries: int = 6          # refused passwords per connection, then it is closed (OpenSSH's MaxAuthTries)
    auth_delay_ms: int = 250         # the delay of a refusal after a source's or user's second failure...
    auth_delay_max_ms: int = 4000    # ...doubling with each further one, up to this
    lockout_failures: int = 20       # failures of a source or a user name that lock it out...
    lockout_seconds: int = 300       # ...for this long (password logins refused unchecked)
    max_startups: int = 128          # connections not yet logged in; more are closed at once

    @classmethod
    def from_settings(cls, settings: Mapping[str, str]) -> AuthLimits:
        """The limits a lab's settings give (`ssh_max_auth_tries: 3`, ...); the defaults else."""
        given: dict[str, int] = {}
        for spec in fields(cls):
            raw = settings.get(SETTING_PREFIX + spec.name)
            if raw is not None:
                given[spec.name] = int(raw)
        return cls(**given)


@dataclass
class _Record:
    failures: int = 0
    last: float = 0.0
    locked_until: float = 0.0


class LoginGuard:
    """Counts refused passwords per source address and per user name (see the module)."""

    def __init__(self, limits: AuthLimits, clock: Callable[[], float] = time.monotonic) -> None:
        self.limits = limits
        self.clock = clock
        self._sources: dict[str, _Record] = {}
        self._users: dict[str, _Record] = {}

    def source_locked(self, source: str) -> bool:
        """Whether `source` is locked out now (its connections are closed before the handshake)."""
        record = self._sources.get(source)
        return record is not None and record.locked_until > self.clock()

    def locked(self, source: str, user: str) -> bool:
        """Whether password logins from `source` or as `user` are locked out now."""
        now = self.clock()
        return any(record is not None and record.locked_until > now
                   for record in (self._sources.get(source), self._users.get(user)))

    def refused(self, source: str, user: str) -> float:
        """Count a refused password; the seconds to wait before answering it."""
        now = self.clock()
        worst = 0
        for table, key in ((self._sources, source), (self._users, user)):
            record = table.setdefault(key, _Record())
            if now - record.last > self.limits.lockout_seconds:  # a quiet spell forgets old failures
                record.failures = 0
            record.failures += 1
            record.last = now
            if record.failures >= self.limits.lockout_failures:
                record.locked_until = now + self.limits.lockout_seconds
            worst = max(worst, record.failures)
        self._forget(now)
        if worst < 2:
            return 0.0
        delay_ms: int = min(self.limits.auth_delay_ms << min(worst - 2, 30), self.limits.auth_delay_max_ms)
        return delay_ms / 1000

    def accepted(self, source: str, user: str) -> None:
        self._sources.pop(source, None)
        self._users.pop(user, None)

    def _forget(self, now: float) -> None:
        """Drop records that neither lock nor count any more, so the tables stay small; past
        `MAX_RECORDS` (a guesser inventing names from many addresses) the oldest half goes."""
        if len(self._sources) + len(self._users) < 4096:
            return
        for table in (self._sources, self._users):
            for key in [k for k, r in table.items()
                        if r.locked_until <= now and now - r.last > self.limits.lockout_seconds]:
                del table[key]
            if len(table) > MAX_RECORDS:
                for key in sorted(table, key=lambda k: table[k].last)[:len(table) // 2]:
                    del table[key]
