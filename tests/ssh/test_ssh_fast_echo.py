"""A printable key at the end of the line is echoed without a redraw (ssh/fast_echo.py), and the
shell behaves as before: the keys after it (backspace, Tab, `?`, history, a resize) see the line
and the screen as the full path would have left them. Over SSH with paramiko (the server in this
process, so the fast path's use is counted) and with OpenSSH in a pseudo-terminal."""

from __future__ import annotations

import shutil
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pexpect  # type: ignore[import-untyped]
import pytest

from solace_shell.ssh.fast_echo import FastEcho
from tests.support.ssh_attacks import served
from tests.support.ssh_clients import TIMEOUT, ServerThread, Shell, connect, openssh_args, serving, strip_ansi

NY = "NY_Appliance1"
pytestmark = pytest.mark.ssh


@pytest.fixture
def server(tmp_path: Path) -> Iterator[ServerThread]:
    with serving(tmp_path / "fast.lab") as running:
        yield running


@pytest.fixture
def fast_keys(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """The characters the fast path handled, in order."""
    taken: list[str] = []
    original = FastEcho.take

    def counting(self: FastEcho, app: Any, char: str) -> bool:
        done = original(self, app, char)
        if done:
            taken.append(char)
        return done

    monkeypatch.setattr(FastEcho, "take", counting)
    return taken


def _typed(shell: Shell, text: str) -> None:
    """Send `text` a key at a time, each after the echo of the one before (as a person types)."""
    for char in text:
        before = len(shell.raw)
        shell.send(char)
        deadline = time.monotonic() + TIMEOUT
        while len(shell.raw) == before and time.monotonic() < deadline:
            shell._recv(before)


@pytest.fixture
def shell(server: ServerThread) -> Iterator[Shell]:
    client = connect(server.port(NY), "admin", "admin")
    try:
        opened = Shell(client)
        opened.login_text()
        yield opened
    finally:
        client.close()


def test_typed_keys_take_the_fast_path_and_the_command_runs(shell: Shell, fast_keys: list[str]) -> None:
    _typed(shell, "show hostname")
    # The first key of a line takes the full path; so does a key that comes while a redraw is due.
    rest = iter("how hostname")
    assert all(char in rest for char in fast_keys)  # in order, and never the line's first key
    assert len(fast_keys) >= len("how hostname") // 2
    assert shell.command("") == f"Hostname: {NY}"
    assert f"{NY}> show hostname" in strip_ansi(shell.raw)


def test_backspace_after_fast_keys_edits_the_line(shell: Shell, fast_keys: list[str]) -> None:
    _typed(shell, "show hostnamxy")
    _typed(shell, "\x7f\x7f")
    _typed(shell, "e")
    assert shell.command("") == f"Hostname: {NY}"


def test_tab_after_fast_keys_completes_in_line(shell: Shell, fast_keys: list[str]) -> None:
    _typed(shell, "show hostn")
    shell.send("\t")
    shell.until("show hostname")
    assert shell.command("") == f"Hostname: {NY}"


def test_question_mark_after_fast_keys_lists_help_and_keeps_the_line(shell: Shell, fast_keys: list[str]) -> None:
    _typed(shell, "show host")
    shell.send("?")
    assert "hostname  Show the hostname" in shell.until("Show the hostname")
    assert "?" not in fast_keys
    assert shell.command("name") == f"Hostname: {NY}"


def test_history_recalls_a_line_typed_by_the_fast_path(shell: Shell, fast_keys: list[str]) -> None:
    _typed(shell, "show hostname")
    shell.command("")
    shell.send("\x1b[A")  # up: the line before
    shell.until("show hostname")
    assert shell.command("") == f"Hostname: {NY}"


def test_a_resize_after_fast_keys_redraws_the_line_whole(shell: Shell, fast_keys: list[str]) -> None:
    _typed(shell, "show hostn")
    shell.chan.resize_pty(width=60, height=20)
    time.sleep(0.3)  # the window change arrives before the next keys
    _typed(shell, "ame")
    assert shell.command("") == f"Hostname: {NY}"
    assert fast_keys  # typing goes on by the fast path after the resize


def test_a_key_at_the_last_column_takes_the_full_path(server: ServerThread, fast_keys: list[str]) -> None:
    client = connect(server.port(NY), "admin", "admin")
    try:
        narrow = Shell(client, width=24)
        narrow.login_text()
        _typed(narrow, "show hostname")  # the prompt is 15 columns: the line wraps
        assert len(fast_keys) < len("how hostname")
        assert narrow.command("") == f"Hostname: {NY}"
    finally:
        client.close()


@pytest.mark.skipif(shutil.which("ssh") is None, reason="the OpenSSH client `ssh` is not installed")
def test_openssh_typing_backspace_tab_help_and_history(tmp_path: Path) -> None:
    """A trainee at a terminal: typed keys, a backspace, Tab, `?`, and Up."""
    with served(tmp_path / "openssh.lab") as server:
        child = pexpect.spawn(shutil.which("ssh"), openssh_args(server.ports[NY], "operator"),
            encoding="utf-8", timeout=TIMEOUT, dimensions=(24, 80))
        try:
            child.expect("Password:")
            child.sendline("operator")
            child.expect_exact(f"{NY}>")
            for char in "show hostnx":
                child.send(char)
                child.expect_exact(char)
            child.send("\x7f")
            child.send("\t")
            child.expect_exact("ame")
            child.send("\r")
            child.expect_exact(f"Hostname: {NY}")
            child.expect_exact(f"{NY}>")
            for char in "show cl":
                child.send(char)
                child.expect_exact(char)
            child.send("?")
            child.expect_exact("client-username")
            child.expect_exact(f"{NY}> show cl")
            child.send("\x15")  # Ctrl-U: the line emptied
            child.send("\x1b[A")
            child.expect_exact("show hostname")
            child.send("\r")
            child.expect_exact(f"Hostname: {NY}")
            child.expect_exact(f"{NY}>")
            child.send("exit\r")
            child.expect(pexpect.EOF)
        finally:
            child.close(force=True)


def test_with_the_toolbar_of_a_terminal_that_reports_its_cursor(server: ServerThread, fast_keys: list[str]) -> None:
    """A terminal answering the cursor position probe gets the bottom toolbar below the line."""
    client = connect(server.port(NY), "admin", "admin")
    try:
        terminal = Shell(client, answer_cpr=True)
        terminal.login_text()
        _typed(terminal, "show hostname")
        assert fast_keys
        assert terminal.command("") == f"Hostname: {NY}"
    finally:
        client.close()
