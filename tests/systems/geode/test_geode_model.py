"""The Geode client-subscription-queue model on the kernel: placement, dispatch, acks and
queue-removal messages, failover with duplicate discard, redundancy restoration, orphan expiry,
non-HA reinitialisation and durable clients (the behaviours the Geode docs promise)."""

from __future__ import annotations

from typing import Any

import pytest

from state_store.errors import EngineError
from state_store.geode import MODEL, lab
from state_store.geode import queues as q
from state_store.kernel import Kernel


def cluster(servers: int = 3, **clients: dict[str, Any]) -> Kernel:
    core = Kernel()
    section = {"clusters": [{"name": "g1", "servers": [f"s{i + 1}" for i in range(servers)],
                             "clients": [{"name": n, **c} for n, c in clients.items()] + [{"name": "p1"}]}]}
    MODEL.build(core, section)
    return core


def sub(r: int, **more: Any) -> dict[str, Any]:
    return {"subscription_enabled": True, "subscription_redundancy": r, "interest": ["r1"], **more}


def log_codes(core: Kernel, client: str) -> list[tuple[str, dict[str, Any]]]:
    return [(e.code, e.params) for e in lab.client_log(core, client).events]


@pytest.mark.parametrize(("servers", "r", "secondaries"), [(3, 1, 1), (3, 2, 2), (3, -1, 2), (6, 2, 2), (2, 3, 1),
                                                           (3, 0, 0)])
def test_one_primary_and_min_r_up_minus_one_secondaries(servers: int, r: int, secondaries: int) -> None:
    core = cluster(servers, c1=sub(r))
    view = lab.pool_view(core, "g1", "c1")
    assert view.primary == "s1" and len(view.secondaries) == secondaries


def test_pools_spread_over_the_servers() -> None:
    core = cluster(3, c1=sub(1), c2=sub(0), c3=sub(1))
    primaries = [lab.pool_view(core, "g1", c).primary for c in ("c1", "c2", "c3")]
    assert primaries == ["s1", "s3", "s2"]


def test_failover_resends_what_the_secondary_holds_and_the_client_discards_it() -> None:
    core = cluster(3, c1=sub(1))
    lab.put(core, "p1", "r1", 10)
    core.advance_to(500)                      # acked (100 ms), no QRM tick yet (1 s phase)
    assert lab.pool_view(core, "g1", "c1").queues == (("s1", 0), ("s2", 10))
    lab.kill(core, "g1.s1")
    core.advance_to(700)
    st = lab.stats(core, "c1")
    assert (st.received, st.resent, st.duplicates_discarded, st.duplicates_delivered, st.lost) == (10, 10, 10, 0, 0)
    view = lab.pool_view(core, "g1", "c1")
    assert (view.primary, view.secondaries) == ("s2", ("s3",))
    totals, findings = core.audit("g1")
    assert totals.delivered == 10 and [f.outcome for f in findings] == ["duplicate-discarded"]


def test_a_qrm_tick_empties_the_secondary_so_nothing_is_resent() -> None:
    core = cluster(3, c1=sub(1))
    lab.put(core, "p1", "r1", 10)
    core.advance_to(1000)
    assert lab.pool_view(core, "g1", "c1").queues == (("s1", 0), ("s2", 0))
    assert lab.server_view(core, core.node("g1", "s2")).events_removed_by_qrm == 10
    lab.kill(core, "g1.s1")
    assert lab.stats(core, "c1").resent == 0


def test_no_spare_logs_the_exact_line_and_a_restarted_server_joins_within_ping_interval() -> None:
    core = cluster(2, c1=sub(1))
    lab.kill(core, "g1.s1")
    assert ("redundancy-not-satisfied", {"level": "warn", "level_wanted": 1, "current": 0}) in log_codes(core, "c1")
    core.advance_to(3000)
    lab.restart(core, "g1.s1")
    core.advance_to(9999)
    assert lab.pool_view(core, "g1", "c1").secondaries == ()
    core.advance_to(10000)
    assert lab.pool_view(core, "g1", "c1").secondaries == ("s1",)


def test_orphans_expire_on_the_secondary_after_message_time_to_live() -> None:
    core = cluster(3, c1=sub(2))
    core.advance_to(850)
    lab.put(core, "p1", "r1", 5)       # acked at 950
    lab.drop_qrm(core, "g1.s1", "g1.s3")
    core.advance_to(1000)                     # the QRM reaches s2 only
    lab.kill(core, "g1.s1")
    view = lab.pool_view(core, "g1", "c1")
    assert (view.primary, view.queues) == ("s2", (("s2", 0), ("s3", 5)))
    core.advance_to(850 + 179_999)
    assert lab.pool_view(core, "g1", "c1").queues[1] == ("s3", 5)
    core.advance_to(850 + 180_000)
    assert lab.pool_view(core, "g1", "c1").queues[1] == ("s3", 0)
    assert lab.server_view(core, core.node("g1", "s3")).events_expired == 5
    assert lab.stats(core, "c1").lost == 0


def test_alter_runtime_changes_the_qrm_period_at_once() -> None:
    core = cluster(3, c1=sub(1))
    lab.alter_runtime(core, "g1", [], 2)
    lab.put(core, "p1", "r1", 4)
    core.advance_to(1500)
    assert lab.pool_view(core, "g1", "c1").queues[1] == ("s2", 4)
    core.advance_to(2000)
    assert lab.pool_view(core, "g1", "c1").queues[1] == ("s2", 0)


def test_r0_failover_reinitialises_the_interest_without_events() -> None:
    core = cluster(3, c2=sub(0))
    lab.put(core, "p1", "r1", 7)
    lab.kill(core, "g1.s1")
    st = lab.stats(core, "c2")
    assert (st.primary, st.reinitialised, st.refetched, st.resent, st.received) == ("s2", 1, 7, 0, 7)


def test_durable_client_replay_timeout_and_loss() -> None:
    core = cluster(3, d1=sub(1, durable_client_id="d1"))
    lab.ready(core, "d1")
    lab.disconnect(core, "d1", keepalive=True)
    lab.put(core, "p1", "r1", 3)
    change = lab.connect(core, "d1")
    assert change.pending == 3 and lab.stats(core, "d1").received == 0
    assert lab.ready(core, "d1").count == 3
    lab.disconnect(core, "d1", keepalive=True)
    lab.put(core, "p1", "r1", 2)
    core.advance_to(300_000)
    assert lab.connect(core, "d1").pending == -1
    assert lab.stats(core, "d1").lost == 2
    totals, findings = core.audit("g1")
    assert [(f.outcome, f.reason, f.allowed) for f in findings] == [("lost", "durable-client-timeout", True)]


def test_an_offline_durable_clients_events_die_with_its_queue_servers() -> None:
    core = cluster(3, d1=sub(1, durable_client_id="d1"))
    lab.disconnect(core, "d1", keepalive=True)
    lab.put(core, "p1", "r1", 4)
    lab.kill(core, "g1.s1")
    lab.kill(core, "g1.s2")
    lab.connect(core, "d1")
    lab.ready(core, "d1")
    st = lab.stats(core, "d1")
    assert (st.received, st.lost) == (0, 4)
    _, findings = core.audit("g1")
    assert [(f.outcome, f.reason) for f in findings] == [("lost", "durable-client-offline")]


def test_a_hung_primary_is_given_up_after_read_timeout() -> None:
    core = cluster(3, c1=sub(1))
    lab.hang(core, "g1.s1")
    lab.put(core, "p1", "r1", 3)
    assert lab.stats(core, "c1").received == 0
    core.advance_to(10_000)
    st = lab.stats(core, "c1")
    assert (st.primary, st.received, st.lost) == ("s2", 3, 0)


def test_refusals_change_nothing() -> None:
    core = cluster(3, c1=sub(1))
    before = core.snapshot()
    for call in (lambda: lab.kill(core, "g1.s9"), lambda: lab.restart(core, "g1.s1"),
                 lambda: lab.put(core, "nobody", "r1", 1), lambda: lab.put(core, "p1", "r1", 0),
                 lambda: lab.disconnect(core, "c1", keepalive=True), lambda: lab.connect(core, "c1"),
                 lambda: lab.drop_qrm(core, "g1.s1", "g1.s1"), lambda: lab.heal(core, "g1")):
        with pytest.raises(EngineError):
            call()
    assert core.snapshot() == before


def test_a_million_events_are_one_run_per_subscriber() -> None:
    core = cluster(3, c1=sub(1))
    lab.put(core, "p1", "r1", 1_000_000)
    assert len(core.ledger.runs) == 1
    assert q.held(core, "g1", "s2", "c1") == [(1, 1_000_001)]


def test_connect_takes_pool_settings_and_refuses_bad_ones() -> None:
    core = cluster(3, c1=sub(1))
    lab.disconnect(core, "c1")
    before = core.snapshot()
    for bad in ({"subscription_redundancy": -2}, {"ping_interval_ms": 0}, {"no_such": 1}):
        with pytest.raises(EngineError):
            lab.connect(core, "c1", bad)
    assert core.snapshot() == before
    change = lab.connect(core, "c1", {"subscription_redundancy": -1, "subscription_ack_interval_ms": 1000})
    assert change.secondaries == ("s2", "s3")
    lab.put(core, "p1", "r1", 3)
    core.advance_to(999)
    assert lab.pool_view(core, "g1", "c1").unacked == 3
    core.advance_to(1000)
    assert lab.pool_view(core, "g1", "c1").unacked == 0


def test_with_redundancy_minus_one_a_server_that_starts_again_becomes_a_secondary() -> None:
    """-1 is every other server: the client's satisfier keeps looking every ping-interval, so a
    restarted server is added back ("As soon as another secondary is available, it is added")."""
    core = cluster(3, c1=sub(-1))
    lab.kill(core, "g1.s3")
    core.advance_to(1_000)
    assert lab.pool_view(core, "g1", "c1").secondaries == ("s2",)
    lab.restart(core, "g1.s3")
    ping = q.pool_params(q.pool(core, "g1", "c1")).ping_interval_ms
    core.advance_to(1_000 + ping + 1)
    assert lab.pool_view(core, "g1", "c1").secondaries == ("s2", "s3")
    assert [code for code, _ in log_codes(core, "c1")][-2:] == ["redundant-lost", "redundant-added"]
