"""SwiftMQ thread-pool freeze during the synchronisation: JMS work held and released in order,
the "Threadpool Freezes" list frozen and unfrozen in its order, and a store transfer whose length
follows the store's size and the maximum packet size (long enough, it costs the heartbeats)."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from state_store.kernel import Kernel
from state_store.lab_store import LabStore
from state_store.scenario import ROOT_DIR
from state_store.swiftmq import operations as ha
from state_store.swiftmq.params import HaParams
from state_store.swiftmq.views import JmsConsume, JmsHeld, JmsPublish

SCENARIO = ROOT_DIR / "swiftmq-ha.yaml"
OPS = {ha.start: "swiftmq.restart", ha.kill: "swiftmq.kill", ha.publish: "swiftmq.publish",
       ha.consume: "swiftmq.consume", ha.resend: "swiftmq.resend"}


def lab(path: Path = SCENARIO) -> LabStore:
    return LabStore.in_memory(path)


@pytest.fixture()
def store() -> Iterator[LabStore]:
    s = lab()
    yield s
    s.close()


def do(store: LabStore, fn, *args):  # type: ignore[no-untyped-def]
    if fn in OPS:
        return store.run(lambda e: e.kernel_call(OPS[fn], *args))
    return store.run(lambda e: fn(e.kernel(), *args))


def advance(store: LabStore, ms: int) -> None:
    with store.transaction() as engine:
        engine.advance(ms)


def states(store: LabStore) -> dict[str, str]:
    return {i.instance: i.state for i in do(store, ha.router_view, "ha1").instances}


def codes(store: LabStore, key: str) -> list[tuple[str, dict]]:  # type: ignore[type-arg]
    return [(e.code, e.params) for e in do(store, ha.instance_log, key).events]


def b_alone_then_a_returns(store: LabStore, messages: int) -> None:
    """A and B pair up, A dies, B (STANDALONE) takes `messages`, A starts again: B will win."""
    do(store, ha.start, "ha1.A")
    do(store, ha.start, "ha1.B")
    advance(store, 5_000)
    do(store, ha.kill, "ha1.A")
    if messages:
        do(store, ha.publish, "c1", "q1", messages, True)
    do(store, ha.start, "ha1.A")


def test_publish_and_consume_during_the_freeze_wait_and_complete_after_the_sync(store: LabStore) -> None:
    b_alone_then_a_returns(store, 10)
    advance(store, 500)
    assert states(store)["B"] == "ACTIVE-SYNC-PREPARE"
    held = do(store, ha.publish, "c1", "q1", 5, True)
    assert isinstance(held, JmsHeld) and (held.instance, held.state, held.waiting) == ("B", "ACTIVE-SYNC-PREPARE", 1)
    assert isinstance(do(store, ha.consume, "c2", "q1", 3), JmsHeld)
    assert do(store, ha.router_view, "ha1").held == 2
    advance(store, 250)
    assert states(store)["B"] == "ACTIVE-SYNC"
    assert do(store, ha.stats, "c1").sent == 10 and do(store, ha.stats, "c2").received == 0   # no activity
    advance(store, 1_000)
    assert states(store) == {"A": "STANDBY", "B": "ACTIVE"}
    assert do(store, ha.router_view, "ha1").held == 0
    released = [p for c, p in codes(store, "ha1.B") if c == "released"]
    assert [(p["op"], p["client"]) for p in released] == [("publish", "c1"), ("consume", "c2")]
    assert released[0]["replicated"] == 5            # ran on the ACTIVE, replicated to the new STANDBY
    assert (do(store, ha.stats, "c1").sent, do(store, ha.stats, "c2").received) == (15, 3)
    totals, findings = do(store, Kernel.audit)
    assert (totals.published, totals.delivered, totals.lost) == (15, 3, 0) and findings == ()
    assert isinstance(do(store, ha.publish, "c1", "q1", 1, True), JmsPublish)    # unfrozen: runs at once
    assert isinstance(do(store, ha.consume, "c2", "q1", 1), JmsConsume)


def test_pools_freeze_and_unfreeze_in_the_list_order_around_the_sync_states(store: LabStore) -> None:
    b_alone_then_a_returns(store, 0)
    advance(store, 2_000)
    log = [(c, p.get("new") or p.get("pool")) for c, p in codes(store, "ha1.B")
           if c in ("pool-frozen", "pool-unfrozen") or (c == "state" and p["new"].startswith("ACTIVE"))][-13:]
    pools = list(HaParams().freeze_order)
    assert log == ([("state", "ACTIVE-SYNC-PREPARE")] + [("pool-frozen", x) for x in pools]
                   + [("state", "ACTIVE-SYNC")] + [("pool-unfrozen", x) for x in pools] + [("state", "ACTIVE")])


def test_held_work_of_a_frozen_instance_that_dies_runs_on_the_survivor(store: LabStore) -> None:
    b_alone_then_a_returns(store, 10)
    advance(store, 600)
    assert isinstance(do(store, ha.publish, "c1", "q1", 4, True), JmsHeld)
    do(store, ha.kill, "ha1.B")
    assert states(store)["A"] == "STANDALONE"
    assert do(store, ha.router_view, "ha1").held == 0
    assert [p["op"] for c, p in codes(store, "ha1.A") if c == "released"] == ["publish"]
    assert do(store, ha.stats, "c1").sent == 14


def test_sync_time_follows_store_size_and_max_packet_size(tmp_path: Path) -> None:
    p = HaParams()
    assert p.store_transfer(0) == (0, 0, 0)
    assert p.store_transfer(128) == (128, 1, 10)
    assert p.store_transfer(129) == (129, 2, 20)
    assert HaParams(max_packet_size_kb=64).store_transfer(129) == (129, 3, 30)
    custom = tmp_path / "big-packets.yaml"
    custom.write_text(SCENARIO.read_text().replace("max_packet_size_kb: 128", "max_packet_size_kb: 1024"))
    for path, packets in ((SCENARIO, 79), (custom, 10)):
        s = lab(path)
        b_alone_then_a_returns(s, 10_000)
        advance(s, 2_000)
        transfer = next(p for c, p in codes(s, "ha1.B") if c == "store-transfer")
        assert (transfer["size_kb"], transfer["packets"], transfer["transfer_ms"]) == (10_000, packets, packets * 10)
        s.close()


def test_a_transfer_longer_than_the_heartbeat_threshold_triggers_the_failover(store: LabStore) -> None:
    b_alone_then_a_returns(store, 300_000)           # 2344 packets x 10 ms = 23.44 s > 2000 ms x 10
    advance(store, 19_000)
    assert states(store) == {"A": "STANDBY-SYNC", "B": "ACTIVE-SYNC"}
    advance(store, 1_000)
    assert states(store) == {"A": "STANDALONE", "B": "STANDALONE"}
    assert ("channel-closed", {"cause": "heartbeat-missing"}) in codes(store, "ha1.A")
    assert ("channel-closed", {"cause": "io-exception"}) in codes(store, "ha1.B")[-8:]


def test_a_transfer_within_the_threshold_keeps_the_heartbeats(store: LabStore) -> None:
    b_alone_then_a_returns(store, 200_000)           # 1563 packets: 15.63 s < 20 s
    advance(store, 17_000)                           # synced at 16.63 s (the preferred swap 10 s later)
    assert states(store) == {"A": "STANDBY", "B": "ACTIVE"}
    assert not any(c == "channel-closed" for c, _ in codes(store, "ha1.A")[-6:])


def test_a_scenario_sets_the_freeze_list_and_its_order_is_kept(tmp_path: Path) -> None:
    custom = tmp_path / "pools.yaml"
    custom.write_text(SCENARIO.read_text().replace(
        "      sync_step_ms: 250", '      threadpool_freezes: "store.log, jms.session"\n      sync_step_ms: 250'))
    s = lab(custom)
    b_alone_then_a_returns(s, 0)
    advance(s, 2_000)
    pools = [(c, p["pool"]) for c, p in codes(s, "ha1.B") if c.startswith("pool-")]
    assert pools == [("pool-frozen", "store.log"), ("pool-frozen", "jms.session"),
                     ("pool-unfrozen", "store.log"), ("pool-unfrozen", "jms.session")]
    s.close()
