"""What a creator killed while it wrote a new lab file leaves beside it (`.NAME.*.creating` and its
SQLite sidecars) is removed by the next open; a creation still under way and anything not a
creator's own file (a planted symlink) are left alone."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
from pathlib import Path

from state_store import lab_file
from state_store.lab_store import LabStore

ROOT = Path(__file__).resolve().parents[2]
# A creator that stops half-way through writing the lab (its SQLite journal open), until killed.
CREATOR = """
import sys, time
from pathlib import Path
from state_store import lab_file

def fill(con):
    con.execute("CREATE TABLE half (x)")
    con.execute("BEGIN")
    con.execute("INSERT INTO half VALUES (1)")
    print("filling", flush=True)
    time.sleep(600)

lab_file.create(Path(sys.argv[1]), fill)
"""


def _leftovers(directory: Path) -> list[str]:
    return sorted(p.name for p in directory.iterdir() if ".creating" in p.name)


def _creator(path: Path) -> subprocess.Popen[str]:
    proc = subprocess.Popen([sys.executable, "-c", CREATOR, str(path)], stdout=subprocess.PIPE, text=True,
                            env=dict(os.environ, PYTHONPATH=str(ROOT)))
    assert proc.stdout is not None and proc.stdout.readline() == "filling\n"
    return proc


def test_a_killed_creators_files_are_removed_on_the_next_open(tmp_path: Path) -> None:
    path = tmp_path / "lab.sqlite"
    proc = _creator(path)
    proc.send_signal(signal.SIGKILL)
    proc.wait()
    left = _leftovers(tmp_path)
    assert len(left) == 2 and left[1] == left[0] + "-journal", left  # the temporary lab and its journal
    LabStore.open(path).close()
    assert _leftovers(tmp_path) == []
    assert sorted(p.name for p in tmp_path.iterdir()) == ["lab.sqlite"]


def test_a_creation_under_way_is_left_alone(tmp_path: Path) -> None:
    path = tmp_path / "lab.sqlite"
    proc = _creator(path)
    try:
        left = _leftovers(tmp_path)
        assert lab_file.remove_stale_creations(path) == []
        LabStore.open(path).close()  # another shell creates the lab meanwhile
        assert _leftovers(tmp_path) == left
    finally:
        proc.kill()
        proc.wait()
    assert len(lab_file.remove_stale_creations(path)) == 2
    assert _leftovers(tmp_path) == []


def test_only_regular_files_of_this_user_are_removed(tmp_path: Path) -> None:
    path = tmp_path / "lab.sqlite"
    victim = tmp_path / "victim.txt"
    victim.write_text("keep me")
    (tmp_path / ".lab.sqlite.planted.creating").symlink_to(victim)
    (tmp_path / ".lab.sqlite.dir.creating").mkdir()
    (tmp_path / ".lab.sqlite.orphan.creating-journal").write_bytes(b"journal")  # its lab file is gone
    (tmp_path / ".other.sqlite.x.creating").write_bytes(b"another lab's")
    assert [p.name for p in lab_file.remove_stale_creations(path)] == [".lab.sqlite.orphan.creating-journal"]
    assert victim.read_text() == "keep me"
    assert sorted(p.name for p in tmp_path.iterdir()) == [
        ".lab.sqlite.dir.creating", ".lab.sqlite.planted.creating", ".other.sqlite.x.creating", "victim.txt"]
