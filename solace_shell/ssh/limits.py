"""What one source address, one connection and one user may take of an SSH server process, so
that no client can deny the others: connections not yet logged in (in all and per source),
penalties for sources that keep failing or flooding, session channels per connection and per
user, and exec requests running per user and source. The settings are the lab's (`SshLimits`); password
guessing itself is `guard`'s.

Why per source: one address that opens connections and never logs in would otherwise take every
place of the global cap (OpenSSH's MaxStartups), and one that keeps doing so is penalised as
OpenSSH's PerSourcePenalties does: each connection that ends without a login adds seconds to its
source's penalty, up to a maximum; once it passes a minimum the source is refused until the
penalty runs out. Connections that never try to log in or outlast the login grace time, and each
connection refused at the per-source cap, penalise the source's connections (refused before the
key exchange); connections whose passwords were refused penalise only its password logins, so a
guesser's neighbours behind the same address still log in with their keys. The per-source cap is
set high enough for a class behind one address logging in at once.

Why per connection and per user: every session channel costs a shell's memory and every exec
request holds a command thread for as long as it runs; a client that opened them without bound
would take the server's memory or every command thread from the others.

All of it runs on the event loop (no lock, no I/O): these classes only count and answer. Every
table is bounded: by the connections alive, or by `PENALISED_SOURCES`.
"""

from __future__ import annotations

import time
from collections import Counter, OrderedDict
from collections.abc import Callable, Hashable, Mapping
from dataclasses import dataclass, fields
from enum import Enum

# The scenario's `settings:` keys (all optional): `ssh_` and a field of `SshLimits`.
SETTING_PREFIX = "ssh_"
# Sources whose penalties are remembered at most (OpenSSH's max-sources4); past it the one
# penalised least recently is forgotten.
PENALISED_SOURCES = 65_536


@dataclass(frozen=True)
class SshLimits:
    """The lab's SSH limits (scenario `settings: ssh_<field>`). Defaults are safe for a classroom."""

    # password guessing (`guard`)
    max_auth_tries: int = 6          # refused passwords per connection, then it is closed (OpenSSH's MaxAuthTries)
    auth_delay_ms: int = 250         # the delay of a refusal after the second failure of its source, user or pair...
    auth_delay_max_ms: int = 4000    # ...doubling with each further one, up to this
    lockout_failures: int = 20       # failures of one user name from one source that lock that pair out...
    lockout_seconds: int = 300       # ...for this long (its password logins refused unchecked)
    # connections not yet logged in
    max_startups: int = 128          # in all; more are closed at once (OpenSSH's MaxStartups)
    max_startups_per_source: int = 64  # from one address (OpenSSH's PerSourceMaxStartups); a class
    #                                    behind one NAT address logging in at once fits
    login_grace_seconds: int = 30    # to log in, then the connection is closed (OpenSSH's LoginGraceTime)
    # per-source penalties (OpenSSH's PerSourcePenalties)
    penalty_authfail_seconds: int = 5  # a connection that ends without a login after refused passwords
    penalty_noauth_seconds: int = 1    # one that ends without trying to log in, or meets the per-source cap
    penalty_grace_seconds: int = 10    # one that outlasts the login grace time
    penalty_min_seconds: int = 15      # a penalty is enforced once it has added up to this...
    penalty_max_seconds: int = 600     # ...and never adds up to more than this (0: no penalties)
    # channels and commands
    max_sessions: int = 10           # session channels open on one connection (OpenSSH's MaxSessions)
    max_user_sessions: int = 200     # session channels open as one user, over all connections
    max_user_execs: int = 4          # exec requests running as one user from one address (a class's
    #                                  shared user is shared from many addresses)

    @classmethod
    def from_settings(cls, settings: Mapping[str, str]) -> SshLimits:
        """The limits a lab's settings give (`ssh_max_auth_tries: 3`, ...); the defaults else."""
        given: dict[str, int] = {}
        for spec in fields(cls):
            raw = settings.get(SETTING_PREFIX + spec.name)
            if raw is not None:
                given[spec.name] = int(raw)
        return cls(**given)


class Startups:
    """Connections not yet logged in, in all and per source address."""

    def __init__(self) -> None:
        self.total = 0
        self._per_source: Counter[str] = Counter()

    def admit(self, source: str, limits: SshLimits) -> str | None:
        """Count one more from `source`, or say why not (the cap it would pass)."""
        if self.total >= limits.max_startups:
            return f"{limits.max_startups} connections not yet logged in"
        if self._per_source[source] >= limits.max_startups_per_source:
            return f"{limits.max_startups_per_source} connections not yet logged in from this address"
        self.total += 1
        self._per_source[source] += 1
        return None

    def release(self, source: str) -> None:
        """One admitted connection from `source` logged in or went away."""
        self.total -= 1
        self._per_source[source] -= 1
        if self._per_source[source] <= 0:
            del self._per_source[source]

    def from_source(self, source: str) -> int:
        return self._per_source[source]


class Penalty(Enum):
    """Why a connection ended badly, and what of its source the penalty holds back."""

    NOAUTH = "noauth"        # ended without trying to log in, or refused at the per-source cap
    GRACE = "grace"          # outlasted the login grace time
    AUTHFAIL = "authfail"    # ended without a login after refused passwords: password logins only

    def seconds(self, limits: SshLimits) -> int:
        return {Penalty.NOAUTH: limits.penalty_noauth_seconds, Penalty.GRACE: limits.penalty_grace_seconds,
                Penalty.AUTHFAIL: limits.penalty_authfail_seconds}[self]


@dataclass
class _Owed:
    """One source's penalties: until when each runs, and whether it has reached the minimum."""

    connect_until: float = 0.0
    connect_active: bool = False
    password_until: float = 0.0
    password_active: bool = False


class PenaltyBox:
    """Per-source penalties (see the module), in a table of at most `size` sources."""

    def __init__(self, clock: Callable[[], float] = time.monotonic, size: int = PENALISED_SOURCES) -> None:
        self.clock = clock
        self.size = size
        self._owed: OrderedDict[str, _Owed] = OrderedDict()

    def penalise(self, source: str, why: Penalty, limits: SshLimits) -> bool:
        """Add `why`'s seconds to `source`'s penalty; True when that makes it enforced now."""
        seconds = why.seconds(limits)
        if limits.penalty_max_seconds <= 0 or seconds <= 0:
            return False
        now = self.clock()
        owed = self._current(source) or _Owed()
        self._owed.pop(source, None)
        self._owed[source] = owed  # the most recently penalised last
        while len(self._owed) > self.size:
            self._owed.popitem(last=False)
        password = why is Penalty.AUTHFAIL
        until = owed.password_until if password else owed.connect_until
        until = min(max(until, now) + seconds, now + limits.penalty_max_seconds)
        active = until - now >= limits.penalty_min_seconds
        if password:
            started = active and not owed.password_active
            owed.password_until, owed.password_active = until, owed.password_active or active
        else:
            started = active and not owed.connect_active
            owed.connect_until, owed.connect_active = until, owed.connect_active or active
        return started

    def connections_refused(self, source: str) -> bool:
        """Whether `source`'s new connections are refused now (before the key exchange)."""
        owed = self._current(source)
        return owed is not None and owed.connect_active and owed.connect_until > self.clock()

    def passwords_refused(self, source: str) -> bool:
        """Whether `source`'s password logins are refused now (unchecked; keys still log in)."""
        owed = self._current(source)
        return owed is not None and owed.password_active and owed.password_until > self.clock()

    def _current(self, source: str) -> _Owed | None:
        owed = self._owed.get(source)
        if owed is None:
            return None
        now = self.clock()
        if owed.connect_until <= now:
            owed.connect_until, owed.connect_active = 0.0, False
        if owed.password_until <= now:
            owed.password_until, owed.password_active = 0.0, False
        if not owed.connect_until and not owed.password_until:
            del self._owed[source]
            return None
        return owed

    def __len__(self) -> int:
        return len(self._owed)


class Slots:
    """How many of something each key holds now (session channels per user, execs per user)."""

    def __init__(self) -> None:
        self._held: Counter[Hashable] = Counter()

    def take(self, key: Hashable, cap: int) -> bool:
        """Take one for `key` unless it holds `cap` already."""
        if self._held[key] >= cap:
            return False
        self._held[key] += 1
        return True

    def give_back(self, key: Hashable) -> None:
        self._held[key] -= 1
        if self._held[key] <= 0:
            del self._held[key]

    def held(self, key: Hashable) -> int:
        return self._held[key]
