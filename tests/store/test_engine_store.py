"""LabStore: file labs (create, reopen, share, refuse bad files), in-memory speed, scenarios."""

from __future__ import annotations

import sqlite3
from pathlib import Path

import pytest

from solace_shell.personalities.solace.renderers.flags import vpn_replication_flags
from state_store.errors import EngineError, LabFileError
from state_store.lab_store import LabStore
from state_store.lab_tables import SCHEMA_VERSION
from state_store.solace.scenario import ScenarioError, load_scenario
from state_store.tuning import StoreTuning
from tests.support.router_engine import router_engine, router_section

NY, VPN = "NY_Appliance1", "Trading_VPN"


def test_file_lab_created_persisted_and_shared(tmp_path: Path):
    p = tmp_path / "lab.sqlite"
    a = LabStore.open(p)
    assert p.exists()
    with a.transaction() as e:
        router_engine(e).publish("trader", "trading/orders/new", count=2)
    b = LabStore.open(p)
    with b.transaction() as e:
        assert router_engine(e).queue_detail(NY, VPN, "orders").messages_spooled == 2
        e.advance(5)
    with a.transaction() as e:
        assert e.now_ms() == 5
    assert a.dump() == b.dump()
    a.close()
    b.close()
    con = sqlite3.connect(p)
    assert con.execute("PRAGMA journal_mode").fetchone()[0] == "wal"
    con.close()


@pytest.mark.parametrize("content,needle", [
    (b"", "not an SQLite database"),
    (b"hello, this is a text file\n" * 10, "not an SQLite database"),
    (bytes(range(256)) * 8, "not an SQLite database"),
])
def test_foreign_files_refused(tmp_path: Path, content: bytes, needle: str):
    p = tmp_path / "bad.sqlite"
    p.write_bytes(content)
    with pytest.raises(LabFileError) as ei:
        LabStore.open(p)
    assert needle in ei.value.problem and "\n" not in ei.value.problem


def test_foreign_sqlite_and_wrong_version_and_truncated(tmp_path: Path):
    p = tmp_path / "other.sqlite"
    con = sqlite3.connect(p)
    con.execute("CREATE TABLE t (x)")
    con.commit()
    con.close()
    with pytest.raises(LabFileError) as ei:
        LabStore.open(p)
    assert "no meta table" in ei.value.problem

    good = tmp_path / "lab.sqlite"
    LabStore.open(good).close()
    con = sqlite3.connect(good)
    con.execute("PRAGMA journal_mode=DELETE")
    con.execute("UPDATE meta SET value='0' WHERE key='schema_version'")
    con.commit()
    con.close()
    with pytest.raises(LabFileError) as ei:
        LabStore.open(good)
    assert ei.value.problem.startswith(f"lab schema version 0, this program needs {SCHEMA_VERSION} and cannot upgrade")

    ok = tmp_path / "ok.sqlite"
    LabStore.open(ok).close()
    con = sqlite3.connect(ok)
    con.execute("PRAGMA journal_mode=DELETE")
    con.close()
    data = ok.read_bytes()
    trunc = tmp_path / "trunc.sqlite"
    trunc.write_bytes(data[: len(data) // 3])
    with pytest.raises(LabFileError) as ei:
        LabStore.open(trunc)
    assert "corrupt" in ei.value.problem or "missing tables" in ei.value.problem


def test_in_memory_copies_are_independent():
    # How fast a copy is, is measured in bench/bench_engine_scale.py, not asserted here.
    a, b = LabStore.in_memory(), LabStore.in_memory()
    with a.transaction() as e:
        router_engine(e).publish("trader", "trading/orders/new")
    assert a.dump() != b.dump()
    c = a.copy()
    assert c.dump() == a.dump()


def test_default_lab_is_deterministic():
    assert LabStore.in_memory().dump() == LabStore.in_memory().dump()


BAD = """\
scenario: broken
settings:
  layout: C
  colour: blue
sites:
  - name: NY
    routers:
      - name: NY_Appliance1
        message_id_seed: lots
links:
  - sites: [NY, MARS]
vpns:
  - name: Trading_VPN
    replication:
      enabled: yes
      roles: {NJ_Appliance1: active}
    clients:
      - name: trader
        hosts: [NY_Appliance1, Boston_Appliance]
users:
  - {name: admin, level: admin}
"""


def test_scenario_reports_all_problems_with_lines(tmp_path: Path):
    p = tmp_path / "bad.yaml"
    p.write_text(BAD)
    with pytest.raises(ScenarioError) as ei:
        load_scenario(p)
    probs = ei.value.problems
    expect = [
        (3, "'C' is not one of A, B"),
        (4, "unknown key 'colour'"),
        (9, "expected an integer"),
        (11, "link site 'MARS' is not a site"),
        (16, "'NJ_Appliance1', which is not a router"),
        (19, "host 'Boston_Appliance' is not a router"),
        (21, "needs password or password_hash"),
        (20, "no usable administrator: the lab needs a user with scope global, level admin, lab_admin: true"),
    ]
    for line, text in expect:
        assert any(pr.startswith(f"{p}:{line}:") and text in pr for pr in probs), (line, text, probs)
    assert len(probs) == len(expect)


def test_scenario_yaml_syntax_error(tmp_path: Path):
    p = tmp_path / "syntax.yaml"
    p.write_text("sites: [\n  - a\n")
    with pytest.raises(ScenarioError) as ei:
        load_scenario(p)
    assert ei.value.problems[0].startswith(f"{p}:") and "YAML syntax" in ei.value.problems[0]


def test_scenario_initial_traffic_and_hashed_passwords(tmp_path: Path):
    from state_store.passwords import hash_password

    p = tmp_path / "s.yaml"
    p.write_text(f"""\
sites:
  - name: A
    routers: [{{name: A1}}]
  - name: B
    routers: [{{name: B1}}]
links: [{{sites: [A, B]}}]
vpns:
  - name: V
    replication:
      enabled: true
      roles: {{A1: active}}
      replicated_topics: [{{topic: "x/>"}}]
    queues: [{{name: q, subscriptions: ["x/>"]}}]
    clients: [{{name: c, hosts: [A1, B1]}}]
users:
  - {{name: trainer, password: t, level: admin, lab_admin: true}}
  - {{name: u1, password: pw1}}
  - {{name: u2, password_hash: "{hash_password('pw2')}"}}
messages: [{{client: c, topic: x/y, count: 3}}]
transactions:
  - {{client: c, type: xa, xid: "01-02-03", state: prepared, consume: [{{queue: q, count: 1}}]}}
advance_ms: 100
""")
    lab = LabStore.in_memory(p)
    with lab.transaction() as e:
        assert router_engine(e).queue_detail("B1", "V", "q").messages_spooled == 3
        assert [t.state for t in router_engine(e).transactions("B1")] == ["prepared"]
        assert e.verify_password("u1", "pw1") and e.verify_password("u2", "pw2")
        assert vpn_replication_flags(router_engine(e).vpn_replication("A1", "V")[0]) == "U A - U U - N A"


def _roles(store: LabStore) -> list[tuple[str, str]]:
    with store.transaction() as e:
        return [(r.name, r.role) for r in router_engine(e).vpn_replication(NY, VPN)] + \
               [(f"{r.name}@NJ", r.role) for r in router_engine(e).vpn_replication("NJ_Appliance1", VPN)]


def test_in_memory_lab_keeps_its_shape_between_commands_but_not_a_rolled_back_change():
    """The in-memory lab carries the loaded sites/routers/VPNs from one transaction to the next;
    a change made in a transaction that then fails must not survive in that carried state."""
    store = LabStore.in_memory()
    before = _roles(store)
    assert before == [(VPN, "active"), (f"{VPN}@NJ", "standby")]
    with pytest.raises(RuntimeError):
        with store.transaction() as e:
            router_engine(e).set_replication_role(NY, VPN, "standby")
            router_engine(e).fail_site("NJ")
            raise RuntimeError("a later step of the command failed")
    assert _roles(store) == before
    with store.transaction() as e:
        assert [s.up for s in router_engine(e).sites()] == [True, True]
        router_engine(e).set_replication_role(NY, VPN, "standby")
    assert _roles(store) == [(VPN, "standby"), (f"{VPN}@NJ", "standby")]
    # what the carried state says is what a lab loaded from scratch (a copy) says
    assert _roles(store.copy()) == _roles(store)
    assert store.copy().dump() == store.dump()
    store.reset()
    assert _roles(store) == before
    store.close()


ORDERS = ("trader", "trading/orders/new")


def _journal_kinds(p: Path) -> list[str]:
    con = sqlite3.connect(p)
    try:
        return [r[0] for r in con.execute("SELECT kind FROM journal ORDER BY seq")]
    finally:
        con.close()


def test_two_stores_on_one_file_interleave_like_a_serial_replay(tmp_path: Path):
    """Two shells' stores on one file, commands interleaved, one of them racing the other (its
    command runs again on the caught-up state): both, and the file reopened, equal one serial lab."""
    p = tmp_path / "shared.sqlite"
    a, b = LabStore.open(p), LabStore.open(p)
    serial = LabStore.in_memory()
    steps = [
        (a, lambda e: router_engine(e).publish(*ORDERS, count=3)),
        (b, lambda e: e.advance(250)),
        (b, lambda e: router_engine(e).set_replication_role("NJ_Appliance1", VPN, "active")),
        (a, lambda e: router_engine(e).consume("trader", "orders", count=1)),
        (a, lambda e: router_engine(e).set_replication_role(NY, VPN, "standby")),
        (b, lambda e: e.advance(1000)),
    ]
    for store, work in steps:
        store.run(work)
        serial.run(work)
    runs: list[int] = []

    def racing(e):
        runs.append(e.now_ms())
        if len(runs) == 1:  # another shell commits while this command runs
            b.run(lambda other: other.advance(500))
        e.advance(7)

    a.run(racing)
    serial.run(lambda e: e.advance(500))
    serial.run(lambda e: e.advance(7))
    assert runs == [1250, 1750]  # the second attempt ran on the caught-up state
    assert a.dump() == b.dump() == serial.dump()
    c = LabStore.open(p)
    assert c.dump() == serial.dump()
    for store in (a, b, c):
        store.close()


def test_a_rejected_command_on_a_file_lab_changes_nothing_anywhere(tmp_path: Path):
    p = tmp_path / "lab.sqlite"
    a, b = LabStore.open(p), LabStore.open(p)
    with a.transaction() as e:
        router_engine(e).publish(*ORDERS)
    before, rows = a.dump(), _journal_kinds(p)
    with pytest.raises(RuntimeError):
        with a.transaction() as e:
            router_engine(e).publish(*ORDERS, count=5)
            e.advance(100)
            raise RuntimeError("a later step of the command failed")
    assert a.dump() == before == b.dump()
    assert _journal_kinds(p) == rows
    with pytest.raises(EngineError):
        with a.transaction() as e:
            router_engine(e).create_queue(NY, VPN, "orders")  # exists: refused by the engine
    assert a.dump() == before and _journal_kinds(p) == rows
    a.close()
    b.close()


def test_snapshots_compact_the_journal_and_reopen_the_same(tmp_path: Path, monkeypatch: pytest.MonkeyPatch):

    p = tmp_path / "lab.sqlite"
    tuning = StoreTuning(snapshot_every=5)
    a, b = LabStore.open(p, tuning=tuning), LabStore.open(p, tuning=tuning)
    for i in range(12):
        (a if i % 3 else b).run(lambda e: router_engine(e).publish(*ORDERS, count=2))
    assert _journal_kinds(p) == ["snapshot", "calls", "calls"]
    assert a.dump() == b.dump() == LabStore.open(p, tuning=tuning).dump()
    b.reset()  # a reset is one snapshot for every shell
    assert _journal_kinds(p) == ["snapshot"]
    assert a.dump() == b.dump() == LabStore.in_memory().dump()
    a.close()
    b.close()


def test_a_big_snapshot_is_written_in_parts_and_the_old_ones_dropped(tmp_path: Path,
                                                                       monkeypatch: pytest.MonkeyPatch):
    """A snapshot larger than PART_SIZE is written as part rows (each its own short transaction)
    before the snapshot row that names them; readers assemble it; the next snapshot drops them."""

    p = tmp_path / "lab.sqlite"
    tuning = StoreTuning(snapshot_every=3, part_size=2500)
    a, b = LabStore.open(p, tuning=tuning), LabStore.open(p, tuning=tuning)
    for i in range(3):
        (a if i % 2 else b).run(lambda e: router_engine(e).publish(*ORDERS, count=20))
    kinds = _journal_kinds(p)
    assert kinds[-1] == "snapshot" and kinds.count("part") >= 3 and "calls" not in kinds, kinds
    assert a.dump() == b.dump() == LabStore.open(p, tuning=tuning).dump()
    for _ in range(3):
        a.run(lambda e: e.advance(100))
    kinds_after = _journal_kinds(p)
    assert kinds_after.count("snapshot") == 1 and kinds_after.count("part") == kinds.count("part"), kinds_after
    assert b.dump() == a.dump() == LabStore.open(p, tuning=tuning).dump()
    con = sqlite3.connect(p)
    con.execute("DELETE FROM journal WHERE seq = (SELECT min(seq) FROM journal WHERE kind = 'part')")
    con.commit()
    con.close()
    with pytest.raises(LabFileError) as ei:
        LabStore.open(p, tuning=tuning)
    assert ei.value.problem.endswith("parts of the snapshot are missing)")
    a.close()
    b.close()


def test_reading_a_lab_file_never_imports_sqlalchemy_and_writing_never_its_orm(tmp_path: Path):
    """Start-up (issue 12 item 5): `solace-shell -c "show ..."` on a lab file needs no SQLAlchemy;
    the first change imports SQLAlchemy Core, never the ORM."""
    import subprocess
    import sys

    p = tmp_path / "lab.sqlite"
    LabStore.open(p).close()
    code = ("import sys; from solace_shell.lab import Lab; lab = Lab.open(sys.argv[1]); "
            "assert lab.execute('NY_Appliance1', 'show message-vpn * replication').ok; "
            "print(sorted({m.split('.')[0] for m in sys.modules if m.startswith('sqlalchemy')})); "
            "assert lab.execute('lab', 'advance 1s').ok; "
            "print(sorted(m for m in sys.modules if m.startswith('sqlalchemy.orm')))")
    out = subprocess.run([sys.executable, "-c", code, str(p)], capture_output=True, text=True, check=True).stdout
    assert out.splitlines() == ["[]", "[]"], out


def test_a_damaged_row_appended_by_another_shell_refuses_every_command_and_changes_nothing(tmp_path: Path):
    p = tmp_path / "lab.sqlite"
    a = LabStore.open(p)
    a.run(lambda e: router_engine(e).publish(*ORDERS))
    con = sqlite3.connect(p)
    body = '[["publish", ["trader", "trading/orders/new"], {"count": 2}], ["advance", ["soon"], {}]]'
    con.execute("INSERT INTO journal (seq, kind, body) VALUES ((SELECT max(seq) FROM journal) + 1, 'calls', ?)",
                (body,))
    con.commit()
    con.close()
    for _ in range(2):
        with pytest.raises(LabFileError) as ei:
            a.run(lambda e: e.advance(1))
        assert "TypeError replaying it" in ei.value.problem
    # the row's publish, applied before its advance failed, was undone
    assert (router_section(a.state).message_count(), a.state.now_ms) == (1, 0)
    a.close()
