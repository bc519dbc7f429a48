"""Local and XA transactions, mirroring to the standby, heuristic actions with wildcards."""

from __future__ import annotations

import pytest

from state_store.errors import EngineError
from state_store.lab_store import LabStore
from tests.support.router_engine import router_engine

NY, NJ, VPN = "NY_Appliance1", "NJ_Appliance1", "Trading_VPN"
T = "trading/orders/new"
X1, X2 = "0021ABC4-00-01", "0021ABC4-00-02"


@pytest.fixture
def lab():
    s = LabStore.in_memory()
    yield s
    s.close()


def depth(e, router, queue="orders"):
    return router_engine(e).queue_detail(router, VPN, queue).messages_spooled


def code(fn):
    with pytest.raises(EngineError) as ei:
        fn()
    return ei.value.code, ei.value.params


def test_local_publish_spools_only_on_commit(lab):
    with lab.transaction() as e:
        router_engine(e).tx_local_start("trader")
        r = router_engine(e).publish("trader", T, count=2)
        assert r.transacted and depth(e, NY) == 0
        [t] = router_engine(e).transactions(NY)
        assert (t.kind, t.state, t.replicated, t.messages_published, t.xid) == ("local", "active", True, 2, None)
        router_engine(e).tx_local_commit("trader")
        assert depth(e, NY) == 2 and depth(e, NY, "#MSGVPN_REPLICATION_DATA_QUEUE") == 2
        router_engine(e).tx_local_start("trader")
        router_engine(e).publish("trader", T)
        router_engine(e).tx_local_rollback("trader")
        assert depth(e, NY) == 2 and router_engine(e).transactions(NY) == []
        assert code(lambda: router_engine(e).tx_local_commit("trader")) == ("no_transaction", {"client": "trader"})


def test_local_consume_locked_restored_on_rollback_removed_on_commit(lab):
    with lab.transaction() as e:
        router_engine(e).publish("trader", T, count=3)
        router_engine(e).tx_local_start("settlement")
        assert router_engine(e).consume("settlement", "orders", 2).transacted
        assert depth(e, NY) == 3
        messages = router_engine(e).queue_messages(NY, VPN, "orders")
        assert [m.locked_by_transaction for m in messages] == [True, True, False]
        router_engine(e).tx_local_rollback("settlement")
        assert [m.locked_by_transaction for m in router_engine(e).queue_messages(NY, VPN, "orders")] == [False] * 3
        router_engine(e).tx_local_start("settlement")
        router_engine(e).consume("settlement", "orders", 2)
        assert code(lambda: router_engine(e).tx_local_start("settlement"))[0] == "transaction_already_open"
        router_engine(e).tx_local_commit("settlement")
        assert depth(e, NY) == 1
        assert router_engine(e).audit().totals.delivered_once == 2


def test_disconnect_rolls_back_local_transaction(lab):
    with lab.transaction() as e:
        router_engine(e).publish("trader", T, count=2)
        router_engine(e).tx_local_start("settlement")
        router_engine(e).consume("settlement", "orders", 2)
        router_engine(e).set_replication_role(NY, VPN, "standby")
        assert router_engine(e).transactions(NY) == []
        assert [m.locked_by_transaction for m in router_engine(e).queue_messages(NY, VPN, "orders")] == [False, False]


def test_xa_lifecycle_mirroring_and_wrong_states(lab):
    with lab.transaction() as e:
        router_engine(e).publish("trader", T, count=3)
        e.advance(10)
        router_engine(e).tx_xa_start("settlement", X1)
        router_engine(e).consume("settlement", "orders", 1)
        router_engine(e).publish("settlement", T, count=1)
        assert code(lambda: router_engine(e).tx_xa_prepare("settlement", X1)) == (
            "transaction_wrong_state", {"xid": X1, "state": "ACTIVE", "required": "IDLE"})
        e.advance(10)
        assert router_engine(e).transactions(NJ) == []  # XA ACTIVE is not mirrored
        router_engine(e).tx_xa_end("settlement", X1)
        router_engine(e).tx_xa_prepare("settlement", X1)
        e.advance(3000)
        [t] = router_engine(e).transactions(NY, state="prepared", replicated=True)
        assert (t.xid, t.state, t.kind, t.last_state_change_ms) == (X1, "prepared", "xa", 3000)
        assert (t.messages_consumed, t.messages_published) == (1, 1)
        assert t.consumed[0].endpoint_name == "orders" and t.consumed[0].replication_group_msg_id == 1000001
        [m] = router_engine(e).transactions(NJ, xid="0021*")
        assert (m.state, m.mirror, m.replicated) == ("prepared", True, True)
        assert router_engine(e).xids(NJ) == [X1]
        assert code(lambda: router_engine(e).tx_xa_commit("settlement", "0021ABC4-00-99"))[0] == "transaction_not_found"
        assert code(lambda: router_engine(e).tx_xa_start("settlement", "nothex"))[0] == "invalid_xid"
        assert code(lambda: router_engine(e).tx_xa_start("settlement", X1))[0] == "transaction_exists"
        router_engine(e).tx_xa_commit("settlement", X1)
        e.advance(1000)  # the consume's ack waits for its batch or the one-second timer
        # mirror removed in order
        assert router_engine(e).transactions(NY) == [] and router_engine(e).transactions(NJ) == []
        assert depth(e, NY) == 3 and depth(e, NJ) == 3  # 3 - 1 consumed + 1 published
        # one-phase commit only from IDLE with one_phase
        router_engine(e).tx_xa_start("trader", X2)
        router_engine(e).publish("trader", T)
        router_engine(e).tx_xa_end("trader", X2)
        assert code(lambda: router_engine(e).tx_xa_commit("trader", X2))[0] == "transaction_wrong_state"
        router_engine(e).tx_xa_commit("trader", X2, one_phase=True)
        assert depth(e, NY) == 4
        # suspend / resume
        router_engine(e).tx_xa_start("trader", X1)
        router_engine(e).tx_xa_suspend("trader", X1)
        assert router_engine(e).publish("trader", T).transacted is False
        router_engine(e).tx_xa_resume("trader", X1)
        assert router_engine(e).publish("trader", T).transacted is True
        router_engine(e).tx_xa_rollback("trader", X1)
        assert router_engine(e).transactions(NY) == []


def test_heuristics_wildcards_and_wrong_state_refusal(lab):
    with lab.transaction() as e:
        router_engine(e).publish("trader", T, count=4)
        router_engine(e).tx_xa_start("settlement", X1)
        router_engine(e).consume("settlement", "orders", 2)
        router_engine(e).tx_xa_end("settlement", X1)
        router_engine(e).tx_xa_prepare("settlement", X1)
        router_engine(e).tx_xa_start("trader", X2)
        router_engine(e).publish("trader", T, count=5)
    before = lab.dump()
    with pytest.raises(EngineError) as ei:
        with lab.transaction() as e:
            router_engine(e).heuristic_commit(NY, VPN, "0021ABC4-00-0?")
    assert (ei.value.code, ei.value.params) == (
        "transaction_wrong_state", {"xid": X2, "state": "ACTIVE", "required": "IDLE or PREPARED"})
    assert lab.dump() == before
    with pytest.raises(EngineError) as ei:
        with lab.transaction() as e:
            router_engine(e).heuristic_delete(NY, VPN, X1)
    assert ei.value.params["required"] == "COMPLETE"
    with pytest.raises(EngineError) as ei:
        with lab.transaction() as e:
            router_engine(e).heuristic_rollback(NY, VPN, "FFFF*")
    assert ei.value.code == "transaction_not_found"
    assert lab.dump() == before
    with lab.transaction() as e:
        router_engine(e).tx_xa_end("trader", X2)
        assert router_engine(e).heuristic_commit(NY, VPN, "*-01") == 1
        assert router_engine(e).heuristic_rollback(NY, VPN, "0021ABC4-00-02") == 1
        got = {t.xid: (t.state, t.heuristic) for t in router_engine(e).transactions(NY)}
        assert got == {X1: ("complete", "committed"), X2: ("complete", "rolled back")}
        assert depth(e, NY) == 2  # X1 consumed 2; X2's 5 publishes discarded
        assert router_engine(e).heuristic_delete(NY, VPN, "0021*") == 2
        assert router_engine(e).transactions(NY) == []


def test_controlled_failover_with_prepared_xa(lab):
    """Seed 000 steps 1-6: heuristic on the old active, TM commits on the new: one delivery."""
    with lab.transaction() as e:
        router_engine(e).publish("trader", T, count=3)
        e.advance(10)
        router_engine(e).tx_xa_start("settlement", X1)
        router_engine(e).consume("settlement", "orders", 2)
        router_engine(e).tx_xa_end("settlement", X1)
        router_engine(e).tx_xa_prepare("settlement", X1)
        router_engine(e).set_replication_role(NY, VPN, "standby")
        # the disconnect does not touch a PREPARED branch
        assert [t.state for t in router_engine(e).transactions(NY, state="PREPARED", replicated=True)] == ["prepared"]
        e.advance(100)
        assert router_engine(e).queue_detail(NY, VPN, "#MSGVPN_REPLICATION_DATA_QUEUE").messages_spooled == 0
        assert router_engine(e).heuristic_commit(NY, VPN, X1) == 1  # step 4, old active only
        router_engine(e).set_replication_role(NJ, VPN, "active")  # step 5
        e.advance(1)
        [m] = router_engine(e).transactions(NJ, xid=X1)
        assert m.state == "prepared"
        router_engine(e).tx_xa_commit("settlement", X1)  # the transaction manager reconciles on NJ
        assert router_engine(e).heuristic_delete(NY, VPN, X1) == 1  # step 6
        assert depth(e, NJ) == 1 and depth(e, NY) == 1
        assert router_engine(e).consume("settlement", "orders", 5).consumed == 1
        a = router_engine(e).audit()
    assert (a.totals.published, a.totals.delivered_once, a.totals.duplicated, a.totals.lost) == (3, 3, 0, 0)


def test_replace_site_drops_transactions(lab):
    with lab.transaction() as e:
        router_engine(e).tx_xa_start("trader", X1)
        router_engine(e).tx_xa_end("trader", X1)
        router_engine(e).tx_xa_prepare("trader", X1)
        router_engine(e).fail_site("NY")
        router_engine(e).replace_site("NY")
        assert router_engine(e).transactions(NY) == []


def test_locked_copies_are_found_through_the_transaction_whoever_ends_it(lab):
    """A transaction's locks follow its consume operations: a branch resumed by another client
    releases them on rollback; a queue deleted under a transaction leaves it nothing to consume."""
    with lab.transaction() as e:
        router_engine(e).publish("trader", T, count=3)
        router_engine(e).tx_xa_start("settlement", X1)
        router_engine(e).consume("settlement", "orders", 2)
        router_engine(e).tx_xa_suspend("settlement", X1)
        router_engine(e).tx_xa_resume("trader", X1)
        router_engine(e).tx_xa_rollback("trader", X1)
        assert [m.locked_by_transaction for m in router_engine(e).queue_messages(NY, VPN, "orders")] == [False] * 3
        router_engine(e).tx_local_start("settlement")
        router_engine(e).consume("settlement", "orders", 2)
        router_engine(e).set_queue_shutdown(NY, VPN, "orders", True)
        assert router_engine(e).delete_queue(NY, VPN, "orders") == 3
        [t] = router_engine(e).transactions(NY)
        assert t.messages_consumed == 2 and [m.endpoint_name for m in t.consumed] == [None, None]
        router_engine(e).tx_local_commit("settlement")
        assert router_engine(e).transactions(NY) == []
        a = router_engine(e).audit().totals
    assert (a.published, a.delivered, a.in_transaction) == (3, 0, 0)
