"""The write lock of a shared lab file: readers never need it; a writer that cannot get it waits
a bounded time, then gets one clear line and the lab is unchanged."""

from __future__ import annotations

import sqlite3
from pathlib import Path

import pytest

from solace_shell.lab import Lab
from state_store.tuning import StoreTuning


@pytest.fixture
def lab_file(tmp_path: Path) -> Path:
    path = tmp_path / "lab.sqlite"
    Lab.open(path).close()
    return path


def _hold_write_lock(path: Path) -> sqlite3.Connection:
    other = sqlite3.connect(path, isolation_level=None)
    other.execute("BEGIN IMMEDIATE")
    other.execute("UPDATE meta SET value=value")  # a write in progress
    return other


def test_reads_run_while_another_shell_holds_the_write_lock(lab_file: Path) -> None:
    lab = Lab.open(lab_file)
    other = _hold_write_lock(lab_file)
    try:
        out = lab.execute("NY_Appliance1", "show message-vpn * replication")
        assert out.ok and "Trading_VPN" in out.text
    finally:
        other.rollback()
        other.close()
        lab.close()


def test_a_writer_waits_a_bounded_time_then_one_clear_line(lab_file: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    tuning = StoreTuning(max_wait_s=0.5, busy_timeout_ms=100)
    lab = Lab.open(lab_file, tuning=tuning)
    before = lab.store.dump()
    other = _hold_write_lock(lab_file)
    try:
        out = lab.execute("lab", "advance 5s")
        assert not out.ok and out.error_kind == "busy"
        assert out.text.startswith("ERROR: The lab is busy") and "nothing was changed" in out.text
        assert "Traceback" not in out.text
    finally:
        other.rollback()
        other.close()
    assert lab.store.dump() == before
    assert lab.execute("lab", "advance 5s").ok  # the lock is free again: the same command runs
    lab.close()


def test_a_command_outrun_by_other_writers_says_so_and_changes_nothing(
        lab_file: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A command that ran longer than the wait while other shells kept appending is refused with
    its own line (no shell held the lock: "kept it locked" would mislead) and leaves nothing."""
    from solace_shell.messages import shell_error_text
    from state_store.engine import Engine
    from state_store.errors import LabBusy
    from state_store.lab_store import LabStore

    tuning = StoreTuning(max_wait_s=0.0)
    mine, other = LabStore.open(lab_file, tuning=tuning), LabStore.open(lab_file, tuning=tuning)
    before = other.dump()

    def work(engine: Engine) -> None:
        other.run(lambda e: e.advance(1000))  # another shell appends while this command runs
        engine.advance(1000)

    with pytest.raises(LabBusy) as busy:
        mine.run(work)
    assert busy.value.changed_meanwhile
    text = shell_error_text("lab_changed_meanwhile", seconds="0")
    assert text.startswith("ERROR: The lab is busy: other shells changed it") and "nothing was changed" in text
    assert mine.dump() == other.dump() != before  # only the other shell's advance is there
    mine.close()
    other.close()
