"""`solace-shell class serve|grades|export` as a trainer types them: a bad class file refused whole,
OpenSSH trainees each in their own lab, the grades exported as CSV and JSON."""

from __future__ import annotations

import csv
import json
import os
import shutil
import signal
import subprocess
import sys
from pathlib import Path

import pexpect  # type: ignore[import-untyped]
import pytest

from tests.support.ssh_clients import TIMEOUT, openssh_args, server_errors

from .conftest import CLASS_YAML

SSH = shutil.which("ssh")
ROOT = Path(__file__).resolve().parents[2]
ENV = dict(os.environ, PYTHONPATH=str(ROOT))


def cli(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "solace_shell.cli", *args], capture_output=True, text=True,
                          env=ENV, timeout=TIMEOUT, check=False)


def openssh(port: int, user: str, command: str | None = None, *options: str) -> pexpect.spawn:
    args = [*options, *openssh_args(port, user)]
    return pexpect.spawn(SSH, [*args, *([command] if command else [])], encoding="utf-8", timeout=TIMEOUT,
                         dimensions=(24, 120))


def test_a_bad_class_file_is_refused_whole_with_its_lines(tmp_path: Path) -> None:
    path = tmp_path / "bad.yaml"
    path.write_text(CLASS_YAML.replace("name: bob,", "name: alice,") + "colour: red\n")
    done = cli("class", "serve", str(path), "--port", "0")
    assert done.returncode == 2 and "Traceback" not in done.stderr
    assert done.stderr.splitlines()[0] == f"solace-shell: class file {path} has 2 problem(s):"
    assert f"{path}:7: trainee 'alice': defined twice" in done.stderr
    assert f"{path}:10: top level: unknown key 'colour'" in done.stderr
    assert not (tmp_path / "bad.class").exists()


def test_grades_without_a_record_is_one_line(tmp_path: Path) -> None:
    path = tmp_path / "course.yaml"
    path.write_text(CLASS_YAML)
    done = cli("class", "grades", str(path), "--json")
    assert done.returncode == 2
    where = tmp_path / "course.class"
    assert done.stderr == f"solace-shell: no class record in {where} (serve the class first, or give --db)\n"


@pytest.mark.skipif(SSH is None, reason="the OpenSSH client `ssh` is not installed")
def test_openssh_trainees_then_grades(tmp_path: Path) -> None:
    path = tmp_path / "course.yaml"
    path.write_text(CLASS_YAML)
    db = tmp_path / "records"
    proc = subprocess.Popen([sys.executable, "-m", "solace_shell.cli", "class", "serve", str(path), "--db", str(db),
                             "--port", "0"], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=ENV)
    try:
        assert proc.stdout is not None
        port = int(proc.stdout.readline().split()[3])
        child = openssh(port, "alice")
        child.expect("Password:")
        child.sendline("alice-pw")
        child.expect_exact("NY_Appliance1>")
        for line, prompt in (("enable", "NY_Appliance1#"), ("configure", "NY_Appliance1(configure)#"),
                             ("message-vpn Trading_VPN", "NY_Appliance1(configure/message-vpn)#"),
                             ("replication state standby", "NY_Appliance1(configure/message-vpn)#")):
            child.send(line + "\r")
            child.expect_exact(prompt)
        child.send("\x1bOQ")  # F2: the trainee's own console
        child.expect_exact("lab>")
        child.send("reset\r")
        child.expect_exact("not open to trainees")
        child.send("exit\r")
        child.expect_exact("NY_Appliance1(configure/message-vpn)#")
        child.send("end\r")
        child.expect_exact("NY_Appliance1#")
        child.send("exit\r")
        child.expect_exact("NY_Appliance1>")
        child.send("exit\r")
        child.expect(pexpect.EOF)
        bob = openssh(port, "bob", "show message-vpn Trading_VPN replication")
        bob.expect("Password:")
        bob.sendline("bob-pw")
        bob.expect(pexpect.EOF)
        assert "Trading_VPN                      U A" in bob.before
        # one try: after a refused keyboard-interactive `Password:` OpenSSH would ask again
        wrong = openssh(port, "mallory", None, "-o", "PreferredAuthentications=keyboard-interactive")
        wrong.expect("Password:")
        wrong.sendline("alice-pw")
        wrong.expect(pexpect.EOF)
        assert "Permission denied" in wrong.before
    finally:
        proc.send_signal(signal.SIGTERM)
        _, err = proc.communicate(timeout=TIMEOUT)
    assert proc.returncode == 0 and "Traceback" not in err, server_errors(err)
    assert "login user=alice" in err and "login refused user=mallory" in err
    assert (db / "labs" / "alice.lab").is_file() and (db / "labs" / "bob.lab").is_file()
    grades = tmp_path / "grades.csv"
    done = cli("class", "grades", str(path), "--db", str(db), "--csv", str(grades), "--json")
    assert done.returncode == 0, done.stderr
    rows = list(csv.DictReader(grades.open()))
    assert {r["student_id"] for r in rows} == {"alice", "bob", "carol", "dave"}
    standby = next(r for r in rows if r["student_id"] == "alice" and r["step_id"] == "standby")
    assert (standby["status"], standby["score"], standby["max_score"]) == ("done", "1.0", "1.0")
    doc = json.loads(done.stdout)
    assert doc["assignment"] == "controlled-failover"
    assert [t["student_id"] for t in doc["trainees"]] == ["alice", "bob", "carol", "dave"]
    exported = cli("class", "export", str(path), "alice", "--db", str(db))
    assert exported.returncode == 0
    assert "NY_Appliance1(configure/message-vpn)# replication state standby" in exported.stdout
    assert cli("class", "export", str(path), "../bob", "--db", str(db)).stderr == (
        "solace-shell: no trainee '../bob' in this class\n")


def test_workers_share_the_labs_and_the_record(tmp_path: Path) -> None:
    from tests.support.ssh_clients import run_exec

    path = tmp_path / "course.yaml"
    path.write_text(CLASS_YAML)
    proc = subprocess.Popen([sys.executable, "-m", "solace_shell.cli", "class", "serve", str(path), "--port", "0",
                             "--workers", "2"], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=ENV)
    try:
        assert proc.stdout is not None
        port = int(proc.stdout.readline().split()[3])
        for _ in range(3):  # connections spread over both workers
            assert run_exec(port, "carol", "carol-pw", "enable\nconfigure\nmessage-vpn Trading_VPN\n"
                                                       "replication state standby")[0] == 0
            text = run_exec(port, "dave", "dave-pw", "show message-vpn Trading_VPN replication")[1]
            assert "Trading_VPN                      U S" in text  # carol's team
            text = run_exec(port, "alice", "alice-pw", "show message-vpn Trading_VPN replication")[1]
            assert "Trading_VPN                      U A" in text  # not alice's
    finally:
        proc.send_signal(signal.SIGTERM)
        _, err = proc.communicate(timeout=TIMEOUT)
    assert proc.returncode == 0 and "Traceback" not in err, server_errors(err)
    from solace_shell.classroom.record import RECORD_NAME, ClassRecord

    record = ClassRecord(tmp_path / "course.class" / RECORD_NAME)
    assert len(record.lines("blue")) == 15 and len(record.lines("alice")) == 3
