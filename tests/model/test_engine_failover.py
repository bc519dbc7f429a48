"""The four failover types of seed 004 and the controlled procedure of seed 000, judged by the audit."""

from __future__ import annotations

import pytest

from solace_shell.personalities.solace.renderers.flags import vpn_replication_flags
from state_store.errors import EngineError
from state_store.kernel.audit import DUPLICATE_DELIVERED, LOST, NOT_REPLICATED, OUTCOMES, STRANDED, AuditTotals
from state_store.lab_store import LabStore
from tests.support.router_engine import router_engine

NY, NJ, VPN = "NY_Appliance1", "NJ_Appliance1", "Trading_VPN"
RQ = "#MSGVPN_REPLICATION_DATA_QUEUE"
T = "trading/orders/new"


@pytest.fixture
def lab():
    s = LabStore.in_memory()
    yield s
    s.close()


def flags(e, router):
    return vpn_replication_flags(router_engine(e).vpn_replication(router, VPN)[0])


def depth(e, router, queue=RQ):
    return router_engine(e).queue_detail(router, VPN, queue).messages_spooled


def test_controlled_failover_nothing_lost_nothing_duplicated(lab):
    with lab.transaction() as e:
        router_engine(e).publish("trader", T, count=10)
        e.advance(5)
        router_engine(e).consume("settlement", "orders", 4)  # 4 consumed on NY (acks / prune)
        # step 1: bridge bound
        assert flags(e, NY) == "U A - U U - N A" and flags(e, NJ) == "U S U - - - N A"
        # step 2: NY standby -> clients disconnected
        router_engine(e).set_replication_role(NY, VPN, "standby")
        assert [c.router for c in router_engine(e).clients()] == [None, None]
        assert depth(e, NY) == 5
        assert flags(e, NJ) == "U S U - - - N A"  # still draining NY's queue
        # step 3: wait for the drain
        e.advance(100)
        assert depth(e, NY) == 0
        # step 5: NJ active
        router_engine(e).set_replication_role(NJ, VPN, "active")
        assert flags(e, NJ) == "U A - U U - N A" and flags(e, NY) == "U S U - - - N A"
        res = e.advance(0)
        assert set(res.reconnected) == {"settlement", "trader"}
        assert [c.router for c in router_engine(e).clients()] == [NJ, NJ]
        assert depth(e, NJ, "orders") == 6
        assert router_engine(e).consume("settlement", "orders", 100).consumed == 6
        a = router_engine(e).audit()
    t = a.totals
    assert (t.published, t.delivered_once, t.duplicated, t.lost, t.stored, t.rejected) == (10, 10, 0, 0, 0, 0)
    assert a.problems == ()


def test_classic_mistake_activate_before_drain(lab):
    with lab.transaction() as e:
        router_engine(e).publish("trader", T, count=5)
        router_engine(e).set_replication_role(NY, VPN, "standby")
        assert depth(e, NY) == 5
        router_engine(e).set_replication_role(NJ, VPN, "active")  # too early
        e.advance(1000)
        assert depth(e, NY) == 5  # stuck: nobody drains a standby's queue to an active mate
        assert router_engine(e).consume("settlement", "orders", 10).consumed == 0
        a = router_engine(e).audit()
    t = a.totals
    assert (t.published, t.delivered, t.stored, t.stranded, t.lost) == (5, 0, 5, 5, 5)
    assert {p.outcome for p in a.problems} == {STRANDED}
    assert a.problems[0].where == ((NY, RQ), (NY, "orders"))


def test_the_audit_speaks_the_kernels_vocabulary(lab):
    """The Message VPN's audit is in the terms of every system's: the kernel's outcome codes and
    totals (the lab console prints its own words for them)."""
    with lab.transaction() as e:
        router_engine(e).publish("trader", T, count=5)
        router_engine(e).set_replication_role(NY, VPN, "standby")
        router_engine(e).set_replication_role(NJ, VPN, "active")
        a = router_engine(e).audit()
    assert isinstance(a.totals, AuditTotals)
    assert (a.totals.stored, a.totals.stranded, a.totals.discarded, a.totals.not_replicated) == (5, 5, 0, 0)
    assert {(p.outcome, p.reason) for p in a.problems} == {(STRANDED, "")}
    assert all(p.outcome in OUTCOMES for p in a.problems)


def test_uncontrolled_short_term_outage(lab):
    with lab.transaction() as e:
        router_engine(e).publish("trader", T, count=3)
        e.advance(10)  # NJ has 3
        router_engine(e).publish("trader", T, count=2)  # not replicated yet
        router_engine(e).fail_site("NY")
        assert [c.router for c in router_engine(e).clients()] == [None, None]
        assert flags(e, NJ) == "U S D - - - N A"
        router_engine(e).set_replication_role(NJ, VPN, "active")
        assert flags(e, NJ) == "U A - D D - N A"
        e.advance(1)
        assert router_engine(e).publish("trader", T, count=4).router == NJ
        assert depth(e, NJ) == 4
        assert router_engine(e).consume("settlement", "orders", 100).consumed == 7
        assert router_engine(e).replication_stats(NJ, VPN).pruned_locally_consumed_msgs == 4
        router_engine(e).restore_site("NY")  # comes back ACTIVE: both active, nothing binds
        assert flags(e, NY) == "U A - D D - N A" and flags(e, NJ) == "U A - D D - N A"
        router_engine(e).set_replication_role(NY, VPN, "standby")
        assert flags(e, NY) == "U S U - - - N A" and flags(e, NJ) == "U A - U U - N A"
        e.advance(1000)  # NJ's 3 acks wait for a batch of 20 or the one-second timer
        assert depth(e, NJ) == 0
        assert depth(e, NY, "orders") == 2  # the 3 acked ones are gone, the 2 unreplicated remain
        a = router_engine(e).audit()
    t = a.totals
    assert (t.published, t.delivered_once, t.duplicated, t.lost, t.stranded) == (9, 7, 0, 2, 2)


def test_uncontrolled_long_term_outage_rejects_then_unreplicated_service(lab):
    with lab.transaction() as e:
        router_engine(e).fail_site("NY")
        router_engine(e).set_replication_role(NJ, VPN, "active")
        router_engine(e).set_replication_option(NJ, VPN, "queue-max-spool-usage", 1)
        e.advance(1)
        r = router_engine(e).publish("trader", T, count=2000)
        assert (r.accepted, r.rejected, r.reject_reason) == (1747, 253, "publish_rejected_repl_queue_full")
        assert depth(e, NJ) == 1747
        r = router_engine(e).publish("trader", T)
        assert (r.accepted, r.rejected) == (0, 1)
        router_engine(e).set_replication_option(NJ, VPN, "queue-reject-msg-to-sender-on-discard", False)
        r = router_engine(e).publish("trader", T, count=100)
        assert (r.accepted, r.replicated, r.not_replicated) == (100, 0, 100)
        assert depth(e, NJ, "orders") == 1847
        st = router_engine(e).replication_stats(NJ, VPN)
        assert (st.rejected_repl_queue_full, st.not_replicated) == (254, 100)
        # site back as standby: only what fit in the queue reaches it
        router_engine(e).restore_site("NY")
        router_engine(e).set_replication_role(NY, VPN, "standby")
        e.advance(5000)
        assert depth(e, NJ) == 0 and depth(e, NY, "orders") == 1747
        a = router_engine(e).audit()
    t = a.totals
    assert (t.published, t.rejected, t.not_replicated, t.stored) == (1847, 254, 100, 1847)


def test_complete_failure_replace_site_then_failback(lab):
    with lab.transaction() as e:
        router_engine(e).publish("trader", T, count=3)
        e.advance(10)
        router_engine(e).publish("trader", T, count=2)
        router_engine(e).fail_site("NY")
        router_engine(e).set_replication_role(NJ, VPN, "active")
        router_engine(e).replace_site("NY")
        assert flags(e, NY) == "U S U - - - N A"
        assert depth(e, NY, "orders") == 0 and router_engine(e).transactions(NY) == []
        assert router_engine(e).queue_messages(NY, VPN, "orders") == []
        e.advance(1)
        assert router_engine(e).consume("settlement", "orders", 10).consumed == 3
        # failback (controlled) to the replaced site
        router_engine(e).publish("trader", T, count=4)
        e.advance(100)
        assert depth(e, NY, "orders") == 4
        router_engine(e).set_replication_role(NJ, VPN, "standby")
        e.advance(100)
        router_engine(e).set_replication_role(NY, VPN, "active")
        e.advance(1)
        assert [c.router for c in router_engine(e).clients()] == [NY, NY]
        assert router_engine(e).consume("settlement", "orders", 10).consumed == 4
        assert router_engine(e).queue_messages(NY, VPN, "orders") == []
        a = router_engine(e).audit()
    t = a.totals
    assert (t.published, t.delivered_once, t.duplicated, t.lost) == (9, 7, 0, 2)
    lost = [p for p in a.problems if p.outcome == LOST]
    assert [p.rgmid + k for p in lost for k in range(p.count)] == [1000004, 1000005]
    assert (lost[0].reason, lost[0].notes) == (NOT_REPLICATED, ("site replaced",))


def test_ack_propagation_off_gives_duplicates(lab):
    with lab.transaction() as e:
        router_engine(e).set_replication_option(NY, VPN, "ack-propagation-enabled", False)
        router_engine(e).publish("trader", T, count=3)
        e.advance(10)
        assert router_engine(e).consume("settlement", "orders", 3).consumed == 3
        e.advance(10)
        assert depth(e, NJ, "orders") == 3  # standby kept them
        router_engine(e).set_replication_role(NY, VPN, "standby")
        e.advance(10)
        router_engine(e).set_replication_role(NJ, VPN, "active")
        assert router_engine(e).consume("settlement", "orders", 3).consumed == 3
        a = router_engine(e).audit()
    assert (a.totals.duplicated, a.totals.delivered) == (3, 3)
    assert a.problems[0].outcome == DUPLICATE_DELIVERED
    assert a.problems[0].clients == ("settlement",) and a.problems[0].routers == (NJ, NY)


def test_link_failure_buffers_and_resumes(lab):
    with lab.transaction() as e:
        router_engine(e).fail_link()
        assert flags(e, NY) == "U A - D D - N A" and flags(e, NJ) == "U S D - - - N A"
        assert router_engine(e).bridges(NJ)[0].queue_bound is False
        router_engine(e).publish("trader", T, count=5)
        e.advance(1000)
        assert depth(e, NY) == 5
        router_engine(e).restore_link()
        e.advance(1000)
        assert depth(e, NY) == 0 and depth(e, NJ, "orders") == 5
        with pytest.raises(EngineError) as ei:
            router_engine(e).restore_link()
        assert ei.value.code == "link_already_up"


def test_enable_with_existing_queue_behaviours(lab):
    with lab.transaction() as e:
        router_engine(e).fail_link()
        router_engine(e).publish("trader", T, count=2)
        router_engine(e).set_replication_enabled(NY, VPN, False)
        with pytest.raises(EngineError) as ei:
            router_engine(e).set_replication_enabled(NY, VPN, True)
        assert (ei.value.code, ei.value.params) == ("replication_queue_exists", {"vpn": VPN, "messages": 2})
        router_engine(e).set_replication_enabled(NY, VPN, True, "force-recreate-queue")
        assert depth(e, NY) == 0
        assert router_engine(e).audit().totals.not_replicated == 2


def test_refused_operation_leaves_dump_unchanged(lab):
    with lab.transaction() as e:
        router_engine(e).publish("trader", T, count=3)
        router_engine(e).set_replication_role(NY, VPN, "standby")
    before = lab.dump()
    for op in (
        lambda e: router_engine(e).publish("trader", T),  # standby
        lambda e: (router_engine(e).set_replication_role(NJ, VPN, "active"),
                   router_engine(e).delete_queue(NJ, VPN, "orders")),
        lambda e: (router_engine(e).fail_site("NJ"), router_engine(e).restore_site("NY"),
                   router_engine(e).restore_site("NY")),
    ):
        with pytest.raises(EngineError):
            with lab.transaction() as e:
                op(e)
        assert lab.dump() == before
    with pytest.raises(ZeroDivisionError):
        with lab.transaction() as e:
            e.advance(1000)
            raise ZeroDivisionError("a failure inside the transaction")
    assert lab.dump() == before


def test_client_host_list_and_admin_disconnect(lab):
    with lab.transaction() as e:
        router_engine(e).add_client("late", VPN, [NJ, NY])
        assert router_engine(e).client("late").router == NY  # NJ is standby: skipped
        router_engine(e).disconnect_client(NY, VPN, "late")
        assert router_engine(e).client("late").status == "disconnected"
        e.advance(0)
        assert router_engine(e).client("late").router == NY and router_engine(e).client("late").reconnects == 1
        router_engine(e).set_client_running("late", False)
        e.advance(0)
        assert router_engine(e).client("late").router is None
        with pytest.raises(EngineError) as ei:
            router_engine(e).publish("late", T)
        assert ei.value.code == "client_not_connected"
        router_engine(e).fail_site("NY")
        with pytest.raises(EngineError) as ei:
            router_engine(e).publish("trader", T)
        assert ei.value.code == "publish_rejected_standby"


def test_a_standby_queue_keeps_only_what_fits_its_max_spool_usage(lab):
    """With ack propagation shut down the standby keeps every consumed message; its queue stops
    at its max-spool-usage (1 MB: 1,747 messages of 600 bytes) and discards the rest, as the same
    queue does on the active, so the standby cannot grow without bound."""
    with lab.transaction() as e:
        router_engine(e).set_queue_option(NY, VPN, "orders", "max-spool-usage", 1)
        router_engine(e).set_replication_option(NY, VPN, "ack-propagation-enabled", False)
        for _ in range(3):
            router_engine(e).publish("trader", T, count=1000)
            assert router_engine(e).consume("settlement", "orders", 5000).consumed == 1000
            e.advance(2000)
        assert (depth(e, NY), depth(e, NY, "orders"), depth(e, NJ, "orders")) == (0, 0, 1747)
        assert router_engine(e).replication_stats(NJ, VPN).msgs_received_from_active == 3000
        a = router_engine(e).audit()
    assert (a.totals.delivered_once, a.totals.lost, a.problems) == (3000, 0, ())


def test_what_a_full_standby_queue_discarded_is_lost_at_failover_and_the_ledger_says_why(lab):
    with lab.transaction() as e:
        router_engine(e).set_queue_option(NY, VPN, "orders", "max-spool-usage", 1)
        router_engine(e).set_replication_option(NY, VPN, "ack-propagation-enabled", False)
        router_engine(e).publish("trader", T, count=1747)
        assert router_engine(e).consume("settlement", "orders", 1747).consumed == 1747
        router_engine(e).publish("trader", T, count=10)  # not consumed; the standby's copy of the queue is full
        e.advance(5000)
        assert (depth(e, NY), depth(e, NY, "orders"), depth(e, NJ, "orders")) == (0, 10, 1747)
        router_engine(e).set_replication_role(NY, VPN, "standby")
        router_engine(e).set_replication_role(NJ, VPN, "active")
        e.advance(1000)
        assert router_engine(e).consume("settlement", "orders", 5000).consumed == 1747  # all duplicates
        a = router_engine(e).audit(limit=2000)
    assert (a.totals.duplicated, a.totals.lost, a.totals.stranded) == (1747, 10, 10)
    assert {(p.reason, p.notes) for p in a.problems if p.outcome == STRANDED} == {("", ("spool over quota",))}
