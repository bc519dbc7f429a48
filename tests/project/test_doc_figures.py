"""The figures the docs state are the figures the code and the tests have.

A count written in docs/reliability.md is recomputed here from the grammar and the tests that
prove it, and each latest figure of README's targets table must be one a dated result file in
bench/ records, so neither can go stale silently: a grammar change that adds a command fails here
until the doc says the new count.
"""

from __future__ import annotations

import re
from pathlib import Path

from tests.cli.test_access_levels import CASES, CONSOLE_CASES, ORACLE

ROOT = Path(__file__).resolve().parents[2]
RELIABILITY = (ROOT / "docs" / "reliability.md").read_text(encoding="utf-8")
README = (ROOT / "README.md").read_text(encoding="utf-8")


def _n(value: int) -> str:
    return f"{value:,}"


def _constant(test_file: str, pattern: str) -> int:
    """A number the test file itself sets (a module constant or a hypothesis budget)."""
    source = next((ROOT / "tests").rglob(test_file)).read_text(encoding="utf-8")
    found = re.search(pattern, source)
    assert found, (test_file, pattern)
    return int(found.group(1))


def test_access_level_counts() -> None:
    users = len(ORACLE)
    nodes = len({id(command) for _, command in CASES})
    assert f"({_n(nodes)} nodes, in each of its levels: {_n(len(CASES))} level/command pairs)" in RELIABILITY
    assert f"against {users} lab users" in RELIABILITY
    assert f"= {_n(len(CASES) * users)} checks" in RELIABILITY
    assert f"the lab console's {len(CONSOLE_CASES)} commands" in RELIABILITY
    assert f"each of the {users} users = {_n(len(CONSOLE_CASES) * users)} checks" in RELIABILITY


def test_counts_the_tests_set() -> None:
    kills = _constant("test_crash_and_concurrency.py", r"KILLS = (\d+)")
    per_shell = _constant("test_crash_and_concurrency.py", r'"per_shell", \[(\d+)\]')
    lines = _constant("test_property_bad_input.py", r"max_examples=(\d+)")
    scenarios = _constant("test_hostile_scenarios.py", r"max_examples=(\d+)")
    transcripts = _constant("test_hostile_transcripts.py", r"max_examples=(\d+)")
    sessions = _constant("test_ssh_server.py", r"SESSIONS = (\d+)")
    advances = _constant("test_ssh_server.py", r"ADVANCES = (\d+)")
    assert f"{kills} kills at random points" in RELIABILITY
    assert f"2 processes x {_n(per_shell)} interleaved commands" in RELIABILITY
    assert f"{lines} generated lines a run" in RELIABILITY
    assert f"{scenarios} generated files a run" in RELIABILITY
    assert f"{transcripts} generated transcripts a run" in RELIABILITY
    assert f"{sessions} interactive SSH sessions at once" in RELIABILITY
    assert f"stepping the shared clock {advances} times" in RELIABILITY
    assert f"{sessions * advances} distinct clock values" in RELIABILITY


def test_readme_targets_are_recorded_results() -> None:
    results = "\n".join(path.read_text(encoding="utf-8") for path in sorted((ROOT / "bench").glob("results-*.md")))
    table = README.split("## Targets", 1)[1]
    rows = [line for line in table.splitlines() if line.startswith("| ") and "python bench/" in line]
    assert len(rows) >= 5
    for row in rows:
        latest = row.split(" | ")[1]
        for figure in re.findall(r"[+]?\d[\d,.\-]*\s?(?:x|MB|ms|s|bytes)?", latest):
            assert figure.strip() in results, (figure, row)


def test_the_readme_credentials_log_in(tmp_path: Path) -> None:
    """Each user and password of README's table logs in to a fresh default lab."""
    import os
    import subprocess

    rows = re.findall(r"^\| `(\w+)` \| `(\w+)` \| ", README, flags=re.M)
    assert [user for user, _ in rows] == ["admin", "operator", "meshmgr", "monitor", "trading_admin"]
    for user, password in rows:
        env = dict(os.environ, SOLACE_SHELL_PASSWORD=password)
        command = ["solace-shell", "--db", str(tmp_path / "lab.sqlite"), "--user", user, "-c", "show hostname"]
        done = subprocess.run(command, env=env, capture_output=True, text=True, timeout=60, stdin=subprocess.DEVNULL)
        assert done.returncode == 0 and "Hostname: NY_Appliance1" in done.stdout, (user, done.stderr)


def test_the_readme_lists_every_bundled_scenario() -> None:
    bundled = sorted(path.stem for path in (ROOT / "state_store" / "scenarios").glob("*.yaml"))
    table = README.split("## The systems the lab emulates", 1)[1].split("\n\n", 2)[1]
    listed = sorted(re.findall(r"^\| `([\w-]+)` \|", table, flags=re.M))
    assert listed == bundled
