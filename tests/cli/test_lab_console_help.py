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


def test_a_lab_of_ha_systems_lists_no_router_verbs() -> None:
    """Connecting to a router, the router settings and the redundancy pair's failures need routers."""
    for scenario in ("geode-ha", "qpid-ha", "swiftmq-ha"):
        lines = _help(scenario)
        assert not any(line.startswith(("connect ", "set ", "fail router", "restore router", "fail mate-link",
                                        "restore mate-link")) for line in lines), scenario
        assert any(line.startswith("status ") for line in lines)
    assert any(line.startswith("fail router <router-name>") for line in _help("two-site-ha"))


def test_the_status_of_a_lab_of_ha_systems_shows_its_nodes_not_router_tables() -> None:
    lab = Lab.fresh(scenario=resolve_scenario("geode-ha"))
    try:
        assert lab.execute("lab", "advance 5s").ok
        assert lab.execute("lab", "ha kill g1.s2").ok
        assert lab.execute("lab", "status").text.splitlines() == [
            "clock 00:00:05.000 scenario geode-ha",
            "",
            "system  group  node  process  state",
            "geode   g1     s1    up       online",
            "geode   g1     s2    down     -",
            "geode   g1     s3    up       online",
        ]
    finally:
        lab.close()


def test_a_router_labs_status_is_unchanged_by_its_redundancy_pairs() -> None:
    """A redundancy pair's members are routers: shown in the site rows, not again as HA nodes."""
    lab = Lab.fresh(scenario=resolve_scenario("two-site-ha"))
    try:
        text = lab.execute("lab", "status").text
        assert "system  group" not in text and "solace-redundancy" not in text
        assert "NY    NY_Appliance2  up     standby" in text
    finally:
        lab.close()
