"""Memory a session costs for grading: N sessions on one lab of Q queues, a whole copy of the state
per session (how grading kept a session's start before) against the position kept now.

    python bench/bench_session_memory.py                      # 100 sessions, 10,000 queues
    python bench/bench_session_memory.py --sessions 300 --queues 10000
    python bench/bench_session_memory.py --quick              # 10 sessions, 2,000 queues

Two labs, each measured both ways in this process, one after the other on the same machine state:
- in memory: the queues made through the engine in one command, so the store's state is its last
  image plus the 10,000 calls since (a session's start is that image and a count of calls);
- lab file: the queues written to a lab file and snapshotted, then the file opened again, as
  `solace-shell serve` opens it (the store's image is the snapshot's text).
Per way: the Python heap a session adds (tracemalloc: N sessions opened, each running one line,
which is when the start is kept; the store's own state is there before and is not counted), the
CPU time of keeping one start, and the CPU time of `lab> grade` of a session that typed the clean
controlled-failover drill (grading builds the start again: replays calls or decodes the snapshot).
"""

from __future__ import annotations

import argparse
import gc
import sys
import tempfile
import time
import tracemalloc
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import TYPE_CHECKING

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from solace_shell.lab import Lab  # noqa: E402 - after the sys.path line above
from solace_shell.session_log import SessionLog  # noqa: E402
from solace_shell.transcript.format import scan_transcript  # noqa: E402
from state_store.lab_store import LabStore  # noqa: E402
from state_store.solace.engine import Engine  # noqa: E402
from state_store.tuning import StoreTuning  # noqa: E402
from tests.support.router_engine import router_engine  # noqa: E402

if TYPE_CHECKING:
    from state_store.systems import RootStore

DRILL = ROOT / "tests" / "data" / "grading" / "clean.cli.txt"
CPU_SESSIONS = 10   # sessions whose start is timed (without tracemalloc, which slows every allocation)


def keep_a_copy(log: SessionLog, lab: Lab) -> None:
    """The start as grading kept it before: a whole in-memory copy of the state."""
    kept = lab.store.copy()
    user = lab.user.name
    log.start = lambda: Lab(kept.copy(), user=user)


@contextmanager
def way(name: str) -> Iterator[None]:
    """`copy` (the way before) or `position` (SessionLog's own keep_start)."""
    if name == "position":
        yield
        return
    own = SessionLog.keep_start
    setattr(SessionLog, "keep_start", keep_a_copy)  # noqa: B010 - swapped for the measurement only
    try:
        yield
    finally:
        setattr(SessionLog, "keep_start", own)  # noqa: B010


def make_queues(queues: int) -> Callable[[Engine], None]:
    def work(engine: Engine) -> None:
        for i in range(queues):
            router_engine(engine).create_queue("NY_Appliance1", "Trading_VPN", f"bulk{i:06d}")
    return work


def in_memory_lab(queues: int, _: Path) -> RootStore:
    store: RootStore = LabStore.in_memory()
    store.run(make_queues(queues))
    return store


def file_lab(queues: int, folder: Path) -> RootStore:
    path = Path(tempfile.mkstemp(".lab", dir=folder)[1])  # a new file each time: the drill changes it
    path.unlink()
    writer: RootStore = LabStore.open(path, tuning=StoreTuning(snapshot_every=1))
    writer.run(make_queues(queues))
    writer.close()
    opened: RootStore = LabStore.open(path)
    return opened


def session(store: RootStore, i: int) -> Lab:
    lab = Lab(store, ("admin", "operator")[i % 2])
    lab.execute("NY_Appliance1", "show hostname")
    return lab


def measure(store: RootStore, sessions: int) -> dict[str, float]:
    session(store, 0)  # first-use caches (grammar, parser, renderers): not a session's cost
    labs: list[Lab] = []
    gc.collect()
    tracemalloc.start()
    try:
        before = tracemalloc.get_traced_memory()[0]
        labs += [session(store, i) for i in range(sessions)]
        gc.collect()
        heap = (tracemalloc.get_traced_memory()[0] - before) / sessions
    finally:
        tracemalloc.stop()
    labs.clear()  # (not closed: closing a Lab closes its store, which the sessions share)
    gc.collect()
    started = time.process_time()
    timed = [session(store, i) for i in range(CPU_SESSIONS)]
    start_s = (time.process_time() - started) / CPU_SESSIONS
    trainee = timed[0]
    text = DRILL.read_text(encoding="utf-8")
    for step in scan_transcript(text, DRILL.name, hosts=trainee.targets()).steps():
        trainee.execute(step.host, step.command)
    started = time.process_time()
    graded = trainee.execute("lab", "grade").text.splitlines()[0]
    grade_s = time.process_time() - started
    if not graded.startswith("this session: pass"):
        raise SystemExit(f"the drill did not pass: {graded}")
    timed.clear()
    gc.collect()
    return {"heap": heap, "start_s": start_s, "grade_s": grade_s}


def size(n: float) -> str:
    return f"{n / 2**20:.1f} MB" if n >= 2**20 else f"{n / 1024:.1f} KB"


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--sessions", type=int, default=100, help="sessions opened on the lab (default 100)")
    ap.add_argument("--queues", type=int, default=10_000, help="queues in the lab's state (default 10,000)")
    ap.add_argument("--quick", action="store_true", help="10 sessions on 2,000 queues")
    args = ap.parse_args()
    sessions, queues = (10, 2_000) if args.quick else (args.sessions, args.queues)
    if sessions < 1 or queues < 0:
        ap.error("--sessions must be at least 1 and --queues at least 0")
    print(f"{sessions} sessions on a lab of {queues:,} queues (Python heap by tracemalloc; CPU time)")
    print(f"{'lab':<10} {'kept':<9} {'heap/session':>13} {'N sessions':>11} {'start CPU':>10} {'grade CPU':>10}",
          flush=True)
    with tempfile.TemporaryDirectory() as folder:
        for label, build in (("in memory", in_memory_lab), ("lab file", file_lab)):
            figures = {}
            for kept in ("copy", "position"):
                store = build(queues, Path(folder))
                try:
                    with way(kept):
                        figures[kept] = found = measure(store, sessions)
                finally:
                    store.close()
                print(f"{label:<10} {kept:<9} {size(found['heap']):>13} {size(found['heap'] * sessions):>11} "
                      f"{found['start_s'] * 1000:>7.1f} ms {found['grade_s'] * 1000:>7.0f} ms", flush=True)
            ratio = figures["copy"]["heap"] / max(figures["position"]["heap"], 1.0)
            print(f"{label:<10} per session {size(figures['copy']['heap'])} -> {size(figures['position']['heap'])} "
                  f"({ratio:,.0f}x less)")


if __name__ == "__main__":
    main()
