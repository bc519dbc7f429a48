"""The SwiftMQ HA state machine on the neutral kernel, under the lab's one simulated clock.

Every step runs in its own lab command (as a console line does): changes as journaled
`kernel_call`s, reads on the kernel."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager

import pytest

from state_store.errors import EngineError
from state_store.kernel import Kernel, TimerQueue
from state_store.lab_store import LabStore
from state_store.scenario import ROOT_DIR
from state_store.swiftmq import operations as ha

SCENARIO = ROOT_DIR / "swiftmq-ha.yaml"


@pytest.fixture()
def store() -> Iterator[LabStore]:
    s = LabStore.in_memory(SCENARIO)
    yield s
    s.close()


@contextmanager
def core_of(store: LabStore) -> Iterator[Kernel]:
    with store.transaction() as engine:
        yield engine.kernel()


OPS = {ha.start: "swiftmq.restart", ha.kill: "swiftmq.kill", ha.hang: "swiftmq.hang",
       ha.partition: "swiftmq.partition", ha.heal: "swiftmq.heal",
       ha.publish: "swiftmq.publish", ha.resend: "swiftmq.resend", ha.consume: "swiftmq.consume",
       ha.replace: "swiftmq.replace"}


def advance(store: LabStore, ms: int) -> None:
    with store.transaction() as engine:
        engine.advance(ms)


def states(store: LabStore) -> dict[str, str]:
    with core_of(store) as core:
        return {i.instance: i.state for i in ha.router_view(core, "ha1").instances}


def do(store: LabStore, fn, *args, **kw):  # type: ignore[no-untyped-def]
    """A change as the journaled operation a lab verb makes; a read on the kernel."""
    if fn is ha.ha_file and (kw.get("delete") or kw.get("write")):
        return store.run(lambda e: e.kernel_call("swiftmq.file", args[0], bool(kw.get("delete")), kw.get("write")))
    if fn in OPS:
        return store.run(lambda e: e.kernel_call(OPS[fn], *args))
    return store.run(lambda e: fn(e.kernel(), *args, **kw))


def codes(store: LabStore, key: str) -> list[tuple[str, dict]]:  # type: ignore[type-arg]
    return [(e.code, e.params) for e in do(store, ha.instance_log, key).events]


def test_timer_queue_orders_by_due_then_sequence_and_runs_timers_scheduled_meanwhile() -> None:
    q = TimerQueue()
    q.schedule(20, "g", "", "b")
    q.schedule(10, "g", "", "a")
    q.schedule(20, "g", "", "c")
    cancelled = q.schedule(15, "g", "", "x")
    q.cancel(cancelled)
    fired = []
    for t in q.pop_due(30):
        fired.append(t.kind)
        if t.kind == "a":
            q.schedule(25, "g", "", "late")
            q.schedule(31, "g", "", "next-time")
    assert fired == ["a", "b", "c", "late"]
    assert [t.kind for t in TimerQueue.restore(q.snapshot()).pending()] == ["next-time"]


def test_a_sw_1_startup_crash_return_and_preferred_active(store: LabStore) -> None:
    do(store, ha.start, "ha1.B")
    advance(store, 60_000)
    assert states(store)["B"] == "UNKNOWN"                  # no ha.state: waits forever
    do(store, ha.start, "ha1.A")
    advance(store, 5_000)
    assert states(store) == {"A": "ACTIVE", "B": "STANDBY"}
    a_states = [p["new"] for c, p in codes(store, "ha1.A") if c == "state"]
    assert a_states == ["UNKNOWN", "INITIALIZE", "NEGOTIATE", "ACTIVE-SYNC-PREPARE", "ACTIVE-SYNC", "ACTIVE"]
    assert do(store, ha.ha_file, "ha1.A").content == "ACTIVE"
    assert do(store, ha.ha_file, "ha1.B").content == "STANDBY"
    pub = do(store, ha.publish, "c1", "q1", 10, True)
    assert (pub.instance, pub.replicated) == ("A", 10)
    do(store, ha.kill, "ha1.A")
    advance(store, 1_000)
    assert states(store)["B"] == "STANDALONE"
    got = do(store, ha.consume, "c1", "q1", 10)
    assert (got.instance, got.received) == ("B", 10)
    st = do(store, ha.stats, "c1")
    assert (st.received, st.duplicates_delivered, st.lost) == (10, 0, 0)
    do(store, ha.start, "ha1.A")
    advance(store, 5_000)
    assert states(store) == {"A": "STANDBY", "B": "ACTIVE"}
    assert ("preferred-failover", {"delay_ms": 10_000}) in codes(store, "ha1.B")
    advance(store, 15_000)
    assert states(store) == {"A": "ACTIVE", "B": "STANDBY"}
    totals, findings = do(store, Kernel.audit)
    assert (totals.published, totals.delivered, totals.lost, totals.duplicated) == (10, 10, 0, 0)
    assert findings == ()


def _pair_up(store: LabStore) -> None:
    do(store, ha.start, "ha1.A")
    do(store, ha.start, "ha1.B")
    advance(store, 4_000)    # connected at 0; heartbeats at 0, 2 s, 4 s
    assert states(store) == {"A": "ACTIVE", "B": "STANDBY"}


def test_a_sw_2_hung_active_is_detected_by_missed_heartbeats_within_20_s(store: LabStore) -> None:
    _pair_up(store)
    do(store, ha.hang, "ha1.A")
    advance(store, 19_000)
    assert states(store)["B"] == "STANDBY"
    advance(store, 2_000)
    assert states(store)["B"] == "STANDALONE"
    assert ("channel-closed", {"cause": "heartbeat-missing"}) in codes(store, "ha1.B")


def test_killed_active_is_detected_at_once(store: LabStore) -> None:
    _pair_up(store)
    change = do(store, ha.kill, "ha1.A")
    assert change.peer_state == "STANDALONE"
    assert ("channel-closed", {"cause": "io-exception"}) in codes(store, "ha1.B")


def test_a_sw_3_negotiation_timeout_split_brain_and_recovery(store: LabStore) -> None:
    do(store, ha.ha_file, "ha1.B", write="STANDBY")
    do(store, ha.start, "ha1.B")
    advance(store, 119_000)
    assert states(store)["B"] == "UNKNOWN"
    advance(store, 1_000)
    assert states(store)["B"] == "STANDALONE"
    do(store, ha.ha_file, "ha1.A", write="STANDALONE")
    do(store, ha.start, "ha1.A")
    advance(store, 1_000)
    assert states(store) == {"A": "", "B": "STANDALONE"}
    assert ("split-brain-shutdown", {"peer": "B"}) in codes(store, "ha1.A")
    do(store, ha.ha_file, "ha1.A", delete=True)
    do(store, ha.start, "ha1.A")
    advance(store, 5_000)
    assert states(store) == {"A": "STANDBY", "B": "ACTIVE"}
    a_states = [p["new"] for c, p in codes(store, "ha1.A") if c == "state"][-4:]
    assert a_states == ["NEGOTIATE", "STANDBY-SYNC-PREPARE", "STANDBY-SYNC", "STANDBY"]


def test_active_or_standby_start_goes_standalone_after_the_negotiation_timeout(store: LabStore) -> None:
    do(store, ha.ha_file, "ha1.A", write="ACTIVE")
    do(store, ha.start, "ha1.A")
    advance(store, 119_999)
    assert states(store)["A"] == "UNKNOWN"
    advance(store, 1)
    assert states(store)["A"] == "STANDALONE"


def test_standalone_start_is_immediate_and_returning_instance_becomes_standby(store: LabStore) -> None:
    do(store, ha.ha_file, "ha1.B", write="STANDALONE")
    assert do(store, ha.start, "ha1.B").state == "STANDALONE"
    do(store, ha.start, "ha1.A")
    advance(store, 1_000)
    # B was serving, so it stays the ACTIVE although A is the preferred one; the swap follows
    assert states(store) == {"A": "STANDBY", "B": "ACTIVE"}


def test_persistent_messages_survive_failover_and_non_persistent_in_transit_are_lost(store: LabStore) -> None:
    _pair_up(store)
    do(store, ha.publish, "c1", "q1", 5, True)
    do(store, ha.publish, "c2", "q2", 3, False)
    do(store, ha.kill, "ha1.A")
    assert do(store, ha.consume, "c1", "q1", 10).received == 5
    assert do(store, ha.consume, "c2", "q2", 10).received == 0
    totals, findings = do(store, Kernel.audit)
    assert (totals.published, totals.delivered, totals.lost) == (8, 5, 3)
    assert [(f.outcome, f.count, f.reason) for f in findings] == [("lost", 3, "non-persistent-in-transit")]


def test_resend_after_failover_is_discarded_by_duplicate_detection(store: LabStore) -> None:
    _pair_up(store)
    do(store, ha.publish, "c1", "q1", 4, True)
    do(store, ha.kill, "ha1.A")
    res = do(store, ha.resend, "c1")
    assert (res.instance, res.resent, res.discarded, res.accepted) == ("B", 4, 4, 0)
    assert do(store, ha.consume, "c1", "q1", 10).received == 4
    st = do(store, ha.stats, "c1")
    assert (st.duplicates_discarded, st.duplicates_delivered) == (4, 0)


def test_duplicate_backlog_keeps_only_the_last_n_ids(store: LabStore) -> None:
    _pair_up(store)
    do(store, ha.publish, "c1", "q1", 2001, True)
    with core_of(store) as core:
        a, b = ha.backlog_keys(core, "ha1.A", "q1"), ha.backlog_keys(core, "ha1.B", "q1")
        assert len(a) == len(b) == 2000
        assert a[0] == "ID:c1-2"


def test_refusals_change_nothing(store: LabStore) -> None:
    before = store.dump()
    for op, args in (("swiftmq.kill", ("ha1.A",)), ("swiftmq.restart", ("ha1.C",)),
                     ("swiftmq.publish", ("c1", "q1", 1, True)), ("swiftmq.file", ("ha1.A", True, None))):
        with pytest.raises(EngineError):
            store.run(lambda e: e.kernel_call(op, *args))  # noqa: B023
    assert store.dump() == before


def test_snapshot_round_trip_is_identical(store: LabStore) -> None:
    _pair_up(store)
    do(store, ha.publish, "c1", "q1", 3, True)
    with core_of(store) as core:
        snap = core.snapshot()
        assert Kernel.restore(snap).snapshot() == snap


def test_default_lab_has_no_ha_core_row_and_advance_does_not_write_one() -> None:
    s = LabStore.in_memory()
    before = s.dump()
    advance(s, 0)
    assert s.dump() == before
    assert "== ha_core -\n" in before  # the default lab has no HA core


def test_partition_makes_both_standalone_after_20_s_and_healing_shuts_one_down(store: LabStore) -> None:
    _pair_up(store)
    do(store, ha.partition, "ha1")
    advance(store, 19_000)
    assert states(store) == {"A": "ACTIVE", "B": "STANDBY"}
    advance(store, 2_000)
    assert states(store) == {"A": "STANDALONE", "B": "STANDALONE"}
    do(store, ha.heal, "ha1")
    advance(store, 1_000)
    assert states(store) == {"A": "STANDALONE", "B": ""}


def test_findings_say_whether_swiftmq_allows_them(store: LabStore) -> None:
    """A stale store served after a wrong recovery delivers again to another client: a visible
    duplicate, against SwiftMQ's promise; a non-persistent loss is documented."""
    _pair_up(store)
    do(store, ha.publish, "c1", "q1", 2, True)
    do(store, ha.publish, "c2", "q2", 1, False)
    do(store, ha.kill, "ha1.A")                      # A keeps its copies on disk
    assert do(store, ha.consume, "c1", "q1", 5).received == 2
    do(store, ha.kill, "ha1.B")
    do(store, ha.ha_file, "ha1.A", write="STANDALONE")
    do(store, ha.start, "ha1.A")                     # the wrong survivor: its store is stale
    assert do(store, ha.consume, "c2", "q1", 5).received == 2
    _, findings = do(store, Kernel.audit)
    assert {(f.outcome, f.reason, f.allowed) for f in findings} == {
        ("duplicate-delivered", "delivered-twice", False), ("lost", "non-persistent-in-transit", True)}


def test_replacing_an_instance_loses_its_disk_and_what_only_it_held(store: LabStore) -> None:
    _pair_up(store)
    do(store, ha.publish, "c1", "q1", 3, True)
    with pytest.raises(EngineError) as err:
        do(store, ha.replace, "ha1.A")                   # running: refused, nothing changed
    assert err.value.code == "ha_instance_running"
    do(store, ha.kill, "ha1.A")
    do(store, ha.kill, "ha1.B")
    assert do(store, ha.replace, "ha1.A").dropped == 3
    assert do(store, ha.ha_file, "ha1.A").content is None
    totals, findings = do(store, Kernel.audit)
    assert (totals.stored, totals.lost, findings) == (3, 0, ())   # B's disk still holds them
    assert do(store, ha.replace, "ha1.B").dropped == 3
    totals, findings = do(store, Kernel.audit)
    assert totals.lost == 3
    assert [(f.outcome, f.reason, f.allowed) for f in findings] == [("lost", "node-replaced", True)]
    do(store, ha.start, "ha1.A")
    assert states(store)["A"] == "UNKNOWN"              # blank: no ha.state, waits for the other


def test_each_parameter_is_declared_once_and_the_scenario_and_the_cli_follow() -> None:
    """A leaf (state_store/swiftmq/params.py) gives the scenario key, the least value and the CLI
    property: the schema accepts every leaf, and each CLI property shows and sets its field."""
    from dataclasses import fields

    from state_store.swiftmq import mgmt
    from state_store.swiftmq.params import QUEUE_LEAVES, ROUTER_LEAVES, HaParams, QueueParams

    assert {leaf.key for leaf in ROUTER_LEAVES} == {f.name for f in fields(HaParams)}
    assert {leaf.key for leaf in QUEUE_LEAVES} == {f.name for f in fields(QueueParams)}
    s = LabStore.in_memory(SCENARIO)
    try:
        _pair_up(s)
        for leaf in ROUTER_LEAVES + QUEUE_LEAVES:
            if not leaf.cli or leaf.kind == "instance":
                continue
            path = ("sys$queuemanager", "queues", "q1") if leaf in QUEUE_LEAVES else leaf.context
            value = {"int": str((leaf.low or 0) + 7), "text": "/data/ha", "bool": "false"}[leaf.kind]
            s.run(lambda e: e.kernel_call("swiftmq.set_property", "ha1", path, leaf.cli, value))  # noqa: B023
            shown = s.run(lambda e: mgmt.entity(e.kernel(), "ha1", path))  # noqa: B023
            assert {p.name: p.value for p in shown.properties}[leaf.cli] == value
            if leaf.low:
                with pytest.raises(EngineError):
                    s.run(lambda e: e.kernel_call("swiftmq.set_property", "ha1", path, leaf.cli,  # noqa: B023
                                                  str(leaf.low - 1)))  # noqa: B023
    finally:
        s.close()
