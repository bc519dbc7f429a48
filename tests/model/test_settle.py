"""Folding settled messages (``state_store.solace.settle``) changes no answer, in the ways a message could
come back: a standby taking over with copies, XA branches committed on both sites, split brain,
transactions rolled back, delete-messages, a replaced site; refusals of one kind are one record;
folded labs persist (snapshots, journal replay) and older snapshots still read.

Each scenario runs twice: in a lab that folds at the end of every publish and consumption and
after every call, and in a reference that never folds; every answer and every observation (audit
whole, per VPN and limited, status, queues, spool, statistics, transactions, listings) must agree."""

from __future__ import annotations

import json
import sqlite3
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from solace_shell.transcript.replay import replay_file
from state_store.errors import EngineError
from state_store.lab_root.codec import CodecError, decode_state, loads, state_text
from state_store.lab_root.engine import RootEngine
from state_store.lab_store import LabStore
from state_store.solace import settle
from state_store.solace.engine import Engine
from state_store.tuning import StoreTuning
from tests.model.test_runs_property import _run, _run_folded, folding
from tests.support.router_engine import router_engine, router_section

NY, NJ, VPN, XID = "NY_Appliance1", "NJ_Appliance1", "Trading_VPN", "0021ABC4-00-01"
Call = Callable[[Engine], Any]


def _guarded(fn: Callable[[], Any]) -> Any:
    try:
        return fn()
    except EngineError as exc:
        return exc.code


def _observe(root: RootEngine) -> dict[str, Any]:
    """Every answer that could show a message: audits (whole, per VPN, limited), status, and per
    router its queues, spool, statistics, transactions in detail and every queue's messages."""
    e = router_engine(root)
    out: dict[str, Any] = {"audit": e.audit(limit=-1), "status": e.status(), "vpn": e.audit(VPN, limit=-1),
                           "limited": (e.audit(limit=2), e.audit(VPN, limit=1), e.audit("Other_VPN"))}
    for r in (NY, NJ):
        out[r] = _guarded(lambda r=r: (e.queues(r, "*", "*"), e.message_spool(r), e.replication_stats(r),
                                       e.transactions(r), e.vpn_replication(r)))
        for q in [*e.queue_names(r, VPN), "#MSGVPN_REPLICATION_DATA_QUEUE"]:
            out[f"{r} {q}"] = _guarded(lambda r=r, q=q: (e.queue_messages(r, VPN, q, limit=10_000),
                                                         e.queue_messages(r, VPN, q, newest=True, limit=3)))
    return out


def _both(calls: list[Call]) -> tuple[LabStore, LabStore]:
    """Run ``calls`` one command each in a folding lab and in a reference; compare as they go."""
    folded, plain = LabStore.in_memory(), LabStore.in_memory()
    for fn in calls:
        got = _run_folded(folded, fn)
        with folding(False):
            assert got == _run(plain, fn)
            assert _run(folded, _observe) == _run(plain, _observe)
    assert not router_section(plain.state).settled
    return folded, plain


def _totals(store: LabStore) -> Any:
    with folding(False):
        return store.run(lambda e: router_engine(e).audit().totals)


def _ledger_ids(store: LabStore) -> set[int]:
    return {mid for m in router_section(store.state).ledger for mid in range(m.id, m.id + m.count)}


def test_steady_traffic_is_folded_and_the_audit_is_the_same() -> None:
    calls: list[Call] = []
    for _ in range(30):
        calls += [lambda e: router_engine(e).publish("trader", "trading/orders/new", count=5),
                  lambda e: router_engine(e).consume("settlement", "orders", 5), lambda e: e.advance(1000)]
    folded, plain = _both(calls)
    assert len(router_section(folded.state).ledger) <= 1 and len(router_section(folded.state).deliveries) <= 1
    assert len(router_section(plain.state).ledger) == 30
    assert sum(s.messages for s in router_section(folded.state).settled.values()) >= 145
    assert router_section(folded.state).message_count() == router_section(plain.state).message_count() == 150
    assert _totals(folded).delivered_once == 150


def test_a_copy_on_the_standby_keeps_a_message_until_its_ack_removes_it() -> None:
    """Consumed on the active while the standby still holds it (the ack waits for its batch): a
    failover then delivers it again, a duplicate the folded lab must report too."""
    folded, plain = _both([
        lambda e: router_engine(e).publish("trader", "trading/orders/new", count=5),
        lambda e: e.advance(100),  # drained to NJ: a copy there
        lambda e: router_engine(e).consume("settlement", "orders", 5),  # the acks wait for a batch of 20
        lambda e: router_engine(e).fail_site("NY"),
        lambda e: router_engine(e).set_replication_role(NJ, VPN, "active"),
        lambda e: e.advance(5000),
        lambda e: router_engine(e).consume("settlement", "orders", 10),
    ])
    t = _totals(folded)
    assert (t.published, t.duplicated) == (5, 5)
    assert _totals(plain) == t


def test_acks_that_reach_the_standby_settle_the_messages() -> None:
    folded, _ = _both([
        lambda e: router_engine(e).publish("trader", "trading/orders/new", count=3),
        lambda e: e.advance(100),
        lambda e: router_engine(e).consume("settlement", "orders", 3),
        lambda e: e.advance(1500),  # the one-second timer sends the acks, the drain applies them
        lambda e: router_engine(e).publish("trader", "trading/orders/new", count=1),
    ])
    assert sum(s.messages for s in router_section(folded.state).settled.values()) == 3


def test_xa_branch_committed_on_both_sites_is_one_set_of_messages() -> None:
    folded, plain = _both([
        lambda e: router_engine(e).tx_xa_start("trader", XID),
        lambda e: router_engine(e).publish("trader", "trading/orders/xa", count=2),
        lambda e: router_engine(e).consume("settlement", "orders", 1),
        lambda e: router_engine(e).tx_xa_end("trader", XID),
        lambda e: router_engine(e).tx_xa_prepare("trader", XID),
        lambda e: router_engine(e).set_replication_role(NY, VPN, "standby"),
        lambda e: e.advance(5000),
        lambda e: router_engine(e).heuristic_commit(NY, VPN, XID),
        lambda e: router_engine(e).consume("settlement", "orders", 10),
        lambda e: router_engine(e).set_replication_role(NJ, VPN, "active"),
        lambda e: e.advance(1000),
        lambda e: router_engine(e).publish("trader", "trading/orders/new", count=1),  # a sweep before the mate's commit
        lambda e: router_engine(e).tx_xa_commit("trader", XID),
        lambda e: router_engine(e).consume("settlement", "orders", 10),
        lambda e: e.advance(2000),
        lambda e: router_engine(e).heuristic_delete(NY, VPN, XID),
    ])
    assert _totals(folded) == _totals(plain)


def _two_queues(e: Engine) -> None:
    router_engine(e).create_queue(NY, VPN, "audit")
    router_engine(e).add_queue_subscription(NY, VPN, "audit", "trading/>")
    router_engine(e).set_queue_shutdown(NY, VPN, "audit", False)


def test_a_copy_on_another_queue_keeps_a_message() -> None:
    """Delivered once from one queue, still spooled on another: consuming that one makes it a
    duplicate."""
    _both([
        _two_queues,
        lambda e: router_engine(e).publish("trader", "trading/orders/new", count=3),
        lambda e: router_engine(e).consume("settlement", "orders", 3),
        lambda e: e.advance(3000),
        lambda e: router_engine(e).publish("trader", "other/x", count=1),
        lambda e: router_engine(e).consume("settlement", "audit", 2),
    ])


def _no_ack_propagation(e: Engine) -> None:
    for r in (NY, NJ):
        router_engine(e).set_replication_option(r, VPN, "ack-propagation-enabled", False)


def test_a_standby_that_never_got_the_acks_delivers_again_after_a_failover() -> None:
    _both([
        _no_ack_propagation,
        lambda e: router_engine(e).publish("trader", "trading/orders/new", count=4),
        lambda e: e.advance(100),
        lambda e: router_engine(e).consume("settlement", "orders", 4),
        lambda e: e.advance(3000),
        lambda e: router_engine(e).publish("trader", "other/x", count=1),
        lambda e: router_engine(e).set_replication_role(NY, VPN, "standby"),
        lambda e: router_engine(e).set_replication_role(NJ, VPN, "active"),
        lambda e: e.advance(5000),
        lambda e: router_engine(e).consume("settlement", "orders", 10),
    ])


def test_a_message_still_on_the_replication_queue_reaches_the_standby_later() -> None:
    _both([
        _no_ack_propagation,
        lambda e: router_engine(e).fail_link(),
        lambda e: router_engine(e).publish("trader", "trading/orders/new", count=4),
        lambda e: router_engine(e).consume("settlement", "orders", 4),  # not pruned: ack propagation is off
        lambda e: router_engine(e).publish("trader", "other/x", count=1),
        lambda e: router_engine(e).restore_link(),
        lambda e: e.advance(3000),
        lambda e: router_engine(e).set_replication_role(NY, VPN, "standby"),
        lambda e: router_engine(e).set_replication_role(NJ, VPN, "active"),
        lambda e: e.advance(5000),
        lambda e: router_engine(e).consume("settlement", "orders", 10),
    ])


def test_a_branch_committed_on_the_new_active_site_spools_again_on_the_old_one() -> None:
    """The mate's first commit records the messages it published (xa-commit); they are delivered
    and their copies acknowledged everywhere before the old active site commits its own branch,
    which spools them there again."""
    _both([
        lambda e: router_engine(e).tx_xa_start("trader", XID),
        lambda e: router_engine(e).publish("trader", "trading/orders/xa", count=2),
        lambda e: router_engine(e).tx_xa_end("trader", XID),
        lambda e: router_engine(e).tx_xa_prepare("trader", XID),
        lambda e: e.advance(1000),
        lambda e: router_engine(e).set_replication_role(NY, VPN, "standby"),
        lambda e: router_engine(e).set_replication_role(NJ, VPN, "active"),
        lambda e: e.advance(5000),
        lambda e: router_engine(e).tx_xa_commit("trader", XID),
        lambda e: router_engine(e).consume("settlement", "orders", 10),
        lambda e: e.advance(3000),
        lambda e: router_engine(e).publish("trader", "other/x", count=1),
        lambda e: router_engine(e).heuristic_commit(NY, VPN, XID),
        lambda e: e.advance(1000),
    ])


def _unreplicated(e: Engine) -> None:
    router_engine(e).delete_replicated_topic(NY, VPN, "trading/>")


def _prepared_consumer(e: Engine) -> None:
    router_engine(e).tx_xa_start("settlement", XID)
    router_engine(e).consume("settlement", "orders", 2)
    router_engine(e).tx_xa_end("settlement", XID)
    router_engine(e).tx_xa_prepare("settlement", XID)


def test_a_mirrored_branch_names_its_consumed_messages() -> None:
    """The old active site commits its branch heuristically (no end is sent): the mirror on the
    mate still names the messages, and `show transaction` there shows their rgmids."""
    _both([
        _unreplicated,
        lambda e: router_engine(e).publish("trader", "trading/orders/new", count=2),
        _prepared_consumer,
        lambda e: e.advance(1000),
        lambda e: router_engine(e).heuristic_commit(NY, VPN, XID),
        lambda e: router_engine(e).publish("trader", "other/x", count=1),
        lambda e: e.advance(1000),
    ])


def test_a_branch_state_still_on_the_replication_queue_names_its_messages() -> None:
    _both([
        _unreplicated,
        lambda e: router_engine(e).fail_link(),
        lambda e: router_engine(e).publish("trader", "trading/orders/new", count=2),
        _prepared_consumer,
        lambda e: router_engine(e).heuristic_commit(NY, VPN, XID),
        lambda e: router_engine(e).publish("trader", "other/x", count=1),
        lambda e: router_engine(e).restore_link(),
        lambda e: e.advance(2000),
    ])


def _xa_round(n: int) -> list[Call]:
    xid = f"0021ABC4-{n:02X}-01"
    return [lambda e: router_engine(e).tx_xa_start("trader", xid),
            lambda e: router_engine(e).publish("trader", "trading/orders/xa", count=2),
            lambda e: router_engine(e).tx_xa_end("trader", xid),
            lambda e: router_engine(e).tx_xa_prepare("trader", xid),
            lambda e: router_engine(e).tx_xa_commit("trader", xid),
            lambda e: router_engine(e).consume("settlement", "orders", 2),
            lambda e: e.advance(1500)]


def test_steady_xa_traffic_leaves_no_bookkeeping_per_branch() -> None:
    calls = [c for n in range(12) for c in _xa_round(n)]
    folded, plain = _both(calls)
    kept = [k for k in folded.state.meta if k.startswith("xa-")]
    assert kept == [] and not router_section(folded.state).ledger
    assert sum(1 for k in plain.state.meta if k.startswith("xa-")) == 24  # a log and a first commit each


def test_a_branch_resolved_differently_on_each_site_keeps_its_log() -> None:
    """Seed 000's warning: committed by the transaction manager on the new active site, rolled
    back heuristically on the old one: the audit lists it (and the log stays) once both are gone."""
    folded, _ = _both([
        lambda e: router_engine(e).tx_xa_start("trader", XID),
        lambda e: router_engine(e).publish("trader", "trading/orders/xa", count=2),
        lambda e: router_engine(e).tx_xa_end("trader", XID),
        lambda e: router_engine(e).tx_xa_prepare("trader", XID),
        lambda e: e.advance(1000),
        lambda e: router_engine(e).set_replication_role(NY, VPN, "standby"),
        lambda e: router_engine(e).set_replication_role(NJ, VPN, "active"),
        lambda e: e.advance(5000),
        lambda e: router_engine(e).tx_xa_commit("trader", XID),
        lambda e: router_engine(e).heuristic_rollback(NY, VPN, XID),
        lambda e: router_engine(e).heuristic_delete(NY, VPN, XID),
        lambda e: router_engine(e).consume("settlement", "orders", 10),
        lambda e: e.advance(3000),
        lambda e: router_engine(e).publish("trader", "other/x", count=1),
    ])
    assert any(k.startswith("xa-log:") for k in folded.state.meta)
    with folding(False):
        issues = folded.run(lambda e: router_engine(e).audit().xa_issues)
    assert "inconsistent" in {i.kind for i in issues}


def test_split_brain_deliveries_keep_their_note() -> None:
    folded, plain = _both([
        lambda e: router_engine(e).publish("trader", "trading/orders/new", count=4),
        lambda e: e.advance(100),
        lambda e: router_engine(e).set_replication_role(NJ, VPN, "active"),
        lambda e: router_engine(e).consume("settlement", "orders", 2),
        lambda e: e.advance(2000),
        lambda e: router_engine(e).consume("settlement", "orders", 10),
    ])
    noted = {mid for m in router_section(folded.state).ledger if m.note and "split brain" in m.note
             for mid in range(m.id, m.id + m.count)}
    assert noted and noted <= _ledger_ids(folded)


def test_rolled_back_and_locked_messages_come_back_and_are_counted_once() -> None:
    _both([
        lambda e: router_engine(e).publish("trader", "trading/orders/new", count=6),
        lambda e: router_engine(e).tx_local_start("settlement"),
        lambda e: router_engine(e).consume("settlement", "orders", 4),
        lambda e: router_engine(e).publish("trader", "trading/orders/new", count=1),
        lambda e: router_engine(e).tx_local_rollback("settlement"),
        lambda e: router_engine(e).consume("settlement", "orders", 3),
        lambda e: router_engine(e).tx_local_start("settlement"),
        lambda e: router_engine(e).consume("settlement", "orders", 10),
        lambda e: router_engine(e).tx_local_commit("settlement"),
        lambda e: e.advance(3000),
    ])


def test_deleted_messages_and_a_replaced_site() -> None:
    _both([
        lambda e: router_engine(e).publish("trader", "trading/orders/new", count=8),
        lambda e: e.advance(100),
        lambda e: router_engine(e).consume("settlement", "orders", 3),
        lambda e: router_engine(e).delete_messages(NJ, VPN, "orders"),
        lambda e: e.advance(2000),
        lambda e: router_engine(e).delete_messages(NY, VPN, "orders"),
        lambda e: router_engine(e).publish("trader", "trading/orders/new", count=4),
        lambda e: router_engine(e).consume("settlement", "orders", 2),
        lambda e: router_engine(e).fail_site("NJ"),
        lambda e: router_engine(e).replace_site("NJ"),
        lambda e: e.advance(2000),
        lambda e: router_engine(e).consume("settlement", "orders", 10),
    ])


def test_refusals_of_one_kind_are_one_record_with_their_count() -> None:
    lab = LabStore.in_memory()
    with lab.transaction() as e:
        router_engine(e).create_replicated_topic(NY, VPN, "trading/fx/>", "sync")
        router_engine(e).set_replication_option(NY, VPN, "reject-msg-when-sync-ineligible", True)
        router_engine(e).fail_link()
        for n in (2, 3, 4):
            assert router_engine(e).publish("trader", "trading/fx/spot", count=n).rejected == n
            e.advance(1000)
        assert router_engine(e).publish("trader", "trading/fx/other", count=1).rejected == 1
        assert router_engine(e).audit().totals.rejected == router_engine(e).audit(VPN).totals.rejected == 10
        assert router_engine(e).audit("Other_VPN").totals.rejected == 0
    assert sorted((r.topic, r.count, r.at_ms) for r in router_section(lab.state).rejections.values()) == [
        ("trading/fx/other", 1, 3000), ("trading/fx/spot", 9, 0)]
    lab.close()


def _traffic(e: Engine) -> None:
    router_engine(e).publish("trader", "trading/orders/new", count=5)
    router_engine(e).consume("settlement", "orders", 5)
    e.advance(1000)


def test_a_folded_lab_survives_snapshots_and_journal_replay(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The fold mark is part of the state: a shell replaying the journal folds at the same calls."""
    monkeypatch.setattr(settle, "FOLD_MIN", 8)
    p = tmp_path / "lab.sqlite"
    tuning = StoreTuning(snapshot_every=7)
    lab = LabStore.open(p, tuning=tuning)
    other = LabStore.open(p, tuning=tuning)
    for _ in range(40):
        lab.run(_traffic)
    assert router_section(lab.state).settled and len(router_section(lab.state).ledger) < 20
    expected = lab.dump()
    assert other.dump() == expected  # caught up by replaying the calls since its state
    lab.close()
    other.close()
    reopened = LabStore.open(p, tuning=tuning)
    assert reopened.dump() == expected
    reopened.run(_traffic)
    assert reopened.run(lambda e: router_engine(e).audit().totals.delivered_once) == 205
    reopened.close()


def test_a_folded_state_round_trips_and_a_version_2_document_reads() -> None:
    lab = LabStore.in_memory()
    with folding(True):
        for _ in range(3):
            lab.run(_traffic)
    doc = loads(state_text(lab.state))
    assert doc["version"] == 3 and doc["records"]["settled"]["rows"]
    assert loads(state_text(decode_state(doc))) == loads(state_text(lab.state))
    plain = LabStore.in_memory()
    with folding(False):
        plain.run(_traffic)
    old = loads(state_text(plain.state))
    old["version"] = 2
    del old["records"]["settled"]
    assert loads(state_text(decode_state(old))) == loads(state_text(plain.state))
    lab.close()
    plain.close()


@pytest.mark.parametrize("counts", [(-1, 0), (3, 4), (3, -1)])
def test_impossible_folded_totals_are_refused_in_one_line(counts: tuple[int, int]) -> None:
    lab = LabStore.in_memory()
    with folding(True):
        lab.run(_traffic)
    doc = loads(state_text(lab.state))
    doc["records"]["settled"]["rows"][0][1:3] = list(counts)
    with pytest.raises(CodecError, match=r"^settled row 0: not_replicated must be between 0 and messages "):
        decode_state(doc)
    lab.close()


def test_unreadable_bookkeeping_stops_folding_rather_than_guess() -> None:
    lab = LabStore.in_memory()
    with folding(False):
        lab.run(_traffic)
    lab.state.meta["ack-pending:1"] = "not json"
    assert settle.settled_ranges(router_section(lab.state)) == []
    lab.state.meta["ack-pending:1"] = "[]"
    assert settle.settled_ranges(router_section(lab.state)) == [(1, 6)]
    lab.close()


def test_a_snapshot_row_of_version_2_opens(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    p = tmp_path / "lab.sqlite"
    tuning = StoreTuning(snapshot_every=1)
    lab = LabStore.open(p, tuning=tuning)
    lab.run(_traffic)
    lab.run(lambda e: e.advance(10))
    expected = lab.dump()
    lab.close()
    con = sqlite3.connect(p)
    seq, body = con.execute("SELECT seq, body FROM journal WHERE kind = 'snapshot'").fetchone()
    doc = json.loads(body)
    doc["version"] = 2
    assert not doc["records"].pop("settled")["rows"]
    con.execute("UPDATE journal SET body = ? WHERE seq = ?", (json.dumps(doc), seq))
    con.commit()
    con.close()
    reopened = LabStore.open(p, tuning=tuning)
    assert reopened.dump() == expected
    reopened.close()


CORPUS = sorted((Path(__file__).resolve().parents[2] / "transcripts").rglob("*.cli.txt"))


@pytest.mark.parametrize("path", CORPUS, ids=[p.name for p in CORPUS])
def test_the_corpus_replays_green_folding_at_every_publish_and_consumption(path: Path) -> None:
    """The whole golden corpus, its every audit and show, with a sweep at the end of every
    publish and consumption (the corpus's labs never reach the usual mark)."""
    with folding(True):
        result = replay_file(path)
    assert result.commands and not result.error
    failed = [f"{c.line}: {c.command}\n--- expected\n{c.expected}\n--- actual\n{c.actual}"
              for c in result.commands if c.verdict != "pass"]
    assert not failed, "\n".join(failed)
