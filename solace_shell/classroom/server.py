"""`solace-shell class serve`: the SSH server of `serve`, where each login lands in its own lab.

The listeners, the login (password or key, the guard's delays and lock-outs), the sessions and the
limits are `serve`'s (`ssh.server.LabServer`); this server changes what a login is checked against
(the class file's trainers and trainees, not a lab's users) and where it lands (`run_login`):

- a trainee lands in their own lab (their team's), as a read-write user whose lab console runs only
  the class's verbs (`class_lab.ClassLab`), every line recorded;
- a trainer lands in the class console (`console.TrainerConsole`);
- a trainee outside the class's window is told so in one line, and the session ends.

The routers served are the class scenario's (with one scenario per team: every router any of them
has, in order), on `--port` and up; the pre-authentication line and the SSH limits are the first
scenario's.
"""

from __future__ import annotations

import asyncio
import functools
import io
import logging
import sys
import time
from collections import Counter
from datetime import datetime, timezone
from pathlib import Path
from typing import TYPE_CHECKING, Any, TextIO

import asyncssh
from sqlalchemy.exc import SQLAlchemyError

from state_store.errors import LabFileError
from state_store.passwords import hash_password

from ..ssh.eventloop import run as run_on_server_loop
from ..ssh.hostkey import HostKeyError, host_key_path_for, load_or_create_host_key
from ..ssh.logfields import fields, one_line
from ..ssh.server import LabServer, Listener, ListenError, ListenersChanged, serve_lab
from ..ssh.session import LabSSHSession, Login, run_exec, run_shell
from ..ssh.store import SerializedStore
from .class_file import ClassFile
from .class_lab import ClassLab
from .console import TrainerConsole
from .room import ClassRoom

if TYPE_CHECKING:
    from .web.options import WebOptions
    from .web.serve import WebServer

log = logging.getLogger(__name__)

WATCH_POLL_SECONDS = 0.5
IDLE_CHECK_SECONDS = 15.0


def class_targets(class_file: ClassFile) -> list[str]:
    """Every router and HA CLI any of the class's scenarios has, the first scenario's first."""
    from state_store.lab_store import LabStore

    names: list[str] = []
    for scenario in dict.fromkeys(class_file.scenarios.values()):
        store: LabStore[Any, Any] = LabStore.in_memory(scenario)
        try:
            names += store.run(lambda engine: [r.name for r in engine.routers()] + list(engine.system_names()))
        finally:
            store.close()
    return list(dict.fromkeys(names))


class ClassServer(LabServer):
    def __init__(self, room: ClassRoom, store: SerializedStore, host_key: asyncssh.SSHKey,
                 on_change: ListenersChanged | None = None) -> None:
        super().__init__(store, host_key, on_change=on_change)
        self.room = room
        self._hashes: dict[str, str] = {}
        self._targets = class_targets(room.class_file)
        self.online: Counter[str] = Counter()  # class name -> open sessions in this process
        self.trainee_sessions: dict[LabSSHSession, ClassLab] = {}
        self.idle_check_seconds = IDLE_CHECK_SECONDS
        self._idle_task: asyncio.Task[None] | None = None
        self.web_options: WebOptions | None = None  # the trainer's class view in a browser, when set
        self.web: WebServer | None = None
        self.web_out: TextIO | None = None      # where the class view's address is printed

    def routers(self) -> list[tuple[str, int]]:
        found = super().routers()
        have = {name for name, _ in found}
        return found + [(name, 0) for name in self._targets if name not in have]

    async def start(self, host: str, base_port: int) -> list[Listener]:
        await self.hash_passwords()
        listeners = await super().start(host, base_port)
        if self.web_options is not None:
            from .web.serve import start_web

            try:
                self.web = await start_web(self, host, self.web_options)
            except OSError as exc:
                await super().stop()
                raise ListenError(self.web_options.port, one_line(exc)) from exc
            if self.web_out is not None:
                self.web_out.write(f"class view  {self.web.url}\n")
        if self.room.class_file.window.idle_minutes is not None:
            self._idle_task = asyncio.create_task(self._log_out_idle())
        return listeners

    async def stop(self) -> None:
        if self._idle_task is not None:
            self._idle_task.cancel()
            self._idle_task = None
        if self.web is not None:
            await self.web.stop()
            self.web = None
        await super().stop()

    async def _log_out_idle(self) -> None:
        """Close the trainee sessions that ran no line for the class's idle timeout."""
        minutes = self.room.class_file.window.idle_minutes
        assert minutes is not None
        while True:
            await asyncio.sleep(self.idle_check_seconds)
            now = time.monotonic()
            for ssh, lab in list(self.trainee_sessions.items()):
                if now - lab.last_active >= minutes * 60:
                    log.info("idle, logged out %s", ssh.who)
                    _say(ssh, f"\n% no command for {minutes} minute(s): logged out")
                    if ssh.channel is not None:
                        ssh.channel.get_extra_info("connection").close()

    async def hash_passwords(self) -> None:
        """Each member's password hashed once, at start (in the password threads): a login then
        costs one hash whether the name is a member's or not."""
        loop = asyncio.get_running_loop()
        members = [*self.room.class_file.trainers, *self.room.class_file.trainees]
        hashes = await asyncio.gather(*(loop.run_in_executor(self.auth_pool, hash_password, m.password)
                                        for m in members))
        self._hashes = {m.name: h for m, h in zip(members, hashes, strict=True)}

    def password_hash(self, user: str) -> str | None:
        return self._hashes.get(user)

    def accepts_key(self, user: str, key: asyncssh.SSHKey) -> bool:
        member = self.room.class_file.member(user)
        if member is None:
            return False
        return any(asyncssh.import_public_key(line).public_data == key.public_data for line in member.ssh_keys)

    async def run_login(self, ssh: LabSSHSession, login: Login) -> None:
        """A trainer to the class console, a trainee to their own lab (within the window)."""
        self.online[login.user] += 1
        member = self.room.class_file.trainee(login.user)
        if member is not None:  # a tile shows who is online
            self.room.changed(member.lab)
        try:
            if self.room.class_file.is_trainer(login.user):
                status = await self._trainer(ssh, login)
            else:
                status = await self._trainee(ssh, login)
            ssh.finish(1 if ssh.failed else status)
        finally:
            self.online[login.user] -= 1
            if member is not None:
                self.room.changed(member.lab)

    async def _trainee(self, ssh: LabSSHSession, login: Login) -> int:
        member = self.room.class_file.trainee(login.user)
        if member is None:  # not in the class file any more (cannot happen while it is loaded)
            _say(ssh, "% you are not in this class")
            return 1
        outside = self.room.class_file.window.refusal(datetime.now(timezone.utc))
        if outside is not None:
            log.info("login outside the window %s", fields(user=login.user, router=login.router, peer=login.peer))
            _say(ssh, f"% {outside}")
            return 1
        door = "exec" if ssh.command is not None else "shell"
        lab = await asyncio.to_thread(self.room.trainee_lab, member, door)
        if login.router not in lab.targets():
            _say(ssh, f"% lab {member.lab} has no {login.router}")
            return 1
        await asyncio.to_thread(self.room.record.add_note, lab=member.lab, member=member.name, by=member.name,
                                kind="login", text=f"{door} {login.router} {login.peer}")
        if ssh.command is not None:
            return await run_exec(ssh, lab, login)
        self.trainee_sessions[ssh] = lab
        try:
            return await run_shell(ssh, lab, login)
        finally:
            self.trainee_sessions.pop(ssh, None)

    async def _trainer(self, ssh: LabSSHSession, login: Login) -> int:
        console = TrainerConsole(self.room, login.user, lambda name: self.online[name])
        if ssh.command is not None:
            failed = False
            out = io.StringIO()
            for line in ssh.command.splitlines():
                if line.strip():
                    text, ok = await asyncio.to_thread(console.run, line)
                    failed = failed or not ok
                    if text:
                        out.write(text + "\n")
            ssh.send(out.getvalue() if not ssh.has_terminal else out.getvalue().replace("\n", "\r\n"))
            return 1 if failed else 0
        return await _trainer_shell(ssh, console)


async def _trainer_shell(ssh: LabSSHSession, console: TrainerConsole) -> int:
    from prompt_toolkit import PromptSession
    from prompt_toolkit.history import InMemoryHistory

    ssh.deliver_typeahead()
    ssh.stdout.write(f"Class console ({len(console.room.class_file.trainees)} trainees). "
                     "Type help for the commands.\n")
    session: PromptSession[str] = PromptSession(history=InMemoryHistory())
    while True:
        try:
            line = await session.prompt_async(console.prompt)
        except (EOFError, KeyboardInterrupt):
            return 0
        words = line.split()
        if words[:1] in (["exit"], ["logout"], ["quit"]):
            return 0
        text, ok = await asyncio.to_thread(console.run, line)
        if text:
            ssh.stdout.write(text + "\n")
        if ok and words[:1] == ["watch"] and len(words) == 2:
            await _watch(ssh, session, console, words[1])


async def _watch(ssh: LabSSHSession, session: object, console: TrainerConsole, trainee: str) -> None:
    """Follow the trainee's lab until the trainer presses Enter (read-only: nothing is sent to it)."""
    from prompt_toolkit import PromptSession
    from prompt_toolkit.application import run_in_terminal

    assert isinstance(session, PromptSession)
    after = await asyncio.to_thread(console.last_seq, trainee)

    async def follow() -> None:
        nonlocal after
        while True:
            await asyncio.sleep(WATCH_POLL_SECONDS)
            lines, after = await asyncio.to_thread(console.watch_lines, trainee, after)
            if lines:
                await run_in_terminal(functools.partial(ssh.stdout.write, "\n".join(lines) + "\n"))

    task = asyncio.create_task(follow())
    try:
        await PromptSession[str]().prompt_async(f"(watching {trainee}; Enter stops) ")
    except (EOFError, KeyboardInterrupt):
        pass
    finally:
        task.cancel()


def _say(ssh: LabSSHSession, text: str) -> None:
    ssh.send((text + "\n").replace("\n", "\r\n") if ssh.has_terminal else text + "\n")


def run_class_server(class_file: ClassFile, directory: Path, host: str, base_port: int, out: TextIO,
                     reuse_port: bool = False, web: WebOptions | None = None,
                     database_url: str | None = None) -> int:
    """Serve the class until stopped; the exit status. With `web`, the trainer's class view too;
    with `database_url`, the labs and the record are the shared database's (any host serves any
    trainee)."""
    try:
        host_key = load_or_create_host_key(host_key_path_for(directory / "class"))
    except HostKeyError as exc:
        sys.stderr.write(f"solace-shell: cannot use SSH host key {exc.path}: {exc.problem}\n")
        return 2
    try:
        room = ClassRoom(class_file, directory, database_url)
    except LabFileError as exc:
        sys.stderr.write(f"solace-shell: class database {exc.path}: {exc.problem}\n")
        return 2
    except (OSError, SQLAlchemyError) as exc:
        sys.stderr.write(f"solace-shell: cannot open the class directory {directory}: {one_line(exc)}\n")
        return 2
    template = SerializedStore.in_memory(next(iter(class_file.scenarios.values())))
    assert isinstance(template, SerializedStore)

    def make_server(store: SerializedStore, key: asyncssh.SSHKey, on_change: ListenersChanged) -> LabServer:
        server = ClassServer(room, store, key, on_change)
        server.web_options, server.web_out = web, out
        return server

    try:
        return run_on_server_loop(serve_lab(template, host_key, host, base_port, out, reuse_port=reuse_port,
                                            make_server=make_server))
    finally:
        template.close()
        room.close()
