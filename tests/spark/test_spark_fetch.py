"""`spark_jobs.fetch.InOrder`: a run's partitions fetched by jobs of their own, a window at a time, and
handed over in order (the Spark side is tested through real runs in test_spark_conformance.py)."""

from __future__ import annotations

import threading
import time

import pytest

from spark_jobs.fetch import InOrder, window_for


class Fetches:
    """Records what runs at once; fetch k takes `seconds[k]`, or blocks until `release` is set."""

    def __init__(self, seconds: list[float]) -> None:
        self.seconds = seconds
        self.lock = threading.Lock()
        self.running = 0
        self.most_at_once = 0
        self.started: list[int] = []
        self.release = threading.Event()
        self.jitter = 0.0
        self.started_at: dict[int, float] = {}

    def submitted(self, k: int) -> bool:
        """As Spark's status tracker: fetch k has submitted its job (here: has started)."""
        with self.lock:
            return k in self.started

    def __call__(self, k: int) -> int:
        time.sleep(self.jitter * ((k * 7) % 5))  # threads that start at once submit in no fixed order
        with self.lock:
            self.running += 1
            self.most_at_once = max(self.most_at_once, self.running)
            self.started.append(k)
            self.started_at[k] = time.monotonic()
        try:
            if self.seconds[k] < 0:
                if not self.release.wait(5):
                    raise AssertionError("never cancelled")
                raise RuntimeError(f"job {k} cancelled")
            time.sleep(self.seconds[k])
            return k
        finally:
            with self.lock:
                self.running -= 1


def test_results_come_in_order_whatever_order_the_jobs_end_in():
    fetches = Fetches([0.2, 0.0, 0.1, 0.0, 0.05, 0.0])
    done: list[None] = []
    with InOrder(fetches, 6, 3, cancel=lambda: None, on_done=lambda: done.append(None)) as fetched:
        assert list(fetched) == [0, 1, 2, 3, 4, 5]
    assert len(done) == 6


def test_the_window_is_full_while_jobs_remain_and_never_exceeded():
    fetches = Fetches([0.05] * 12)
    with InOrder(fetches, 12, 4, cancel=lambda: None) as fetched:
        assert list(fetched) == list(range(12))
    assert fetches.most_at_once == 4
    assert sorted(fetches.started) == list(range(12))


def test_a_failed_job_fails_the_run():
    fetches = Fetches([0.0, 0.0, 0.0])
    fetches.seconds[1] = -1
    fetches.release.set()  # job 1 fails at once
    with pytest.raises(RuntimeError, match="job 1 cancelled"), InOrder(fetches, 3, 3, cancel=lambda: None) as fetched:
        list(fetched)


def test_a_driver_that_stops_cancels_the_running_jobs_and_starts_no_more():
    fetches = Fetches([0.0, -1.0, 0.3, 0.0, 0.0, 0.0])  # job 1 runs until it is cancelled
    cancels: list[None] = []

    def cancel() -> None:
        cancels.append(None)
        fetches.release.set()

    with pytest.raises(OSError, match="disk full"), InOrder(fetches, 6, 3, cancel=cancel) as fetched:
        for _ in fetched:
            while 1 not in fetches.started:  # job 1 runs (its thread may start after job 0 has ended)
                time.sleep(0.01)
            raise OSError("disk full")  # writing partition 0 failed (or a signal came)
    assert cancels, "the running jobs were cancelled"
    assert fetches.running == 0, "every job had ended when the block was left"
    assert {0, 1} <= set(fetches.started) <= {0, 1, 2}  # the window when the driver stopped, no more


def test_cancelling_goes_on_until_every_running_job_has_ended():
    """A job submitted just after a cancellation escapes it: the next cancellation catches it."""
    fetches = Fetches([0.0, -1.0, -1.0])
    calls: list[None] = []

    def cancel() -> None:
        calls.append(None)
        if len(calls) >= 3:  # the first two cancellations miss the jobs
            fetches.release.set()

    with pytest.raises(KeyboardInterrupt):
        with InOrder(fetches, 3, 3, cancel=cancel) as fetched:
            for _ in fetched:
                while not {1, 2} <= set(fetches.started):  # both run when the driver stops
                    time.sleep(0.01)
                raise KeyboardInterrupt
    assert len(calls) >= 3 and fetches.running == 0


def test_jobs_are_submitted_in_partition_order_whatever_the_threads_do():
    fetches = Fetches([0.05] * 8)
    fetches.jitter = 0.005
    with InOrder(fetches, 8, 4, cancel=lambda: None, submitted=fetches.submitted) as fetched:
        assert list(fetched) == list(range(8))
    assert fetches.started == list(range(8))


def test_a_job_never_seen_submitted_holds_the_next_one_back_only_so_long(monkeypatch):
    monkeypatch.setattr("spark_jobs.fetch.SUBMIT_WAIT_SECONDS", 0.05)
    fetches = Fetches([2.0, 0.0])
    with InOrder(fetches, 2, 2, cancel=lambda: None, submitted=lambda k: False) as fetched:
        assert list(fetched) == [0, 1]
    assert 0.04 < fetches.started_at[1] - fetches.started_at[0] < 1.5  # not until fetch 0 had ended


def test_a_fetch_waiting_for_its_turn_when_the_driver_stops_never_submits_its_job(monkeypatch):
    monkeypatch.setattr("spark_jobs.fetch.SUBMIT_WAIT_SECONDS", 60.0)
    fetches = Fetches([0.0, -1.0, 0.0])  # job 1 runs until it is cancelled, never seen submitted
    seen = lambda k: k == 0 and fetches.submitted(0)  # noqa: E731
    started = time.monotonic()
    with pytest.raises(OSError, match="disk full"):
        with InOrder(fetches, 3, 3, cancel=fetches.release.set, submitted=seen) as fetched:
            for _ in fetched:
                while not fetches.submitted(1):  # job 1 runs, so fetch 2 waits for its turn
                    time.sleep(0.01)
                raise OSError("disk full")
    assert fetches.started == [0, 1] and fetches.running == 0
    assert time.monotonic() - started < 30  # not SUBMIT_WAIT_SECONDS


def test_two_partitions_per_core_are_in_flight():
    assert [window_for(n) for n in (0, 1, 2, 8)] == [2, 2, 4, 16]


def test_the_progress_bar_counts_each_partition_as_its_job_ends():
    import io

    from rich.console import Console

    from spark_jobs.progress import RunProgress

    screen = io.StringIO()
    console = Console(file=screen, force_terminal=True, width=100, color_system=None)
    with RunProgress(console=console) as progress:
        progress.set_label("replaying 6 transcripts")
        progress.expect(6)
        with InOrder(Fetches([0.01] * 6), 6, 3, cancel=lambda: None, on_done=progress.advance) as fetched:
            list(fetched)
    assert "replaying 6 transcripts" in screen.getvalue() and "6/6 partitions" in screen.getvalue()
    assert not RunProgress(enabled=False).enabled
