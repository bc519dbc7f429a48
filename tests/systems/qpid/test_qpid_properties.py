"""Properties of the Qpid model under random operation sequences (one primary at a time: the
resource manager on, no partitions): every audit finding is one the product documents (no
acknowledged message lost), and duplicates come only from in-doubt resends."""

from __future__ import annotations

from typing import Any

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from state_store.errors import EngineError
from state_store.kernel import Kernel, ops
from state_store.qpid.scenario import build

BROKERS = ("b1", "b2", "b3")
OPS = st.one_of(
    st.tuples(st.just("kill"), st.sampled_from(BROKERS)),
    st.tuples(st.just("start"), st.sampled_from(BROKERS)),
    st.tuples(st.just("hang"), st.sampled_from(BROKERS)),
    st.tuples(st.just("publish"), st.integers(1, 50), st.booleans()),
    st.tuples(st.just("consume"), st.integers(1, 50), st.booleans()),
    st.tuples(st.just("advance"), st.sampled_from((100, 1000, 3000, 30_000, 300_000))),
)


def lab() -> Kernel:
    core = Kernel()
    build(core, {"clusters": [{"name": "c1", "brokers": list(BROKERS), "ha_replicate": "all", "start": list(BROKERS),
                               "manager": "on", "link_heartbeat_interval_ms": 5000,
                               "queues": [{"name": "q1", "durable": True}],
                               "clients": [{"name": c, "hosts": list(BROKERS)} for c in ("s", "r")]}]})
    core.advance_to(5000)
    return core


def apply(core: Kernel, op: tuple[Any, ...]) -> None:
    try:
        if op[0] in ("kill", "start", "hang"):
            ops.run(core, "qpid.restart" if op[0] == "start" else f"qpid.{op[0]}", f"c1.{op[1]}")
        elif op[0] == "publish":
            ops.run(core, "qpid.publish", "s", "q1", op[1], op[2])
        elif op[0] == "consume":
            ops.run(core, "qpid.consume", "r", "q1", op[1], op[2])
        else:
            core.advance_to(core.now_ms + op[1])
    except EngineError:
        pass    # refused: nothing changed


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(OPS, max_size=25))
def test_every_finding_is_documented_when_one_manager_decides(sequence: list[tuple[Any, ...]]) -> None:
    core = lab()
    for op in sequence:
        apply(core, op)
    core.advance_to(core.now_ms + 1000)
    _, findings = core.audit("c1")
    assert all(f.allowed for f in findings), [(f.outcome, f.reason, f.count) for f in findings]
