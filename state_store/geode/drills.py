"""Randomized Geode drills for `solace-conformance generate --system geode` (pure planning).

Why data here: the drill generator knows no HA system; a system that offers drills gives its model
a `plan_drill(seed, index)` (state_store.kernel.plugin.SystemModel) returning the kind, the
mistake, the (target, command) steps and the bundled scenario they run on. Each drill here takes
the bundled `geode-ha` cluster through one of the behaviours of Geode's client subscription
queues, with random counts and timings, then shows the clients' counters, gfsh's view of a client
and the audit; recording it from the engine makes it a golden transcript (spark_jobs.generate).
"""

from __future__ import annotations

import random

SCENARIO = "geode-ha"
COMMENT = "#"   # a step with this target is a comment line of the transcript
Step = tuple[str, str]
LAB, GFSH = "lab", "geode"
KINDS = ("primary-failover", "secondary-loss", "hung-primary", "orphans", "durable-away", "r0-reinit",
         "sync-interval")
SERVERS = ("g1.s1", "g1.s2", "g1.s3")
C1_ID = "192.0.2.0(4987:loner):58922:5ed72aa1"   # client c1's id in the bundled scenario


def _put(rng: random.Random, steps: list[Step]) -> None:
    steps.append((LAB, f"geode put p1 r1 count {rng.randint(1, 5000)}"))


def _wait(rng: random.Random, steps: list[Step], lo_ms: int = 50, hi_ms: int = 1500) -> None:
    steps.append((LAB, f"advance {rng.randint(lo_ms, hi_ms)}ms"))


def plan_drill(seed: int, index: int) -> tuple[str, str | None, tuple[Step, ...], str]:
    """Drill `index` of `seed`: deterministic, independent of every other drill."""
    rng = random.Random(f"geode:{seed}:{index}")
    kind = KINDS[index % len(KINDS)] if index < len(KINDS) else rng.choice(KINDS)
    steps: list[Step] = [(COMMENT, f"Geode {kind} drill (seed {seed}, #{index})")]
    for _ in range(rng.randint(1, 3)):
        _put(rng, steps)
        _wait(rng, steps)
    if kind == "primary-failover":
        steps += [(LAB, "ha kill g1.s1")]
        _wait(rng, steps, 100, 12000)
        if rng.random() < 0.5:
            steps += [(LAB, "ha start g1.s1")]
            _wait(rng, steps, 100, 12000)
    elif kind == "secondary-loss":
        steps += [(LAB, "ha kill g1.s2")]
        _put(rng, steps)
        _wait(rng, steps)
    elif kind == "hung-primary":
        steps += [(LAB, "ha hang g1.s1")]
        _put(rng, steps)
        _wait(rng, steps, 5000, 15000)
    elif kind == "orphans":
        steps += [(LAB, "geode close c1"), (LAB, "geode connect c1 redundancy 2")]
        _put(rng, steps)
        steps += [(LAB, "geode drop-qrm g1.s1 g1.s3")]
        _wait(rng, steps, 1000, 2000)
        steps += [(LAB, "ha kill g1.s1")]
        _wait(rng, steps, 1000, 200000)
    elif kind == "durable-away":
        steps += [(LAB, "geode close d1 keepalive")]
        _put(rng, steps)
        _wait(rng, steps, 1000, 400000)
        if rng.random() < 0.4:
            steps += [(LAB, f"ha kill {rng.choice(SERVERS)}")]
        steps += [(LAB, "geode connect d1"), (LAB, "geode ready d1")]
        _wait(rng, steps)
    elif kind == "r0-reinit":
        steps += [(LAB, "ha kill g1.s3")]
        _put(rng, steps)
        _wait(rng, steps)
    else:   # sync-interval
        steps += [(GFSH, f"alter runtime --message-sync-interval={rng.randint(1, 5)}")]
        _put(rng, steps)
        _wait(rng, steps, 100, 6000)
        steps += [(LAB, "ha kill g1.s1")]
        _wait(rng, steps)
    steps += [(LAB, f"geode stats {c}") for c in ("c1", "c2", "d1")]
    steps += [(GFSH, f"describe client --clientID={C1_ID}"), (LAB, "geode state g1"), (LAB, "geode audit g1")]
    return kind, None, tuple(steps), SCENARIO
