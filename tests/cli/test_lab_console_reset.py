"""`lab> reset [<scenario>]` and LabStore.reset: the lab starts again, exactly as a fresh one."""

from __future__ import annotations

import pytest

from solace_shell.lab import Lab
from state_store.lab_store import LabStore
from state_store.solace.scenario import DEFAULT_SCENARIO, ScenarioError
from tests.support.router_engine import router_engine


def test_store_reset_equals_a_fresh_lab():
    fresh = LabStore.in_memory().dump()
    store = LabStore.in_memory()
    with store.transaction() as e:
        router_engine(e).publish("trader", "trading/orders/new", count=5)
        e.advance(3000)
        router_engine(e).fail_site("NY")
        e.set_setting("layout", "A")
    assert store.dump() != fresh
    store.reset()
    assert store.dump() == fresh
    store.close()


def test_store_reset_of_a_file_lab(tmp_path):
    store = LabStore.open(tmp_path / "lab.sqlite")
    with store.transaction() as e:
        router_engine(e).publish("trader", "trading/orders/new", count=2)
    store.reset(DEFAULT_SCENARIO)
    assert store.dump() == LabStore.in_memory().dump()
    store.close()


def test_store_reset_invalid_scenario_changes_nothing(tmp_path):
    bad = tmp_path / "bad.yaml"
    bad.write_text("sites: 3\n")
    store = LabStore.in_memory()
    with store.transaction() as e:
        router_engine(e).publish("trader", "trading/orders/new")
    before = store.dump()
    with pytest.raises(ScenarioError):
        store.reset(bad)
    assert store.dump() == before
    store.close()


def test_console_reset_restarts_lab_and_sessions(lab, ny):
    assert ny.execute("enable").ok and ny.execute("configure").ok
    assert lab.console.execute("publish trader trading/orders/new count 3").ok
    assert lab.console.execute("advance 5s").ok
    outcome = lab.console.execute("reset")
    assert (outcome.ok, outcome.text) == (True, "reset to scenario default")
    assert lab.store.dump() == LabStore.in_memory().dump()
    assert lab.session("NY_Appliance1").prompt == "NY_Appliance1>"
    assert lab.console.execute("audit").text.startswith("published 0 delivered 0")


def test_console_reset_to_a_scenario_file(lab, tmp_path):
    text = DEFAULT_SCENARIO.read_text().replace("scenario: default", "scenario: slow-drain").replace(
        "replication_drain_rate: 1000", "replication_drain_rate: 5")
    path = tmp_path / "slow.yaml"
    path.write_text(text)
    outcome = lab.console.execute(f"reset {path}")
    assert (outcome.ok, outcome.text) == (True, "reset to scenario slow-drain")
    status = lab.console.execute("status").text.splitlines()
    assert status[0] == "clock 00:00:00.000 link up scenario slow-drain"
    assert "replication-drain-rate 5 " in status[1]
    assert lab.console.execute("reset default").text == "reset to scenario default"


def test_console_reset_refusals_change_nothing(lab, tmp_path):
    assert lab.console.execute("publish trader trading/orders/new").ok
    before = lab.store.dump()
    outcome = lab.console.execute("reset no-such-scenario")
    assert (outcome.ok, outcome.text) == (
        False, "ERROR: Scenario 'no-such-scenario' not found (give a YAML file or a bundled scenario name).")
    bad = tmp_path / "bad.yaml"
    bad.write_text("sites: 3\n")
    outcome = lab.console.execute(f"reset {bad}")
    assert not outcome.ok and outcome.text.startswith(f"ERROR: Scenario '{bad}' is invalid (")
    assert lab.store.dump() == before


def test_reset_keeps_the_lab_user():
    lab = Lab.fresh(settings={"user": "monitor"})
    try:
        assert lab.console.execute("reset").ok
        assert lab.user.name == "monitor"
        assert lab.session("NY_Appliance1").execute("enable").ok
    finally:
        lab.close()


@pytest.mark.parametrize("name", ["x" * 300, "a/" + "b" * 300, "d/" * 200 + "f.yaml"])
def test_reset_with_an_overlong_name_is_one_clear_error(lab, name):
    before = lab.store.dump()
    outcome = lab.execute("lab", f"reset {name}")
    assert not outcome.ok and outcome.error_kind == "engine"
    assert outcome.text.startswith(f"ERROR: Scenario '{name[:64]}") and outcome.text.count("\n") == 0
    assert lab.store.dump() == before


def test_reset_to_a_lab_nobody_can_administer_is_refused(lab, tmp_path):
    path = tmp_path / "noadmin.yaml"
    path.write_text("sites:\n  - {name: NY, routers: [{name: R}]}\n")
    before = lab.store.dump()
    outcome = lab.execute("lab", f"reset {path}")
    assert (outcome.ok, outcome.text) == (False, (
        f"ERROR: Scenario '{path}' is invalid (1 problem(s)); first: {path}:1: no usable administrator: "
        "the lab needs a user with scope global, level admin, lab_admin: true and a password (the trainer)"))
    assert lab.store.dump() == before
