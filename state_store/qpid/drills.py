"""Randomised Qpid HA drills as data: ``plan_drill(seed, index)`` is a pure function giving the kind,
the operator mistake (or None) and the (target, command) steps of drill ``index`` of ``seed``, on
the bundled scenario ``qpid-ha``. The drill generator records them against the lab as golden
transcripts (targets: ``lab``, the broker shell ``qpid``, and ``#`` for a comment line).

Kinds (what operators of Qpid clusters practise):
- failover        promote the first primary, send in-doubt messages, lose the primary, promote a
                  ready backup; the client resends (duplicates allowed), nothing acknowledged lost.
- stalled-backup  a backup hangs: senders on a replicated queue wait 2 x link-heartbeat-interval.
- backup-timeout  two brokers die; the survivor recovers, waits ha-backup-timeout for its expected
                  backup, then goes active.
- whole-restart   every broker stops and restarts: nothing happens until one is promoted; it
                  recovers its store, the others wipe theirs.
- manager         the resource manager promotes by itself; misconfigured (split) it makes two
                  primaries after a partition.
Mistakes: promote without --cluster-manager, promote a broker still catching up, promote a second
broker while the primary lives, forget the resource manager (nothing promotes).
"""

from __future__ import annotations

import random

SCENARIO = "qpid-ha"
COMMENT = "#"
LAB = "lab"
SHELL = "qpid"
KINDS = ("failover", "stalled-backup", "backup-timeout", "whole-restart", "manager")
MISTAKES = {
    "failover": ("promote-without-flag", "promote-second-primary", "promote-catchup"),
    "stalled-backup": ("promote-without-flag",),
    "backup-timeout": ("promote-catchup",),
    "whole-restart": ("forgot-manager",),
    "manager": ("manager-split",),
}
MISTAKE_RATE = 0.4
BROKERS = ("b1", "b2", "b3")
Step = tuple[str, str]


def _promote(broker: str) -> Step:
    return SHELL, f"qpid-ha --cluster-manager promote -b {broker}"


def plan_drill(seed: int, index: int) -> tuple[str, str | None, tuple[Step, ...], str]:
    """(kind, mistake, steps, scenario) of drill ``index`` of ``seed``: deterministic, independent of
    every other drill."""
    rng = random.Random(f"qpid:{seed}:{index}")
    kind = KINDS[index % len(KINDS)] if index < len(KINDS) else rng.choice(KINDS)
    mistake = rng.choice(MISTAKES[kind]) if rng.random() < MISTAKE_RATE else None
    first, *rest = rng.sample(BROKERS, 3)
    second, third = rest
    steps: list[Step] = [(COMMENT, f"{kind} drill (seed {seed}, #{index})"
                          + (f"; operator mistake: {mistake}" if mistake else ""))]
    add = steps.append
    status_all = (SHELL, f"qpid-ha status --all -b {first}")
    if kind != "manager":
        if mistake == "promote-without-flag":
            add((SHELL, f"qpid-ha promote -b {first}"))
            add((SHELL, "echo $?"))
        add(_promote(first))
        add((LAB, "advance 3s"))
        add(status_all)
    if kind == "failover":
        count = rng.randint(1, 20)
        add((LAB, f"amqp connect s {second},{first},{third}"))
        add((LAB, f"amqp publish s q1 count {count} unsettled"))
        if mistake == "promote-second-primary":
            add(_promote(second))
            add(status_all)
        add((LAB, f"ha kill c1.{first}"))
        if mistake == "promote-catchup":
            add((LAB, f"ha kill c1.{third}"))
            add((LAB, f"ha start c1.{third}"))
            add((LAB, "advance 2s"))
            add(_promote(third))
            add((SHELL, "echo $?"))
        add(_promote(second))
        add((SHELL, f"qpid-ha status -b {second}"))
        add((LAB, "advance 3s"))
        add((SHELL, f"qpid-ha status --all -b {second}"))
        add((LAB, "amqp stats s"))
        add((LAB, f"amqp connect r {first},{second},{third}"))
        add((LAB, "amqp consume r q1 count 100"))
        add((LAB, "amqp stats r"))
    elif kind == "stalled-backup":
        add((LAB, f"amqp connect s {first}"))
        add((LAB, f"ha hang c1.{second}"))
        add((LAB, f"amqp publish s q1 count {rng.randint(1, 50)}"))
        add((LAB, "advance 239s"))
        add((LAB, "amqp stats s"))
        add((LAB, "advance 1s"))
        add((LAB, "amqp stats s"))
        add((LAB, f"qpid log c1.{first}"))
    elif kind == "backup-timeout":
        add((LAB, f"ha kill c1.{first}"))
        if mistake == "promote-catchup":
            add((LAB, f"ha kill c1.{third}"))
            add((LAB, f"ha start c1.{third}"))
            add((LAB, "advance 2s"))
            add(_promote(third))
            add((SHELL, "echo $?"))
        else:
            add((LAB, f"ha kill c1.{third}"))
        add(_promote(second))
        add((LAB, f"amqp connect s {first},{second},{third}"))
        add((LAB, "amqp publish s q1 count 1"))
        add((LAB, "advance 11s"))
        add((SHELL, f"qpid-ha status -b {second}"))
        add((LAB, "amqp stats s"))
        add((LAB, f"qpid log c1.{second}"))
    elif kind == "whole-restart":
        add((LAB, f"amqp connect s {first}"))
        add((LAB, f"amqp publish s q1 count {rng.randint(1, 30)}"))
        add((LAB, f"amqp publish s q2 count {rng.randint(1, 5)}"))
        order = rng.sample(BROKERS, 3)
        for b in BROKERS:
            add((LAB, f"ha kill c1.{b}"))
        for b in order:
            add((LAB, f"ha start c1.{b}"))
        if mistake != "forgot-manager":
            add((LAB, "qpid manager c1 on"))
        add((LAB, "advance 30s"))
        add((SHELL, f"qpid-ha status --all -b {order[0]}"))
        add(_promote(order[0]))
        add((LAB, "advance 3s"))
        add((SHELL, f"qpid-ha status --all -b {order[0]}"))
    else:   # manager
        add((LAB, "qpid manager c1 on"))
        add((LAB, "advance 4s"))
        add((LAB, "qpid state c1"))
        add((LAB, "amqp connect s b1,b2,b3"))
        add((LAB, f"amqp publish s q1 count {rng.randint(1, 30)}"))
        if mistake == "manager-split":
            add((LAB, "qpid manager c1 split"))
            add((LAB, "qpid isolate c1.b1"))
            add((LAB, "advance 1s"))
            add((SHELL, "qpid-ha status --all -b b2"))
            add((LAB, "amqp publish s q1 count 3"))
            add((LAB, "qpid rejoin c1.b1"))
        else:
            add((LAB, "ha kill c1.b1"))
            add((LAB, "advance 2s"))
        add((LAB, "qpid state c1"))
    add((LAB, "qpid audit c1"))
    return kind, mistake, tuple(steps), SCENARIO
