"""The lab console is the trainer's on every way into it: a start at `lab` (the REPL, `-c`, `-s`,
piped input, a terminal), F2, and SSH (shell and exec). Each lab user of the default scenario is
tried on each path: the lab administrator gets in; everyone else gets one line, a non-zero exit
status (or stays at the router, for F2) and a lab that did not change."""

from __future__ import annotations

import os
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pexpect  # type: ignore[import-untyped]
import pytest
import yaml

from solace_shell.lab import Lab
from solace_shell.script import run_commands, run_script
from state_store import scenario_schema
from state_store.lab_store import LabStore
from tests.support.repl_driver import drive
from tests.support.ssh_clients import TIMEOUT, Shell, connect, run_exec, serving

ROOT = Path(__file__).resolve().parents[2]
DEFAULT = ROOT / "state_store" / "scenarios" / "default.yaml"
# The passwords the default scenario publishes in its comment (it stores only their hashes).
PASSWORDS = {"admin": "admin", "operator": "operator", "monitor": "monitor", "meshmgr": "meshmgr",
             "trading_admin": "trading"}
USERS = sorted(PASSWORDS)
NY = "NY_Appliance1"
F2 = "\x1bOQ"
FAIL = "fail site NY"


def refusal(user: str) -> str:
    return f"ERROR: The lab console is for lab administrators; user '{user}' has no lab-administration right."


def lab_admins() -> set[str]:
    users = yaml.safe_load(DEFAULT.read_text())["users"]
    return {u["name"] for u in users if u.get("lab_admin")}


def test_the_users_tried_are_the_default_scenarios() -> None:
    users = yaml.safe_load(DEFAULT.read_text())["users"]
    assert sorted(u["name"] for u in users) == USERS
    assert lab_admins() == {"admin"}


@pytest.fixture(scope="module")
def lab_file(tmp_path_factory: pytest.TempPathFactory) -> Path:
    path = tmp_path_factory.mktemp("console") / "training.lab"
    LabStore.open(path).close()
    return path


def _dump(path: Path) -> object:
    store = LabStore.open(path)
    try:
        return store.dump()
    finally:
        store.close()


def _cli(path: Path, user: str, *args: str, stdin: bytes | None = None) -> subprocess.CompletedProcess[bytes]:
    env = dict(os.environ, PYTHONPATH=str(ROOT), SOLACE_SHELL_PASSWORD=PASSWORDS[user],
               SOLACE_SHELL_LOGIN_DELAY="0")
    return subprocess.run([sys.executable, "-c", "from solace_shell.cli import main; main()", "--db", str(path),
                           "--user", user, "--router", "lab", *args],
                          input=stdin if stdin is not None else b"", capture_output=True, env=env, timeout=120)


def _check_cli(path: Path, user: str, result: subprocess.CompletedProcess[bytes], before: object) -> None:
    if user in lab_admins():
        assert result.returncode == 0, result
        assert b"site NY down" in result.stdout
        return
    assert result.returncode != 0
    assert result.stdout == b""
    assert result.stderr.decode() == f"solace-shell: {refusal(user)}\n"
    assert _dump(path) == before


@pytest.mark.parametrize("user", USERS)
@pytest.mark.parametrize("how", ["-c", "-s", "stdin"])
def test_a_start_at_the_console_from_the_command_line(tmp_path: Path, user: str, how: str) -> None:
    path = tmp_path / "lab.sqlite"
    LabStore.open(path).close()
    before = _dump(path)
    if how == "-c":
        result = _cli(path, user, "-c", FAIL)
    elif how == "-s":
        script = tmp_path / "fail.cli"
        script.write_text(FAIL + "\n")
        result = _cli(path, user, "-s", str(script))
    else:
        result = _cli(path, user, stdin=(FAIL + "\n").encode())
    _check_cli(path, user, result, before)


@pytest.mark.parametrize("user", USERS)
def test_a_start_at_the_console_at_a_terminal(tmp_path: Path, user: str) -> None:
    path = tmp_path / "lab.sqlite"
    LabStore.open(path).close()
    before = _dump(path)
    env = dict(os.environ, PYTHONPATH=str(ROOT), TERM="xterm", PROMPT_TOOLKIT_NO_CPR="1",
               SOLACE_SHELL_PASSWORD=PASSWORDS[user], SOLACE_SHELL_LOGIN_DELAY="0")
    child = pexpect.spawn(sys.executable, ["-c", "from solace_shell.cli import main; main()", "--db", str(path),
                                           "--user", user, "--router", "lab"],
                          env=env, encoding="utf-8", timeout=60, dimensions=(24, 120))
    try:
        if user in lab_admins():
            child.expect("lab>")
            child.sendline(FAIL)
            child.expect("site NY down")
        else:
            child.expect(pexpect.EOF)
            assert child.before.strip() == f"solace-shell: {refusal(user)}"
    finally:
        child.close(force=True)
    if user not in lab_admins():
        assert child.exitstatus == 1
        assert _dump(path) == before


@pytest.mark.parametrize("user", USERS)
def test_the_repl_start_f2_and_the_script_runners(user: str) -> None:
    lab = Lab.fresh(settings={"user": user})
    try:
        before = lab.store.dump()
        code, out = drive(lab, FAIL + "\r", start="lab")
        if user in lab_admins():
            assert code == 0 and out.startswith("site NY down")
            return
        assert (code, out) == (1, refusal(user) + "\n")
        code, out = drive(lab, F2 + FAIL + "\r")
        assert out.startswith(refusal(user) + "\n")
        assert "site NY down" not in out
        for runner in (run_commands, run_script):
            with pytest.raises(Exception, match="no lab-administration right") as refused:
                runner(lab, "lab", [FAIL], sys.stdout)
            assert str(refused.value) == refusal(user)
        assert lab.store.dump() == before
    finally:
        lab.close()


@pytest.fixture(scope="module")
def served(lab_file: Path) -> Iterator[object]:
    with serving(lab_file) as server:
        yield server


@pytest.mark.parametrize("user", USERS)
def test_ssh_exec_and_shell(served: object, lab_file: Path, user: str) -> None:
    port = served.port(NY)  # type: ignore[attr-defined]
    status, text = run_exec(port, user, PASSWORDS[user], FAIL)  # not a router command
    assert status == 1 and "site NY down" not in text
    client = connect(port, user, PASSWORDS[user])
    try:
        shell = Shell(client)
        shell.login_text()
        if user in lab_admins():
            shell.send(F2)
            shell.until("lab>")
            assert shell.command("exit") == ""
            return
        before = _dump(lab_file)
        shell.send(F2)
        assert refusal(user) in shell.until(refusal(user))
        assert shell.command(FAIL).endswith("Invalid command input\n   -> Unknown command, or command not "
                                            "available in current context (fail)")
        assert _dump(lab_file) == before
    finally:
        client.close()


def test_a_router_may_not_take_the_consoles_name(tmp_path: Path) -> None:
    from state_store import systems
    from state_store.scenario import ScenarioError

    scenario = tmp_path / "lab-router.yaml"
    scenario.write_text((ROOT / "transcripts" / "scenarios" / "bare.yaml").read_text().replace(NY, "lab"))
    with pytest.raises(ScenarioError) as error:
        LabStore.open(tmp_path / "x.lab", scenario)
    assert error.value.problems == [
        f"{scenario}:8: router 'lab': the name is the shell's own "
        f"({', '.join(sorted({'lab', *systems.names()}))} are reserved)"]
    assert not (tmp_path / "x.lab").exists()


def test_ssh_at_a_router_named_like_the_console(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A lab file made before such names were refused: its router `lab` is served on a port, and
    whoever logs in there meets the console's access check, in a shell and in an exec request."""
    scenario = tmp_path / "lab-router.yaml"
    scenario.write_text((ROOT / "transcripts" / "scenarios" / "bare.yaml").read_text().replace(NY, "lab")
                        .replace("users:\n", "users:\n  - {name: monitor, password: monitor, level: read-only}\n"))
    path = tmp_path / "old.lab"
    monkeypatch.setattr(scenario_schema, "RESERVED_TARGETS", frozenset())
    LabStore.open(path, scenario).close()
    monkeypatch.undo()
    before = _dump(path)
    with serving(path) as server:
        port = server.port("lab")
        status, text = run_exec(port, "monitor", "monitor", "link down")
        assert (status, text) == (1, refusal("monitor") + "\n")
        client = connect(port, "monitor", "monitor")
        try:
            shell = Shell(client)
            assert refusal("monitor") in shell.until(refusal("monitor"))
            assert shell.exit_status() == 1
        finally:
            client.close()
    assert _dump(path) == before
    assert TIMEOUT > 0
