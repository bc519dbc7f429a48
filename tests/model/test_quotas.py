"""The quota decision (state_store.quotas) against a message-by-message model of the broker.

The model takes the messages one at a time, checks the limits in the broker's order (router
spool, Message VPN spool, a queue shut with including-when-shutdown, queues rejecting on discard,
the replication queue rejecting on discard) and stops at the first refusal (a refused message
takes no room, so every later one is refused too). plan_publish computes the same in bulk."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from state_store import quotas
from state_store.quotas import QuotaPlan, Room, plan_publish


def model(count: int, size: int, router_room: int, vpn_room: int, queues: list[Room], repl: Room | None,
          shut_rejecting: int) -> QuotaPlan:
    rooms = [q.bytes for q in queues]
    rroom = repl.bytes if repl is not None else 0
    kept = [0] * len(queues)
    fits = [min(count, max(0, q.bytes) // size) for q in queues]
    replicated = 0
    for j in range(count):
        takes = [room >= size for room in rooms]
        on_stream = repl is not None and rroom >= size
        need = size * (sum(takes) + on_stream)
        reason = None
        if need and need > router_room:  # a message stored nowhere takes no room
            reason = quotas.SPOOL_FULL
        elif need and need > vpn_room:
            reason = quotas.VPN_SPOOL_FULL
        elif shut_rejecting:
            reason = quotas.QUEUE_SHUTDOWN
        elif any(q.reject and not t for q, t in zip(queues, takes, strict=True)):
            reason = quotas.QUEUE_FULL
        elif repl is not None and repl.reject and not on_stream:
            reason = quotas.REPL_QUEUE_FULL
        if reason is not None:
            return QuotaPlan(j, tuple(kept), replicated, reason, tuple(fits))
        router_room -= need
        vpn_room -= need
        for i, t in enumerate(takes):
            if t:
                rooms[i] -= size
                kept[i] += 1
        if on_stream:
            rroom -= size
            replicated += 1
    return QuotaPlan(count, tuple(kept), replicated, None, tuple(fits))


rooms = st.integers(-2_000, 20_000)
room = st.builds(Room, rooms, st.booleans())


@settings(max_examples=400, deadline=None)
@given(count=st.integers(1, 40), size=st.integers(1, 3_000), router_room=rooms, vpn_room=rooms,
       queues=st.lists(room, max_size=4), repl=st.none() | room, shut=st.integers(0, 2))
def test_the_plan_is_the_broker_taking_one_message_at_a_time(count, size, router_room, vpn_room, queues, repl,
                                                               shut):
    plan = plan_publish(count, size, router_room=router_room, vpn_room=vpn_room, queues=queues, repl=repl,
                        shut_rejecting=shut)
    assert plan == model(count, size, router_room, vpn_room, queues, repl, shut)


def test_the_router_names_the_reason_when_it_binds_with_a_queue():
    # a rejecting queue with room for 2, another with room, a router with room for 2 messages on
    # both: message 2 fails both rules, and the router is checked first
    plan = plan_publish(5, 10, router_room=40, vpn_room=1000, queues=[Room(20, True), Room(1000, False)],
                        repl=None)
    assert (plan.accepted, plan.reason, plan.kept) == (2, quotas.SPOOL_FULL, (2, 2))
    # alone, the full queue's message would take no router room: the queue names the reason
    plan = plan_publish(5, 10, router_room=20, vpn_room=1000, queues=[Room(20, True)], repl=None)
    assert (plan.accepted, plan.reason) == (2, quotas.QUEUE_FULL)


def test_a_discarding_queue_does_not_stop_the_others():
    plan = plan_publish(5, 10, router_room=10_000, vpn_room=10_000,
                        queues=[Room(20, False), Room(1000, True)], repl=Room(30, False))
    assert (plan.accepted, plan.kept, plan.replicated, plan.reason) == (5, (2, 5), 3, None)


def test_a_million_messages_are_planned_without_a_loop_per_message():
    plan = plan_publish(10_000_000, 600, router_room=60_000 * quotas_mb(), vpn_room=1_000 * quotas_mb(),
                        queues=[Room(5_000 * quotas_mb(), True)], repl=Room(60_000 * quotas_mb(), True))
    assert (plan.accepted, plan.reason) == (1_000 * quotas_mb() // 1200, quotas.VPN_SPOOL_FULL)


def quotas_mb() -> int:
    from state_store.lookups import MB
    return MB


def test_bad_counts_are_refused():
    with pytest.raises(ValueError):
        plan_publish(0, 1, router_room=1, vpn_room=1, queues=[], repl=None)
