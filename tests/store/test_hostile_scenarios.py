"""Hostile scenario files: every one is a lab or one ScenarioError whose every problem names the
file and a line; never a traceback, never a runaway parse.

bench/bench_hostile_inputs.py runs 1,000 of them (results in bench/results-*.md); this test runs a
smaller sample so the suite stays fast.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings

from state_store.lab_store import LabStore
from state_store.solace.scenario import DEFAULT_SCENARIO, ScenarioError, load_scenario
from tests.support.hostile_inputs import hostile_scenarios


def _problems(path: Path, text: str) -> list[str]:
    path.write_text(text, encoding="utf-8", errors="surrogatepass")
    try:
        LabStore.in_memory(path).close()
    except ScenarioError as exc:
        return exc.problems
    return []


@settings(max_examples=150, deadline=None, suppress_health_check=list(HealthCheck))
@given(text=hostile_scenarios())
def test_generated_scenarios_are_a_lab_or_one_clear_error(tmp_path_factory: pytest.TempPathFactory,
                                                           text: str) -> None:
    path = tmp_path_factory.mktemp("s") / "s.yaml"
    for problem in _problems(path, text):
        assert re.match(rf"{re.escape(str(path))}:\d+: \S", problem), problem


@pytest.mark.parametrize(("text", "line", "expected"), [
    ("sites: []\nmessage_id_seed: 1:30\n", 2, "'1:30' is a base-60 number in YAML 1.1"),
    ("sites:\n  - name: NY\n    routers: [{name: R, message_id_seed: 99999999999999999999999999999999999}]\n",
     3, "integer with more than 30 digits"),
    ("sites:\n  - name: NY\n    routers: [{name: R, message_id_seed: 9999999999999999999999}]\n",
     3, "sites[0].routers[0].message_id_seed: 9999999999999999999999 is out of range 1..4,611,686,018,427,387,904"),
    ("sites: " + "[" * 20000 + "]" * 20000 + "\n", 1, "YAML syntax: nested deeper than 32 levels"),
    (("a: &a [x,x,x,x,x,x,x,x,x]\nb: &b [*a,*a,*a,*a,*a,*a,*a,*a,*a]\nc: &c [*b,*b,*b,*b,*b,*b,*b,*b,*b]\n"
      "d: [*c,*c,*c,*c,*c,*c,*c,*c,*c]\n"), 4, "aliases expand to more than 1,000 values"),
    ("messages:\n  - {client: trader, topic: a/*, count: -3}\n", 2, "has a wildcard"),
    ("messages:\n  - {client: trader, topic: a/b, count: -3}\n", 2, "count: -3 is out of range 1..100,000"),
    ("sites:\n  - {name: NY, routers: []}\n", 1, "the lab needs at least one router"),
    ("sites:\n  - {name: NY, routers: [{name: R}]}\n", 1, "no usable administrator"),
])
def test_each_kind_of_hostile_field_is_reported_with_its_line(tmp_path: Path, text: str, line: int,
                                                              expected: str) -> None:
    path = tmp_path / "s.yaml"
    problems = _problems(path, text)
    assert any(p.startswith(f"{path}:{line}: ") and expected in p for p in problems), problems


def test_an_alias_bomb_is_refused_at_once(tmp_path: Path) -> None:
    # 6.7 KB of nested aliases used to take 16 s and 635 MB
    lines = ["a0: &a0 [" + ",".join(["lol"] * 40) + "]"]
    lines += [f"a{i}: &a{i} [" + ",".join([f"*a{i - 1}"] * 40) + "]" for i in range(1, 9)]
    path = tmp_path / "bomb.yaml"
    problems = _problems(path, "\n".join(lines) + "\n")
    assert len(problems) == 1 and "aliases expand to more than" in problems[0]


def test_the_default_lab_has_its_trainer() -> None:
    users = load_scenario(DEFAULT_SCENARIO)["users"]
    assert [u["name"] for u in users if u.get("lab_admin")] == ["admin"]
    assert all("password" not in u and u["password_hash"].startswith("$scrypt$") for u in users)


SMALL_SPOOL = Path(__file__).parents[2] / "transcripts" / "scenarios" / "small-spool.yaml"


@pytest.mark.parametrize(("setting", "value", "refusal"), [
    ("window_size: 255", "window_size: 65535", None),
    ("window_size: 255", "window_size: 65536", "window_size: 65536 is out of range 1..65,535"),
    ("interval: 20", "interval: 65536", "interval: 65536 is out of range 1..65,535"),
    ("retry_delay: 3", "retry_delay: 0", "retry_delay: 0 is out of range 1..255"),
    ("max_spool_usage: 60000\n        reject", "max_spool_usage: 2000001\n        reject",
     "max_spool_usage: 2000001 is out of range 1..2,000,000"),
])
def test_a_scenario_checks_replication_settings_as_the_cli_does(tmp_path: Path, setting: str, value: str,
                                                                 refusal: str | None) -> None:
    """The scenario's replication ranges are the leaves' (the CLI's `bridge message-spool
    window-size <1-65535>`, `interval messages <1-65535>`, ...)."""
    text = SMALL_SPOOL.read_text(encoding="utf-8")
    assert setting in text
    problems = _problems(tmp_path / "s.yaml", text.replace(setting, value))
    if refusal is None:
        assert problems == []
    else:
        assert any(refusal in p for p in problems), problems
