"""`solace-shell serve` follows the lab's routers: after a `lab> reset` to a scenario with other routers
or ports (here from a local shell on the same lab file, as a trainer at the server's machine would),
new routers are served, routers gone are closed with their connections, a moved router moves, and
the others keep their listeners and sessions."""

from __future__ import annotations

import logging
import os
import signal
import socket
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path

import pytest

from solace_shell.lab import Lab
from state_store.lab_store import LabStore
from tests.support.ssh_clients import TIMEOUT, ServerThread, Shell, connect, run_exec, serving

ROOT = Path(__file__).resolve().parents[2]
SCENARIOS = ROOT / "transcripts" / "scenarios"
NY, NJ = "NY_Appliance1", "NJ_Appliance1"
FOLLOW = 0.1


def _reset(lab_path: Path, scenario: Path) -> None:
    """`lab> reset SCENARIO` from a local shell on the lab file."""
    lab = Lab(LabStore.open(lab_path), user="admin")
    try:
        lab.reset(scenario)
    finally:
        lab.store.close()


def _wait(server: ServerThread, done: Callable[[], bool]) -> None:
    deadline = time.monotonic() + TIMEOUT
    while not done():
        assert time.monotonic() < deadline, [listener.router for listener in server.server.listeners]
        time.sleep(FOLLOW)


def _served(server: ServerThread) -> dict[str, int]:
    return {listener.router: listener.port for listener in server.server.listeners}


def _with_port(tmp_path: Path, router: str, port: int) -> Path:
    text = (SCENARIOS / "bare.yaml").read_text()
    path = tmp_path / f"{router}-{port}.yaml"
    path.write_text(text.replace(f"      - name: {router}\n", f"      - name: {router}\n        ssh_port: {port}\n"))
    return path


def _free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


def test_a_reset_to_other_routers_serves_them_and_closes_the_old_ones(
        tmp_path: Path, caplog: pytest.LogCaptureFixture) -> None:
    caplog.set_level(logging.INFO, logger="solace_shell.ssh")
    lab_path = tmp_path / "training.lab"
    with serving(lab_path, follow_seconds=FOLLOW) as server:
        trainee = connect(server.port(NJ), "admin", "admin")
        try:
            shell = Shell(trainee)
            shell.login_text()
            _reset(lab_path, SCENARIOS / "solace.yaml")
            _wait(server, lambda: list(_served(server)) == ["solace"])
            with pytest.raises(EOFError):  # the router is gone: its sessions are closed
                shell.until("never printed")
        finally:
            trainee.close()
        assert run_exec(server.port("solace"), "admin", "admin", "show hostname") == (0, "\nHostname: solace\n")
    assert f"router={NJ} is no longer in the lab: stopped listening, 1 connection(s) closed" in caplog.text
    assert "listening router=solace port=" in caplog.text


def test_a_moved_router_moves_and_the_others_keep_their_listeners_and_sessions(tmp_path: Path) -> None:
    lab_path = tmp_path / "training.lab"
    LabStore.open(lab_path, SCENARIOS / "bare.yaml").close()
    port = _free_port()
    with serving(lab_path, follow_seconds=FOLLOW) as server:
        before = _served(server)
        trainee = connect(server.port(NY), "admin", "admin")
        try:
            shell = Shell(trainee)
            shell.login_text()
            _reset(lab_path, _with_port(tmp_path, NJ, port))
            _wait(server, lambda: _served(server).get(NJ) == port)
            assert _served(server)[NY] == before[NY]
            assert "Hostname: NY_Appliance1" in shell.command("show hostname")  # still connected
        finally:
            trainee.close()
        assert run_exec(port, "admin", "admin", "show hostname") == (0, "\nHostname: NJ_Appliance1\n")


def test_a_port_that_cannot_be_had_is_logged_once_and_the_rest_is_still_served(
        tmp_path: Path, caplog: pytest.LogCaptureFixture) -> None:
    caplog.set_level(logging.INFO, logger="solace_shell.ssh")
    lab_path = tmp_path / "training.lab"
    LabStore.open(lab_path, SCENARIOS / "bare.yaml").close()
    with socket.socket() as busy, serving(lab_path, follow_seconds=FOLLOW) as server:
        busy.bind(("127.0.0.1", 0))
        busy.listen()
        taken = busy.getsockname()[1]
        before = _served(server)
        _reset(lab_path, _with_port(tmp_path, NJ, taken))
        _wait(server, lambda: "cannot serve the lab's routers" in caplog.text)
        time.sleep(10 * FOLLOW)  # ten more rounds: still one line
        assert caplog.text.count("cannot serve the lab's routers") == 1
        assert f"port {taken}: " in caplog.text
        assert _served(server) == {NY: before[NY]}
        assert run_exec(before[NY], "admin", "admin", "show hostname") == (0, "\nHostname: NY_Appliance1\n")


def test_serve_prints_the_routers_again_after_they_change(tmp_path: Path) -> None:
    lab_path = tmp_path / "training.lab"
    env = dict(os.environ, PYTHONPATH=str(ROOT))
    proc = subprocess.Popen([sys.executable, "-m", "solace_shell.cli", "--db", str(lab_path), "serve", "--port", "0"],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env)
    try:
        assert proc.stdout is not None
        assert [proc.stdout.readline().split()[0] for _ in range(2)] == [NY, NJ]
        _reset(lab_path, SCENARIOS / "solace.yaml")
        line = proc.stdout.readline()  # within a second: the follow period of `serve`
        assert line.split()[:3] == ["solace", "ssh", "-p"]
        assert run_exec(int(line.split()[3]), "admin", "admin", "show hostname") == (0, "\nHostname: solace\n")
    finally:
        proc.send_signal(signal.SIGTERM)
        _, err = proc.communicate(timeout=TIMEOUT)
    assert proc.returncode == 0
    assert f"router={NJ} is no longer in the lab" in err and "Traceback" not in err


def test_a_lab_that_cannot_be_read_is_one_log_line_and_serving_goes_on(
        tmp_path: Path, caplog: pytest.LogCaptureFixture, monkeypatch: pytest.MonkeyPatch) -> None:
    lab_path = tmp_path / "training.lab"
    with serving(lab_path, follow_seconds=FOLLOW) as server:
        def unreadable() -> list[tuple[str, int]]:  # the lab file's disk gone, say
            raise OSError("disk I/O error\nsecond line")

        monkeypatch.setattr(server.server, "routers", unreadable)
        _wait(server, lambda: "cannot read the lab's routers" in caplog.text)
        time.sleep(10 * FOLLOW)
        errors = [r for r in caplog.records if "cannot read the lab's routers" in r.getMessage()]
        assert len(errors) == 1 and errors[0].exc_info is None
        assert errors[0].getMessage() == "cannot read the lab's routers (still serving the ones before): disk I/O error"
        assert run_exec(server.port(NY), "admin", "admin", "show hostname") == (0, "\nHostname: NY_Appliance1\n")
