"""Kill -9 at random points and several shells on one lab file: nothing is lost or half applied.

Both tests drive real child processes through the same `Lab.execute` path every user goes through.
"""

from __future__ import annotations

import os
import random
import signal
import sqlite3
import subprocess
import sys
import time
from pathlib import Path

import pytest

from solace_shell.lab import Lab
from state_store.lab_store import LabStore
from tests.support.lab_child import PUBLISH_BATCH
from tests.support.router_engine import router_section

ROOT = Path(__file__).resolve().parents[2]
KILLS = 50


def child(path: Path, role: str, count: int, start: int = 0) -> subprocess.Popen:
    return subprocess.Popen([sys.executable, "-m", "tests.support.lab_child", str(path), role, str(count), str(start)],
                            cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)


def consistency_problems(path: Path) -> list[str]:
    """Integrity, and every counter agreeing with the records it counts (a half-applied command
    breaks one), on the lab as a shell opening the file reads it."""
    con = sqlite3.connect(path)
    try:
        problems = [] if con.execute("PRAGMA integrity_check").fetchone()[0] == "ok" else ["integrity_check failed"]
    finally:
        con.close()
    store = LabStore.open(path)
    try:
        st = router_section(store.state)
        for q in st.queues.values():
            if q.kind == "replication":
                stream = st.repl_by_vpn.get(q.vpn_id)
                rows = sum(e.count for e in stream if e.kind == "msg") if stream is not None else 0
            else:
                copies = st.spooled_by_queue.get(q.id)
                rows = copies.total() if copies is not None else 0
            if rows != q.msg_count:
                problems.append(f"queue {q.name} (vpn {q.vpn_id}) counter {q.msg_count} != {rows} records")
        return problems
    finally:
        store.close()


def published(path: Path) -> int:
    store = LabStore.open(path)
    try:
        return router_section(store.state).message_count()
    finally:
        store.close()


def test_sigkill_at_random_points_loses_nothing_that_was_reported(tmp_path: Path) -> None:
    path = tmp_path / "lab.sqlite"
    Lab.open(path).close()
    rng = random.Random(20261121)
    reported = 0
    for kill in range(KILLS):
        proc = child(path, "ny", 10_000, start=reported)
        assert proc.stdout.readline().strip() == "ready", proc.stderr.read()
        deadline = time.monotonic() + rng.uniform(0.01, 0.25)
        done_now = 0
        os.set_blocking(proc.stdout.fileno(), False)
        while time.monotonic() < deadline:
            line = proc.stdout.readline()
            if line.startswith("done"):
                done_now += 1
            elif line.startswith("failed"):
                pytest.fail(line)
        proc.send_signal(signal.SIGKILL)
        # Read the rest through the same text stream: lines it already buffered were reported too
        # (reading the pipe underneath, as communicate() does, would miss them).
        os.set_blocking(proc.stdout.fileno(), True)
        rest = proc.stdout.read()
        proc.wait()
        proc.stdout.close()
        proc.stderr.close()
        done_now += sum(1 for line in rest.splitlines() if line.startswith("done"))
        reported += done_now
        assert consistency_problems(path) == [], f"after kill {kill}"
        committed = published(path) // PUBLISH_BATCH
        assert published(path) % PUBLISH_BATCH == 0, f"half a publish after kill {kill}"
        # Every reported command is there; at most the one in flight committed without being reported.
        assert reported <= committed <= reported + 1, (kill, reported, committed)
        reported = committed
    assert reported > 0


@pytest.mark.parametrize("per_shell", [1000])
def test_two_shells_interleave_without_locking_errors_and_match_a_serial_replay(tmp_path: Path,
                                                                                 per_shell: int) -> None:
    shared = tmp_path / "shared.sqlite"
    Lab.open(shared).close()
    procs = [child(shared, "ny", per_shell), child(shared, "nj", per_shell)]
    outputs = [p.communicate(timeout=600) for p in procs]
    for proc, (out, err) in zip(procs, outputs, strict=True):
        assert proc.returncode == 0, out[-2000:] + err[-2000:]
        assert out.count("done ") == per_shell
        assert "locked" not in out + err

    serial = tmp_path / "serial.sqlite"
    Lab.open(serial).close()
    for role in ("ny", "nj"):
        proc = child(serial, role, per_shell)
        out, err = proc.communicate(timeout=600)
        assert proc.returncode == 0, err

    a, b = LabStore.open(shared), LabStore.open(serial)
    try:
        assert a.dump() == b.dump()
    finally:
        a.close()
        b.close()
