"""The lab's root names no system: its state holds the users, settings and clock, each system that
keeps records of its own is a section on it, its calls are journaled under the system's name, and
a lab file written before (its calls unqualified) opens and replays as it did."""

from __future__ import annotations

import ast
import json
import sqlite3
import sys
from pathlib import Path
from types import FrameType

import pytest

from solace_shell.lab import Lab
from state_store import systems
from state_store.errors import EngineError
from state_store.lab_root.codec import decode_state, state_text
from state_store.lab_root.engine import RootEngine
from state_store.lab_root.state import RootState
from state_store.lab_store import LabStore
from state_store.scenario_files import ROOT_DIR

ROOT = Path(__file__).resolve().parents[2]
SCENARIOS = ROOT / "transcripts" / "scenarios"
NY, VPN = "NY_Appliance1", "Trading_VPN"


def test_the_root_package_imports_no_system() -> None:
    names = {*systems.names(), *systems.section_names()}
    for path in sorted((ROOT / "state_store" / "lab_root").glob("*.py")):
        tree = ast.parse(path.read_text(encoding="utf-8"))
        for node in ast.walk(tree):
            module = node.module if isinstance(node, ast.ImportFrom) else None
            if module is not None:
                assert not set(module.split(".")) & names, f"{path.name} imports {module}"


def test_solace_calls_are_journaled_under_its_name_and_the_roots_unqualified() -> None:
    store: LabStore[RootState, RootEngine] = LabStore.in_memory(SCENARIOS / "bare.yaml")
    with store.transaction() as engine:
        engine.system("solace").create_queue(NY, VPN, "q1")
        engine.advance(1000)
        engine.set_setting("replication_drain_rate", 5)
        names = [c.name for c in engine.state.work.calls]
    assert names == ["solace.create_queue", "advance", "set_setting"]
    copy = store.copy()  # replays the calls on the last image
    with copy.transaction() as engine:
        assert "q1" in engine.system("solace").queue_names(NY, VPN)
        assert engine.now_ms() == 1000
        assert engine.settings()["replication_drain_rate"] == "5"


def test_a_lab_file_of_the_previous_version_opens_with_its_unqualified_calls(tmp_path: Path) -> None:
    """tests/data/lab_schema6.sql: written by the code before the neutral root (a `bare` lab, then
    `create_queue`, `advance 1500` and `set_setting` journaled under their bare names)."""
    path = tmp_path / "old.db"
    con = sqlite3.connect(path)
    con.executescript((ROOT / "tests" / "data" / "lab_schema6.sql").read_text(encoding="utf-8"))
    con.close()
    store: LabStore[RootState, RootEngine] = LabStore.open(path)
    try:
        with store.transaction() as engine:
            assert "q_old" in engine.system("solace").queue_names(NY, VPN)
            assert engine.now_ms() == 1500
            assert engine.settings()["replication_drain_rate"] == "7"
            assert [u.name for u in engine.users()]
            engine.system("solace").create_queue(NY, VPN, "q_new")
    finally:
        store.close()
    again: LabStore[RootState, RootEngine] = LabStore.open(path)
    try:
        with again.transaction() as engine:
            assert {"q_old", "q_new"} <= set(engine.system("solace").queue_names(NY, VPN))
    finally:
        again.close()
    con = sqlite3.connect(path)
    bodies = [b for (b,) in con.execute("SELECT body FROM journal WHERE kind = 'calls' ORDER BY seq")]
    con.close()
    assert bodies[-1].startswith('[["solace.create_queue"')


@pytest.mark.parametrize("scenario", ["geode-ha.yaml", "qpid-ha.yaml", "swiftmq-ha.yaml"])
def test_a_lab_of_one_ha_system_holds_no_section_of_another(scenario: str) -> None:
    """Its state and its lab file's document hold the root's records and that system's kernel
    groups only (older scenarios write ``sites: []``, newer ones leave it out: the same lab)."""
    store: LabStore[RootState, RootEngine] = LabStore.in_memory(ROOT_DIR / scenario)
    with store.transaction() as engine:
        assert engine.state.sections == {} and engine.sections() == []
        doc = json.loads(state_text(engine.state))
        assert doc["sections"] == [] and set(doc["records"]) == {"users"}
        assert decode_state(doc).sections == {}


def test_users_keys_and_settings_are_the_roots_in_a_geode_lab() -> None:
    """A login (password or SSH key, ``solace_shell/ssh/server.py``) and the lab's settings need no
    section: a Geode lab serves them from its root."""
    store: LabStore[RootState, RootEngine] = LabStore.in_memory(ROOT_DIR / "geode-ha.yaml")
    with store.transaction() as engine:
        users = engine.users()
        assert users and all(type(u).__module__ == "state_store.lab_root.users" for u in users)
        name = users[0].name
        assert engine.verify_password(name, "not the password") is False
        assert engine.ssh_keys(name) == tuple(engine.state.user_by_name[name].ssh_keys.splitlines())
        assert engine.ssh_keys("nobody") == ()
        assert engine.system_names() == ["geode"]
        assert engine.settings()["scenario"] == "geode-ha"
        with pytest.raises(EngineError):
            engine.set_setting("replication_drain_rate", 5)  # a setting of a system the lab does not hold


def _modules_entered(lab: Lab, target: str, line: str) -> set[str]:
    """The project modules one ``Lab.execute`` calls into (bench/trace_line_modules.py's tracer)."""
    entered: set[str] = set()

    def tracer(frame: FrameType, event: str, arg: object) -> None:
        if event == "call":
            name = frame.f_globals.get("__name__", "")
            if name.startswith(("state_store", "solace_shell", "grammar")):
                entered.add(name)

    lab.execute(target, line)  # once untraced: imports and caches made
    sys.setprofile(tracer)
    try:
        assert lab.execute(target, line).ok, line
    finally:
        sys.setprofile(None)
    return entered


def test_a_traced_gfsh_line_enters_no_module_of_the_router_clis_model() -> None:
    lab = Lab.fresh(ROOT_DIR / "geode-ha.yaml")
    try:
        entered = _modules_entered(lab, "geode", "list members")
    finally:
        lab.close()
    assert "state_store.lab_root.engine" in entered or "state_store.lab_store" in entered
    assert sorted(m for m in entered if m.startswith("state_store.solace")) == []


def test_an_unknown_call_name_is_refused_not_guessed() -> None:
    from state_store.lab_root.engine import resolve_call

    store: LabStore[RootState, RootEngine] = LabStore.in_memory(SCENARIOS / "bare.yaml")
    with store.transaction() as engine:
        assert resolve_call(engine, "solace.no_such_call") is None
        assert resolve_call(engine, "nobody.create_queue") is None
        assert resolve_call(engine, "queue_names") is None  # a read, never a journaled call
        assert resolve_call(engine, "create_queue") is not None  # an older journal's name
