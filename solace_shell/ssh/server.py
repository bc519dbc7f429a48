"""`solace-shell serve`: the lab's routers over SSH, each on its own port.

- One `SerializedStore` per server process; each connection gets its own `Lab` over it (its user's
  access levels, its own level stack per router), as a second local shell on the same lab file would.
- Login as the broker shows it (captures T20, T21): the product line as the pre-authentication banner,
  then `Password:` (keyboard-interactive; plain password authentication too), checked against the
  lab's CLI users through the engine. An unknown user and a wrong password are refused alike, and
  take the same time. A user the scenario gives `ssh_keys` may log in with one of those keys instead
  (the lab's own convenience for training rooms; no capture shows the broker's).
- Connections are logged (user, router, peer, how the user logged in; the time by the logging
  format), never passwords, keys or commands. SIGINT and SIGTERM close every connection and listener, then the store.
"""

from __future__ import annotations

import asyncio
import logging
import signal
import sys
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any, TextIO

import asyncssh
from prompt_toolkit.contrib.ssh import PromptToolkitSSHServer, PromptToolkitSSHSession

from state_store.passwords import hash_password, verify_password

from ..banner import product_name
from .hostkey import HostKeyError, host_key_path_for, load_or_create_host_key
from .session import CPR_PROBE_SECONDS, LabSSHSession, Login, run_session
from .store import SerializedStore

log = logging.getLogger(__name__)

MAX_PORT = 65535
# A dead client is dropped after about a minute and a half of silence on its TCP connection.
KEEPALIVE_SECONDS = 30
KEEPALIVE_MISSES = 3
# How long a stop waits for sessions to finish (one may be running a long command).
STOP_SECONDS = 30
# How often the server looks whether the lab's routers changed (`lab> reset` to another scenario).
FOLLOW_SECONDS = 1.0
# Checked when a user is unknown, so that refusing one costs what refusing a wrong password does.
_UNKNOWN_USER_HASH = hash_password("not a password of this lab")


def _first_line(exc: BaseException) -> str:
    text = str(exc).strip()
    return text.splitlines()[0] if text else type(exc).__name__


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

    @property
    def listeners(self) -> list[Listener]:
        return [served.listener for served in self._served.values()]

    def routers(self) -> list[tuple[str, int]]:
        """The lab's routers in lab order, each with its port from the scenario (0: none), then the
        CLI of each HA system the lab holds (its target, e.g. `swiftmq`), on the next free ports."""
        with self.store.transaction() as engine:
            return [(r.name, r.ssh_port) for r in engine.routers()] + [(s, 0) for s in engine.system_names()]

    async def start(self, host: str, base_port: int) -> list[Listener]:
        """Listen for each router on its port (`plan_ports`), then follow the lab's routers. Raises
        ListenError when a port cannot be had (nothing is left listening)."""
        self.host, self.base_port = host, base_port
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
                server_host_keys=[self.host_key], line_editor=False,
                keepalive_interval=KEEPALIVE_SECONDS, keepalive_count_max=KEEPALIVE_MISSES)
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
                    log.error("cannot read the lab's routers (still serving the ones before): %s", _first_line(exc))

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
                    log.info("router=%s is no longer in the lab: stopped listening, %d connection(s) closed",
                             router, len(dropped))
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
                log.info("listening router=%s port=%d", listener.router, listener.port)
            if self.on_change is not None:
                self.on_change(self.listeners)
        return changed

    def _refuse(self, plan: tuple[tuple[str, int], ...], exc: ListenError) -> None:
        if plan != self._refused:
            self._refused = plan
            log.error("cannot serve the lab's routers as they are now: port %d: %s", exc.port, exc.reason)

    def verify(self, user: str, password: str) -> bool:
        """The lab's own password check (the engine's), padded to one KDF run for unknown users."""
        with self.store.transaction() as engine:
            known = engine.user(user) is not None
            ok = engine.verify_password(user, password)
        if not known:
            verify_password(password, _UNKNOWN_USER_HASH)
        return known and ok

    def accepts_key(self, user: str, key: asyncssh.SSHKey) -> bool:
        """Whether `key` is one of the user's `ssh_keys` (an unknown user has none)."""
        with self.store.transaction() as engine:
            lines = engine.ssh_keys(user)
        for number, line in enumerate(lines):
            try:
                if asyncssh.import_public_key(line).public_data == key.public_data:
                    return True
            except Exception:  # noqa: BLE001  a lab file edited by hand: that key is no key
                log.warning("user=%s: ssh_keys[%d] in the lab file is not a usable public key; skipped",
                            user, number)
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
        # Each session ends as its client's connection is lost (see LabSSHSession.connection_lost).
        tasks = [s.interact_task for s in self.sessions if s.interact_task is not None]
        if tasks:
            await asyncio.wait(tasks, timeout=STOP_SECONDS)
        self._served.clear()


class RouterConnection(PromptToolkitSSHServer):
    """One client connection to one router's port (asyncssh makes one per connection)."""

    def __init__(self, server: LabServer, router: str) -> None:
        super().__init__(self._interact, enable_cpr=False)
        self.server = server
        self.router = router
        self.user: str | None = None
        self.peer = "?"
        self._method = "password"  # how the user being authenticated proved who they are
        self._conn: Any = None

    # -- connection ------------------------------------------------------------------------------
    def connection_made(self, conn: Any) -> None:
        self._conn = conn
        peer = conn.get_extra_info("peername")
        if peer:
            self.peer = f"{peer[0]}:{peer[1]}"
        self.server.connections.add(self)

    def connection_lost(self, exc: Exception | None) -> None:
        self.server.connections.discard(self)
        if self.user is not None:
            log.info("logout user=%s router=%s peer=%s", self.user, self.router, self.peer)

    def close(self) -> None:
        if self._conn is not None:
            self._conn.close()

    # -- authentication --------------------------------------------------------------------------
    async def begin_auth(self, username: str) -> bool:  # type: ignore[override]  # asyncssh awaits it
        """Show the product line before `Password:`, as the broker does; every user must authenticate."""
        settings = await asyncio.to_thread(self._settings)
        self._conn.send_auth_banner(product_name(settings) + "\n")
        return True

    def _settings(self) -> dict[str, str]:
        with self.server.store.transaction() as engine:
            return engine.settings()

    def password_auth_supported(self) -> bool:
        return True

    async def validate_password(self, username: str, password: str) -> bool:
        ok = await asyncio.to_thread(self.server.verify, username, password)
        if ok:
            self._method = "password"
        else:
            log.info("login refused user=%s router=%s peer=%s", username, self.router, self.peer)
        return ok

    def public_key_auth_supported(self) -> bool:
        return True

    async def validate_public_key(self, username: str, key: asyncssh.SSHKey) -> bool:
        """Asked once per key the client offers (an OpenSSH client offers all of its keys, then asks
        for the password): a key that is not the user's is not a refused login, so it is not logged.
        asyncssh checks the client's signature with the key afterwards."""
        ok = await asyncio.to_thread(self.server.accepts_key, username, key)
        if ok:
            self._method = "publickey"
        return ok

    def auth_completed(self) -> None:
        self.user = self._conn.get_extra_info("username")
        log.info("login user=%s router=%s peer=%s method=%s", self.user, self.router, self.peer, self._method)

    # -- sessions --------------------------------------------------------------------------------
    def session_requested(self) -> LabSSHSession:
        session = LabSSHSession(self._interact, self.server.cpr_probe_seconds)
        self.server.sessions.add(session)
        return session

    async def _interact(self, ssh: PromptToolkitSSHSession) -> None:
        assert isinstance(ssh, LabSSHSession)  # made by session_requested
        assert self.user is not None  # asyncssh opens sessions only after authentication
        try:
            await run_session(ssh, self.server.store, Login(self.user, self.router, self.peer))
        except Exception:  # one session's failure must not reach the others or the server
            log.exception("session of user=%s router=%s failed", self.user, self.router)
            ssh.channel.exit(1)
        finally:
            self.server.sessions.discard(ssh)


async def serve_lab(store: SerializedStore, host_key: asyncssh.SSHKey, host: str, base_port: int,
                    out: TextIO, stop: asyncio.Event | None = None) -> int:
    """Serve until SIGINT/SIGTERM (or `stop` is set); print one line per router to `out`."""
    def show(listeners: list[Listener]) -> None:
        width = max(len(listener.router) for listener in listeners) if listeners else 0
        out.writelines(f"{listener.router:<{width}}  ssh -p {listener.port} USER@{listener.host}"
                       f"  ({listener.address})\n" for listener in listeners)
        out.flush()

    server = LabServer(store, host_key, on_change=show)
    try:
        listeners = await server.start(host, base_port)
    except ListenError as exc:
        out.flush()
        sys.stderr.write(f"solace-shell: cannot listen on {host} port {exc.port}: {exc.reason}\n")
        return 2
    stop = stop or asyncio.Event()
    loop = asyncio.get_running_loop()
    for signum in (signal.SIGINT, signal.SIGTERM):
        loop.add_signal_handler(signum, stop.set)
    show(listeners)
    try:
        await stop.wait()
    finally:
        for signum in (signal.SIGINT, signal.SIGTERM):
            loop.remove_signal_handler(signum)
        await server.stop()
    return 0


def run_server(lab_path: Path, host: str, base_port: int, out: TextIO) -> int:
    """Open the lab and its host key, serve it until stopped; the exit status."""
    try:
        host_key = load_or_create_host_key(host_key_path_for(lab_path))
    except HostKeyError as exc:
        sys.stderr.write(f"solace-shell: cannot use SSH host key {exc.path}: {exc.problem}\n")
        return 2
    store = SerializedStore.open(lab_path)
    assert isinstance(store, SerializedStore)
    try:
        return asyncio.run(serve_lab(store, host_key, host, base_port, out))
    finally:
        store.close()
