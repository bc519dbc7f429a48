"""`--record FILE` and the other files the shell writes for its user: made whole (a new file renamed
onto the name), mode 0600, never written through a symlink or a hard link; a recording holds no
password hash and still replays as pass."""

from __future__ import annotations

import os
import stat
import sys
from pathlib import Path

import pexpect  # type: ignore[import-untyped]
import pytest

from solace_shell.lab import Lab
from solace_shell.private_files import UnusableTarget, create_private_text
from solace_shell.transcript.record import Recorder, RecordRefused, masked_output_line
from solace_shell.transcript.replay import replay_file
from state_store.passwords import is_hashed

from tests.support.repl_driver import drive

ROOT = Path(__file__).resolve().parents[2]
CTRL_D = "\x04"


def _spawn(*args: str) -> pexpect.spawn:
    env = dict(os.environ, PYTHONPATH=str(ROOT), TERM="xterm", PROMPT_TOOLKIT_NO_CPR="1")
    return pexpect.spawn(sys.executable, ["-c", "from solace_shell.cli import main; main()", *args], env=env,
                         encoding="utf-8", timeout=60, dimensions=(24, 120))


def test_record_refuses_a_symlink_and_leaves_its_target_alone(tmp_path: Path) -> None:
    victim = tmp_path / "victim.txt"
    victim.write_text("precious\n")
    link = tmp_path / "rec.cli.txt"
    link.symlink_to(victim)
    child = _spawn("--db", str(tmp_path / "lab.sqlite"), "--record", str(link))
    child.expect(pexpect.EOF)
    child.close()
    assert child.exitstatus == 2
    assert child.before.strip().endswith(f"solace-shell: the recording {link} is a symbolic link; give a new file name")
    assert victim.read_text() == "precious\n" and link.is_symlink()


def test_record_into_a_missing_directory_is_one_line(tmp_path: Path) -> None:
    target = tmp_path / "nowhere" / "rec.cli.txt"
    child = _spawn("--db", str(tmp_path / "lab.sqlite"), "--record", str(target))
    child.expect(pexpect.EOF)
    child.close()
    assert child.exitstatus == 2
    assert child.before.strip().endswith(
        f"solace-shell: cannot write the recording {target}: No such file or directory")


def test_a_recording_is_private_whatever_the_umask(tmp_path: Path) -> None:
    old = os.umask(0o002)
    try:
        with Recorder.open(tmp_path / "r.cli.txt") as rec:
            rec.record("NY_Appliance1>", "show hostname", "Hostname: NY_Appliance1")
    finally:
        os.umask(old)
    assert stat.S_IMODE((tmp_path / "r.cli.txt").stat().st_mode) == 0o600


def test_an_existing_file_is_replaced_not_written_through(tmp_path: Path) -> None:
    other = tmp_path / "other-users-file"
    other.write_text("theirs\n")
    name = tmp_path / "r.cli.txt"
    os.link(other, name)  # a hard link planted under the recording's name
    with Recorder.open(name) as rec:
        rec.record("NY_Appliance1>", "show hostname", "Hostname: NY_Appliance1")
    assert other.read_text() == "theirs\n"
    assert name.read_text() == "NY_Appliance1> show hostname\nHostname: NY_Appliance1\n"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["other-users-file", "r.cli.txt"]


@pytest.mark.parametrize("make", ["directory", "fifo"])
def test_a_name_that_is_not_a_regular_file(tmp_path: Path, make: str) -> None:
    name = tmp_path / "r.cli.txt"
    name.mkdir() if make == "directory" else os.mkfifo(name)
    with pytest.raises(RecordRefused, match="is not a regular file"):
        Recorder.open(name)
    with pytest.raises(UnusableTarget):
        create_private_text(name, "recording")


def test_a_recording_of_show_current_config_holds_no_hash_and_replays(tmp_path: Path) -> None:
    path = tmp_path / "config.cli.txt"
    lab = Lab.fresh()
    try:
        keys = ("enable\rconfigure\rcreate username trainee\rpassword s3cret-pw\rexit\rexit\r"
                "show current-config\r" + CTRL_D)
        recorder = Recorder.open(path)
        try:
            drive(lab, keys, recorder=recorder)
        finally:
            recorder.close()
    finally:
        lab.close()
    text = path.read_text()
    assert "encrypted-password" in text and "$scrypt$" not in text and "s3cret-pw" not in text
    assert not any(is_hashed(word.strip('"')) for word in text.split())
    assert 'encrypted-password "[..]"' in text
    result = replay_file(path)
    assert result.error is None and result.passed, result


def test_masked_output_lines() -> None:
    digest = "$scrypt$ln=14,r=8,p=1$0ruPOfmjgtbPdLTwTpDaEQ$54HS1+uHK/WnRIqk4vY9UTh9jSvQRMQhcWdRYzWfDTQ"
    assert masked_output_line(f'  encrypted-password "{digest}"') == '  encrypted-password "[..]"'
    assert masked_output_line(f"x {digest} y") == "x [..] y"
    assert masked_output_line("encrypted-key k1 (re)") == r"encrypted\-key\ .*\ \(re\) (re)"
    assert masked_output_line("no password") == "no password"


def test_a_bundled_scenario_is_named_in_the_header(tmp_path: Path) -> None:
    bundled = ROOT / "state_store" / "scenarios" / "swiftmq-ha.yaml"
    with Recorder.open(tmp_path / "r.cli.txt", scenario=bundled):
        pass
    assert (tmp_path / "r.cli.txt").read_text() == "#: scenario: swiftmq-ha\n"


@pytest.mark.parametrize("name", ["lab.sqlite", "lab.sqlite-wal", "lab.sqlite.history", "lab.sqlite.ssh_host_key"])
def test_a_recording_never_replaces_the_lab_or_its_files(tmp_path: Path, name: str) -> None:
    lab = tmp_path / "lab.sqlite"
    child = _spawn("--db", str(lab), "--record", str(tmp_path / "." / name))
    child.expect(pexpect.EOF)
    child.close()
    assert child.exitstatus == 2
    assert "would replace the lab file" in child.before
    opened = Lab.open(lab)  # the lab is still whole
    try:
        assert opened.execute("NY_Appliance1", "show hostname").ok
    finally:
        opened.close()
