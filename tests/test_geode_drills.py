"""Generated Geode drills (`solace-conformance generate --system geode`): planning is pure, every
kind is covered, the recorded drills replay green and their audits find no violation."""

from __future__ import annotations

from pathlib import Path

import pytest

from solace_shell.transcript.replay import replay_file
from spark_jobs import geode_drills
from spark_jobs.generate import generate, system_planner


def test_plans_are_pure_and_cover_every_kind() -> None:
    assert geode_drills.plan_drill(3, 17) == geode_drills.plan_drill(3, 17)
    assert geode_drills.plan_drill(3, 17).steps != geode_drills.plan_drill(4, 17).steps
    kinds = [geode_drills.plan_drill(0, i).kind for i in range(len(geode_drills.KINDS))]
    assert kinds == [f"geode-{k}" for k in geode_drills.KINDS]


def test_recorded_drills_replay_green_without_violations(tmp_path: Path) -> None:
    names = generate(count=len(geode_drills.KINDS), seed=9, out=tmp_path, jobs=1, system="geode")
    assert (tmp_path / "geode-ha.yaml").is_file()
    for name in names:
        text = (tmp_path / name).read_text(encoding="utf-8")
        assert text.startswith("#: scenario: geode-ha.yaml\n") and "(violation)" not in text
        result = replay_file(tmp_path / name)
        assert not result.error and all(c.verdict == "pass" for c in result.commands), name


@pytest.mark.parametrize("system", ["nope", "", "../x", "swiftmq"])
def test_a_system_without_drills_is_refused(system: str) -> None:
    with pytest.raises(ValueError):
        system_planner(system)
