"""Generated Geode drills (`solace-conformance generate --system geode`): planning is pure, every
kind is covered, the recorded drills replay green and their audits find no violation."""

from __future__ import annotations

from pathlib import Path

import pytest

from solace_shell.transcript.replay import replay_file
from spark_jobs.generate import generate, plan, planners
from state_store.geode import drills


def test_plans_are_pure_and_cover_every_kind() -> None:
    assert drills.plan_drill(3, 17) == drills.plan_drill(3, 17)
    assert drills.plan_drill(3, 17)[2] != drills.plan_drill(4, 17)[2]
    kinds = [drills.plan_drill(0, i)[0] for i in range(len(drills.KINDS))]
    assert kinds == list(drills.KINDS)


def test_recorded_drills_replay_green_without_violations(tmp_path: Path) -> None:
    assert "geode" in planners()
    names = generate(count=len(drills.KINDS), seed=9, out=tmp_path, jobs=1, system="geode")
    assert all("_geode-" in n for n in names)
    for name in names:
        text = (tmp_path / name).read_text(encoding="utf-8")
        assert text.startswith("#: scenario: scenarios/geode-ha.yaml\n") and "(violation)" not in text
        result = replay_file(tmp_path / name)
        assert not result.error and all(c.verdict == "pass" for c in result.commands), name


@pytest.mark.parametrize("system", ["nope", "../x", "swiftmq"])
def test_a_system_without_drills_is_refused(system: str) -> None:
    with pytest.raises(ValueError):
        plan(1, 1, system)
