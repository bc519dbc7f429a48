"""The drill generator's local failover (spark_jobs.drills.with_local_failover): a replication
drill of each failover type, with NY's primary failing after the first traffic, records and
replays green, and its audit adds the local failover line and loses nothing more than the plain
drill does."""

from __future__ import annotations

from pathlib import Path

import pytest

from solace_shell.transcript.replay import replay_file
from spark_jobs.drills import plan_drill, with_local_failover
from spark_jobs.generate import record_drill


@pytest.mark.parametrize("index", range(4))
def test_a_drill_with_a_local_failover_replays_green(tmp_path: Path, index: int) -> None:
    plain = plan_drill(7, index)
    drill = with_local_failover(plain)
    assert drill.scenario == "two-site-ha"
    assert ("lab", "fail router NY_Appliance1") in drill.steps
    path = tmp_path / "drill.cli.txt"
    assert record_drill(drill, path) == len(plain.commands()) + 2
    text = path.read_text()
    assert "local failover NY at " in text
    result = replay_file(path)
    assert result.error is None and all(c.verdict == "pass" for c in result.commands)
    record_drill(plain, tmp_path / "plain.cli.txt")
    assert _audit_totals(text) == _audit_totals((tmp_path / "plain.cli.txt").read_text())


def _audit_totals(text: str) -> list[str]:
    """The two totals lines of the drill's last `lab> audit`."""
    lines = text.split("\n")
    at = max(i for i, line in enumerate(lines) if line.startswith("lab> audit"))
    return lines[at + 1:at + 3]


def test_only_the_solace_labs_own_drills_take_a_local_failover() -> None:
    drill = with_local_failover(plan_drill(1, 0))
    with pytest.raises(ValueError):
        with_local_failover(drill)
