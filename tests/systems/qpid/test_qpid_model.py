"""The Qpid HA model on the kernel: statuses and their legal changes, promotion rules, the
recovering primary, delayed completion, at-least-once across a failover, the resource manager."""

from __future__ import annotations

from typing import Any

import pytest

from state_store.errors import EngineError
from state_store.kernel import Kernel, ops
from state_store.qpid import policy as p
from state_store.qpid.scenario import build


def lab(**options: Any) -> Kernel:
    core = Kernel()
    cluster = {"name": "c1", "brokers": ["b1", "b2", "b3"], "ha_replicate": "all", "start": ["b1", "b2", "b3"],
               "queues": [{"name": "q1"}, {"name": "q2", "replicate": "none"}],
               "clients": [{"name": "s", "hosts": ["b2", "b1"]}, {"name": "r", "hosts": ["b1", "b2", "b3"]}]}
    cluster.update(options)
    build(core, {"clusters": [cluster]})
    return core


def call(core: Kernel, op: str, *args: Any) -> Any:
    return ops.run(core, op, *args)


def statuses(core: Kernel) -> list[str]:
    return [n.state for n in core.group_nodes("c1")]


def advance(core: Kernel, ms: int) -> None:
    core.advance_to(core.now_ms + ms)


def log_codes(core: Kernel, broker: str) -> list[str]:
    return [e.code for e in core.events if e.node == broker]


def test_brokers_start_joining_and_nothing_promotes_by_itself() -> None:
    core = lab()
    advance(core, 600_000)
    assert statuses(core) == ["joining"] * 3


def test_promote_then_backups_catch_up_and_become_ready() -> None:
    core = lab()
    call(core, "qpid.promote", "b1")
    assert statuses(core) == ["active", "joining", "joining"]
    advance(core, 3000)
    assert statuses(core) == ["active", "ready", "ready"]
    assert "backup-ready" in log_codes(core, "b2")


def test_promotion_refusals_and_ignored_promotion() -> None:
    core = lab()
    call(core, "qpid.promote", "b1")
    advance(core, 2000)                       # b2, b3 connected: catching up
    assert statuses(core) == ["active", "catchup", "catchup"]
    with pytest.raises(EngineError) as caught:
        call(core, "qpid.promote", "b3")
    assert caught.value.params == {"error": "exception", "name": "Still catching up, cannot be promoted."}
    call(core, "qpid.promote", "b1")
    assert log_codes(core, "b1")[-1] == "ignoring-promotion"
    advance(core, 1000)
    call(core, "qpid.kill", "c1.b2")
    call(core, "qpid.restart", "c1.b2")          # restarted while b1 is active: finds the cluster
    with pytest.raises(EngineError) as caught:
        call(core, "qpid.promote", "b2")
    assert caught.value.params == {"error": "exception", "name": "Joining active cluster, cannot be promoted."}


def test_illegal_transition_shuts_the_broker_down() -> None:
    core = lab()
    node = core.node("c1", "b2")
    assert not p.POLICY.status(core, node, p.ACTIVE)     # joining -> active is not in the table
    assert node.proc == "down"
    assert core.events[-2].code == "illegal"


def test_failover_resends_in_doubt_duplicates_exactly_those_the_new_primary_held() -> None:
    core = lab(ha_flow_messages=3)
    call(core, "qpid.promote", "b1")
    advance(core, 3000)
    connect = call(core, "qpid.connect", "s", ["b2", "b1"])
    assert [t[1] for t in connect.tried] == ["rejected", "connected"]
    sent = call(core, "qpid.publish", "s", "q1", 5, False)
    assert sent.in_doubt == 5
    call(core, "qpid.kill", "c1.b1")
    call(core, "qpid.promote", "b2")
    assert core.node("c1", "b2").state == "recovering"
    advance(core, 3000)
    assert core.node("c1", "b2").state == "active"
    rec = core.groups["c1"].data["clients"]["s"]
    assert (rec["resent"], rec["dup_sent"], rec["acked"]) == (5, 3, 5)
    call(core, "qpid.connect", "r", ["b1", "b2", "b3"])
    got = call(core, "qpid.consume", "r", "q1", 100, True)
    assert (got.received, got.duplicates) == (8, 3)
    totals, findings = core.audit("c1")
    assert totals.lost == 0
    assert all(f.allowed for f in findings)


def test_recovering_primary_holds_completion_until_backup_timeout() -> None:
    core = lab(ha_backup_timeout_ms=500)
    call(core, "qpid.promote", "b1")
    advance(core, 3000)
    call(core, "qpid.kill", "c1.b1")
    call(core, "qpid.kill", "c1.b2")
    call(core, "qpid.promote", "b3")
    assert core.node("c1", "b3").state == "recovering"
    call(core, "qpid.connect", "s", ["b3"])
    sent = call(core, "qpid.publish", "s", "q1", 1, True)
    assert (sent.acked, sent.blocked) == (0, "recovering")
    advance(core, 600)
    assert core.node("c1", "b3").state == "active"
    assert "backup-timed-out" in log_codes(core, "b3")
    assert core.groups["c1"].data["clients"]["s"]["acked"] == 1


def test_timed_out_ready_backup_is_demoted_to_catchup() -> None:
    core = lab(ha_backup_timeout_ms=500)
    call(core, "qpid.promote", "b1")
    advance(core, 3000)
    call(core, "qpid.kill", "c1.b1")
    call(core, "qpid.promote", "b2")          # b3 reconnects only at its next 2 s tick
    advance(core, 600)
    assert statuses(core)[1:] == ["active", "catchup"]
    advance(core, 3000)
    assert statuses(core)[1:] == ["active", "ready"]


def test_stalled_backup_blocks_senders_until_twice_the_heartbeat_interval() -> None:
    core = lab(link_heartbeat_interval_ms=5000)
    call(core, "qpid.promote", "b1")
    advance(core, 3000)
    call(core, "qpid.connect", "s", ["b1"])
    call(core, "qpid.hang", "c1.b3")
    sent = call(core, "qpid.publish", "s", "q1", 10, True)
    assert (sent.acked, sent.blocked) == (0, "stalled-backup")
    advance(core, 9999)
    assert core.groups["c1"].data["clients"]["s"]["acked"] == 0
    advance(core, 1)
    assert core.groups["c1"].data["clients"]["s"]["acked"] == 10


def test_unreplicated_queue_is_gone_after_failover() -> None:
    core = lab()
    call(core, "qpid.promote", "b1")
    advance(core, 3000)
    call(core, "qpid.connect", "s", ["b1"])
    call(core, "qpid.publish", "s", "q2", 4, True)
    call(core, "qpid.kill", "c1.b1")
    call(core, "qpid.promote", "b2")
    advance(core, 3000)
    with pytest.raises(EngineError):
        call(core, "qpid.publish", "s", "q2", 1, True)
    totals, findings = core.audit("c1")
    assert totals.lost == 4 and all(f.allowed for f in findings)


def test_manager_promotes_a_ready_backup_when_the_primary_fails() -> None:
    core = lab(manager="on")
    advance(core, 1000)
    assert statuses(core)[0] == "active"       # new cluster: the first joining broker
    advance(core, 3000)
    call(core, "qpid.kill", "c1.b1")
    advance(core, 1000)
    assert core.node("c1", "b2").state in ("recovering", "active")


def test_split_manager_makes_two_primaries_and_the_heal_shuts_one_down() -> None:
    core = lab(manager="split")
    advance(core, 4000)
    call(core, "qpid.connect", "s", ["b1"])
    call(core, "qpid.isolate", "c1.b1", True)
    advance(core, 1000)
    assert len(p.primaries(core, "c1")) == 2
    call(core, "qpid.publish", "s", "q1", 3, True)      # taken by b1 alone
    call(core, "qpid.isolate", "c1.b1", False)
    assert core.node("c1", "b1").proc == "down"
    assert "illegal" in log_codes(core, "b1")
    totals, findings = core.audit("c1")
    assert totals.lost == 3 and not all(f.allowed for f in findings)


def test_quorate_manager_stops_the_cut_off_primary() -> None:
    core = lab(manager="on")
    advance(core, 4000)
    call(core, "qpid.isolate", "c1.b1", True)
    advance(core, 1000)
    assert core.node("c1", "b1").proc == "down"
    assert [n.name for n in p.primaries(core, "c1")] == ["b2"]


def test_whole_cluster_restart_recovers_from_the_first_primary_store() -> None:
    core = lab(queues=[{"name": "q1", "durable": True}])
    call(core, "qpid.promote", "b1")
    advance(core, 3000)
    call(core, "qpid.connect", "s", ["b1"])
    call(core, "qpid.publish", "s", "q1", 7, True)
    for b in ("b1", "b2", "b3"):
        call(core, "qpid.kill", f"c1.{b}")
    for b in ("b3", "b1", "b2"):
        call(core, "qpid.restart", f"c1.{b}")
    call(core, "qpid.promote", "b3")            # no established cluster: a joining broker may
    advance(core, 3000)
    assert statuses(core) == ["ready", "ready", "active"]
    totals, _ = core.audit("c1")
    assert (totals.lost, totals.stored) == (0, 7)


def test_last_survivor_failing_before_a_backup_is_ready_hangs_the_cluster() -> None:
    core = lab(manager="on")
    advance(core, 4000)
    call(core, "qpid.kill", "c1.b1")
    call(core, "qpid.kill", "c1.b2")
    advance(core, 1000)                          # b3 promoted
    call(core, "qpid.restart", "c1.b1")
    advance(core, 2000)                          # b1 catching up
    call(core, "qpid.kill", "c1.b3")
    advance(core, 60_000)
    assert [n.state for n in core.group_nodes("c1") if n.proc == "up"] == ["catchup"]


def test_a_million_messages_are_one_run() -> None:
    core = lab()
    call(core, "qpid.promote", "b1")
    advance(core, 3000)
    call(core, "qpid.connect", "s", ["b1"])
    sent = call(core, "qpid.publish", "s", "q1", 1_000_000, True)
    assert sent.acked == 1_000_000
    assert len(core.ledger.runs) == 1
    assert core.ledger.held("c1.b3", "q1") == [(1, 1_000_001)]


def test_a_backup_that_dies_under_a_live_primary_is_not_expected_by_the_next() -> None:
    core = lab()
    call(core, "qpid.promote", "b1")
    advance(core, 3000)
    call(core, "qpid.kill", "c1.b2")           # b1 sees it go
    call(core, "qpid.kill", "c1.b1")
    call(core, "qpid.promote", "b3")
    assert core.node("c1", "b3").state == "active"


def test_a_client_of_a_hung_primary_is_stalled_without_heartbeat() -> None:
    core = lab()
    call(core, "qpid.promote", "b1")
    advance(core, 3000)
    call(core, "qpid.connect", "s", ["b1"])
    call(core, "qpid.hang", "c1.b1")
    with pytest.raises(EngineError) as caught:
        call(core, "qpid.publish", "s", "q1", 1, True)
    assert caught.value.code == "qpid_client_stalled"
    with pytest.raises(EngineError) as caught:
        call(core, "qpid.connect", "s", ["b7"])
    assert caught.value.code == "qpid_host_unknown"


def test_configuration_level_replicates_the_queue_but_not_its_messages() -> None:
    core = lab(queues=[{"name": "q1"}, {"name": "qc", "replicate": "configuration"}])
    call(core, "qpid.promote", "b1")
    advance(core, 3000)
    call(core, "qpid.connect", "s", ["b1", "b2"])
    call(core, "qpid.publish", "s", "qc", 4, True)
    assert core.ledger.held("c1.b2", "qc") == []
    call(core, "qpid.kill", "c1.b1")
    call(core, "qpid.promote", "b2")
    advance(core, 3000)
    assert call(core, "qpid.publish", "s", "qc", 1, True).acked == 1     # the queue is there, empty before


def test_the_ha_password_is_not_kept() -> None:
    core = lab(ha_password="s3cret")
    assert "s3cret" not in repr(core.snapshot())
    assert core.groups["c1"].params["ha_password_set"] is True


def client(core: Kernel, name: str) -> dict[str, Any]:
    return dict(core.groups["c1"].data["clients"][name])


def test_a_dequeue_completes_what_a_stalled_backup_held_so_nothing_comes_back_after_failover() -> None:
    """"QueueGuard completes if not already completed": a message consumed and acknowledged on the
    primary is complete for its sender, though a hung backup still holds completion back."""
    core = lab(link_heartbeat_interval_ms=60_000)
    call(core, "qpid.promote", "b1")
    advance(core, 3000)
    call(core, "qpid.connect", "s", ["b1", "b2"])
    call(core, "qpid.connect", "r", ["b1", "b2"])
    call(core, "qpid.hang", "c1.b3")
    sent = call(core, "qpid.publish", "s", "q1", 10, True)
    assert (sent.acked, sent.blocked) == (0, "stalled-backup")
    call(core, "qpid.consume", "r", "q1", 4, True)
    assert (client(core, "s")["acked"], client(core, "s")["in_doubt"]) == (4, [[5, 11]])
    call(core, "qpid.consume", "r", "q1", 6, True)
    assert (client(core, "s")["acked"], client(core, "s")["in_doubt"]) == (10, [])
    call(core, "qpid.kill", "c1.b1")
    call(core, "qpid.promote", "b2")
    advance(core, 3000)
    assert client(core, "s")["resent"] == 0
    got = call(core, "qpid.consume", "r", "q1", 100, True)
    assert (got.received, got.duplicates) == (0, 0)


def test_a_consume_without_acknowledgement_completes_nothing() -> None:
    core = lab(link_heartbeat_interval_ms=60_000)
    call(core, "qpid.promote", "b1")
    advance(core, 3000)
    call(core, "qpid.connect", "s", ["b1"])
    call(core, "qpid.connect", "r", ["b1"])
    call(core, "qpid.hang", "c1.b3")
    call(core, "qpid.publish", "s", "q1", 3, True)
    call(core, "qpid.consume", "r", "q1", 3, False)
    assert (client(core, "s")["acked"], client(core, "s")["in_doubt"]) == (0, [[1, 4]])


def test_a_backup_still_catching_up_is_guarded_too() -> None:
    """"A QueueGuard is set on the queue when a backup first subscribes": a hung backup that was
    catching up holds completion back as a ready one does, until the primary drops it."""
    core = lab(link_heartbeat_interval_ms=5000, catchup_ms=60_000)
    call(core, "qpid.promote", "b1")
    advance(core, 2000)
    assert statuses(core) == ["active", "catchup", "catchup"]
    call(core, "qpid.connect", "s", ["b1"])
    call(core, "qpid.hang", "c1.b3")
    sent = call(core, "qpid.publish", "s", "q1", 10, True)
    assert (sent.acked, sent.blocked) == (0, "stalled-backup")
    advance(core, 10_000)
    assert client(core, "s")["acked"] == 10


def test_standalone_replication_adds_the_queue_and_keeps_replicating() -> None:
    """`qpid-config --broker=b2 add queue --start-replica b1 q1` declares q1 on b2 as well (it never
    moves b1's), and `qpid-ha replicate` replicates what follows, dequeues included; a start replica
    of a queue the remote broker lacks is refused before anything changes."""
    core = lab(ha_cluster=False, ha_replicate="none")
    b1, b2 = core.node("c1", "b1"), core.node("c1", "b2")
    before = core.snapshot()
    with pytest.raises(EngineError) as refused:
        call(core, "qpid.add_queue", "b2", "q9", None, "b1")
    assert refused.value.params == {"error": "queue-not-found", "name": "q9"}
    assert core.snapshot() == before
    call(core, "qpid.connect", "s", ["b1"])
    call(core, "qpid.connect", "r", ["b1"])
    call(core, "qpid.publish", "s", "q1", 2, True)
    call(core, "qpid.add_queue", "b2", "q1", None, "b1")
    call(core, "qpid.replicate", "b2", "b1", "q1")
    assert p.queue_on(core, b1, "q1") and p.queue_on(core, b2, "q1")
    call(core, "qpid.publish", "s", "q1", 5, True)
    assert core.ledger.held(b1.key, "q1") == core.ledger.held(b2.key, "q1") == [(1, 8)]
    call(core, "qpid.consume", "r", "q1", 3, True)
    assert core.ledger.held(b2.key, "q1") == [(4, 8)]
