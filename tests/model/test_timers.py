"""The kernel's timer queue: a reserved sequence number keeps a timer's place among those due at
the same time, a withdrawn timer is gone at once, and `running` says which timer runs."""

from __future__ import annotations

import pytest

from state_store.kernel import TimerQueue


def test_a_timer_scheduled_later_with_a_reserved_number_runs_where_it_was_reserved() -> None:
    q = TimerQueue()
    early = q.reserve()
    q.schedule(1000, "g", "", "other")
    q.schedule(1000, "g", "", "reserved", seq=early)
    assert [(t.kind, t.seq) for t in q.pop_due(1000)] == [("reserved", 1), ("other", 2)]


def test_only_a_reserved_number_may_be_given() -> None:
    q = TimerQueue()
    with pytest.raises(ValueError, match="never reserved"):
        q.schedule(10, "g", "", "x", seq=1)


def test_a_withdrawn_timer_is_gone_and_its_number_may_be_scheduled_again() -> None:
    q = TimerQueue()
    seq = q.reserve()
    q.schedule(500, "g", "", "x", seq=seq)
    q.cancel(seq)
    q.withdraw(seq)
    assert q.pending() == []
    q.schedule(700, "g", "", "x", seq=seq)
    assert [(t.due_ms, t.seq) for t in q.pop_due(1000)] == [(700, seq)]


def test_running_is_the_timer_being_run_and_none_between_advances() -> None:
    q = TimerQueue()
    q.schedule(5, "g", "", "a")
    q.schedule(9, "g", "", "b")
    seen = [q.running for _ in q.pop_due(10)]
    assert seen == [(5, 1), (9, 2)] and q.running is None
