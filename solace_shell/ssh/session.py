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
from collections.abc import Callable, Coroutine
from dataclasses import dataclass
from typing import Any

from prompt_toolkit.contrib.ssh import PromptToolkitSSHSession

from ..banner import start_banner
from ..lab import Lab, UnknownUser
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


class LabSSHSession(PromptToolkitSSHSession):
    """A prompt_toolkit SSH session that also accepts an exec request (`ssh host 'show hostname'`)."""

    def __init__(self, interact: Callable[[PromptToolkitSSHSession], Coroutine[Any, Any, None]]) -> None:
        # No cursor position requests: many automation clients never answer them.
        super().__init__(interact, enable_cpr=False)
        self.command: str | None = None
        self.channel: Any = None

    def connection_made(self, chan: Any) -> None:
        super().connection_made(chan)
        self.channel = chan

    def connection_lost(self, exc: Exception | None) -> None:
        """The client went away (or the server is stopping): end the shell as Ctrl-D would, so the
        session's task finishes instead of waiting for input that will never come."""
        if self._input is not None:
            self._input.close()

    def eof_received(self) -> bool:
        """The client sends no more input (paramiko's exec_command does so at once): the shell
        ends as after Ctrl-D, while the channel stays open for the output still to come."""
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
    banner = await asyncio.to_thread(_banner, store_of(lab))
    ssh.stdout.write("\n" + banner + "\n")
    app_session = ssh.app_session
    assert app_session is not None  # set by PromptToolkitSSHSession before it calls us
    terminal = ssh.has_terminal
    repl = Repl(lab, login.router, history_path=None, input=app_session.input, output=app_session.output,
                stdout=ssh.stdout, paging=terminal, colour=terminal)
    return await repl.run_async()


async def run_exec(ssh: LabSSHSession, lab: Lab, login: Login) -> int:
    """`ssh -p N host 'show hostname'`: each line of the command runs as a `-c` command would; the
    exit status is 1 when one failed. The real broker may not offer exec requests."""
    lines = [line for line in (ssh.command or "").splitlines() if line.strip()]
    out = io.StringIO()
    status = await asyncio.to_thread(run_commands, lab, login.router, lines, out)
    _write(ssh, out.getvalue())
    log.info("exec user=%s router=%s peer=%s status=%d", login.user, login.router, login.peer, status)
    return status


def store_of(lab: Lab) -> SerializedStore:
    store = lab.store
    assert isinstance(store, SerializedStore)
    return store


def _banner(store: SerializedStore) -> str:
    with store.transaction() as engine:
        return start_banner(engine.settings())


def _write(ssh: LabSSHSession, text: str) -> None:
    """Write to the client: with a terminal, line ends are CR LF; without one, text as a pipe gets it."""
    if ssh.has_terminal:
        ssh.stdout.write(text)  # prompt_toolkit's channel writer turns \n into \r\n
    else:
        ssh.channel.write(text)
