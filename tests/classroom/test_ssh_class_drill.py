"""The done test of a class: 30 trainees, a third with the OpenSSH client and the rest with paramiko
(in a bounded pool of threads, on loopback), each runs the controlled fail-over drill (README's "A
first drill" with the runbook's checks) at an interactive shell in their own lab; the trainer's
class console shows each one's progress; the grades export."""

from __future__ import annotations

import csv
import json
import os
import re
import shutil
import signal
import subprocess
import sys
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Protocol

import paramiko  # type: ignore[import-untyped]
import pexpect  # type: ignore[import-untyped]
import pytest

from tests.support.ssh_clients import (
    PROMPT_OFF,
    PROMPT_ON,
    TIMEOUT,
    connect,
    openssh_args,
    run_exec,
    server_errors,
    strip_ansi,
)

SSH = shutil.which("ssh")
ROOT = Path(__file__).resolve().parents[2]
TRAINEES = 30
OPENSSH_EVERY = 3          # every third trainee uses OpenSSH
THREADS = 6
F2 = "\x1bOQ"
# (keys, text the answer shows) from the first router's prompt
DRILL: list[tuple[str, str]] = [
    (F2, ""),
    ("publish trader trading/orders/new count 10\r", "published 10 rejected 0"),
    ("connect NY_Appliance1\r", ""),
    ("show message-vpn Trading_VPN replication\r", "Trading_VPN                      U A"),
    (F2, ""),
    ("connect NJ_Appliance1\r", ""),
    ("show message-vpn Trading_VPN replication\r", "Trading_VPN                      U S"),
    (F2, ""),
    ("connect NY_Appliance1\r", ""),
    ("enable\r", ""),
    ("configure\r", ""),
    ("message-vpn Trading_VPN\r", ""),
    ("replication state standby\r", ""),
    (F2, ""),
    ("advance 5s\r", "drained 10"),
    ("connect NY_Appliance1\r", ""),
    ("show queue #MSGVPN_REPLICATION_DATA_QUEUE message-vpn Trading_VPN\r", "Current Messages Spooled             : 0"),
    (F2, ""),
    ("connect NJ_Appliance1\r", ""),
    ("enable\r", ""),
    ("configure\r", ""),
    ("message-vpn Trading_VPN\r", ""),
    ("replication state active\r", ""),
    (F2, ""),
    ("advance 1s\r", "reconnected settlement,trader"),
    ("consume settlement orders count 100\r", "consumed 10 from orders on NJ_Appliance1"),
    ("advance 1s\r", "drained 10"),
    ("audit\r", "published 10 delivered 10 duplicated 0 lost 0"),
]

pytestmark = [pytest.mark.slow, pytest.mark.skipif(SSH is None, reason="the OpenSSH client `ssh` is not installed")]


class Terminal(Protocol):
    def send(self, text: str) -> None: ...
    def read(self) -> str: ...     # what arrived (blocks until something does)
    def close(self) -> None: ...


class ParamikoTerminal:
    def __init__(self, port: int, user: str, password: str) -> None:
        self.client = connect(port, user, password)
        self.chan = self.client.invoke_shell(term="xterm", width=120, height=40)
        self.chan.settimeout(TIMEOUT)

    def send(self, text: str) -> None:
        self.chan.sendall(text.encode())

    def read(self) -> str:
        data = self.chan.recv(65536)
        if not data:
            raise EOFError("connection closed")
        return str(data.decode("utf-8", "replace"))

    def close(self) -> None:
        self.client.close()


class OpenSSHTerminal:
    def __init__(self, port: int, user: str, password: str) -> None:
        self.child = pexpect.spawn(SSH, openssh_args(port, user), encoding="utf-8", timeout=TIMEOUT,
                                   dimensions=(40, 120))
        self.child.expect("Password:")
        self.child.sendline(password)

    def send(self, text: str) -> None:
        self.child.send(text)

    def read(self) -> str:
        return str(self.child.read_nonblocking(65536, timeout=TIMEOUT))

    def close(self) -> None:
        self.child.close(force=True)


class Driver:
    """Keys in, the answer out: everything between the end of one prompt and the start of the next
    (the shell turns bracketed paste off when a prompt ends and on when the next starts)."""

    def __init__(self, terminal: Terminal) -> None:
        self.terminal = terminal
        self.raw = ""
        self.pos = self._until(PROMPT_ON, 0)

    def _until(self, marker: str, start: int) -> int:
        deadline = time.monotonic() + TIMEOUT
        while (found := self.raw.find(marker, start)) < 0:
            if time.monotonic() > deadline:
                raise TimeoutError(f"no {marker!r} in {strip_ansi(self.raw[start:])!r}")
            self.raw += self.terminal.read()
        return found

    def step(self, keys: str) -> str:
        start = len(self.raw)
        self.terminal.send(keys)
        off = self._until(PROMPT_OFF, start)
        on = self._until(PROMPT_ON, off)
        return strip_ansi(self.raw[off:on])


def run_drill(port: int, user: str, password: str, openssh: bool) -> str:
    """The trainee's drill; "" when every answer showed what it should, else what went wrong."""
    terminal: Terminal = OpenSSHTerminal(port, user, password) if openssh else ParamikoTerminal(port, user, password)
    try:
        driver = Driver(terminal)
        for keys, shows in DRILL:
            answer = driver.step(keys)
            if shows not in answer:
                return f"{user}: {keys!r} answered {answer!r}"
        return ""
    finally:
        terminal.close()


def test_a_class_of_thirty(tmp_path: Path) -> None:
    names = [f"t{n:02d}" for n in range(1, TRAINEES + 1)]
    path = tmp_path / "course.yaml"
    path.write_text("scenario: default\nrunbook: controlled-failover\n"
                    "trainers:\n  - {name: trainer, password: trainer-pw}\ntrainees:\n"
                    + "".join(f"  - {{name: {name}, password: pw-{name}}}\n" for name in names))
    env = dict(os.environ, PYTHONPATH=str(ROOT))
    proc = subprocess.Popen([sys.executable, "-m", "solace_shell.cli", "class", "serve", str(path), "--port", "0"],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env)
    try:
        assert proc.stdout is not None
        port = int(proc.stdout.readline().split()[3])
        with ThreadPoolExecutor(THREADS) as pool:
            problems = list(pool.map(lambda item: run_drill(port, item[1], f"pw-{item[1]}",
                                                            item[0] % OPENSSH_EVERY == 0), enumerate(names)))
        assert [p for p in problems if p] == []
        status, roster = run_exec(port, "trainer", "trainer-pw", "roster")
        assert status == 0
        for name in names:
            row = next(line for line in roster.splitlines() if line.startswith(name + " "))
            assert re.search(r"verify-bridge:ok standby:ok drain:ok heuristics:n/a activate:ok", row), row
            assert " 0/0/0 " in row, row  # the audit: nothing lost, duplicated or stranded
        with pytest.raises(paramiko.AuthenticationException):
            connect(port, "t01", "pw-t02")
    finally:
        proc.send_signal(signal.SIGTERM)
        _, err = proc.communicate(timeout=TIMEOUT)
    assert proc.returncode == 0 and "Traceback" not in err, server_errors(err)
    grades = tmp_path / "grades.csv"
    done = subprocess.run([sys.executable, "-m", "solace_shell.cli", "class", "grades", str(path), "--csv", str(grades),
                           "--json"], capture_output=True, text=True, env=env, timeout=10 * TIMEOUT, check=False)
    assert done.returncode == 0, done.stderr
    rows = list(csv.DictReader(grades.open()))
    assert {r["student_id"] for r in rows} == set(names)
    assert all(r["score"] == r["max_score"] for r in rows)
    assert all(t["score"] == 1.0 for t in json.loads(done.stdout)["trainees"])
