"""One SSH session channel: the interactive shell (the same `Repl` as the local terminal) or an exec
request (one-shot commands, as `solace-shell -c` runs them).

Built on prompt_toolkit's SSH support: `PromptToolkitSSHSession` gives each channel its own
prompt_toolkit app session whose input is the channel's data and whose output is sized from the
client's window (and redrawn when the client resizes it). This module adds the exec request, which
prompt_toolkit does not handle, and the exit status.
"""

from __future__ import annotations

import asyncio
import io
import logging
import re
from collections.abc import Callable, Coroutine
from dataclasses import dataclass
from typing import Any

from prompt_toolkit.contrib.ssh import PromptToolkitSSHSession

from ..banner import interactive_banner
from ..lab import EntryRefused, Lab, UnknownUser
from ..repl import Repl
from ..script import run_commands
from .store import SerializedStore

log = logging.getLogger(__name__)


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
                 cpr_probe_seconds: float = CPR_PROBE_SECONDS) -> None:
        super().__init__(interact, enable_cpr=False)
        self.cpr_probe_seconds = cpr_probe_seconds
        self.command: str | None = None
        self.channel: Any = None
        self._probe: asyncio.Future[None] | None = None
        self._typed = ""  # input that arrived before the shell could read it
        self._eof = False
        self._lost = False

    def connection_made(self, chan: Any) -> None:
        super().connection_made(chan)
        self.channel = chan

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


async def run_session(ssh: LabSSHSession, store: SerializedStore, login: Login) -> None:
    """Serve one channel until the user logs out; the channel's exit status is the shell's."""
    try:
        lab = await asyncio.to_thread(Lab, store, login.user)
    except UnknownUser:  # the user was removed (lab> reset) between login and this channel
        _write(ssh, f"ERROR: No CLI user '{login.user}' in this lab any more.\n")
        ssh.channel.exit(1)
        return
    if ssh.command is not None:
        status = await run_exec(ssh, lab, login)
    else:
        status = await run_shell(ssh, lab, login)
    ssh.channel.exit(status)


async def run_shell(ssh: LabSSHSession, lab: Lab, login: Login) -> int:
    """The interactive shell: the start banner, then the local REPL's own loop on this channel."""
    ssh.deliver_typeahead()
    banner = await asyncio.to_thread(_banner, store_of(lab), login.router if login.router in lab.systems() else None)
    ssh.stdout.write(banner)
    app_session = ssh.app_session
    assert app_session is not None  # set by PromptToolkitSSHSession before it calls us
    terminal = ssh.has_terminal
    try:
        repl = Repl(lab, login.router, history_path=None, input=app_session.input, output=app_session.output,
                    stdout=ssh.stdout, paging=terminal, colour=terminal)
    except EntryRefused as refused:
        _write(ssh, f"{refused}\n")
        return 1
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
    log.info("exec user=%s router=%s peer=%s status=%d", login.user, login.router, login.peer, status)
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
        ssh.channel.write(text)
