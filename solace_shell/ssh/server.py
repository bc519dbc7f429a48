"""`solace-shell serve`: the lab's routers over SSH, each on its own port.

- One `SerializedStore` per server process; each connection gets its own `Lab` over it (its user's
  access levels, its own level stack per router), as a second local shell on the same lab file would.
- Login as the broker shows it (captures T20, T21): the product line as the pre-authentication banner,
  then `Password:` (keyboard-interactive; plain password authentication too), checked against the
  lab's CLI users. An unknown user and a wrong password are refused alike, and take the same time
  (one password hash each, against a dummy hash for an unknown user). A user the scenario gives
  `ssh_keys` may log in with one of those keys instead (the lab's own convenience for training
  rooms; no capture shows the broker's).
- Guessing is held back (`guard`): refused passwords per connection are capped, refusals are
  delayed more and more, and a user name that fails too often from one source is locked out there
  for a while. What one source, connection or user may take is capped (`limits`): connections not
  yet logged in, in all and per source (more are closed at once), with penalties for sources that
  keep failing or flooding (a penalised source's connections are held unread, with no key
  exchange, then closed); session channels per connection and per user; execs per user and source.
- Where the work runs: the event loop only accepts, relays and draws; password hashes run in a
  pool of their own threads (never under the lab lock), the lab reads a login needs (the user's
  hash and keys, the product line) in a third, commands and the sessions' reads in another, so a
  flood of logins never delays a command and commands never queue a login behind them. A password
  accepted for a user a moment ago is accepted again without a new hash (`accepted`).
- Connections are logged (user, router, peer, how the user logged in; the time by the logging
  format), every value quoted when it is not plain (`logfields`), never passwords, keys or
  commands. An exception the event loop reports is one log line (at most one a second of each
  kind); one that belongs to a session ends that session. SIGINT and SIGTERM close every
  connection and listener and end every session at once (no session's prompt takes SIGINT over),
  then the store. A worker (`reuse_port`) also stops when its parent process ends.
"""

from __future__ import annotations

import asyncio
import logging
import resource
import signal
import sys
import time
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path
from typing import Any, TextIO, TypeVar

import asyncssh
from prompt_toolkit.contrib.ssh import PromptToolkitSSHServer, PromptToolkitSSHSession

from state_store.passwords import verify_password

from ..banner import product_name
from .accepted import AcceptedPasswords
from .eventloop import run as run_on_server_loop
from .guard import LoginGuard
from .hostkey import HostKeyError, host_key_path_for, load_or_create_host_key
from .limits import Penalty, PenaltyBox, Slots, SshLimits, Startups
from .logfields import fields, one_line
from .session import CPR_PROBE_SECONDS, STALL_SECONDS, LabSSHSession, Login, current_session, run_session
from .shared_bindings import share_default_bindings
from .store import SerializedStore
from .transport import gather_writes
from .workers import watch_parent

log = logging.getLogger(__name__)
T = TypeVar("T")

MAX_PORT = 65535
# A dead client is dropped after about a minute and a half of silence on its TCP connection.
KEEPALIVE_SECONDS = 30
KEEPALIVE_MISSES = 3
# How long a stop waits for its cancelled sessions to end (each ends at its next await).
STOP_SECONDS = 5
# How often the server looks whether the lab's routers changed (`lab> reset` to another scenario).
FOLLOW_SECONDS = 1.0
# Threads that check passwords (a hash takes a core for tens of milliseconds; the hash releases
# the interpreter lock) and threads that run commands and the lab's reads (one at a time under the
# lab lock; the others wait there, not in front of a login).
AUTH_THREADS = 2
COMMAND_THREADS = 16
# Threads that read what a login needs from the lab (the user's stored hash and keys, the product
# line): apart from the command threads, so that commands holding every one of those never queue
# a login behind them (a login still takes the lab lock for its read, between two commands).
LOGIN_THREADS = 4
# A penalised source's connection is held this long, unread, before it is closed (at most
# HELD_CONNECTIONS at a time; more are closed at once): a guesser waits instead of reconnecting.
HOLD_SECONDS = 10.0
HELD_CONNECTIONS = 256
# The ciphers offered, cheapest first. The client's order decides among the ones both sides have,
# so a cipher left out is the only way not to get it: chacha20-poly1305 costs asyncssh about six
# times what AES-GCM does per packet (a new cipher object for each), and a classroom's typing is
# one small packet per key each way. Every current client (OpenSSH, PuTTY, paramiko) has AES-CTR.
CIPHERS = ("aes128-gcm@openssh.com", "aes256-gcm@openssh.com", "aes128-ctr", "aes192-ctr", "aes256-ctr")
# The same kind of event-loop trouble (e.g. accept failing for want of descriptors) is logged at
# most once in this many seconds, with a count of the ones not logged.
LOG_EVERY_SECONDS = 1.0


class _RateLimitedLog:
    """One log line per kind of event per `LOG_EVERY_SECONDS`, saying how many were not logged."""

    def __init__(self) -> None:
        self._last: dict[str, float] = {}
        self._quiet: dict[str, int] = {}

    def error(self, kind: str, text: str) -> None:
        now = time.monotonic()
        if now - self._last.get(kind, -LOG_EVERY_SECONDS) < LOG_EVERY_SECONDS:
            self._quiet[kind] = self._quiet.get(kind, 0) + 1
            return
        self._last[kind] = now
        quiet = self._quiet.pop(kind, 0)
        log.error("%s%s", text, f" ({quiet} more not logged)" if quiet else "")


class ListenError(Exception):
    """A router's port that cannot be listened on, and why (one line)."""

    def __init__(self, port: int, reason: str) -> None:
        super().__init__(reason)
        self.port = port
        self.reason = reason


def plan_ports(routers: list[tuple[str, int]], base_port: int) -> list[tuple[str, int]]:
    """Each router's port, in lab order: the scenario's (`ssh_port`) where it gives one; the others
    take base_port, base_port + 1, ... in lab order (base_port 0: any free port for each).
    Raises ListenError when the others' ports run beyond 65535 or meet a scenario's port."""
    others = [name for name, port in routers if not port]
    if base_port and others and base_port + len(others) - 1 > MAX_PORT:
        raise ListenError(base_port, f"{len(others)} routers need ports {base_port}-"
                                     f"{base_port + len(others) - 1}, beyond {MAX_PORT}")
    given = {port: name for name, port in routers if port}
    following = iter(range(base_port, base_port + len(others)) if base_port else [0] * len(others))
    plan = [(name, port or next(following)) for name, port in routers]
    for name, port in plan:
        if port and port in given and given[port] != name:
            raise ListenError(port, f"router {name!r} would take port {port}, the scenario's ssh_port of "
                                    f"router {given[port]!r}: choose another --port")
    return plan


@dataclass(frozen=True)
class Listener:
    router: str
    host: str
    port: int

    @property
    def address(self) -> str:
        return f"[{self.host}]:{self.port}" if ":" in self.host else f"{self.host}:{self.port}"


@dataclass
class _Served:
    """One router's listener: the port its plan gave (0: any free one) and the port it got."""

    planned: int
    acceptor: Any
    listener: Listener


ListenersChanged = Callable[[list[Listener]], None]


class LabServer:
    """Every router of one lab on its own SSH port, over one serialized store.

    The routers served follow the lab: a `lab> reset` to a scenario with other routers or ports (from
    a session, or from a local shell on the same lab file) is noticed within `follow_seconds`. New
    routers get listeners, routers gone lose theirs and their connections, a router whose port changed
    moves; the others, and their sessions, are left alone."""

    def __init__(self, store: SerializedStore, host_key: asyncssh.SSHKey,
                 cpr_probe_seconds: float = CPR_PROBE_SECONDS, follow_seconds: float = FOLLOW_SECONDS,
                 on_change: ListenersChanged | None = None) -> None:
        self.store = store
        self.host_key = host_key
        self.cpr_probe_seconds = cpr_probe_seconds
        self.follow_seconds = follow_seconds
        self.on_change = on_change
        self.host = "127.0.0.1"
        self.base_port = 0
        self._served: dict[str, _Served] = {}
        self._follow: asyncio.Task[None] | None = None
        self._refused: tuple[tuple[str, int], ...] | None = None  # the last plan that could not be served
        self.connections: set[RouterConnection] = set()
        self.sessions: set[LabSSHSession] = set()
        self.stall_seconds = STALL_SECONDS
        self.limits = SshLimits()
        self.guard = LoginGuard(self.limits)
        self.startups = Startups()
        self.penalties = PenaltyBox()
        self.user_sessions = Slots()  # session channels open, per user
        self.user_execs = Slots()  # exec requests running, per (source, user)
        self.rate_limited = _RateLimitedLog()
        self.auth_pool = ThreadPoolExecutor(AUTH_THREADS, thread_name_prefix="ssh-auth")
        self.login_pool = ThreadPoolExecutor(LOGIN_THREADS, thread_name_prefix="ssh-login")
        self.accepted = AcceptedPasswords()
        self._checking: dict[bytes, asyncio.Future[bool]] = {}  # password checks running, by digest
        self._loop: asyncio.AbstractEventLoop | None = None
        self._previous_handler: Any = None
        self.reuse_port = False  # one of several worker processes sharing the ports (`workers`)
        self.hold_seconds = HOLD_SECONDS
        self.held = 0

    @property
    def unauthenticated(self) -> int:
        """Connections not yet logged in now."""
        return self.startups.total

    async def read_for_login(self, read: Callable[[], T]) -> T:
        """Run one lab read a login needs in the login threads (see `LOGIN_THREADS`)."""
        return await asyncio.get_running_loop().run_in_executor(self.login_pool, read)

    @property
    def listeners(self) -> list[Listener]:
        return [served.listener for served in self._served.values()]

    def routers(self) -> list[tuple[str, int]]:
        """The lab's routers in lab order, each with its port from the scenario (0: none), then the
        CLI of each HA system the lab holds (its target, e.g. `swiftmq`), on the next free ports;
        reads the lab's SSH limits (scenario `settings: ssh_...`) on the way."""
        with self.store.transaction() as engine:
            routers = [(r.name, r.ssh_port) for r in engine.routers()] + [(s, 0) for s in engine.system_names()]
            limits = SshLimits.from_settings(engine.settings())
        if limits != self.limits:
            self.limits = self.guard.limits = limits
        return routers

    async def start(self, host: str, base_port: int) -> list[Listener]:
        """Listen for each router on its port (`plan_ports`), then follow the lab's routers. Raises
        ListenError when a port cannot be had (nothing is left listening)."""
        self.host, self.base_port = host, base_port
        share_default_bindings()
        self._loop = asyncio.get_running_loop()
        self._previous_handler = self._loop.get_exception_handler()
        self._loop.set_exception_handler(self._on_loop_exception)
        self._loop.set_default_executor(ThreadPoolExecutor(COMMAND_THREADS, thread_name_prefix="ssh-command"))
        plan = plan_ports(await asyncio.to_thread(self.routers), base_port)
        try:
            for router, port in plan:
                await self._listen(router, port)
        except ListenError:
            await self.stop()
            raise
        self._follow = asyncio.create_task(self._follow_lab())
        return self.listeners

    async def _listen(self, router: str, port: int) -> None:
        try:
            acceptor = await asyncssh.create_server(
                lambda router=router: RouterConnection(self, router), self.host, port,
                server_host_keys=[self.host_key], encryption_algs=CIPHERS, line_editor=False,
                login_timeout=0,  # the connection's own timer (`login_grace_seconds`), which penalises
                keepalive_interval=KEEPALIVE_SECONDS, keepalive_count_max=KEEPALIVE_MISSES,
                reuse_port=self.reuse_port or None)
        except OSError as exc:
            raise ListenError(port, exc.strerror or str(exc)) from exc
        self._served[router] = _Served(port, acceptor, Listener(router, self.host, acceptor.get_port()))

    async def _unlisten(self, router: str) -> None:
        served = self._served.pop(router)
        served.acceptor.close()
        await served.acceptor.wait_closed()

    async def _follow_lab(self) -> None:
        failed = ""  # the last failure, said once (one line, no traceback) until it changes
        while True:
            await asyncio.sleep(self.follow_seconds)
            try:
                await self.follow()
                failed = ""
            except Exception as exc:  # the server goes on serving what it serves; the next round tries again
                if str(exc) != failed:
                    failed = str(exc)
                    text = str(exc).strip()
                    log.error("cannot read the lab's routers (still serving the ones before): %s",
                              text.splitlines()[0] if text else type(exc).__name__)

    async def follow(self) -> bool:
        """Serve the routers the lab has now (see the class); True when the listeners changed.

        A plan that cannot be served is logged once, in one line: when a router's port would meet a
        scenario's, nothing changes; a port that is taken leaves its router unserved, tried again
        every round (served as soon as the port is free)."""
        routers = await asyncio.to_thread(self.routers)
        try:
            plan = plan_ports(routers, self.base_port)
        except ListenError as exc:
            self._refuse(tuple(routers), exc)
            return False
        wanted = dict(plan)
        changed = False
        for router, served in list(self._served.items()):
            if wanted.get(router) != served.planned:
                await self._unlisten(router)
                changed = True
                if router not in wanted:
                    dropped = [c for c in self.connections if c.router == router]
                    for connection in dropped:
                        connection.close()
                    log.info("%s is no longer in the lab: stopped listening, %d connection(s) closed",
                             fields(router=router), len(dropped))
        problem: ListenError | None = None
        for router, port in plan:
            if router not in self._served:
                try:
                    await self._listen(router, port)
                    changed = True
                except ListenError as exc:
                    problem = problem or exc
        if problem is not None:
            self._refuse(tuple(plan), problem)
        else:
            self._refused = None
        if changed:
            order = [name for name, _ in plan]
            self._served = dict(sorted(self._served.items(), key=lambda item: order.index(item[0])))
            for listener in self.listeners:
                log.info("listening %s port=%d", fields(router=listener.router), listener.port)
            if self.on_change is not None:
                self.on_change(self.listeners)
        return changed

    def _refuse(self, plan: tuple[tuple[str, int], ...], exc: ListenError) -> None:
        if plan != self._refused:
            self._refused = plan
            log.error("cannot serve the lab's routers as they are now: port %d: %s", exc.port, exc.reason)

    def password_hash(self, user: str) -> str | None:
        """The user's stored password hash (None: no such user), read under the lab lock."""
        with self.store.transaction() as engine:
            record = engine.state.user_by_name.get(user)
            return record.password_hash if record is not None else None

    async def check_password(self, user: str, password: str) -> bool:
        """The lab's password check: the stored hash is read under the lab lock, then checked
        outside it, in the password threads (one KDF run, a dummy one for an unknown user: the same
        work either way). A password accepted for the user a moment ago (`accepted`) is accepted
        again without a new hash, and a check of the same user, password and stored hash as one
        still running waits for that one's answer instead of hashing again: a class logging in at
        once to a few shared lab users pays one hash per user, not one per trainee."""
        stored = await self.read_for_login(lambda: self.password_hash(user))
        if stored is not None and (user, password, stored) in self.accepted:
            return True
        key = self.accepted.digest(user, password, stored or "")
        running = self._checking.get(key)
        if running is not None:
            return await asyncio.shield(running)
        loop = asyncio.get_running_loop()
        check = loop.run_in_executor(self.auth_pool, verify_password, password, stored)
        self._checking[key] = check
        try:
            ok = bool(await asyncio.shield(check))
        finally:
            if self._checking.get(key) is check:
                del self._checking[key]
        if ok and stored is not None:
            self.accepted.add(user, password, stored)
        return ok

    async def run_login(self, ssh: LabSSHSession, login: Login) -> None:
        """Serve one channel of a logged-in user: the seam where a login lands in a lab. Here,
        every login lands in the one lab of this server (a class lands each in its own)."""
        await run_session(ssh, self.store, login)

    def hold(self, conn: Any) -> None:
        """Keep a penalised source's connection `hold_seconds` without reading from it (no key
        exchange, nothing to compute), then close it; past `HELD_CONNECTIONS`, close it at once."""
        transport = getattr(conn, "_transport", None)  # asyncssh keeps no public handle on it
        if self.held >= HELD_CONNECTIONS or transport is None or self._loop is None:
            conn.abort()
            return
        self.held += 1
        transport.pause_reading()

        def release() -> None:
            self.held -= 1
            conn.abort()

        self._loop.call_later(self.hold_seconds, release)

    def _on_loop_exception(self, loop: asyncio.AbstractEventLoop, context: dict[str, Any]) -> None:
        """The event loop's exception handler while serving: an exception of a session's callback
        ends that session (`LabSSHSession.fail`); anything else is one log line, rate-limited
        (a failed accept, when descriptors run out, would otherwise log a traceback each time)."""
        exc = context.get("exception")
        handle_context = getattr(context.get("handle"), "_context", None)
        session = handle_context.get(current_session) if handle_context is not None else None
        if session is not None and exc is not None:
            session.fail(exc)
            return
        message = str(context.get("message") or "unexpected error")
        self.rate_limited.error(message, f"{message}: {one_line(exc)}" if exc is not None else message)

    def accepts_key(self, user: str, key: asyncssh.SSHKey) -> bool:
        """Whether `key` is one of the user's `ssh_keys` (an unknown user has none)."""
        with self.store.transaction() as engine:
            lines = engine.ssh_keys(user)
        for number, line in enumerate(lines):
            try:
                if asyncssh.import_public_key(line).public_data == key.public_data:
                    return True
            except Exception:  # noqa: BLE001  a lab file edited by hand: that key is no key
                log.warning("%s: ssh_keys[%d] in the lab file is not a usable public key; skipped",
                            fields(user=user), number)
        return False

    async def stop(self) -> None:
        """Stop listening and close every connection (clients see the connection closed)."""
        if self._follow is not None:
            self._follow.cancel()
            self._follow = None
        acceptors = [served.acceptor for served in self._served.values()]
        for acceptor in acceptors:
            acceptor.close()
        for connection in list(self.connections):
            connection.close()
        for acceptor in acceptors:
            await acceptor.wait_closed()
        # Every session ends now, whatever it was doing: a command running in a thread finishes
        # there (its lab transaction whole), and nothing of the session runs after it.
        tasks = [s.interact_task for s in self.sessions if s.interact_task is not None and not s.interact_task.done()]
        for task in tasks:
            task.cancel()
        if tasks:
            await asyncio.wait(tasks, timeout=STOP_SECONDS)
        self._served.clear()
        self.auth_pool.shutdown(wait=False, cancel_futures=True)
        self.login_pool.shutdown(wait=False, cancel_futures=True)
        if self._loop is not None:
            self._loop.set_exception_handler(self._previous_handler)
            self._loop = None


class _CountedSession(LabSSHSession):
    """A session channel that gives its places back (its connection's, its user's, its place among
    the server's sessions) when it closes."""

    on_close: Callable[[], None] | None = None

    def connection_lost(self, exc: Exception | None) -> None:
        try:
            super().connection_lost(exc)
        finally:
            on_close, self.on_close = self.on_close, None
            if on_close is not None:
                on_close()


class RouterConnection(PromptToolkitSSHServer):
    """One client connection to one router's port (asyncssh makes one per connection)."""

    def __init__(self, server: LabServer, router: str) -> None:
        super().__init__(self._interact, enable_cpr=False)
        self.server = server
        self.router = router
        self.user: str | None = None
        self.peer = "?"
        self.source = "?"  # the peer's address, without the port: what the limits count
        self._method = "password"  # how the user being authenticated proved who they are
        self._conn: Any = None
        self._starting = False  # counted in the server's connections not yet logged in
        self._grace: asyncio.TimerHandle | None = None
        self._grace_over = False
        self._refused_passwords = 0
        self._sessions = 0  # session channels open on this connection
        self._said_max_sessions = False

    # -- connection ------------------------------------------------------------------------------
    def connection_made(self, conn: Any) -> None:
        self._conn = conn
        gather_writes(conn)
        peer = conn.get_extra_info("peername")
        if peer:
            self.peer = f"{peer[0]}:{peer[1]}"
            self.source = str(peer[0])
        server = self.server
        who = fields(router=self.router, peer=self.peer)
        if server.penalties.connections_refused(self.source):
            server.rate_limited.error("penalised", f"refused connection {who}: source penalised")
            server.hold(conn)
            return
        refusal = server.startups.admit(self.source, server.limits)
        if refusal is not None:
            server.rate_limited.error("max_startups", f"refused connection {who}: {refusal}")
            if server.startups.from_source(self.source) >= server.limits.max_startups_per_source:
                self._penalise(Penalty.NOAUTH)  # this source's own flood: each one more it tries
            conn.abort()
            return
        self._starting = True
        server.connections.add(self)
        self._grace = asyncio.get_running_loop().call_later(server.limits.login_grace_seconds, self._out_of_time)

    def _out_of_time(self) -> None:
        """The login grace time is over and the client has not logged in: close the connection."""
        self._grace = None
        self._grace_over = True
        log.info("login time over, disconnected %s", fields(router=self.router, peer=self.peer))
        self._conn.abort()

    def _started(self) -> None:
        if self._grace is not None:
            self._grace.cancel()
            self._grace = None
        if self._starting:
            self._starting = False
            self.server.startups.release(self.source)

    def _penalise(self, why: Penalty) -> None:
        if self.server.penalties.penalise(self.source, why, self.server.limits):
            log.warning("source penalised %s: %s", fields(source=self.source), why.value)

    def connection_lost(self, exc: Exception | None) -> None:
        if self._starting:  # it never logged in
            self._penalise(Penalty.GRACE if self._grace_over
                           else Penalty.AUTHFAIL if self._refused_passwords else Penalty.NOAUTH)
        self._started()
        self.server.connections.discard(self)
        if self.user is not None:
            log.info("logout %s", fields(user=self.user, router=self.router, peer=self.peer))

    def close(self) -> None:
        if self._conn is not None:
            self._conn.close()

    # -- authentication --------------------------------------------------------------------------
    async def begin_auth(self, username: str) -> bool:  # type: ignore[override]  # asyncssh awaits it
        """Show the product line before `Password:`, as the broker does; every user must authenticate."""
        settings = await self.server.read_for_login(self._settings)
        self._conn.send_auth_banner(product_name(settings) + "\n")
        return True

    def _settings(self) -> dict[str, str]:
        with self.server.store.transaction() as engine:
            return engine.settings()

    def password_auth_supported(self) -> bool:
        return True

    async def validate_password(self, username: str, password: str) -> bool:
        """Checked in the server's own password threads, outside the lab lock; a refusal is delayed
        as the guard says, and the connection is closed after `max_auth_tries` of them. A locked-out
        (source, user) pair, or a source penalised for refused passwords, is refused unchecked."""
        server, guard = self.server, self.server.guard
        locked = guard.locked(self.source, username) or server.penalties.passwords_refused(self.source)
        if locked:  # not even checked: the guesser learns nothing, and burns no hash
            ok, delay = False, server.limits.auth_delay_max_ms / 1000
        else:
            ok = await server.check_password(username, password)
            delay = 0.0 if ok else guard.refused(self.source, username)
        if ok:
            guard.accepted(self.source, username)
            self._method = "password"
            return True
        self._refused_passwords += 1
        log.info("login refused %s%s", fields(user=username, router=self.router, peer=self.peer),
                 " locked-out" if locked else "")
        if delay:
            await asyncio.sleep(delay)
        if self._refused_passwords >= server.limits.max_auth_tries:
            log.info("too many refused passwords, disconnected %s", fields(router=self.router, peer=self.peer))
            self._conn.disconnect(asyncssh.DISC_NO_MORE_AUTH_METHODS_AVAILABLE, "Too many authentication failures")
        return False

    def public_key_auth_supported(self) -> bool:
        return True

    async def validate_public_key(self, username: str, key: asyncssh.SSHKey) -> bool:
        """Asked once per key the client offers (an OpenSSH client offers all of its keys, then asks
        for the password): a key that is not the user's is not a refused login, so it is not logged.
        asyncssh checks the client's signature with the key afterwards."""
        ok = await self.server.read_for_login(lambda: self.server.accepts_key(username, key))
        if ok:
            self._method = "publickey"
        return ok

    def auth_completed(self) -> None:
        self._started()
        self.user = self._conn.get_extra_info("username")
        log.info("login %s method=%s", fields(user=self.user, router=self.router, peer=self.peer), self._method)

    # -- sessions --------------------------------------------------------------------------------
    def session_requested(self) -> LabSSHSession:
        self._take_session_place()
        session = _CountedSession(self._interact, self.server.cpr_probe_seconds, self.server.stall_seconds)
        session.on_close = lambda: self._give_session_place_back(session)
        session.who = fields(user=self.user, router=self.router, peer=self.peer)
        self.server.sessions.add(session)
        return session

    def _take_session_place(self) -> None:
        """A place for one more session channel, on this connection (`max_sessions`) and for its
        user (`max_user_sessions`); else the channel is refused (one log line per connection)."""
        server, limits = self.server, self.server.limits
        if self._sessions >= limits.max_sessions:
            why = f"{limits.max_sessions} sessions open on this connection already"
        elif not server.user_sessions.take(self.user, limits.max_user_sessions):
            why = f"{limits.max_user_sessions} sessions open as this user already"
        else:
            self._sessions += 1
            return
        if not self._said_max_sessions:
            self._said_max_sessions = True
            log.warning("session refused %s: %s", fields(user=self.user, router=self.router, peer=self.peer), why)
        raise asyncssh.ChannelOpenError(asyncssh.OPEN_ADMINISTRATIVELY_PROHIBITED, why)

    def _give_session_place_back(self, session: LabSSHSession) -> None:
        """The channel closed: its places are free. It leaves the server's sessions once its task
        has ended (a stop waits for a command still running), or at once when it never started
        one, or its shell never started (closed while the terminal was asked its cursor)."""
        self._sessions -= 1
        self.server.user_sessions.give_back(self.user)
        task = session.interact_task
        if task is None or task.done():
            self.server.sessions.discard(session)
        else:
            task.add_done_callback(lambda _: self.server.sessions.discard(session))

    async def _interact(self, ssh: PromptToolkitSSHSession) -> None:
        """One session; its failures are the session's to log and end (`LabSSHSession._interact`)."""
        assert isinstance(ssh, LabSSHSession)  # made by session_requested
        assert self.user is not None  # asyncssh opens sessions only after authentication
        server, user = self.server, self.user
        running_exec = ssh.command is not None
        try:
            if running_exec and not server.user_execs.take((self.source, user), server.limits.max_user_execs):
                self._refuse_exec(ssh)
                return
            try:
                await server.run_login(ssh, Login(user, self.router, self.peer))
            finally:
                if running_exec:
                    server.user_execs.give_back((self.source, user))
        finally:
            server.sessions.discard(ssh)

    def _refuse_exec(self, ssh: LabSSHSession) -> None:
        """One exec more than `max_user_execs` of this user from this address: refused, in one line
        to the client's standard error and one in the log, exit status 1; nothing runs."""
        cap = self.server.limits.max_user_execs
        ssh.channel.write_stderr(f"ERROR: {cap} commands of user {self.user} from this address are running "
                                 "already; try again when one has finished.\n")
        who = fields(user=self.user, router=self.router, peer=self.peer)
        self.server.rate_limited.error("max_user_execs", f"exec refused {who}: {cap} running already")
        ssh.finish(1)


MakeServer = Callable[[SerializedStore, asyncssh.SSHKey, ListenersChanged], LabServer]


def _lab_server(store: SerializedStore, host_key: asyncssh.SSHKey, on_change: ListenersChanged) -> LabServer:
    return LabServer(store, host_key, on_change=on_change)


async def serve_lab(store: SerializedStore, host_key: asyncssh.SSHKey, host: str, base_port: int,
                    out: TextIO, stop: asyncio.Event | None = None, reuse_port: bool = False,
                    make_server: MakeServer = _lab_server) -> int:
    """Serve until SIGINT/SIGTERM (or `stop` is set); print one line per router to `out`.
    `make_server` makes the server (a class's serves each login in its own lab)."""
    def show(listeners: list[Listener]) -> None:
        width = max(len(listener.router) for listener in listeners) if listeners else 0
        out.writelines(f"{listener.router:<{width}}  ssh -p {listener.port} USER@{listener.host}"
                       f"  ({listener.address})\n" for listener in listeners)
        out.flush()

    server = make_server(store, host_key, show)
    server.reuse_port = reuse_port
    if reuse_port:  # one of several workers: one password thread each, so hashes never take every core
        server.auth_pool.shutdown()
        server.auth_pool = ThreadPoolExecutor(1, thread_name_prefix="ssh-auth")
    try:
        listeners = await server.start(host, base_port)
    except ListenError as exc:
        out.flush()
        sys.stderr.write(f"solace-shell: cannot listen on {host} port {exc.port}: {exc.reason}\n")
        return 2
    if not listeners:
        await server.stop()
        sys.stderr.write("solace-shell: the lab has no routers to serve over SSH\n")
        return 2
    stop = stop or asyncio.Event()
    loop = asyncio.get_running_loop()
    for signum in (signal.SIGINT, signal.SIGTERM):
        loop.add_signal_handler(signum, stop.set)
    unwatch = watch_parent(stop.set) if reuse_port else None  # a worker ends with its parent
    show(listeners)
    try:
        await stop.wait()
    finally:
        if unwatch is not None:
            unwatch()
        try:
            await server.stop()
        finally:
            for signum in (signal.SIGINT, signal.SIGTERM):
                loop.remove_signal_handler(signum)
    return 0


def run_server(lab_path: Path, host: str, base_port: int, out: TextIO, reuse_port: bool = False) -> int:
    """Open the lab and its host key, serve it until stopped; the exit status. With `reuse_port`
    this process is one of several workers listening on the same ports (`workers.run_workers`)."""
    try:
        host_key = load_or_create_host_key(host_key_path_for(lab_path))
    except HostKeyError as exc:
        sys.stderr.write(f"solace-shell: cannot use SSH host key {exc.path}: {exc.problem}\n")
        return 2
    store = SerializedStore.open(lab_path)
    assert isinstance(store, SerializedStore)
    _raise_descriptor_limit()
    try:
        return run_on_server_loop(serve_lab(store, host_key, host, base_port, out, reuse_port=reuse_port))
    finally:
        store.close()


def _raise_descriptor_limit() -> None:
    """Take the open-files limit up to its hard limit: each session holds a socket and a pipe."""
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    if soft != resource.RLIM_INFINITY and (hard == resource.RLIM_INFINITY or soft < hard):
        try:
            resource.setrlimit(resource.RLIMIT_NOFILE, (hard, hard))
        except (ValueError, OSError):
            pass  # kept as it is; max_startups still bounds the connections not logged in
