"""The secondaries' orphan expiry as one pending timer per cluster (state_store/geode/expiry.py):
it expires exactly what one timer per put did, when it did, and a kernel saved with one timer per
put still runs them."""

from __future__ import annotations

import json
from typing import Any

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from state_store.errors import EngineError
from state_store.geode import MODEL, expiry, lab
from state_store.kernel import Kernel

SERVERS = ("g1.s1", "g1.s2", "g1.s3")


def cluster(ttl_s: int = 180, durable_timeout_s: int = 300) -> Kernel:
    core = Kernel()
    sub = {"subscription_enabled": True, "interest": ["r1"]}
    MODEL.build(core, {"clusters": [{
        "name": "g1", "servers": ["s1", "s2", "s3"], "message_time_to_live_s": ttl_s,
        "clients": [{"name": "c1", **sub, "subscription_redundancy": 1},
                    {"name": "c2", **sub, "subscription_redundancy": 2},
                    {"name": "d1", **sub, "subscription_redundancy": 1, "durable_client_id": "d1",
                     "durable_client_timeout_s": durable_timeout_s},
                    {"name": "p1"}]}]})
    return core


def held(core: Kernel, client: str) -> dict[str, int]:
    return dict(lab.pool_view(core, "g1", client).queues)


def test_one_expiry_timer_per_cluster_however_many_puts() -> None:
    core = cluster()
    lab.disconnect(core, "d1", keepalive=True)
    for _ in range(600):
        lab.put(core, "p1", "r1")
        core.advance_to(core.now_ms + 1000)
    kinds = [t.kind for t in core.timers.pending()]
    assert kinds.count(expiry.KIND) == 1 and expiry.LEGACY_KIND not in kinds
    assert len(kinds) <= 4


def test_a_new_secondarys_initial_image_expires_at_the_next_puts_time() -> None:
    """Nothing is armed while no secondary holds an event; the initial image a new secondary takes
    arms the first expiry position still to come."""
    core = cluster()
    lab.disconnect(core, "d1", keepalive=True)
    (secondary,) = lab.pool_view(core, "g1", "d1").secondaries
    lab.kill(core, f"g1.{secondary}")                    # an offline durable client keeps no secondary
    core.advance_to(100_000)
    lab.restart(core, f"g1.{secondary}")
    lab.disconnect(core, "c1")
    lab.disconnect(core, "c2")
    lab.put(core, "p1", "r1")                             # queued on d1's primary only
    core.advance_to(190_000)
    lab.connect(core, "d1")                               # a new secondary takes the primary's image
    view = lab.pool_view(core, "g1", "d1")
    assert len(view.secondaries) == 1 and dict(view.queues) == {view.primary: 1, view.secondaries[0]: 1}
    core.advance_to(279_999)
    assert dict(lab.pool_view(core, "g1", "d1").queues) == {view.primary: 1, view.secondaries[0]: 1}
    core.advance_to(280_000)
    assert dict(lab.pool_view(core, "g1", "d1").queues) == {view.primary: 1, view.secondaries[0]: 0}
    assert lab.server_view(core, core.node("g1", view.secondaries[0])).events_expired == 1


def legacy(snapshot: dict[str, Any]) -> dict[str, Any]:
    """The kernel snapshot as a lab file written before held it: one ``expire`` timer per put
    still to come due, no expiry bookkeeping in the cluster's data."""
    old: dict[str, Any] = json.loads(json.dumps(snapshot))
    group = next(g for g in old["groups"] if g[0] == "g1")
    positions = group[4].pop("expiry")["due"]
    timers = [t for t in old["timers"]["timers"] if t[4] != expiry.KIND]
    timers += [[due, seq, "g1", "", expiry.LEGACY_KIND, {}] for due, seq in positions]
    old["timers"]["timers"] = sorted(timers, key=lambda t: (t[0], t[1]))
    return old


def test_a_kernel_saved_with_one_expire_timer_per_put_still_expires_them() -> None:
    core = cluster()
    core.advance_to(850)
    lab.put(core, "p1", "r1", 5)
    lab.drop_qrm(core, "g1.s1", "g1.s2")                 # c1's secondary keeps them: orphans
    core.advance_to(1000)
    lab.put(core, "p1", "r1", 2)
    saved = legacy(core.snapshot())
    old = Kernel.restore(saved)
    assert [t.kind for t in old.timers.pending()].count(expiry.LEGACY_KIND) == 2
    for k in (core, old):
        lab.put(k, "p1", "r1")                            # a put after opening: the new way
        k.advance_to(850 + 180_000)
    assert held(old, "c1") == held(core, "c1") == {"s1": 0, "s2": 0}
    assert lab.server_view(old, old.node("g1", "s2")).events_expired == 5
    assert comparable(old) == comparable(core)


# ---------------------------------------------------------------- against one timer per put
def comparable(core: Kernel) -> str:
    """The kernel's snapshot without the timers and bookkeeping of expiry."""
    snap = json.loads(json.dumps(core.snapshot()))
    snap["timers"] = [t for t in snap["timers"]["timers"] if t[4] not in (expiry.KIND, expiry.LEGACY_KIND)]
    for g in snap["groups"]:
        g[4].pop("expiry", None)
    return json.dumps(snap, sort_keys=True)


def one_timer_per_put(core: Kernel, group: str, due_ms: int) -> None:
    """The reference, the way before: each put that reaches a queue schedules its own timer."""
    core.timers.schedule(due_ms, group, "", expiry.LEGACY_KIND)


def never(core: Kernel, group: str, earliest_ms: int) -> None:
    """The reference arms nothing: its per-put timers run the expiry pass."""


STEP = st.one_of(
    st.tuples(st.just("put"), st.sampled_from(["p1", "c1", "d1"]), st.integers(1, 3)),
    st.tuples(st.just("advance"), st.sampled_from([100, 250, 500, 1000, 1000, 2000, 3000, 7000])),
    st.tuples(st.sampled_from(["kill", "hang", "restart", "restart", "replace"]), st.sampled_from(SERVERS)),
    st.tuples(st.sampled_from(["partition", "heal"])),
    st.tuples(st.just("close"), st.sampled_from(["c1", "c2", "d1"]), st.booleans()),
    st.tuples(st.just("connect"), st.sampled_from(["c1", "c2", "d1"]), st.sampled_from([None, -1, 0, 1, 2])),
    st.tuples(st.just("ready")),
    st.tuples(st.just("drop_qrm"), st.sampled_from(SERVERS), st.sampled_from(SERVERS)),
)


def apply(core: Kernel, step: tuple[Any, ...]) -> str:
    kind, *args = step
    try:
        if kind == "put":
            return repr(lab.put(core, args[0], "r1", args[1]))
        if kind == "advance":
            core.advance_to(core.now_ms + args[0])
            return repr(lab.cluster_view(core, "g1"))
        if kind in ("kill", "hang", "restart", "replace"):
            return repr(getattr(lab, kind)(core, args[0]))
        if kind in ("partition", "heal"):
            return repr(getattr(lab, kind)(core, "g1"))
        if kind == "close":
            return repr(lab.disconnect(core, args[0], keepalive=args[1]))
        if kind == "connect":
            return repr(lab.connect(core, args[0], None if args[1] is None else {"subscription_redundancy": args[1]}))
        if kind == "ready":
            return repr(lab.ready(core, "d1"))
        return repr(lab.drop_qrm(core, args[0], args[1]))
    except EngineError as e:
        return f"refused {e}"


@settings(max_examples=60, deadline=None,
          suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture])
@given(st.lists(STEP, min_size=1, max_size=60), st.sampled_from([1, 2, 3, 180]), st.sampled_from([5, 300]))
def test_expiry_runs_as_one_timer_per_put_did(monkeypatch: Any, steps: list[tuple[Any, ...]], ttl_s: int,
                                             durable_s: int) -> None:
    fast, reference = cluster(ttl_s, durable_s), cluster(ttl_s, durable_s)
    for step in [*steps, ("advance", 400_000)]:
        out = apply(fast, step)
        with monkeypatch.context() as m:
            m.setattr(expiry, "reserve", one_timer_per_put)
            m.setattr(expiry, "note", never)
            assert apply(reference, step) == out, step
    assert comparable(fast) == comparable(reference)
