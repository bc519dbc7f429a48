"""How long writing a snapshot of a big lab holds the lab file's write lock.

Run: python bench/bench_snapshot.py [--messages N]
A file lab gets N messages in one command, then one more command, after which the store writes a
snapshot (``StoreTuning.snapshot_every`` is 2 for this run: the state is encoded outside the lock, a big
one written in parts, one short transaction each, then the rows it supersedes are dropped). Another
process keeps trying to take the write lock without waiting (``BEGIN IMMEDIATE``, busy timeout 0)
and reports the longest stretch in which every try failed: the longest the lock was held at once.
"""

from __future__ import annotations

import argparse
import sqlite3
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from state_store.lab_store import LabStore
from state_store.systems import ROUTER_CLI
from state_store.tuning import StoreTuning


def probe(path: Path, stop_file: Path) -> subprocess.Popen[str]:
    code = f"""
import os, sqlite3, sys, time
con = sqlite3.connect({str(path)!r}, isolation_level=None, timeout=0)
longest, failing_since, tries = 0.0, None, 0
print("ready", flush=True)
while not os.path.exists({str(stop_file)!r}):
    tries += 1
    now = time.perf_counter()
    try:
        con.execute("BEGIN IMMEDIATE")
        con.execute("ROLLBACK")
        if failing_since is not None:
            longest = max(longest, now - failing_since)
            failing_since = None
    except sqlite3.OperationalError:
        if failing_since is None:
            failing_since = now
    time.sleep(0.0005)
print(f"{{longest:.4f}} {{tries}}", flush=True)
"""
    return subprocess.Popen([sys.executable, "-c", code], stdout=subprocess.PIPE, text=True)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--messages", type=int, default=1_000_000)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        path, stop = Path(tmp) / "lab.sqlite", Path(tmp) / "stop"
        store = LabStore.open(path, tuning=StoreTuning(snapshot_every=2))   # the second command snapshots
        start = time.perf_counter()
        store.run(lambda e: e.system_view(ROUTER_CLI.name).publish("trader", "trading/orders/new", count=args.messages))
        publish_s = time.perf_counter() - start
        prober = probe(path, stop)
        assert prober.stdout is not None and prober.stdout.readline().strip() == "ready"
        time.sleep(0.2)
        start = time.perf_counter()
        store.run(lambda e: e.advance(1))  # appended, then the snapshot is written
        snapshot_s = time.perf_counter() - start
        time.sleep(0.2)
        stop.touch()
        longest, tries = prober.stdout.read().split()
        prober.wait()
        con = sqlite3.connect(path)
        kinds = dict(con.execute("SELECT kind, count(*) FROM journal GROUP BY kind").fetchall())
        size = con.execute("SELECT sum(length(body)) FROM journal").fetchone()[0]
        con.close()
        store.close()
    print(f"publish {args.messages:,} messages in one command: {publish_s:.2f} s")
    print(f"next command with its snapshot: {snapshot_s:.2f} s; journal now {kinds} "
          f"({size / 1e6:.1f} MB, {size:,} bytes)")
    print(f"longest the write lock was held at once (another process trying every 0.5 ms, {int(tries):,} tries): "
          f"{float(longest) * 1000:.1f} ms")
    return 0


if __name__ == "__main__":
    sys.exit(main())
