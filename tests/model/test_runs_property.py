"""Runs of identical messages change no observable result.

The engine stores a publish of N messages as runs (one ledger record, one copy per queue, one
stream entry: ``state_store.kernel.runs``) and splits them when part of a run is consumed, drained,
locked, deleted or noted. Two references run the same random walk:
- every run cut into runs of one message after each step: the same calls on a state holding no
  run longer than one must give exactly the same answers, refusals, audit, listings, counters;
- every publish of N made as N publishes of one message (the per-message model itself): the same,
  but for the high-water marks (N messages arriving at once peak higher than one at a time
  drained in between). Only without sync replicated topics: a sync publish drains the stream at
  once, topic by topic, so one publish of N and N publishes of one spool a standby queue in
  different orders (as the broker's batches do).
A third lab folds its settled messages (``state_store.solace.settle``) at the end of every publish and
consumption and after every step, while the references never fold: folding must change no answer,
no audit (whole, per VPN, limited), no listing."""

from __future__ import annotations

import dataclasses
from collections.abc import Callable
from contextlib import AbstractContextManager, ExitStack
from functools import partial
from typing import Any
from unittest.mock import patch

from hypothesis import HealthCheck, event, given, settings
from hypothesis import strategies as st

from state_store.errors import EngineError
from state_store.lab_root.engine import RootEngine
from state_store.lab_store import LabStore
from state_store.solace import settle
from state_store.solace.engine import Engine
from tests.support.router_engine import router_engine, router_section

NY, NJ, VPN = "NY_Appliance1", "NJ_Appliance1", "Trading_VPN"
RQ = "#MSGVPN_REPLICATION_DATA_QUEUE"
CLIENTS = ("trader", "settlement")
TOPICS = ("trading/orders/new", "trading/fx/spot", "other/x")
QUEUES = ("orders", "audit", RQ)
SIZES = (600, 150_000)

client = st.sampled_from(CLIENTS)
router = st.sampled_from((NY, NJ))
publish = st.tuples(st.just("publish"), client, st.sampled_from(TOPICS), st.integers(1, 25), st.sampled_from(SIZES))
consume = st.tuples(st.just("consume"), client, st.sampled_from(("orders", "audit")), st.integers(1, 30))
advance = st.tuples(st.just("advance"), st.sampled_from((0, 7, 60, 400, 1500)))
others = (
    st.tuples(st.just("tx"), client, st.sampled_from(("start", "commit", "rollback"))),
    st.tuples(st.just("xa"), client, st.sampled_from(("start", "end", "prepare", "commit", "rollback"))),
    st.tuples(st.just("heuristic"), router, st.sampled_from(("commit", "rollback", "delete"))),
    st.tuples(st.just("site"), st.sampled_from(("fail", "restore", "replace")), st.sampled_from(("NY", "NJ"))),
    st.tuples(st.just("link"), st.sampled_from(("fail", "restore"))),
    st.tuples(st.just("role"), router, st.sampled_from(("active", "standby"))),
    st.tuples(st.just("delete"), router, st.sampled_from(QUEUES), st.integers(0, 40), st.integers(0, 6)),
    st.tuples(st.just("ackint"), st.sampled_from((1, 3, 20))),
)
step = st.one_of(publish, consume, advance, *others)
# mostly traffic that ends well (so that much gets folded), with every failure and transaction among it
consume_both = st.tuples(st.just("consume-both"), client, st.integers(1, 60))
busy = st.one_of(publish, consume_both, advance, publish, consume_both, advance, publish, consume, advance, *others)


def _setup(e: Engine, sync: bool) -> None:
    router_engine(e).create_queue(NY, VPN, "audit")
    router_engine(e).add_queue_subscription(NY, VPN, "audit", "trading/>")
    router_engine(e).set_queue_shutdown(NY, VPN, "audit", False)
    router_engine(e).set_queue_option(NY, VPN, "audit", "max-spool-usage", 1)  # a few big messages fill it
    if sync:
        router_engine(e).create_replicated_topic(NY, VPN, "trading/fx/>", "sync")


def _msg_id_base(e: Engine, r: str, queue: str) -> int | None:
    msgs = router_engine(e).queue_messages(r, VPN, queue, limit=1)
    return msgs[0].msg_id if msgs else None


def _apply(e: Engine, s: tuple[Any, ...], split: bool) -> Any:
    kind = s[0]
    if kind == "publish":
        _, c, topic, n, size = s
        if not split:
            res = router_engine(e).publish(c, topic, count=n, size=size)
            return (res.accepted, res.rejected, res.replicated, res.not_replicated, res.queues,
                    res.first_rgmid, res.last_rgmid, res.transacted)
        parts = [router_engine(e).publish(c, topic, count=1, size=size) for _ in range(n)]
        rgmids = [p.first_rgmid for p in parts if p.first_rgmid is not None]
        return (sum(p.accepted for p in parts), sum(p.rejected for p in parts),
                sum(p.replicated for p in parts), sum(p.not_replicated for p in parts),
                tuple(sorted({q for p in parts for q in p.queues})),
                min(rgmids, default=None), max(rgmids, default=None), parts[0].transacted)
    if kind == "consume":
        return router_engine(e).consume(s[1], s[2], s[3])
    if kind == "consume-both":
        return [_run_inner(router_engine(e).consume, s[1], q, s[2]) for q in ("orders", "audit")]
    if kind == "tx":
        getattr(router_engine(e), f"tx_local_{s[2]}")(s[1])
        return None
    if kind == "xa":
        xid = "0021ABC4-00-01"
        if s[2] == "commit":
            router_engine(e).tx_xa_commit(s[1], xid, one_phase=True)
        else:
            getattr(router_engine(e), f"tx_xa_{s[2]}")(s[1], xid)
        return None
    if kind == "heuristic":
        return getattr(router_engine(e), f"heuristic_{s[2]}")(s[1], VPN, "*")
    if kind == "advance":
        return e.advance(s[1])
    if kind == "site":
        getattr(router_engine(e), f"{s[1]}_site")(s[2])
        return None
    if kind == "link":
        getattr(router_engine(e), f"{s[1]}_link")()
        return None
    if kind == "role":
        router_engine(e).set_replication_role(s[1], VPN, s[2])
        return None
    if kind == "delete":
        _, r, queue, offset, width = s
        base = _msg_id_base(e, r, queue)
        if base is None or width == 0:
            return router_engine(e).delete_messages(r, VPN, queue)
        return router_engine(e).delete_messages(r, VPN, queue, base + offset, base + offset + width - 1)
    if kind == "ackint":
        router_engine(e).set_replication_option(NY, VPN, "ack-propagation-interval", s[1])
        router_engine(e).set_replication_option(NJ, VPN, "ack-propagation-interval", s[1])
        return None
    raise AssertionError(kind)


def _run_inner(fn: Callable[..., Any], *args: Any) -> Any:
    """One call of a step made of several: its answer or refusal (the step goes on)."""
    try:
        return ("ok", fn(*args))
    except EngineError as exc:
        return ("error", exc.code, exc.params)


def _run(store: LabStore, fn: Callable[[Engine], Any]) -> Any:
    try:
        with store.transaction() as e:
            return ("ok", fn(e))
    except EngineError as exc:
        return ("error", exc.code, exc.params)


def _observe(root: RootEngine) -> dict[str, Any]:
    e = router_engine(root)
    out: dict[str, Any] = {"audit": e.audit(limit=-1), "status": e.status(), "vpn": e.audit(VPN, limit=-1),
                           "limited": (e.audit(limit=2), e.audit(VPN, limit=1), e.audit("Other_VPN"))}
    for r in (NY, NJ):
        try:
            out[r] = (e.queues(r, "*", "*"), e.message_spool(r), e.replication_stats(r), e.transactions(r),
                      [e.queue_messages(r, VPN, q, limit=10_000) for q in QUEUES],
                      [e.queue_messages(r, VPN, q, newest=True, limit=3) for q in QUEUES],
                      e.vpn_replication(r))
        except EngineError as exc:
            out[r] = exc.code
    return out


def folding(always: bool) -> AbstractContextManager[Any]:
    """Sweeps at the end of every publish and consumption (``always``), or never."""
    stack = ExitStack()
    mark = 0 if always else 1 << 60
    stack.enter_context(patch.object(settle, "FOLD_MIN", mark))
    stack.enter_context(patch.object(settle, "next_mark", lambda size: mark))
    return stack


def _run_folded(store: LabStore, fn: Callable[[Engine], Any]) -> Any:
    with folding(True):
        got = _run(store, fn)
    settle.fold_settled(router_section(store.state))  # and between commands
    return got


def _explode(store: LabStore) -> None:
    """Cut every run of the lab into runs of one message."""
    st = router_section(store.state)
    for kind in ("messages", "spooled", "repl_entries"):
        for rec in list(st.records(kind).values()):
            while rec.count > 1:
                rec = st.split(rec, 1)


def _no_hwm(value: Any) -> Any:
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        return {f.name: _no_hwm(getattr(value, f.name)) for f in dataclasses.fields(value) if f.name != "hwm_mb"}
    if isinstance(value, (list, tuple)):
        return [_no_hwm(v) for v in value]
    if isinstance(value, dict):
        return {k: _no_hwm(v) for k, v in value.items()}
    return value


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(step, min_size=1, max_size=30), st.booleans())
def test_runs_give_the_results_of_single_messages(steps: list[tuple[Any, ...]], sync: bool) -> None:
    _walk(steps, sync)


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(busy, min_size=10, max_size=40), st.booleans())
def test_folding_settled_messages_changes_no_answer(steps: list[tuple[Any, ...]], sync: bool) -> None:
    _walk(steps, sync)


def _walk(steps: list[tuple[Any, ...]], sync: bool) -> None:
    runs, cut, singles, folded = (LabStore.in_memory(), LabStore.in_memory(), LabStore.in_memory(),
                                  LabStore.in_memory())
    try:
        for store in (runs, cut, singles, folded):
            assert _run(store, partial(_setup, sync=sync))[0] == "ok"
        for s in steps:
            whole: Callable[[Engine], Any] = partial(_apply, s=s, split=False)
            split: Callable[[Engine], Any] = partial(_apply, s=s, split=True)
            with folding(False):
                got = _run(runs, whole)
                assert got == _run(cut, whole), s
                _explode(cut)
                if not sync:
                    assert _no_hwm(got) == _no_hwm(_run(singles, split)), s
            assert got == _run_folded(folded, whole), s
            with folding(False):
                assert _run(runs, _observe) == _run(folded, _observe), s
        assert not any(router_section(lab.state).settled for lab in (runs, cut, singles))
        event("some messages folded" if router_section(folded.state).settled else "nothing folded")
        with folding(False):
            seen = _run(runs, _observe)
            assert seen == _run(cut, _observe)
            if not sync:
                assert _no_hwm(seen) == _no_hwm(_run(singles, _observe))
    finally:
        for store in (runs, cut, singles, folded):
            store.close()
