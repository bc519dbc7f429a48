"""The HA kernel: id ranges against sets, the ledger in runs against message-by-message traffic,
and an HA system's changes persisted as journaled calls (never an image of the state)."""

from __future__ import annotations

import sqlite3
from pathlib import Path

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from solace_shell.lab import Lab
from state_store.kernel import ranges as rg
from state_store.scenario_files import ROOT_DIR

SCENARIO = ROOT_DIR / "swiftmq-ha.yaml"
PAIR = ("ha start ha1.A", "ha start ha1.B", "advance 5s")
RANGES = st.lists(st.tuples(st.integers(0, 40), st.integers(0, 12)).map(lambda t: (t[0], t[0] + t[1])), max_size=6)


def ids(ranges: list[tuple[int, int]]) -> list[int]:
    return [i for a, b in ranges for i in range(a, b)]


@given(RANGES, RANGES)
def test_range_operations_are_the_set_operations(xs: list[tuple[int, int]], ys: list[tuple[int, int]]) -> None:
    assert ids(rg.normalize(xs)) == sorted(set(ids(xs)))
    assert ids(rg.intersect(xs, ys)) == sorted(set(ids(xs)) & set(ids(ys)))
    ordered = rg.normalize(xs)
    assert ids(rg.subtract(ordered, ys)) == [i for i in ids(ordered) if i not in set(ids(ys))]
    for n in (0, 1, 5, 100):
        head, rest = rg.take(ordered, n)
        assert ids(head) + ids(rest) == ids(ordered) and len(ids(head)) == min(n, len(ids(ordered)))


STEP = st.one_of(
    st.tuples(st.just("publish"), st.sampled_from(["c1", "c2"]), st.sampled_from(["q1", "q2"]), st.integers(1, 4),
              st.booleans()),
    st.tuples(st.just("consume"), st.sampled_from(["c1", "c2"]), st.sampled_from(["q1", "q2"]), st.integers(1, 6)),
    st.sampled_from([("kill", "ha1.A"), ("kill", "ha1.B"), ("start", "ha1.A"), ("start", "ha1.B"),
                     ("resend", "c1"), ("resend", "c2"), ("advance",), ("partition",), ("heal",)]),
)


def lines(step: tuple[object, ...], one_by_one: bool) -> list[str]:
    kind = step[0]
    if kind == "publish":
        _, client, queue, n, persistent = step
        tail = "" if persistent else " non-persistent"
        if one_by_one:
            return [f"jms publish {client} {queue}{tail}"] * int(n)  # type: ignore[call-overload]
        return [f"jms publish {client} {queue} count {n}{tail}"]
    if kind == "consume":
        _, client, queue, n = step
        return [f"jms consume {client} {queue} count {n}"]
    if kind in ("kill", "start"):
        return [f"ha {kind} {step[1]}"]
    if kind == "resend":
        return [f"jms resend {step[1]}"]
    if kind == "advance":
        return ["advance 30s"]
    return [f"ha {kind} ha1"]


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(STEP, max_size=14))
def test_a_publish_of_n_is_n_publishes_of_one(steps: list[tuple[object, ...]]) -> None:
    """Runs are only a storage form: after any walk, a lab that published in runs answers every
    read exactly as one that published message by message (but for the publish lines and the
    resends, which repeat only the last publish)."""
    runs, singles = Lab.fresh(SCENARIO), Lab.fresh(SCENARIO)
    try:
        for line in PAIR:
            runs.execute("lab", line)
            singles.execute("lab", line)
        for step in steps:
            if step[0] == "resend":
                continue
            for line in lines(step, False):
                a = runs.execute("lab", line)
            for line in lines(step, True):
                b = singles.execute("lab", line)
            if step[0] != "publish":
                assert (a.ok, a.text) == (b.ok, b.text), step
        for read in ("ha audit", "jms stats c1", "jms stats c2", "ha state"):
            assert runs.execute("lab", read).text == singles.execute("lab", read).text, read
    finally:
        runs.close()
        singles.close()


def journal(path: Path) -> list[tuple[str, int]]:
    with sqlite3.connect(path) as con:
        return [(str(k), int(n)) for k, n in con.execute("SELECT kind, length(body) FROM journal ORDER BY seq")]


def test_a_million_messages_are_one_small_journaled_call_and_reads_append_nothing(tmp_path: Path) -> None:
    path = tmp_path / "lab.db"
    lab = Lab.open(path, scenario=SCENARIO)
    other = None
    try:
        for line in PAIR:
            assert lab.execute("lab", line).ok
        rows = len(journal(path))
        assert lab.execute("lab", "jms publish c1 q1 count 1000000").ok
        kinds = journal(path)
        assert len(kinds) == rows + 1 and kinds[-1][0] == "calls" and kinds[-1][1] < 200
        for read in ("ha state", "ha audit", "jms stats c1", "ha log ha1.A", "ha file ha1.A"):
            assert lab.execute("lab", read).ok
        assert journal(path) == kinds
        other = Lab.open(path)   # another shell replays the call
        assert "sent 1000000 received 0" in other.execute("lab", "jms stats c1").text
        assert other.execute("lab", "jms consume c1 q1 count 400000").ok
        assert "sent 1000000 received 400000" in lab.execute("lab", "jms stats c1").text
    finally:
        lab.close()
        if other is not None:
            other.close()


def test_sigkill_at_random_points_loses_no_reported_jms_publish_and_halves_none(tmp_path: Path) -> None:
    """An HA system's commands are journaled calls like the Solace model's: a killed shell loses
    nothing it reported, and no command is ever half applied."""
    import os
    import random
    import signal
    import subprocess
    import sys
    import time

    from state_store.lab_store import LabStore
    from tests.support.lab_child import PUBLISH_BATCH

    path = tmp_path / "lab.sqlite"
    lab = Lab.open(path, scenario=SCENARIO)
    for line in PAIR:
        assert lab.execute("lab", line).ok
    lab.close()

    def published() -> int:
        store = LabStore.open(path)
        try:
            return sum(r.count for r in store.state.kernel.ledger.runs)
        finally:
            store.close()

    rng = random.Random(20261127)
    reported = 0
    for kill in range(20):
        proc = subprocess.Popen([sys.executable, "-m", "tests.support.lab_child", str(path), "jms", "10000",
                                 str(reported)],
                                cwd=Path(__file__).resolve().parents[2], stdout=subprocess.PIPE,
                                stderr=subprocess.PIPE, text=True)
        assert proc.stdout is not None and proc.stdout.readline().strip() == "ready"
        deadline = time.monotonic() + rng.uniform(0.01, 0.2)
        done = 0
        os.set_blocking(proc.stdout.fileno(), False)
        while time.monotonic() < deadline:
            line = proc.stdout.readline()
            assert not line.startswith("failed"), line
            done += line.startswith("done")
        proc.send_signal(signal.SIGKILL)
        os.set_blocking(proc.stdout.fileno(), True)
        done += sum(1 for line in proc.stdout.read().splitlines() if line.startswith("done"))
        proc.wait()
        proc.stdout.close()
        assert proc.stderr is not None
        proc.stderr.close()
        reported += done
        total = published()
        assert total % PUBLISH_BATCH == 0, f"half a publish after kill {kill}"
        assert reported <= total // PUBLISH_BATCH <= reported + 1, (kill, reported, total)
        reported = total // PUBLISH_BATCH
    assert reported > 0
