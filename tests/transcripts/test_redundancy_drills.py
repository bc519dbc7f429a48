"""The drill generator's local failover (spark_jobs.drills.with_local_failover): a replication
drill of each failover type, with NY's primary failing after the first traffic, records and
replays green, and its audit adds the local failover line and loses nothing more than the plain
drill does."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from solace_shell.transcript.replay import replay_file
from spark_jobs.drills import draws_local_failover, plan_drill, with_local_failover
from spark_jobs.generate import INDEX_FILE, plan, record_drill


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


def test_generate_adds_local_failovers_to_a_share_of_the_drills_and_they_replay_green(tmp_path: Path) -> None:
    """`solace-conformance generate --local-failover SHARE`: the drills it draws run on the
    redundancy groups' lab (their scenario copied beside them), say so in their name and in the
    index, and the corpus replays green with `solace-shell replay DIR`; the other drills are
    exactly those of a corpus generated without the option."""
    out, plain = tmp_path / "ha", tmp_path / "plain"
    for args in ((str(out), "--local-failover", "0.5"), (str(plain),)):
        done = subprocess.run([sys.executable, "-m", "spark_jobs.cli", "generate", "--count", "6", "--seed", "5",
                               "--jobs", "1", "--out", *args], capture_output=True, text=True, check=False)
        assert (done.returncode, done.stderr) == (0, ""), done.stderr
    rows = [json.loads(line) for line in (out / INDEX_FILE).read_text().splitlines()]
    chosen = [row["name"] for row in rows if row["local_failover"]]
    assert 0 < len(chosen) < len(rows) and all("_local-failover" in name for name in chosen)
    assert (out / "scenarios" / "two-site-ha.yaml").is_file()
    for name in chosen:
        assert "#: scenario: scenarios/two-site-ha.yaml" in (out / name).read_text().split("\n", 1)[0]
        assert "lab> fail router NY_Appliance1" in (out / name).read_text()
    for row in rows:
        if not row["local_failover"]:
            assert (out / row["name"]).read_bytes() == (plain / row["name"]).read_bytes()
    replayed = subprocess.run(["solace-shell", "replay", str(out)], capture_output=True, text=True, check=False)
    assert replayed.returncode == 0, replayed.stdout + replayed.stderr
    assert "6 transcript(s)" in replayed.stdout and " 0 failed, 0 error(s)" in replayed.stdout


def test_the_share_of_drills_with_a_local_failover_only_grows_with_the_rate() -> None:
    low = {i for i in range(200) if draws_local_failover(3, i, 0.2)}
    high = {i for i in range(200) if draws_local_failover(3, i, 0.6)}
    assert low < high and 20 < len(low) < 60 and not any(draws_local_failover(3, i, 0.0) for i in range(200))
    assert plan(3, 0, "", 1.0) == with_local_failover(plan_drill(3, 0)) and plan(3, 0, "", 0.0) == plan_drill(3, 0)


def test_local_failovers_are_refused_for_another_ha_systems_drills(tmp_path: Path) -> None:
    done = subprocess.run([sys.executable, "-m", "spark_jobs.cli", "generate", "--count", "1", "--system", "qpid",
                           "--local-failover", "1", "--out", str(tmp_path / "q")],
                          capture_output=True, text=True, check=False)
    assert done.returncode == 2 and done.stderr.strip().endswith(
        "Invalid value for --local-failover: a local failover is added to the lab's own drills only")
    assert not (tmp_path / "q").exists()
