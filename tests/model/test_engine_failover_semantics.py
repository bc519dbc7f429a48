"""Failover semantics the seeds state (issue 13), through the public Engine API only.

These are the contract of the behaviour, whatever the engine's internals: XA branches left on the
formerly active site (seed 000 steps 4 and 6), heuristic actions on the wrong site, sync
transaction replication, sync eligibility after a reconnect, ack propagation batches, messages
held only where the VPN does not serve (seed 004 failback), split brain. The drills in
transcripts/seed000, failover-types and mistakes show the same through the CLI."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from state_store.errors import EngineError
from state_store.lab_store import LabStore
from state_store.solace.engine import Engine
from tests.support.router_engine import router_engine

NY, NJ, VPN = "NY_Appliance1", "NJ_Appliance1", "Trading_VPN"
XID = "0021ABC4-00-01"


@pytest.fixture
def e() -> Iterator[Engine]:
    lab = LabStore.in_memory()
    with lab.transaction() as engine:
        yield engine
    lab.close()


def _prepare_branch(e: Engine, publish: int = 3, consume: int = 0) -> None:
    router_engine(e).tx_xa_start("trader", XID)
    if consume:
        router_engine(e).consume("trader", "orders", consume)
    router_engine(e).publish("trader", "trading/orders/xa", count=publish)
    router_engine(e).tx_xa_end("trader", XID)
    router_engine(e).tx_xa_prepare("trader", XID)


def _switch_to_nj(e: Engine) -> None:
    """Steps 2, 3 and 5 of the controlled failover (no step 4)."""
    router_engine(e).set_replication_role(NY, VPN, "standby")
    e.advance(1000)
    router_engine(e).set_replication_role(NJ, VPN, "active")
    e.advance(1000)


def _xids(e: Engine, router: str) -> list[tuple[str | None, str]]:
    return [(t.xid, t.state.upper()) for t in router_engine(e).transactions(router, vpn=VPN)]


def _issues(e: Engine) -> list[tuple[str, str]]:
    return [(i.kind, i.router) for i in router_engine(e).audit().xa_issues]


# ---------------------------------------------------------------- item 1
def test_prepared_branch_stays_on_the_formerly_active_site_whatever_the_manager_does(e: Engine) -> None:
    _prepare_branch(e)
    e.advance(1000)
    _switch_to_nj(e)
    router_engine(e).tx_xa_commit("trader", XID)  # the transaction manager, reconnected to NJ
    e.advance(1000)  # NJ's commit reaches NY
    assert _xids(e, NY) == [(XID, "PREPARED")]
    assert _xids(e, NJ) == []
    assert router_engine(e).message_spool(NY, VPN).transactions == 1  # still a transaction resource on NY
    assert router_engine(e).message_spool(NJ, VPN).transactions == 0
    issue = router_engine(e).audit().xa_issues[0]
    assert (issue.kind, issue.router, issue.xid) == ("left-prepared", NY, XID)
    assert [(r.router, r.outcome, r.heuristic) for r in issue.others] == [(NJ, "committed", False)]


def test_prepared_branch_also_survives_a_manager_rollback_on_the_new_active_site(e: Engine) -> None:
    _prepare_branch(e)
    _switch_to_nj(e)
    router_engine(e).tx_xa_rollback("trader", XID)
    e.advance(1000)
    assert _xids(e, NY) == [(XID, "PREPARED")]


def test_the_mirror_on_a_standby_still_follows_the_active_site(e: Engine) -> None:
    """Without a failover nothing changes: the standby's mirror ends with the branch."""
    _prepare_branch(e)
    e.advance(1000)
    assert _xids(e, NJ) == [(XID, "PREPARED")]
    router_engine(e).tx_xa_commit("trader", XID)
    e.advance(1000)
    assert _xids(e, NJ) == [] and _xids(e, NY) == []
    assert router_engine(e).audit().xa_issues == ()


# ---------------------------------------------------------------- item 2
def test_completed_branch_stays_complete_until_deleted(e: Engine) -> None:
    _prepare_branch(e, publish=2)
    router_engine(e).set_replication_role(NY, VPN, "standby")
    e.advance(1000)
    assert router_engine(e).heuristic_commit(NY, VPN, XID) == 1
    router_engine(e).set_replication_role(NJ, VPN, "active")
    e.advance(1000)
    router_engine(e).tx_xa_commit("trader", XID)
    e.advance(1000)
    assert _xids(e, NY) == [(XID, "COMPLETE")]
    assert _issues(e) == [("left-complete", NY)]
    assert router_engine(e).message_spool(NY, VPN).transactions == 1
    assert router_engine(e).heuristic_delete(NY, VPN, XID) == 1
    assert _xids(e, NY) == [] and router_engine(e).message_spool(NY, VPN).transactions == 0
    assert router_engine(e).audit().xa_issues == ()


# ---------------------------------------------------------------- item 3
def test_heuristic_action_on_the_new_active_site_is_accepted_and_its_cost_counted(e: Engine) -> None:
    router_engine(e).publish("trader", "trading/orders/new", count=4)
    e.advance(1000)
    _prepare_branch(e, publish=2, consume=2)
    e.advance(1000)
    _switch_to_nj(e)
    assert router_engine(e).heuristic_rollback(NJ, VPN, XID) == 1  # wrong site, but the broker accepts it
    assert router_engine(e).heuristic_commit(NY, VPN, XID) == 1  # the right site, the manager's outcome
    assert router_engine(e).consume("settlement", "orders", 10).consumed == 4
    e.advance(1000)
    a = router_engine(e).audit()
    assert (a.totals.duplicated, a.totals.lost, a.totals.stranded) == (2, 2, 2)
    assert [(i.kind, i.router) for i in a.xa_issues] == [
        ("wrong-site", NJ), ("inconsistent", ""), ("left-complete", NJ), ("left-complete", NY)]
    inconsistent = a.xa_issues[1]
    assert [(r.router, r.outcome) for r in inconsistent.others] == [(NJ, "rolled back"), (NY, "committed")]


def test_consistent_resolution_on_both_sites_is_no_issue(e: Engine) -> None:
    _prepare_branch(e, publish=2)
    router_engine(e).set_replication_role(NY, VPN, "standby")
    e.advance(1000)
    router_engine(e).heuristic_commit(NY, VPN, XID)
    router_engine(e).heuristic_delete(NY, VPN, XID)
    router_engine(e).set_replication_role(NJ, VPN, "active")
    e.advance(1000)
    router_engine(e).tx_xa_commit("trader", XID)
    assert router_engine(e).consume("settlement", "orders", 10).consumed == 2
    e.advance(1000)
    a = router_engine(e).audit()
    assert a.xa_issues == () and (a.totals.duplicated, a.totals.lost) == (0, 0)


def test_leftover_resolved_after_failback_is_reported(e: Engine) -> None:
    _prepare_branch(e, publish=2)
    e.advance(1000)
    _switch_to_nj(e)
    router_engine(e).tx_xa_commit("trader", XID)
    assert router_engine(e).consume("settlement", "orders", 10).consumed == 2
    e.advance(1000)
    # fail back without step 4 ever done on NY
    router_engine(e).set_replication_role(NJ, VPN, "standby")
    e.advance(1000)
    router_engine(e).set_replication_role(NY, VPN, "active")
    e.advance(1000)
    router_engine(e).heuristic_commit(NY, VPN, XID)
    kinds = [i.kind for i in router_engine(e).audit().xa_issues]
    assert "after-failback" in kinds


# ---------------------------------------------------------------- item 7
def test_messages_held_only_where_the_vpn_does_not_serve_count_as_lost(e: Engine) -> None:
    e.set_setting("replication_drain_rate", 1)
    router_engine(e).publish("trader", "trading/orders/new", count=5)
    router_engine(e).set_replication_role(NY, VPN, "standby")
    router_engine(e).set_replication_role(NJ, VPN, "active")  # before the drain: the classic mistake
    e.advance(1000)
    t = router_engine(e).audit().totals
    assert (t.published, t.lost, t.stored, t.stranded) == (5, 5, 5, 5)
    # failing back makes them available again (late)
    router_engine(e).set_replication_role(NJ, VPN, "standby")
    router_engine(e).set_replication_role(NY, VPN, "active")
    e.advance(1000)
    t = router_engine(e).audit().totals
    assert (t.lost, t.stranded) == (0, 0)


def test_failback_after_complete_failure_loses_what_the_backup_did_not_deliver(e: Engine) -> None:
    router_engine(e).publish("trader", "trading/orders/new", count=5)
    e.advance(1000)
    router_engine(e).fail_site("NY")
    router_engine(e).set_replication_role(NJ, VPN, "active")
    e.advance(1000)
    assert router_engine(e).consume("settlement", "orders", 2).consumed == 2
    router_engine(e).replace_site("NY")
    e.advance(1000)
    router_engine(e).set_replication_role(NJ, VPN, "standby")
    e.advance(1000)
    router_engine(e).set_replication_role(NY, VPN, "active")
    e.advance(1000)
    assert router_engine(e).consume("settlement", "orders", 10).consumed == 0
    t = router_engine(e).audit().totals
    assert (t.delivered, t.lost, t.stranded) == (2, 3, 3)


# ---------------------------------------------------------------- item 8
def test_split_brain_is_reported_and_its_duplicates_marked(e: Engine) -> None:
    router_engine(e).publish("trader", "trading/orders/new", count=4)
    e.advance(1000)
    router_engine(e).fail_site("NY")
    router_engine(e).set_replication_role(NJ, VPN, "active")
    e.advance(1000)
    assert router_engine(e).consume("settlement", "orders", 4).consumed == 4
    router_engine(e).restore_site("NY")
    assert [(b.vpn, b.routers) for b in router_engine(e).status().split_brains] == [(VPN, (NJ, NY))]
    router_engine(e).disconnect_client(NJ, VPN, "settlement")
    assert router_engine(e).consume("settlement", "orders", 4).router == NY
    a = router_engine(e).audit()
    assert a.totals.duplicated == 4
    assert all("split brain" in p.notes for p in a.problems)
    assert [b.vpn for b in a.split_brains] == [VPN]
    router_engine(e).set_replication_role(NY, VPN, "standby")
    assert router_engine(e).status().split_brains == () and router_engine(e).audit().split_brains == ()


# ---------------------------------------------------------------- item 4
def _sync_mode(e: Engine) -> None:
    router_engine(e).set_replication_option(NY, VPN, "transaction-replication-mode", "sync")


def _fail_over_uncontrolled(e: Engine) -> None:
    router_engine(e).fail_site("NY")
    router_engine(e).set_replication_role(NJ, VPN, "active")
    e.advance(1000)


def test_sync_transaction_is_on_the_standby_when_the_commit_returns(e: Engine) -> None:
    _sync_mode(e)
    router_engine(e).tx_local_start("trader")
    router_engine(e).publish("trader", "trading/orders/new", count=5)
    router_engine(e).tx_local_commit("trader")
    assert router_engine(e).queue_detail(NY, VPN, "#MSGVPN_REPLICATION_DATA_QUEUE").messages_spooled == 0
    assert router_engine(e).queue_detail(NJ, VPN, "orders").messages_spooled == 5
    _fail_over_uncontrolled(e)
    assert router_engine(e).consume("settlement", "orders", 10).consumed == 5
    t = router_engine(e).audit().totals
    assert (t.delivered, t.lost) == (5, 0)


def test_async_transaction_waits_on_the_replication_queue(e: Engine) -> None:
    router_engine(e).tx_local_start("trader")
    router_engine(e).publish("trader", "trading/orders/new", count=5)
    router_engine(e).tx_local_commit("trader")
    assert router_engine(e).queue_detail(NY, VPN, "#MSGVPN_REPLICATION_DATA_QUEUE").messages_spooled == 5
    _fail_over_uncontrolled(e)
    assert router_engine(e).consume("settlement", "orders", 10).consumed == 0
    assert router_engine(e).audit().totals.lost == 5


def test_the_mode_applies_to_transactions_started_in_it(e: Engine) -> None:
    router_engine(e).tx_local_start("trader")  # started async
    _sync_mode(e)
    router_engine(e).publish("trader", "trading/orders/new", count=2)
    router_engine(e).tx_local_commit("trader")
    assert router_engine(e).queue_detail(NY, VPN, "#MSGVPN_REPLICATION_DATA_QUEUE").messages_spooled == 2


def test_sync_xa_prepare_is_on_the_standby_at_once(e: Engine) -> None:
    _sync_mode(e)
    _prepare_branch(e)
    assert _xids(e, NJ) == [(XID, "PREPARED")]


def test_sync_transaction_while_ineligible_is_async_or_refused(e: Engine) -> None:
    _sync_mode(e)
    router_engine(e).fail_link()
    router_engine(e).tx_local_start("trader")
    router_engine(e).publish("trader", "trading/orders/new", count=2)
    router_engine(e).tx_local_commit("trader")  # ineligible: replicated asynchronously
    assert router_engine(e).queue_detail(NY, VPN, "#MSGVPN_REPLICATION_DATA_QUEUE").messages_spooled == 2
    router_engine(e).set_replication_option(NY, VPN, "reject-msg-when-sync-ineligible", True)
    router_engine(e).tx_local_start("trader")
    router_engine(e).publish("trader", "trading/orders/new", count=2)
    with pytest.raises(EngineError) as ei:
        router_engine(e).tx_local_commit("trader")
    assert ei.value.code == "transaction_commit_rejected"


# ---------------------------------------------------------------- item 5
def _sync_flag(e: Engine) -> bool | None:
    """The S flag of `show message-vpn Trading_VPN replication` on NY (None = N/A)."""
    return router_engine(e).vpn_replication(NY, VPN)[0].sync_eligible


def test_sync_eligibility_returns_only_after_the_backlog_drained(e: Engine) -> None:
    router_engine(e).create_replicated_topic(NY, VPN, "trading/settle/>", "sync")
    e.set_setting("replication_drain_rate", 2)
    assert _sync_flag(e) is True
    router_engine(e).fail_link()
    assert _sync_flag(e) is False
    router_engine(e).publish("trader", "trading/settle/new", count=4)
    router_engine(e).restore_link()
    assert _sync_flag(e) is False
    assert router_engine(e).vpn_replication_detail(NY, VPN).sync_eligible is False
    router_engine(e).publish("trader", "trading/settle/new", count=1)  # while catching up: queued as async
    e.advance(1000)
    assert _sync_flag(e) is False
    e.advance(2000)
    assert _sync_flag(e) is True
    router_engine(e).publish("trader", "trading/settle/new", count=1)
    st = router_engine(e).replication_stats(NY, VPN)
    assert (st.sync_msgs_queued_to_standby, st.sync_msgs_queued_to_standby_as_async,
            st.transitions_to_ineligible) == (1, 5, 1)


def test_rebinding_with_an_empty_queue_is_eligible_at_once(e: Engine) -> None:
    router_engine(e).create_replicated_topic(NY, VPN, "trading/settle/>", "sync")
    router_engine(e).fail_link()
    router_engine(e).restore_link()
    assert _sync_flag(e) is True


# ---------------------------------------------------------------- item 6
def _consume_then_fail(e: Engine, consumed: int, wait_ms: int) -> int:
    """Publish and replicate 30, consume ``consumed`` on NY, wait, fail NY, fail over to NJ:
    how many does NJ deliver again?"""
    router_engine(e).publish("trader", "trading/orders/new", count=30)
    e.advance(1000)
    assert router_engine(e).consume("settlement", "orders", consumed).consumed == consumed
    e.advance(wait_ms)
    _fail_over_uncontrolled(e)
    return router_engine(e).consume("settlement", "orders", 100).consumed - (30 - consumed)


def test_acks_leave_in_batches_of_the_interval(e: Engine) -> None:
    router_engine(e).publish("trader", "trading/orders/new", count=30)
    e.advance(1000)
    router_engine(e).consume("settlement", "orders", 30)
    assert router_engine(e).replication_stats(NY, VPN).ack_msgs_sent_to_standby == 20
    [ny] = [x for x in router_engine(e).status().vpns if (x.router, x.vpn) == (NY, VPN)]
    assert ny.repl_queue_entries == 20


def test_an_uncontrolled_failover_redelivers_the_acks_not_sent(e: Engine) -> None:
    assert _consume_then_fail(e, 30, 250) == 10
    t = router_engine(e).audit().totals
    assert (t.delivered, t.duplicated) == (30, 10)


def test_a_larger_interval_redelivers_more(e: Engine) -> None:
    router_engine(e).set_replication_option(NY, VPN, "ack-propagation-interval", 50)
    assert _consume_then_fail(e, 30, 250) == 30


def test_the_one_second_timer_sends_what_is_waiting(e: Engine) -> None:
    assert _consume_then_fail(e, 5, 1000) == 0
    assert router_engine(e).audit().totals.duplicated == 0


def test_ack_propagation_shut_down_keeps_every_consumed_message_on_the_standby(e: Engine) -> None:
    router_engine(e).set_replication_option(NY, VPN, "ack-propagation-enabled", False)
    assert _consume_then_fail(e, 30, 5000) == 30


def test_going_standby_sends_the_waiting_acks(e: Engine) -> None:
    router_engine(e).publish("trader", "trading/orders/new", count=10)
    e.advance(1000)
    router_engine(e).consume("settlement", "orders", 4)
    router_engine(e).set_replication_role(NY, VPN, "standby")
    assert router_engine(e).replication_stats(NY, VPN).ack_msgs_sent_to_standby == 4
    e.advance(100)
    router_engine(e).set_replication_role(NJ, VPN, "active")
    e.advance(100)
    assert router_engine(e).consume("settlement", "orders", 100).consumed == 6


def test_heuristic_action_on_a_standby_mirror_is_the_wrong_site_too(e: Engine) -> None:
    _prepare_branch(e, publish=1)
    e.advance(1000)
    assert router_engine(e).heuristic_rollback(NJ, VPN, XID) == 1  # NJ is standby: its copy is the mirror
    assert _issues(e)[0] == ("wrong-site", NJ)
