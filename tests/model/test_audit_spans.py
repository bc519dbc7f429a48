"""A finding keeps only the spans a display lists (``SPANS_KEPT``), with its count and ids whole,
and the ledger tells a group's clients from the runs added since it was last asked
(state_store/kernel/audit.py, ledger.py): both make the Geode audit's cost independent of the
session's length."""

from __future__ import annotations

from solace_shell.personalities.findings import id_ranges
from state_store.kernel.audit import SPANS_KEPT, audit
from state_store.kernel.ledger import Ledger


def _lost_interleaved(ledger: Ledger, rounds: int) -> None:
    """``rounds`` single messages of client a, each followed by one of b: a's are never consecutive."""
    for i in range(rounds):
        ledger.add("g", "q", "a", "a:", i + 1, 1, False, 0)
        ledger.add("g", "q", "b", "b:", i + 1, 1, False, 0)
    ledger.note_gone([(1, ledger.next_id)], "gone")


def test_a_finding_keeps_its_first_spans_and_all_its_ids() -> None:
    ledger = Ledger()
    _lost_interleaved(ledger, 40)
    totals, findings = audit(ledger, lambda g, o, r: True, frozenset(), "g", "a")
    (lost,) = findings
    assert totals.lost == lost.count == 40
    assert len(lost.spans) == SPANS_KEPT
    assert [s.first_key for s in lost.spans] == [f"a:{i}" for i in range(1, SPANS_KEPT + 1)]
    assert lost.ids == tuple((i, i + 1) for i in range(1, 81, 2))
    assert id_ranges(lost.spans) == "a:1,a:2,a:3,a:4,a:5,..."


def test_a_finding_with_few_spans_keeps_them_all() -> None:
    ledger = Ledger()
    _lost_interleaved(ledger, 3)
    _, (lost,) = audit(ledger, lambda g, o, r: True, frozenset(), "g", "a")
    assert id_ranges(lost.spans) == "a:1,a:2,a:3"


def test_the_clients_of_a_group_follow_the_runs_added() -> None:
    ledger = Ledger()
    assert ledger.clients_in("g") == frozenset()
    ledger.add("g", "q", "a", "a:", 1, 5, False, 0)
    ledger.add("h", "q", "b", "b:", 1, 5, False, 0)
    assert ledger.clients_in("g") == {"a"}
    ledger.split(3)                       # a split keeps the run's group and client
    ledger.add("g", "q", "c", "c:", 1, 1, False, 0)
    assert ledger.clients_in("g") == {"a", "c"}
    assert ledger.clients_in("h") == {"b"}
    restored = Ledger.restore(ledger.snapshot())
    assert restored.clients_in("g") == {"a", "c"}
