"""Local and XA transactions, mirroring to the standby, heuristic actions with wildcards."""

from __future__ import annotations

import pytest

from state_store.errors import EngineError
from state_store.lab_store import LabStore

NY, NJ, VPN = "NY_Appliance1", "NJ_Appliance1", "Trading_VPN"
T = "trading/orders/new"
X1, X2 = "0021ABC4-00-01", "0021ABC4-00-02"


@pytest.fixture
def lab():
    s = LabStore.in_memory()
    yield s
    s.close()


def depth(e, router, queue="orders"):
    return e.queue_detail(router, VPN, queue).messages_spooled


def code(fn):
    with pytest.raises(EngineError) as ei:
        fn()
    return ei.value.code, ei.value.params


def test_local_publish_spools_only_on_commit(lab):
    with lab.transaction() as e:
        e.tx_local_start("trader")
        r = e.publish("trader", T, count=2)
        assert r.transacted and depth(e, NY) == 0
        [t] = e.transactions(NY)
        assert (t.kind, t.state, t.replicated, t.messages_published, t.xid) == ("local", "active", True, 2, None)
        e.tx_local_commit("trader")
        assert depth(e, NY) == 2 and depth(e, NY, "#MSGVPN_REPLICATION_DATA_QUEUE") == 2
        e.tx_local_start("trader")
        e.publish("trader", T)
        e.tx_local_rollback("trader")
        assert depth(e, NY) == 2 and e.transactions(NY) == []
        assert code(lambda: e.tx_local_commit("trader")) == ("no_transaction", {"client": "trader"})


def test_local_consume_locked_restored_on_rollback_removed_on_commit(lab):
    with lab.transaction() as e:
        e.publish("trader", T, count=3)
        e.tx_local_start("settlement")
        assert e.consume("settlement", "orders", 2).transacted
        assert depth(e, NY) == 3
        assert [m.locked_by_transaction for m in e.queue_messages(NY, VPN, "orders")] == [True, True, False]
        e.tx_local_rollback("settlement")
        assert [m.locked_by_transaction for m in e.queue_messages(NY, VPN, "orders")] == [False] * 3
        e.tx_local_start("settlement")
        e.consume("settlement", "orders", 2)
        assert code(lambda: e.tx_local_start("settlement"))[0] == "transaction_already_open"
        e.tx_local_commit("settlement")
        assert depth(e, NY) == 1
        assert e.audit().totals.delivered_once == 2


def test_disconnect_rolls_back_local_transaction(lab):
    with lab.transaction() as e:
        e.publish("trader", T, count=2)
        e.tx_local_start("settlement")
        e.consume("settlement", "orders", 2)
        e.set_replication_role(NY, VPN, "standby")
        assert e.transactions(NY) == []
        assert [m.locked_by_transaction for m in e.queue_messages(NY, VPN, "orders")] == [False, False]


def test_xa_lifecycle_mirroring_and_wrong_states(lab):
    with lab.transaction() as e:
        e.publish("trader", T, count=3)
        e.advance(10)
        e.tx_xa_start("settlement", X1)
        e.consume("settlement", "orders", 1)
        e.publish("settlement", T, count=1)
        assert code(lambda: e.tx_xa_prepare("settlement", X1)) == (
            "transaction_wrong_state", {"xid": X1, "state": "ACTIVE", "required": "IDLE"})
        e.advance(10)
        assert e.transactions(NJ) == []  # XA ACTIVE is not mirrored
        e.tx_xa_end("settlement", X1)
        e.tx_xa_prepare("settlement", X1)
        e.advance(3000)
        [t] = e.transactions(NY, state="prepared", replicated=True)
        assert (t.xid, t.state, t.kind, t.last_state_change_ms) == (X1, "prepared", "xa", 3000)
        assert (t.messages_consumed, t.messages_published) == (1, 1)
        assert t.consumed[0].endpoint_name == "orders" and t.consumed[0].replication_group_msg_id == 1000001
        [m] = e.transactions(NJ, xid="0021*")
        assert (m.state, m.mirror, m.replicated) == ("prepared", True, True)
        assert e.xids(NJ) == [X1]
        assert code(lambda: e.tx_xa_commit("settlement", "0021ABC4-00-99"))[0] == "transaction_not_found"
        assert code(lambda: e.tx_xa_start("settlement", "nothex"))[0] == "invalid_xid"
        assert code(lambda: e.tx_xa_start("settlement", X1))[0] == "transaction_exists"
        e.tx_xa_commit("settlement", X1)
        e.advance(1000)  # the consume's ack waits for its batch or the one-second timer
        assert e.transactions(NY) == [] and e.transactions(NJ) == []  # mirror removed in order
        assert depth(e, NY) == 3 and depth(e, NJ) == 3  # 3 - 1 consumed + 1 published
        # one-phase commit only from IDLE with one_phase
        e.tx_xa_start("trader", X2)
        e.publish("trader", T)
        e.tx_xa_end("trader", X2)
        assert code(lambda: e.tx_xa_commit("trader", X2))[0] == "transaction_wrong_state"
        e.tx_xa_commit("trader", X2, one_phase=True)
        assert depth(e, NY) == 4
        # suspend / resume
        e.tx_xa_start("trader", X1)
        e.tx_xa_suspend("trader", X1)
        assert e.publish("trader", T).transacted is False
        e.tx_xa_resume("trader", X1)
        assert e.publish("trader", T).transacted is True
        e.tx_xa_rollback("trader", X1)
        assert e.transactions(NY) == []


def test_heuristics_wildcards_and_wrong_state_refusal(lab):
    with lab.transaction() as e:
        e.publish("trader", T, count=4)
        e.tx_xa_start("settlement", X1)
        e.consume("settlement", "orders", 2)
        e.tx_xa_end("settlement", X1)
        e.tx_xa_prepare("settlement", X1)
        e.tx_xa_start("trader", X2)
        e.publish("trader", T, count=5)
    before = lab.dump()
    with pytest.raises(EngineError) as ei:
        with lab.transaction() as e:
            e.heuristic_commit(NY, VPN, "0021ABC4-00-0?")
    assert (ei.value.code, ei.value.params) == (
        "transaction_wrong_state", {"xid": X2, "state": "ACTIVE", "required": "IDLE or PREPARED"})
    assert lab.dump() == before
    with pytest.raises(EngineError) as ei:
        with lab.transaction() as e:
            e.heuristic_delete(NY, VPN, X1)
    assert ei.value.params["required"] == "COMPLETE"
    with pytest.raises(EngineError) as ei:
        with lab.transaction() as e:
            e.heuristic_rollback(NY, VPN, "FFFF*")
    assert ei.value.code == "transaction_not_found"
    assert lab.dump() == before
    with lab.transaction() as e:
        e.tx_xa_end("trader", X2)
        assert e.heuristic_commit(NY, VPN, "*-01") == 1
        assert e.heuristic_rollback(NY, VPN, "0021ABC4-00-02") == 1
        got = {t.xid: (t.state, t.heuristic) for t in e.transactions(NY)}
        assert got == {X1: ("complete", "committed"), X2: ("complete", "rolled back")}
        assert depth(e, NY) == 2  # X1 consumed 2; X2's 5 publishes discarded
        assert e.heuristic_delete(NY, VPN, "0021*") == 2
        assert e.transactions(NY) == []


def test_controlled_failover_with_prepared_xa(lab):
    """Seed 000 steps 1-6: heuristic on the old active, TM commits on the new: one delivery."""
    with lab.transaction() as e:
        e.publish("trader", T, count=3)
        e.advance(10)
        e.tx_xa_start("settlement", X1)
        e.consume("settlement", "orders", 2)
        e.tx_xa_end("settlement", X1)
        e.tx_xa_prepare("settlement", X1)
        e.set_replication_role(NY, VPN, "standby")
        # the disconnect does not touch a PREPARED branch
        assert [t.state for t in e.transactions(NY, state="PREPARED", replicated=True)] == ["prepared"]
        e.advance(100)
        assert e.queue_detail(NY, VPN, "#MSGVPN_REPLICATION_DATA_QUEUE").messages_spooled == 0
        assert e.heuristic_commit(NY, VPN, X1) == 1  # step 4, old active only
        e.set_replication_role(NJ, VPN, "active")  # step 5
        e.advance(1)
        [m] = e.transactions(NJ, xid=X1)
        assert m.state == "prepared"
        e.tx_xa_commit("settlement", X1)  # the transaction manager reconciles on NJ
        assert e.heuristic_delete(NY, VPN, X1) == 1  # step 6
        assert depth(e, NJ) == 1 and depth(e, NY) == 1
        assert e.consume("settlement", "orders", 5).consumed == 1
        a = e.audit()
    assert (a.totals.published, a.totals.delivered_once, a.totals.duplicated, a.totals.lost) == (3, 3, 0, 0)


def test_replace_site_drops_transactions(lab):
    with lab.transaction() as e:
        e.tx_xa_start("trader", X1)
        e.tx_xa_end("trader", X1)
        e.tx_xa_prepare("trader", X1)
        e.fail_site("NY")
        e.replace_site("NY")
        assert e.transactions(NY) == []


def test_locked_copies_are_found_through_the_transaction_whoever_ends_it(lab):
    """A transaction's locks follow its consume operations: a branch resumed by another client
    releases them on rollback; a queue deleted under a transaction leaves it nothing to consume."""
    with lab.transaction() as e:
        e.publish("trader", T, count=3)
        e.tx_xa_start("settlement", X1)
        e.consume("settlement", "orders", 2)
        e.tx_xa_suspend("settlement", X1)
        e.tx_xa_resume("trader", X1)
        e.tx_xa_rollback("trader", X1)
        assert [m.locked_by_transaction for m in e.queue_messages(NY, VPN, "orders")] == [False] * 3
        e.tx_local_start("settlement")
        e.consume("settlement", "orders", 2)
        e.set_queue_shutdown(NY, VPN, "orders", True)
        assert e.delete_queue(NY, VPN, "orders") == 3
        [t] = e.transactions(NY)
        assert t.messages_consumed == 2 and [m.endpoint_name for m in t.consumed] == [None, None]
        e.tx_local_commit("settlement")
        assert e.transactions(NY) == []
        a = e.audit().totals
    assert (a.published, a.delivered, a.in_transaction) == (3, 0, 0)
