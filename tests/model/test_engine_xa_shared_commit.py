"""Seed 000 step 4 + 5: a PREPARED replicated XA branch heuristically committed on the old active
site and committed by the transaction manager on the new active site is ONE set of messages."""

from __future__ import annotations

import json

from state_store.lab_store import LabStore
from tests.support.router_engine import router_engine

NY, NJ, VPN, XID = "NY_Appliance1", "NJ_Appliance1", "Trading_VPN", "0021ABC4-00-01"


def _prepared_then_switched(e):
    router_engine(e).tx_xa_start("trader", XID)
    router_engine(e).publish("trader", "trading/orders/xa", count=2)
    router_engine(e).tx_xa_end("trader", XID)
    router_engine(e).tx_xa_prepare("trader", XID)
    router_engine(e).set_replication_role(NY, VPN, "standby")
    e.advance(5000)
    assert router_engine(e).queue_detail(NY, VPN, "#MSGVPN_REPLICATION_DATA_QUEUE").messages_spooled == 0


def test_heuristic_commit_then_mate_commit_is_one_set_of_messages():
    lab = LabStore.in_memory()
    with lab.transaction() as e:
        _prepared_then_switched(e)
        assert router_engine(e).heuristic_commit(NY, VPN, XID) == 1
        assert router_engine(e).queue_detail(NY, VPN, "orders").messages_spooled == 2
        router_engine(e).set_replication_role(NJ, VPN, "active")
        e.advance(1000)
        router_engine(e).tx_xa_commit("trader", XID)
        assert router_engine(e).queue_detail(NJ, VPN, "orders").messages_spooled == 2
        assert router_engine(e).consume("settlement", "orders", 10).consumed == 2
        e.advance(1000)
        assert router_engine(e).queue_detail(NY, VPN, "orders").messages_spooled == 0  # acks removed NY's copies
        t = router_engine(e).audit().totals
    assert (t.published, t.delivered_once, t.duplicated, t.stored, t.stranded) == (2, 2, 0, 0, 0)
    lab.close()


def test_a_new_branch_reusing_the_xid_publishes_new_messages():
    lab = LabStore.in_memory()
    with lab.transaction() as e:
        _prepared_then_switched(e)
        router_engine(e).heuristic_commit(NY, VPN, XID)
        router_engine(e).heuristic_delete(NY, VPN, XID)
        router_engine(e).set_replication_role(NJ, VPN, "active")
        e.advance(1000)
        router_engine(e).tx_xa_rollback("trader", XID)   # the mirror on NJ is rolled back instead
        router_engine(e).tx_xa_start("trader", XID)       # a new branch with the same XID
        router_engine(e).publish("trader", "trading/orders/xa", count=3)
        router_engine(e).tx_xa_end("trader", XID)
        router_engine(e).tx_xa_commit("trader", XID, one_phase=True)
        assert router_engine(e).queue_detail(NJ, VPN, "orders").messages_spooled == 3
        assert router_engine(e).audit().totals.published == 5
    lab.close()


def test_a_shared_commit_recorded_one_id_at_a_time_still_respools():
    """Labs written before runs keep the shared commit's message ids one by one; the mate's commit
    spools the same messages from either form."""
    results = []
    for old_form in (False, True):
        lab = LabStore.in_memory()
        with lab.transaction() as e:
            _prepared_then_switched(e)
            router_engine(e).heuristic_commit(NY, VPN, XID)
        key = next(k for k in lab.state.meta if k.startswith("xa-commit:"))
        if old_form:
            ranges = json.loads(lab.state.meta[key])
            lab.state.meta[key] = json.dumps([[i for lo, hi in op for i in range(lo, hi)] for op in ranges])
        with lab.transaction() as e:
            router_engine(e).set_replication_role(NJ, VPN, "active")
            e.advance(1000)
            router_engine(e).tx_xa_commit("trader", XID)
            listed = router_engine(e).queue_messages(NJ, VPN, "orders")
            assert router_engine(e).consume("settlement", "orders", 10).consumed == 2
            e.advance(1000)
            results.append((listed, router_engine(e).audit()))
        lab.close()
    assert results[0] == results[1]
