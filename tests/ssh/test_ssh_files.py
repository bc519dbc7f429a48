"""Files an SSH user names at the lab console (`lab> reset SCENARIO`, `lab> grade RUNBOOK`) lie in
the lab file's directory: an SSH user is a user of the lab, not of the server's machine.

Through the real server and a paramiko terminal session (F2 opens the lab console)."""

from __future__ import annotations

import shutil
from collections.abc import Iterator
from pathlib import Path

import pytest

from state_store.scenario_files import ROOT_DIR
from tests.support.ssh_clients import Shell, connect, serving

NY = "NY_Appliance1"
F2 = "\x1bOQ"


@pytest.fixture
def console(tmp_path: Path) -> Iterator[Shell]:
    lab_dir = tmp_path / "labs"
    lab_dir.mkdir()
    shutil.copy(ROOT_DIR / "default.yaml", lab_dir / "mine.yaml")
    (tmp_path / "outside.yaml").write_text((ROOT_DIR / "default.yaml").read_text())
    with serving(lab_dir / "training.lab") as server:
        shell = Shell(connect(server.port(NY), "admin", "admin"))
        try:
            shell.login_text()
            shell.send(F2)
            shell.until("lab>")
            yield shell
        finally:
            shell.close()


@pytest.mark.parametrize(("line", "refusal"), [
    ("reset /etc/passwd", "ERROR: Scenario refused: /etc/passwd: an absolute path; give a path relative to the "
                          "lab's directory or a bundled scenario"),
    ("reset ../outside.yaml", "ERROR: Scenario refused: ../outside.yaml: leads outside the lab's directory tree"),
    ("grade /dev/zero", "/dev/zero:0: cannot read the runbook: an absolute path; files are named relative to "
                        "the lab's directory"),
    ("grade ../../../../etc/shadow", "cannot read the runbook: leads outside the lab's directory tree"),
])
def test_a_file_outside_the_labs_directory_is_refused_and_changes_nothing(
        console: Shell, line: str, refusal: str) -> None:
    console.command("advance 5s")
    out = console.command(line)
    assert refusal in out, out
    assert "root:" not in out
    assert "clock 00:00:05.000" in console.command("status")  # nothing was reset


def test_a_scenario_in_the_labs_directory_and_a_bundled_one_are_used(console: Shell) -> None:
    console.command("advance 5s")
    assert "ERROR" not in console.command("reset mine.yaml")
    assert "clock 00:00:00.000" in console.command("status")
    console.command("advance 5s")
    assert "ERROR" not in console.command("reset default")
    assert "clock 00:00:00.000" in console.command("status")
