"""`class serve` over SSH (paramiko): each trainee in their own lab by every door, the trainer's
class console, refusals in one line."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import paramiko  # type: ignore[import-untyped]
import pytest

from solace_shell.classroom.class_file import ClassFile, load_class_file
from tests.support.ssh_clients import Shell, connect, run_exec

from .class_server import F2, ClassServerThread, class_serving
from .conftest import CLASS_YAML

REPLICATION = "show message-vpn Trading_VPN replication"
STANDBY = "enable\nconfigure\nmessage-vpn Trading_VPN\nreplication state standby"


@pytest.fixture()
def served(class_file: ClassFile, tmp_path: Path) -> Iterator[ClassServerThread]:
    with class_serving(class_file, tmp_path / "course.class") as server:
        yield server


def _vpn_state(text: str) -> str:
    row = next(line for line in text.splitlines() if line.startswith("Trading_VPN"))
    return row.split()[2]  # C: A(ctive) or S(tandby)


def test_a_trainees_failover_changes_only_their_own_lab(served: ClassServerThread) -> None:
    port = served.port()
    assert run_exec(port, "alice", "alice-pw", STANDBY)[0] == 0
    assert _vpn_state(run_exec(port, "alice", "alice-pw", REPLICATION)[1]) == "S"
    assert _vpn_state(run_exec(port, "bob", "bob-pw", REPLICATION)[1]) == "A"
    assert _vpn_state(run_exec(port, "carol", "carol-pw", REPLICATION)[1]) == "A"
    rows = served.room.record.lines("alice")
    assert [r.line for r in rows][-1] == REPLICATION and {r.door for r in rows} == {"exec"}
    assert [r.member for r in served.room.record.lines("bob")] == ["bob"]


def test_a_team_shares_its_lab(served: ClassServerThread) -> None:
    port = served.port()
    run_exec(port, "carol", "carol-pw", STANDBY)
    assert _vpn_state(run_exec(port, "dave", "dave-pw", REPLICATION)[1]) == "S"
    assert {r.member for r in served.room.record.lines("blue")} == {"carol", "dave"}


def test_the_console_over_f2_is_the_trainees_own_and_limited(served: ClassServerThread) -> None:
    shell = Shell(connect(served.port(), "alice", "alice-pw"))
    try:
        assert "Operating Mode" in shell.login_text()
        shell.until("NY_Appliance1>")
        shell.send(F2)
        shell.until("lab>")
        assert "published 5" in shell.command("publish trader trading/orders/new count 5")
        assert "not open to trainees" in shell.command("reset")
        assert "not open to trainees" in shell.command("progress")
        assert "steps done" in shell.command("check")
        assert "published 5" in shell.command("audit")
    finally:
        shell.close()
    bob = [r.line for r in served.room.record.lines("bob")]
    assert "publish trader trading/orders/new count 5" not in bob
    alice = served.room.record.lines("alice")
    assert [r.line for r in alice] == ["publish trader trading/orders/new count 5", "audit"]
    assert all(r.door == "shell" and r.target == "lab" for r in alice)


def test_unknown_trainee_and_wrong_password_are_refused_alike(served: ClassServerThread) -> None:
    for user, password in (("alice", "wrong"), ("nobody", "alice-pw"), ("../alice", "alice-pw"),
                           ("alice" * 100, "x")):
        with pytest.raises(paramiko.AuthenticationException):
            connect(served.port(), user, password)
    assert served.room.record.lines("alice") == []


def test_trainer_console_roster_message_run_and_unknown_trainee(served: ClassServerThread) -> None:
    port = served.port()
    run_exec(port, "alice", "alice-pw", STANDBY)
    status, text = run_exec(port, "trainer", "trainer-pw", "roster")
    assert status == 0 and "alice" in text and "standby:ok" in text
    status, text = run_exec(port, "trainer", "trainer-pw", "reset nobody")
    assert status == 1 and text.strip() == "% no trainee 'nobody' in this class"
    status, text = run_exec(port, "trainer", "trainer-pw", "run bob fail site NY")
    assert status == 0
    assert run_exec(port, "trainer", "trainer-pw", "message alice the NY site is down")[0] == 0
    text = run_exec(port, "alice", "alice-pw", "show hostname")[1]
    assert "*** Message from trainer: the NY site is down" in text
    assert "fail site NY" in [r.line for r in served.room.record.lines("bob")]
    assert run_exec(port, "trainer", "trainer-pw", "reset alice")[0] == 0
    assert _vpn_state(run_exec(port, "alice", "alice-pw", REPLICATION)[1]) == "A"


def test_trainer_console_shell_and_watch(served: ClassServerThread) -> None:
    shell = Shell(connect(served.port(), "trainer", "trainer-pw"))
    try:
        shell.until("class>")
        assert "alice" in shell.command("roster")
        assert "no trainee 'zed'" in shell.command("show zed")
        shell.send("watch alice\r")
        shell.until("Enter stops")
        run_exec(served.port(), "alice", "alice-pw", "show hostname")
        assert "show hostname" in shell.until("show hostname")
        shell.send("\r")
        shell.until("class>")
        assert "alice" in shell.command("grades")
    finally:
        shell.close()


def test_a_trainee_outside_the_window_gets_one_line(tmp_path: Path) -> None:
    path = tmp_path / "late.yaml"
    path.write_text(CLASS_YAML + "window: {start: 2020-01-01T09:00:00Z, end: 2020-01-01T17:00:00Z}\n")
    with class_serving(load_class_file(path), tmp_path / "late.class") as served:
        status, text = run_exec(served.port(), "alice", "alice-pw", "show hostname")
        assert status == 1 and text == "% the class ended at 2020-01-01T17:00:00+00:00\n"
        assert served.room.record.lines("alice") == []
        assert run_exec(served.port(), "trainer", "trainer-pw", "roster")[0] == 0


def test_an_idle_trainee_is_logged_out(tmp_path: Path) -> None:
    path = tmp_path / "idle.yaml"
    path.write_text(CLASS_YAML + "window: {idle_minutes: 1}\n")
    with class_serving(load_class_file(path), tmp_path / "idle.class", idle_check_seconds=0.2) as served:
        shell = Shell(connect(served.port(), "alice", "alice-pw"))
        try:
            shell.login_text()
            assert "Hostname" in shell.command("show hostname")
            for lab in served.server.trainee_sessions.values():
                lab.last_active -= 61  # a minute without a command
            assert "no command for 1 minute(s): logged out" in shell.until("logged out")
            with pytest.raises(EOFError):
                shell.until("never")
        finally:
            shell.close()


def test_the_drill_time_limit_and_extend(tmp_path: Path) -> None:
    from datetime import datetime, timedelta, timezone

    from solace_shell.classroom.console import TrainerConsole
    from solace_shell.classroom.room import ClassRoom

    path = tmp_path / "timed.yaml"
    path.write_text(CLASS_YAML + "window: {drill_minutes: 10}\n")
    class_file = load_class_file(path)
    room = ClassRoom(class_file, tmp_path / "timed.class")
    try:
        member = class_file.trainee("alice")
        assert member is not None
        lab = room.trainee_lab(member, "shell")
        assert lab.execute("NY_Appliance1", "show hostname").ok
        later = datetime.now(timezone.utc) + timedelta(minutes=11)
        left = room.seconds_left("alice", later)
        assert left is not None and left < 0
        assert TrainerConsole(room, "trainer").run("extend alice 5")[1]
        left = room.seconds_left("alice", later)
        assert left is not None and 180 < left <= 240
        assert room.seconds_left("bob", later) == 600  # bob has not started
        room.seconds_left = lambda lab, now=None: -1.0  # type: ignore[method-assign]
        for target, line in (("NY_Appliance1", "show hostname"), ("lab", "advance 1s")):
            outcome = lab.execute(target, line)
            assert not outcome.ok and "time is up" in outcome.text
        assert lab.execute("lab", "connect NJ_Appliance1").ok
    finally:
        room.close()


def test_a_trainee_logs_in_with_their_key(tmp_path: Path) -> None:
    import asyncssh

    key = asyncssh.generate_private_key("ssh-ed25519")
    key_file = tmp_path / "id_ed25519"
    key.write_private_key(str(key_file))
    public = key.export_public_key().decode().strip()
    path = tmp_path / "keys.yaml"
    path.write_text(CLASS_YAML.replace("{name: bob, password: bob-pw}",
                                       f"{{name: bob, password: bob-pw, ssh_keys: ['{public}']}}"))
    with class_serving(load_class_file(path), tmp_path / "keys.class") as served:
        client = paramiko.SSHClient()
        client.set_missing_host_key_policy(paramiko.AutoAddPolicy())
        client.connect("127.0.0.1", port=served.port(), username="bob", key_filename=str(key_file),
                       look_for_keys=False, allow_agent=False, timeout=30)
        try:
            _, stdout, _ = client.exec_command("show hostname")
            assert "NY_Appliance1" in stdout.read().decode()
        finally:
            client.close()
        with pytest.raises(paramiko.AuthenticationException):  # bob's key is not alice's
            client = paramiko.SSHClient()
            client.set_missing_host_key_policy(paramiko.AutoAddPolicy())
            client.connect("127.0.0.1", port=served.port(), username="alice", key_filename=str(key_file),
                           look_for_keys=False, allow_agent=False, timeout=30)
        assert [r.member for r in served.room.record.lines("bob")] == ["bob"]


def test_a_locked_out_trainee_is_refused_even_with_the_right_password(tmp_path: Path) -> None:
    from state_store.scenario_files import DEFAULT_SCENARIO

    text = DEFAULT_SCENARIO.read_text()
    strict = "\nsettings:\n  ssh_lockout_failures: 2\n  ssh_auth_delay_ms: 0\n  ssh_auth_delay_max_ms: 0\n"
    (tmp_path / "strict.yaml").write_text(text.replace("\nsettings:\n", strict, 1))
    path = tmp_path / "strict-class.yaml"
    path.write_text(CLASS_YAML.replace("scenario: default", "scenario: strict.yaml"))
    with class_serving(load_class_file(path), tmp_path / "strict.class") as served:
        served.server.hold_seconds = 0.1  # a locked-out source's connection is held this long, then closed
        for _ in range(2):
            with pytest.raises(paramiko.AuthenticationException):
                connect(served.port(), "alice", "guess")
        # the name and the source are locked out, as `serve` locks them out (docs/ssh.md)
        with pytest.raises((paramiko.SSHException, OSError, EOFError)):
            connect(served.port(), "alice", "alice-pw")
        assert served.room.record.lines("alice") == []
