"""The lab's root names no system: its state holds the users, settings and clock, each system that
keeps records of its own is a section on it, its calls are journaled under the system's name, and
a lab file written before (its calls unqualified) opens and replays as it did."""

from __future__ import annotations

import ast
import sqlite3
from pathlib import Path

from state_store import systems
from state_store.lab_root.engine import RootEngine
from state_store.lab_root.state import RootState
from state_store.lab_store import LabStore

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


def test_users_keys_and_settings_are_the_roots_in_a_geode_lab() -> None:
    store: LabStore[RootState, RootEngine] = LabStore.in_memory(SCENARIOS / "geode-ha.yaml")
    with store.transaction() as engine:
        users = engine.users()
        assert users and all(type(u).__module__ == "state_store.lab_root.users" for u in users)
        name = users[0].name
        assert engine.verify_password(name, "not the password") is False
        assert engine.ssh_keys(name) == tuple(engine.state.user_by_name[name].ssh_keys.splitlines())
        assert engine.system_names() == ["geode"]
        assert "replication_drain_rate" in engine.settings()


def test_an_unknown_call_name_is_refused_not_guessed() -> None:
    from state_store.lab_root.engine import resolve_call

    store: LabStore[RootState, RootEngine] = LabStore.in_memory(SCENARIOS / "bare.yaml")
    with store.transaction() as engine:
        assert resolve_call(engine, "solace.no_such_call") is None
        assert resolve_call(engine, "nobody.create_queue") is None
        assert resolve_call(engine, "queue_names") is None  # a read, never a journaled call
        assert resolve_call(engine, "create_queue") is not None  # an older journal's name
