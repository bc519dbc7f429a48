"""The HA kernel's audit keeps its sweep between audits (state_store/kernel/audit.py, `_Memo`):
every audit of every drill must equal the audit computed from the whole ledger at that moment.

Checked through the real drills (the Geode, Qpid and SwiftMQ transcripts and generated drills of
each system, with failovers, resends, duplicates and losses), each audit call answered both ways."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from state_store.kernel import audit as kernel_audit
from state_store.kernel import kernel as kernel_module
from state_store.kernel.ledger import Ledger

ROOT = Path(__file__).resolve().parents[2]
SYSTEMS = ("geode", "qpid", "swiftmq")


@pytest.fixture
def checked(monkeypatch: pytest.MonkeyPatch) -> list[int]:
    """Every kernel audit answered by the memo and by a full sweep; the calls compared."""
    calls: list[int] = []

    def both(ledger: Ledger, allows: Any, serving: frozenset[str], group: str | None = None,
             client: str | None = None) -> Any:
        kept = kernel_audit.audit(ledger, allows, serving, group, client)
        assert kept == kernel_audit.audit_in_full(ledger, allows, serving, group, client)
        calls.append(1)
        return kept

    monkeypatch.setattr(kernel_module, "audit", both)
    return calls


@pytest.mark.parametrize("system", SYSTEMS)
def test_the_transcripts_audit_as_a_full_sweep(system: str, checked: list[int]) -> None:
    from solace_shell.transcript.replay import replay_file

    for path in sorted((ROOT / "transcripts" / system).glob("*.cli.txt")):
        result = replay_file(path)
        assert result.error is None and all(c.verdict == "pass" for c in result.commands), path
    assert checked


@pytest.mark.parametrize("system", ("geode", "qpid"))   # the systems with a drill planner
def test_generated_drills_audit_as_a_full_sweep(system: str, checked: list[int], tmp_path: Path) -> None:
    from solace_shell.transcript.replay import replay_file
    from spark_jobs.generate import generate

    names = generate(count=40, seed=7, out=tmp_path, jobs=1, system=system)
    for name in names:
        result = replay_file(tmp_path / name)
        assert result.error is None, result.error
    assert checked


def test_a_long_session_with_audits_between_its_commands(checked: list[int]) -> None:
    """Puts, advances, a failover and a durable client's timeout, audited after every command."""
    from solace_shell.lab import Lab
    from state_store.scenario_files import ROOT_DIR

    lab = Lab.fresh(ROOT_DIR / "geode-ha.yaml")
    script = ["geode close d1 keepalive"] + ["geode put p1 r1", "advance 1s"] * 20 + ["ha kill g1.s1", "advance 5s"]
    script += ["geode put p1 r1 count 3", "advance 1s"] * 10 + ["advance 400s", "geode put p1 r1", "advance 1s"]
    for line in script:
        assert lab.execute("lab", line).ok, line
        assert lab.execute("lab", "geode audit g1").ok
    lab.close()
    assert len(checked) > 100


def _lost_by_history(core: Any, group: str, client: str) -> int:
    """A Geode client's lost events from the whole history: its runs, less what was delivered to
    it, less what any node holds."""
    from state_store.kernel import ranges as rg

    mine = [(r.first, r.end) for r in core.ledger.runs if r.group == group and r.queue == client]
    got = [(d.first, d.end) for d in core.ledger.deliveries if d.client == client and not d.discarded]
    left = rg.subtract(rg.normalize(mine), rg.normalize(got))
    return rg.size(rg.subtract(left, core.ledger.held_anywhere()))


def test_geode_stats_count_the_lost_events_as_the_history_does(monkeypatch: pytest.MonkeyPatch,
                                                               tmp_path: Path) -> None:
    from solace_shell.transcript.replay import replay_file
    from spark_jobs.generate import generate
    from state_store.geode import operations

    compared: list[int] = []
    stats = operations.stats

    def both(core: Any, client: str) -> Any:
        answer = stats(core, client)
        assert answer.lost == _lost_by_history(core, operations.client_group(core, client), client)
        compared.append(1)
        return answer

    monkeypatch.setattr(operations, "stats", both)
    names = generate(count=40, seed=11, out=tmp_path, jobs=1, system="geode")
    for path in [*sorted((ROOT / "transcripts" / "geode").glob("*.cli.txt")), *(tmp_path / n for n in names)]:
        assert replay_file(path).error is None
    assert compared
