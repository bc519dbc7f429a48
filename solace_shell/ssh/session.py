"""One SSH session channel: the interactive shell (the same `Repl` as the local terminal) or an exec
request (one-shot commands, as `solace-shell -c` runs them).

Built on prompt_toolkit's SSH support: `PromptToolkitSSHSession` gives each channel its own
prompt_toolkit app session whose input is the channel's data and whose output is sized from the
client's window (and redrawn when the client resizes it). This module adds the exec request, which
prompt_toolkit does not handle, the exit status, and the session's walls:

- A failure anywhere in a session (a command, a key binding, a redraw) ends that session alone,
  with one log line and exit status 1. prompt_toolkit's own handling of an unexpected exception
  prints it and waits for Enter on the process's terminal, which for a server is its own stdin:
  a session's key handling is guarded here so that nothing of the kind ever runs.
- The client's terminal size is clamped (`MAX_TERMINAL_COLUMNS` x `MAX_TERMINAL_ROWS`): prompt_toolkit
  allocates its screen from it.
- Output to a client is bounded: when the client stops reading, the session stops reading its keys
  (it makes no new output), and a client that reads nothing for `stall_seconds` is dropped; a
  backlog over `MAX_BACKLOG_BYTES` drops it at once.
- Input from a client is bounded and never blocks the event loop: its keys wait in the session's
  `ChannelInput` (the channel is not read while too many wait), which the prompt reads a little at
  each pass of the event loop, so one client sending keys as fast as it can delays no other.
  An exec's standard input is read and dropped (its commands are the request's).
- An exec ends when its channel closes (the client went away, or the server stops): the command
  running finishes in its thread, and no other starts. Its output goes to the client a command at
  a time, waiting while the client's backlog is over the high mark.
"""

from __future__ import annotations

import asyncio
import contextvars
import io
import logging
import os
import re
from collections.abc import Callable, Coroutine
from dataclasses import dataclass
from pathlib import Path
from typing import Any, TextIO, cast

from prompt_toolkit.application.current import create_app_session
from prompt_toolkit.contrib.ssh import PromptToolkitSSHSession
from prompt_toolkit.data_structures import Size
from prompt_toolkit.output.vt100 import Vt100_Output

from state_store.user_files import reading_for_transcript

from ..banner import interactive_banner
from ..lab import EntryRefused, Lab, UnknownUser
from ..repl import Repl
from ..script import run_commands
from .channel_input import QUEUE_HIGH_CHARS, ChannelInput
from .logfields import fields, one_line
from .store import SerializedStore

log = logging.getLogger(__name__)

# Terminal sizes a client may ask for (pty-req, window-change); 0 (unknown) means 80 x 24.
MAX_TERMINAL_COLUMNS = 1000
MAX_TERMINAL_ROWS = 1000
DEFAULT_TERMINAL = Size(rows=24, columns=80)
# Output waiting for a client: past the high mark the session stops reading the client's keys.
BACKLOG_HIGH_BYTES = 256 * 1024
BACKLOG_LOW_BYTES = 64 * 1024
# A backlog this large drops the client at once (one command's output is far smaller).
MAX_BACKLOG_BYTES = 16 * 1024 * 1024
# A client that reads nothing of its backlog for this long is dropped.
STALL_SECONDS = 60.0

# The session whose code is running: set in each session's task, so that an exception the event
# loop reports (a callback of that session's prompt_toolkit app) can be charged to it.
current_session: contextvars.ContextVar[LabSSHSession | None] = contextvars.ContextVar(
    "current_ssh_session", default=None)


def clamp_size(columns: int, rows: int) -> Size:
    """The size the session draws for: the client's, within 1..1000 each way (0: 80 x 24)."""
    columns = columns or DEFAULT_TERMINAL.columns
    rows = rows or DEFAULT_TERMINAL.rows
    return Size(rows=max(1, min(rows, MAX_TERMINAL_ROWS)), columns=max(1, min(columns, MAX_TERMINAL_COLUMNS)))


class SessionFailed(Exception):
    """Ends a session whose key handling or drawing raised (the cause is logged, once)."""


@dataclass(frozen=True)
class Login:
    """Who is on this connection, and where: the lab user and the router of the port."""

    user: str
    router: str
    peer: str


CPR_REQUEST = "\x1b[6n"
CPR_REPLY = re.compile(r"\x1b\[\d+;\d+R")
# How long a new shell waits for the client's terminal to report its cursor position.
CPR_PROBE_SECONDS = 0.5


class LabSSHSession(PromptToolkitSSHSession):
    """A prompt_toolkit SSH session that also accepts an exec request (`ssh host 'show hostname'`)
    and asks the client's terminal once whether it reports its cursor position.

    Why the probe: prompt_toolkit draws the bottom toolbar and sizes the completion menu only when
    the terminal answers cursor position requests (as a local terminal, OpenSSH in xterm or PuTTY
    do); a client that never answers (paramiko scripts, netmiko, expect) would make every prompt
    wait a second for the answer. So a shell starts with one request: an answer within
    `cpr_probe_seconds` turns them on, silence leaves them off. Keys typed meanwhile are kept.
    """

    def __init__(self, interact: Callable[[PromptToolkitSSHSession], Coroutine[Any, Any, None]],
                 cpr_probe_seconds: float = CPR_PROBE_SECONDS, stall_seconds: float = STALL_SECONDS) -> None:
        super().__init__(interact, enable_cpr=False)
        self.cpr_probe_seconds = cpr_probe_seconds
        self.stall_seconds = stall_seconds
        self.command: str | None = None
        self.channel: Any = None
        self.who = ""  # the log fields naming this session's user, router and peer
        self.failed = False
        self.keys = ChannelInput(lambda hold: self._hold_reading("input", hold), self.fail)
        self._probe: asyncio.Future[None] | None = None
        self._typed = ""  # input that arrived before the shell could read it
        self._lost = False
        self._stalled: asyncio.TimerHandle | None = None
        self._holds: set[str] = set()  # why the channel is not read now: "input", "output", "probe"
        self._drained: asyncio.Future[None] | None = None  # awaited while the output is held
        self._loop: asyncio.AbstractEventLoop | None = None  # the loop the channel lives on
        self.stdout = cast(TextIO, _ChannelWriter(self))

    def connection_made(self, chan: Any) -> None:
        super().connection_made(chan)
        self.channel = chan
        self._loop = asyncio.get_running_loop()
        chan.set_write_buffer_limits(high=BACKLOG_HIGH_BYTES, low=BACKLOG_LOW_BYTES)

    def _get_size(self) -> Size:
        if self.channel is None:
            return DEFAULT_TERMINAL
        columns, rows, _, _ = self.channel.get_terminal_size()
        return clamp_size(columns, rows)

    def _hold_reading(self, reason: str, hold: bool) -> None:
        """Stop reading the channel while any reason holds it (keys waiting, output waiting, the
        terminal probe); read it again when none does. SSH flow control then makes the client wait."""
        was = bool(self._holds)
        if hold:
            self._holds.add(reason)
        else:
            self._holds.discard(reason)
        if was == bool(self._holds) or self.channel is None or self._lost:
            return
        if self._holds:
            self.channel.pause_reading()
        else:
            self.channel.resume_reading()  # delivers what asyncssh kept meanwhile, at once

    # -- output to the client, bounded --------------------------------------------------------------
    def send(self, text: str) -> None:
        """Write to the client; a backlog beyond `MAX_BACKLOG_BYTES` drops the client.

        Callable from any thread: asyncssh encrypts and sends a packet as it is written, so a
        write from a worker thread (a shell's prompt_toolkit application resets its screen as it
        is built there) would race the loop's own writes and corrupt the connection's stream; it
        is handed to the loop instead, in order."""
        if self._loop is not None and not _on_loop(self._loop):
            self._loop.call_soon_threadsafe(self.send, text)
            return
        if self.channel is None or self._lost:
            return
        try:
            self.channel.write(text)
        except (BrokenPipeError, OSError):  # the channel is closing: nothing more to say
            return
        if self.channel.get_write_buffer_size() > MAX_BACKLOG_BYTES:
            self.drop(f"output backlog over {MAX_BACKLOG_BYTES} bytes")

    def pause_writing(self) -> None:
        """The client's backlog passed the high mark: stop taking its keys (no new output) and
        drop it if it reads nothing for `stall_seconds`."""
        if self.channel is None:
            return
        self._hold_reading("output", True)
        if self._drained is None:
            self._drained = asyncio.get_running_loop().create_future()
        if self._stalled is None:
            self._stalled = asyncio.get_running_loop().call_later(
                self.stall_seconds, self.drop, f"client read no output for {self.stall_seconds:g} s")

    def resume_writing(self) -> None:
        if self._stalled is not None:
            self._stalled.cancel()
            self._stalled = None
        self._release_drained()
        self._hold_reading("output", False)

    def _release_drained(self) -> None:
        if self._drained is not None:
            if not self._drained.done():
                self._drained.set_result(None)
            self._drained = None

    async def drained(self) -> None:
        """Return once the client's backlog is below the low mark (at once when it is), or the
        channel is gone."""
        if self._drained is not None and not self._lost:
            await asyncio.shield(self._drained)

    def drop(self, why: str) -> None:
        """Close this session's connection (a client that does not read its output)."""
        log.warning("dropped %s: %s", self.who, why)
        self._stalled = None
        if self.channel is not None:
            self.channel.get_extra_info("connection").abort()

    # -- failures -----------------------------------------------------------------------------------
    def fail(self, exc: BaseException) -> None:
        """Something of this session raised: log it in one line and end this session only."""
        if self.failed:
            return
        self.failed = True
        log.error("session failed %s: %s", self.who, one_line(exc))
        task = self.interact_task
        if task is not None and not task.done() and task is not asyncio.current_task():
            task.cancel()

    async def _interact(self) -> None:
        """prompt_toolkit's, with the session's own input (`ChannelInput`) and every way out of the
        session (logout, failure, lost connection, server stop) ending with the channel closed."""
        chan = self._chan
        assert chan is not None  # asyncssh starts a session only once its channel is made
        current_session.set(self)
        self._output = Vt100_Output(self.stdout, self._get_size, term=chan.get_terminal_type(),
                                    enable_cpr=self.enable_cpr)
        try:
            with create_app_session(input=self.keys, output=self._output) as app_session:
                self.app_session = app_session
                await self.interact(self)
        except asyncio.CancelledError:
            if self.failed:
                self.finish(1)
        except Exception as exc:  # noqa: BLE001  one session's failure ends that session only
            self.fail(exc)
            self.finish(1)
        finally:
            self.keys.forget()
            chan.close()

    def finish(self, status: int) -> None:
        """Send the exit status and close the channel (nothing if it is closed already)."""
        try:
            self.channel.exit(status)
        except (BrokenPipeError, OSError):
            pass

    def session_started(self) -> None:
        if self.command is not None or not self.has_terminal:
            super().session_started()
            return
        self._probe = asyncio.get_running_loop().create_future()
        self.channel.write(CPR_REQUEST)
        self.interact_task = asyncio.get_running_loop().create_task(self._probe_then_interact())

    async def _probe_then_interact(self) -> None:
        assert self._probe is not None
        try:
            await asyncio.wait_for(self._probe, self.cpr_probe_seconds)
            self.enable_cpr = True
        except TimeoutError:
            self.enable_cpr = False
        self._probe = None
        self.deliver_typeahead()  # before any key that comes next
        if not self._lost:
            await self._interact()
        elif self.channel is not None:
            self.channel.close()

    def data_received(self, data: str, datatype: object) -> None:
        if self.command is not None:
            return  # an exec's standard input: read, and dropped (its commands are the request's)
        if self._probe is not None:
            self._typed += data
            reply = CPR_REPLY.search(self._typed)
            if reply is not None:
                self._typed = self._typed[:reply.start()] + self._typed[reply.end():]
                if not self._probe.done():
                    self._probe.set_result(None)
            if len(self._typed) > QUEUE_HIGH_CHARS:
                self._hold_reading("probe", True)
            return
        self.keys.feed(data)

    def deliver_typeahead(self) -> None:
        """Queue what was typed while the probe waited, for the shell to read first."""
        typed, self._typed = self._typed, ""
        self.keys.feed(typed)
        self._hold_reading("probe", False)

    def connection_lost(self, exc: Exception | None) -> None:
        """The client went away (or the server is stopping): a shell ends as after Ctrl-D, so the
        session's task finishes instead of waiting for input that will never come (what it had
        not read yet is dropped); an exec is cancelled."""
        self._lost = True
        if self._stalled is not None:
            self._stalled.cancel()
            self._stalled = None
        self._release_drained()
        self.keys.close(discard=True)
        task = self.interact_task
        if self.command is not None and task is not None and not task.done():
            task.cancel()

    def eof_received(self) -> bool:
        """The client sends no more input (paramiko's exec_command does so at once): the shell
        reads what was sent, then ends as after Ctrl-D, while the channel stays open for the
        output still to come."""
        self.keys.feed(self._typed)  # what the probe kept, if it waits still
        self._typed = ""
        self.keys.close()
        return True

    def exec_requested(self, command: str) -> bool:
        self.command = command
        return True

    @property
    def has_terminal(self) -> bool:
        """Did the client ask for a pseudo-terminal (interactive ssh, PuTTY, paramiko invoke_shell)?"""
        return self.channel is not None and self.channel.get_terminal_type() is not None


def _on_loop(loop: asyncio.AbstractEventLoop) -> bool:
    """Is this code running on `loop`'s thread, inside it?"""
    try:
        return asyncio.get_running_loop() is loop
    except RuntimeError:
        return False


class _ChannelWriter:
    """The session's stdout for prompt_toolkit and the shell: text with CR LF line ends, written
    through `LabSSHSession.send` (bounded)."""

    def __init__(self, session: LabSSHSession) -> None:
        self._session = session

    def write(self, data: str) -> int:
        self._session.send(data.replace("\n", "\r\n"))
        return len(data)

    def isatty(self) -> bool:
        return True

    def flush(self) -> None:
        pass

    @property
    def encoding(self) -> str:
        return "utf-8"


async def run_session(ssh: LabSSHSession, store: SerializedStore, login: Login) -> None:
    """Serve one channel until the user logs out; the channel's exit status is the shell's."""
    try:
        lab = await asyncio.to_thread(Lab, store, login.user)
    except UnknownUser:  # the user was removed (lab> reset) between login and this channel
        _write(ssh, f"ERROR: No CLI user '{login.user}' in this lab any more.\n")
        ssh.finish(1)
        return
    with reading_for_transcript(lab_directory(store), holder="lab"):
        if ssh.command is not None:
            status = await run_exec(ssh, lab, login)
        else:
            status = await run_shell(ssh, lab, login)
    ssh.finish(1 if ssh.failed else status)


def lab_directory(store: SerializedStore) -> Path:
    """Where the files an SSH user names (`lab> reset SCENARIO`, `lab> grade RUNBOOK`) must lie:
    the lab file's directory (the server's working directory for a lab with no file). An SSH user
    is a user of the lab, not of the server's machine: a path outside it is refused, as a
    replaying transcript's is outside its own tree."""
    path = store.path
    if path and os.path.isfile(path):
        return Path(os.path.realpath(path)).parent
    return Path.cwd()


async def run_shell(ssh: LabSSHSession, lab: Lab, login: Login) -> int:
    """The interactive shell: the start banner, then the local REPL's own loop on this channel."""
    banner = await asyncio.to_thread(_banner, store_of(lab), login.router if login.router in lab.systems() else None)
    ssh.stdout.write(banner)
    app_session = ssh.app_session
    assert app_session is not None  # set by PromptToolkitSSHSession before it calls us
    terminal = ssh.has_terminal
    # Built in a worker thread: the shell reads the lab (its clock) under the lab lock, which the
    # event loop must never wait for.
    try:
        repl = await asyncio.to_thread(
            lambda: Repl(lab, login.router, history_path=None, input=app_session.input, output=app_session.output,
                         stdout=ssh.stdout, paging=terminal, colour=terminal))
    except EntryRefused as refused:
        _write(ssh, f"{refused}\n")
        return 1
    for prompt_session in repl.prompt_sessions:
        # Drawn at the event loop's next pass. prompt_toolkit otherwise puts a redraw off while
        # other work is ready (up to 10 ms, rescheduling it at each pass): on a server where other
        # sessions always have work ready, that is every redraw, each waiting and spinning.
        prompt_session.app.max_render_postpone_time = None
    return await repl.run_async()


async def run_exec(ssh: LabSSHSession, lab: Lab, login: Login) -> int:
    """`ssh -p N host 'show hostname'`: each line of the command runs as a `-c` command would; the
    exit status is 1 when one failed. The real broker may not offer exec requests.

    One command at a time in a worker thread, its output sent before the next starts (and only
    once the client has read its backlog down), so an exec never holds a thread waiting for its
    client, and a closed channel (`LabSSHSession.connection_lost` cancels this) stops it between
    two commands."""
    who = fields(user=login.user, router=login.router, peer=login.peer)
    lines = [line for line in (ssh.command or "").splitlines() if line.strip()]
    status = 0
    try:
        try:
            await asyncio.to_thread(lab.enter, login.router)
        except EntryRefused as refused:
            _write(ssh, f"{refused}\n")
            lines, status = [], 1
        for line in lines:
            out = io.StringIO()
            status = max(status, await asyncio.to_thread(run_commands, lab, login.router, [line], out))
            _write(ssh, out.getvalue())
            await ssh.drained()
    except asyncio.CancelledError:
        log.info("exec %s cancelled: the channel closed", who)
        raise
    log.info("exec %s status=%d", who, status)
    return status


def store_of(lab: Lab) -> SerializedStore:
    store = lab.store
    assert isinstance(store, SerializedStore)
    return store


def _banner(store: SerializedStore, system: str | None = None) -> str:
    """The start banner: the router's, or the HA system's CLI's when the port is that CLI's."""
    if system is not None:
        from ..personalities.plugin import shell

        return shell(system).banner
    with store.transaction() as engine:
        return interactive_banner(engine.settings())


def _write(ssh: LabSSHSession, text: str) -> None:
    """Write to the client: with a terminal, line ends are CR LF; without one, text as a pipe gets it."""
    if ssh.has_terminal:
        ssh.stdout.write(text)  # prompt_toolkit's channel writer turns \n into \r\n
    else:
        ssh.send(text)
