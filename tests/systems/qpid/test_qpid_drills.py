"""Qpid drills planned by the system's model and recorded by the drill generator: pure plans,
every kind and mistake drawn, recorded transcripts that name their scenario and replay green."""

from __future__ import annotations

from collections import Counter
from pathlib import Path

import pytest

from solace_shell.transcript.replay import replay_file
from spark_jobs.generate import generate, plan, planners
from state_store.qpid.drills import KINDS, MISTAKES, plan_drill


def test_plans_are_pure_and_cover_every_kind_and_mistake() -> None:
    assert plan_drill(3, 17) == plan_drill(3, 17)
    assert plan_drill(3, 17) != plan_drill(4, 17)
    drills = [plan_drill(11, i) for i in range(200)]
    assert [d[0] for d in drills[:len(KINDS)]] == list(KINDS)
    mistakes = Counter(d[1] for d in drills)
    assert mistakes[None] > 60
    assert set(mistakes) - {None} == {m for ms in MISTAKES.values() for m in ms}
    assert all({t for t, _ in d[2]} <= {"#", "lab", "qpid"} for d in drills)


def test_the_generator_records_qpid_drills_that_replay_green(tmp_path: Path) -> None:
    assert "qpid" in planners()
    names = generate(count=len(KINDS), seed=5, out=tmp_path, jobs=1, system="qpid")
    assert all("_qpid-" in n for n in names)
    for name in names:
        text = (tmp_path / name).read_text(encoding="utf-8")
        assert text.startswith("#: scenario: scenarios/qpid-ha.yaml\n")
        result = replay_file(tmp_path / name)
        assert result.error is None and all(c.verdict == "pass" for c in result.commands), name


def test_an_unknown_system_plans_nothing() -> None:
    with pytest.raises(ValueError, match="no drill planner"):
        plan(1, 1, "nosuch")
