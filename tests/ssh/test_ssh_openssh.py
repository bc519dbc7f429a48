"""`solace-shell serve` as a trainer runs it, with the OpenSSH client a trainee uses, over a
pseudo-terminal (pexpect): login as the broker shows it, a command, exec with its exit status,
refusals, and a clean stop on SIGTERM / Ctrl-C with the connection log.
"""

from __future__ import annotations

import os
import shutil
import signal
import socket
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pexpect  # type: ignore[import-untyped]
import pytest

from tests.support.ssh_clients import TIMEOUT, openssh_args

SSH = shutil.which("ssh")
pytestmark = pytest.mark.skipif(SSH is None, reason="the OpenSSH client `ssh` is not installed")
ROOT = Path(__file__).resolve().parents[2]


class Served:
    """`solace-shell --db LAB serve --port 0` in a child process, its routers' ports read from stdout."""

    def __init__(self, lab: Path) -> None:
        env = dict(os.environ, PYTHONPATH=str(ROOT))
        self.proc = subprocess.Popen(
            [sys.executable, "-m", "solace_shell.cli", "--db", str(lab), "serve", "--port", "0"],
            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env)
        assert self.proc.stdout is not None
        self.lines = [self.proc.stdout.readline() for _ in range(2)]
        self.ports = {line.split()[0]: int(line.split()[3]) for line in self.lines}

    def stop(self, signum: int = signal.SIGTERM) -> tuple[int, str]:
        self.proc.send_signal(signum)
        _, err = self.proc.communicate(timeout=TIMEOUT)
        return self.proc.returncode, err


@pytest.fixture
def served(tmp_path: Path) -> Iterator[Served]:
    server = Served(tmp_path / "training.lab")
    yield server
    if server.proc.poll() is None:
        server.stop()


def ssh(port: int, user: str, command: str | None = None, *options: str) -> pexpect.spawn:
    args = [*options, *openssh_args(port, user)]
    if command is not None:
        args.append(command)
    return pexpect.spawn(SSH, args, encoding="utf-8", timeout=TIMEOUT, dimensions=(24, 80))


def test_serve_prints_one_line_per_router(served: Served) -> None:
    assert [line.split()[:4] for line in served.lines] == [
        ["NY_Appliance1", "ssh", "-p", str(served.ports["NY_Appliance1"])],
        ["NJ_Appliance1", "ssh", "-p", str(served.ports["NJ_Appliance1"])],
    ]


def test_openssh_login_command_and_exit(served: Served) -> None:
    child = ssh(served.ports["NJ_Appliance1"], "admin")
    child.expect_exact("Solace PubSub+ Enterprise\r\n")  # before authentication (T20, T21)
    child.expect("Password:")
    child.sendline("admin")
    child.expect_exact("\r\nSolace PubSub+ Enterprise Version 10.4.1.52\r\n\r\n")  # the start banner (T20, T21)
    child.expect_exact("Operating Mode: Message Routing Node\r\n")
    child.expect_exact("NJ_Appliance1>")
    child.send("show hostname\r")
    child.expect_exact("Hostname: NJ_Appliance1\r\n")
    child.expect_exact("NJ_Appliance1>")
    child.send("enable\r")
    child.expect_exact("NJ_Appliance1#")
    child.send("exit\r")
    child.expect_exact("NJ_Appliance1>")
    child.send("exit\r")
    child.expect(pexpect.EOF)
    child.close()
    assert child.exitstatus == 0
    code, log = served.stop()
    assert code == 0
    assert "login user=admin router=NJ_Appliance1" in log
    assert "logout user=admin router=NJ_Appliance1" in log


def test_openssh_exec_returns_the_exit_status(served: Served) -> None:
    for command, status, text in (("show hostname", 0, "Hostname: NY_Appliance1"),
                                  ("show no-such-thing", 1, "Invalid command")):
        child = ssh(served.ports["NY_Appliance1"], "operator", command)
        child.expect("Password:")
        child.sendline("operator")
        child.expect(pexpect.EOF)
        child.close()
        assert child.exitstatus == status, child.before
        assert text in child.before


def test_openssh_refuses_a_wrong_password_as_an_unknown_user(served: Served) -> None:
    refusals = []
    for user in ("admin", "nobody"):
        # One try: after a refused keyboard-interactive `Password:`, OpenSSH would go on to the
        # password method and ask again.
        child = ssh(served.ports["NY_Appliance1"], user, None, "-o", "PreferredAuthentications=keyboard-interactive")
        child.expect("Password:")
        child.sendline("Wr0ng-secret")
        child.expect(pexpect.EOF)
        child.close()
        assert child.exitstatus == 255
        refusals.append(child.before.replace(user, "USER").strip())
    assert refusals[0] == refusals[1]
    assert "Permission denied" in refusals[0]
    code, log = served.stop(signal.SIGINT)  # Ctrl-C stops it as cleanly as SIGTERM
    assert code == 0
    assert "login refused user=nobody" in log
    assert "Wr0ng-secret" not in log


def test_a_port_in_use_is_one_clear_error(tmp_path: Path) -> None:
    with socket.socket() as busy:
        busy.bind(("127.0.0.1", 0))
        busy.listen()
        port = busy.getsockname()[1]
        env = dict(os.environ, PYTHONPATH=str(ROOT))
        done = subprocess.run(
            [sys.executable, "-m", "solace_shell.cli", "--db", str(tmp_path / "lab"), "serve", "--port",
             str(port)], check=False, capture_output=True, text=True, env=env, timeout=TIMEOUT)
    assert done.returncode == 2
    assert done.stderr.strip().splitlines()[-1].startswith(f"solace-shell: cannot listen on 127.0.0.1 port {port}:")
    assert "Traceback" not in done.stderr


def test_ports_beyond_65535_are_one_clear_error(tmp_path: Path) -> None:
    env = dict(os.environ, PYTHONPATH=str(ROOT))
    done = subprocess.run(
        [sys.executable, "-m", "solace_shell.cli", "--db", str(tmp_path / "lab"), "serve", "--port", "65535"],
        check=False, capture_output=True, text=True, env=env, timeout=TIMEOUT)
    assert done.returncode == 2
    assert done.stderr.strip().splitlines()[-1] == (
        "solace-shell: cannot listen on 127.0.0.1 port 65535: 2 routers need ports 65535-65536, beyond 65535")
