"""`lab> help` lists the verbs of the systems the lab holds, within 80 columns, broken at words."""

from __future__ import annotations

from solace_shell.lab import Lab
from state_store.scenario_files import resolve_scenario


def _help(scenario: str) -> list[str]:
    lab = Lab.fresh(scenario=resolve_scenario(scenario))
    try:
        outcome = lab.execute("lab", "help")
        assert outcome.ok, outcome.text
        return outcome.text.splitlines()
    finally:
        lab.close()


def test_the_default_lab_lists_no_swiftmq_verbs() -> None:
    """The shared failure verbs (`ha kill` ...) act on its routers; SwiftMQ's own do not."""
    lines = _help("default")
    assert not any(line.startswith(("ha state", "ha file", "ha log", "ha audit", "jms ")) for line in lines)
    assert any(line.startswith("ha kill <ha-node>") for line in lines)
    assert any(line.startswith("ha partition <ha-network>") for line in lines)
    assert any(line.startswith("publish <client-name> <topic>") for line in lines)
    assert any(line.startswith("exit  ") for line in lines)


def test_the_swiftmq_lab_lists_no_solace_traffic_verbs() -> None:
    lines = _help("swiftmq-ha")
    assert any(line.startswith("ha start <ha-node>") for line in lines)
    assert not any(line.startswith(("publish ", "consume ", "transaction ", "fail site", "audit ")) for line in lines)


def test_every_line_fits_80_columns_and_no_word_is_cut() -> None:
    for scenario in ("default", "swiftmq-ha"):
        lines = _help(scenario)
        assert max(map(len, lines)) <= 80, scenario
        words = " ".join(lines).split()
        assert "simulated" in words and "clock" in words  # the help of `advance`, whole words
