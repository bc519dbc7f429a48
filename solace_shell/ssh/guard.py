"""Password guessing, held back: growing delays, and lock-outs per (source address, user name).

Why lock-outs per pair: a lock-out by user name alone lets anyone lock the trainer (or a class's
shared user) out by guessing at it, and one by source alone locks out everyone behind a shared
(NAT) address. Locking the pair stops the guesser's guesses at that name from that address, and
nothing else: the same user logs in from any other address, and other users from the same one. A
successful login clears its own pair's count only, so a guesser's good logins as some other user
never clear its failures. A source that keeps failing is penalised itself (`limits.PenaltyBox`,
password logins only, so its neighbours' key logins go on).

Delays count failures per pair, per source and per user name, and a refusal waits after the
largest of the three: a guesser spread over many addresses against one name, or over many names
from one address, slows down at once. Only refusals wait, so the delays cost a rightful user
nothing. Names are counted whether or not the lab has such a user, so neither a lock-out nor a
delay tells a name that exists from one that does not.

All of it runs on the event loop (no lock, no I/O): `LoginGuard` only counts and answers.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Hashable
from dataclasses import dataclass

from .limits import SshLimits

MAX_RECORDS = 100_000  # per table: what the guard remembers at most
TIDY_AT = 4096  # tables are tidied once they hold this many records in all


@dataclass
class _Record:
    failures: int = 0
    last: float = 0.0
    locked_until: float = 0.0


class LoginGuard:
    """Counts refused passwords per (source, user), per source and per user (see the module)."""

    def __init__(self, limits: SshLimits, clock: Callable[[], float] = time.monotonic) -> None:
        self.limits = limits
        self.clock = clock
        self._pairs: dict[Hashable, _Record] = {}
        self._sources: dict[Hashable, _Record] = {}
        self._users: dict[Hashable, _Record] = {}

    def locked(self, source: str, user: str) -> bool:
        """Whether password logins as `user` from `source` are locked out now."""
        record = self._pairs.get((source, user))
        return record is not None and record.locked_until > self.clock()

    def refused(self, source: str, user: str) -> float:
        """Count a refused password; the seconds to wait before answering it."""
        now = self.clock()
        worst = 0
        for table, key in ((self._pairs, (source, user)), (self._sources, source), (self._users, user)):
            record = table.setdefault(key, _Record())
            if now - record.last > self.limits.lockout_seconds:  # a quiet spell forgets old failures
                record.failures = 0
            record.failures += 1
            record.last = now
            worst = max(worst, record.failures)
            if table is self._pairs and record.failures >= self.limits.lockout_failures:
                record.locked_until = now + self.limits.lockout_seconds
        self._forget(now)
        if worst < 2:
            return 0.0
        delay_ms: int = min(self.limits.auth_delay_ms << min(worst - 2, 30), self.limits.auth_delay_max_ms)
        return delay_ms / 1000

    def accepted(self, source: str, user: str) -> None:
        """A good login: its own pair's failures are forgotten (and nothing else)."""
        self._pairs.pop((source, user), None)

    def _forget(self, now: float) -> None:
        """Drop records that neither lock nor count any more, so the tables stay small; past
        `MAX_RECORDS` (a guesser inventing names from many addresses) the oldest half goes."""
        if len(self._pairs) + len(self._sources) + len(self._users) < TIDY_AT:
            return
        for table in (self._pairs, self._sources, self._users):
            for key in [k for k, r in table.items()
                        if r.locked_until <= now and now - r.last > self.limits.lockout_seconds]:
                del table[key]
            if len(table) > MAX_RECORDS:
                for key in sorted(table, key=lambda k: table[k].last)[:len(table) // 2]:
                    del table[key]
