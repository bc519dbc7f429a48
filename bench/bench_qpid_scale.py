"""Qpid HA at scale, in one run: publishing 1,000,000 messages to a replicated queue in one
command (target <= 2 s), and a command's cost with 1,000,000 messages held against its cost with
none (target: independent of the messages held, a ratio near 1).

Usage: PYTHONPATH=. python bench/bench_qpid_scale.py
"""

from __future__ import annotations

import time
from typing import Any

from state_store.kernel import Kernel, ops
from state_store.qpid.scenario import build

MILLION = 1_000_000


def cluster() -> Kernel:
    core = Kernel()
    build(core, {"clusters": [{"name": "c1", "brokers": ["b1", "b2", "b3"], "ha_replicate": "all",
                               "start": ["b1", "b2", "b3"], "queues": [{"name": "q1"}],
                               "clients": [{"name": "s", "hosts": ["b1"]}, {"name": "r", "hosts": ["b1"]}]}]})
    ops.run(core, "qpid.promote", "b1")
    core.advance_to(core.now_ms + 3000)
    ops.run(core, "qpid.connect", "s", ["b1"])
    ops.run(core, "qpid.connect", "r", ["b1"])
    return core


def timed(fn: Any) -> float:
    start = time.perf_counter()
    fn()
    return time.perf_counter() - start


def command_cost(core: Kernel, rounds: int = 200) -> float:
    """One round: publish 10, consume 10, advance 1 s, audit (typical drill commands)."""
    def one() -> None:
        ops.run(core, "qpid.publish", "s", "q1", 10, True)
        ops.run(core, "qpid.consume", "r", "q1", 10, True)
        core.advance_to(core.now_ms + 1000)
        core.audit("c1")
    return min(timed(one) for _ in range(rounds))


def main() -> None:
    core = cluster()
    seconds = timed(lambda: ops.run(core, "qpid.publish", "s", "q1", MILLION, True))
    held = cluster()
    ops.run(held, "qpid.publish", "s", "q1", MILLION, True)
    empty = cluster()
    with_none, with_million = command_cost(empty), command_cost(held)
    print(f"publish {MILLION} to a replicated queue: {seconds * 1e3:.2f} ms ({seconds / 2.0:.5f} of the 2 s target)")
    print(f"command cost, {MILLION} held / none held: {with_million / with_none:.2f}x "
          f"({with_million * 1e3:.3f} ms / {with_none * 1e3:.3f} ms)")


if __name__ == "__main__":
    main()
