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
"""

from __future__ import annotations

import asyncio
import contextvars
import io
import logging
import re
from collections.abc import Callable, Coroutine
from contextlib import AbstractContextManager
from dataclasses import dataclass
from typing import Any, TextIO, cast

from prompt_toolkit.application.current import create_app_session
from prompt_toolkit.contrib.ssh import PromptToolkitSSHSession
from prompt_toolkit.data_structures import Size
from prompt_toolkit.input.posix_pipe import PosixPipeInput, _Pipe
from prompt_toolkit.output.vt100 import Vt100_Output

from ..banner import interactive_banner
from ..lab import EntryRefused, Lab, UnknownUser
from ..repl import Repl
from ..script import run_commands
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


class _GuardedPipeInput(PosixPipeInput):
    """The session's key input: an exception while its keys are handled (a key binding, the
    line's accept handler) goes to `on_failure`, not to the event loop's exception handler."""

    def __init__(self, pipe: _Pipe, on_failure: Callable[[BaseException], None]) -> None:
        super().__init__(_pipe=pipe)
        self._on_failure = on_failure

    def attach(self, input_ready_callback: Callable[[], None]) -> AbstractContextManager[None]:
        def guarded() -> None:
            try:
                input_ready_callback()
            except Exception as exc:  # noqa: BLE001  charged to this session alone
                self._on_failure(exc)

        return super().attach(guarded)


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
        self._probe: asyncio.Future[None] | None = None
        self._typed = ""  # input that arrived before the shell could read it
        self._eof = False
        self._lost = False
        self._stalled: asyncio.TimerHandle | None = None
        self.stdout = cast(TextIO, _ChannelWriter(self))

    def connection_made(self, chan: Any) -> None:
        super().connection_made(chan)
        self.channel = chan
        chan.set_write_buffer_limits(high=BACKLOG_HIGH_BYTES, low=BACKLOG_LOW_BYTES)

    def _get_size(self) -> Size:
        if self.channel is None:
            return DEFAULT_TERMINAL
        columns, rows, _, _ = self.channel.get_terminal_size()
        return clamp_size(columns, rows)

    # -- output to the client, bounded --------------------------------------------------------------
    def send(self, text: str) -> None:
        """Write to the client; a backlog beyond `MAX_BACKLOG_BYTES` drops the client."""
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
        self.channel.pause_reading()
        if self._stalled is None:
            self._stalled = asyncio.get_running_loop().call_later(
                self.stall_seconds, self.drop, f"client read no output for {self.stall_seconds:g} s")

    def resume_writing(self) -> None:
        if self._stalled is not None:
            self._stalled.cancel()
            self._stalled = None
        if self.channel is not None and not self._lost:
            self.channel.resume_reading()

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
        """prompt_toolkit's, with the input guarded (see `_GuardedPipeInput`) and every way out of
        the session (logout, failure, lost connection, server stop) ending with the channel closed."""
        chan = self._chan
        assert chan is not None  # asyncssh starts a session only once its channel is made
        current_session.set(self)
        self._output = Vt100_Output(self.stdout, self._get_size, term=chan.get_terminal_type(),
                                    enable_cpr=self.enable_cpr)
        pipe = _Pipe()
        try:
            self._input = _GuardedPipeInput(pipe, self.fail)
            with create_app_session(input=self._input, output=self._output) as app_session:
                self.app_session = app_session
                await self.interact(self)
        except asyncio.CancelledError:
            if self.failed:
                self.finish(1)
        except Exception as exc:  # noqa: BLE001  one session's failure ends that session only
            self.fail(exc)
            self.finish(1)
        finally:
            if self._input is not None:
                self._input.close()
            pipe.close()
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
        if not self._lost:
            await self._interact()
        elif self.channel is not None:
            self.channel.close()

    def data_received(self, data: str, datatype: object) -> None:
        if self._probe is not None:
            self._typed += data
            reply = CPR_REPLY.search(self._typed)
            if reply is not None:
                self._typed = self._typed[:reply.start()] + self._typed[reply.end():]
                if not self._probe.done():
                    self._probe.set_result(None)
            return
        super().data_received(data, datatype)

    def deliver_typeahead(self) -> None:
        """Hand the shell what was typed (or an EOF sent) while the probe waited."""
        if self._input is None:
            return
        if self._typed:
            self._input.send_text(self._typed)
            self._typed = ""
        if self._eof:
            self._input.close()

    def connection_lost(self, exc: Exception | None) -> None:
        """The client went away (or the server is stopping): end the shell as Ctrl-D would, so the
        session's task finishes instead of waiting for input that will never come."""
        self._lost = True
        if self._stalled is not None:
            self._stalled.cancel()
            self._stalled = None
        if self._input is not None:
            self._input.close()

    def eof_received(self) -> bool:
        """The client sends no more input (paramiko's exec_command does so at once): the shell
        ends as after Ctrl-D, while the channel stays open for the output still to come."""
        self._eof = True
        if self._input is not None:
            self._input.close()
        return True

    def exec_requested(self, command: str) -> bool:
        self.command = command
        return True

    @property
    def has_terminal(self) -> bool:
        """Did the client ask for a pseudo-terminal (interactive ssh, PuTTY, paramiko invoke_shell)?"""
        return self.channel is not None and self.channel.get_terminal_type() is not None


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
    if ssh.command is not None:
        status = await run_exec(ssh, lab, login)
    else:
        status = await run_shell(ssh, lab, login)
    ssh.finish(1 if ssh.failed else status)


async def run_shell(ssh: LabSSHSession, lab: Lab, login: Login) -> int:
    """The interactive shell: the start banner, then the local REPL's own loop on this channel."""
    ssh.deliver_typeahead()
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
    exit status is 1 when one failed. The real broker may not offer exec requests."""
    lines = [line for line in (ssh.command or "").splitlines() if line.strip()]
    out = io.StringIO()
    try:
        status = await asyncio.to_thread(run_commands, lab, login.router, lines, out)
    except EntryRefused as refused:
        out.write(f"{refused}\n")
        status = 1
    _write(ssh, out.getvalue())
    log.info("exec %s status=%d", fields(user=login.user, router=login.router, peer=login.peer), status)
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
