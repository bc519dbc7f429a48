"""The contract behind dropping refused calls from the journal: a journaled Engine call that raises
EngineError has changed nothing.

Why it matters: ``state_store.journal`` records no top-level call that raised EngineError, so a
command whose only call was refused needs no rollback, and the journal (a lab file's rows, the
calls a rollback replays) never holds a refused call. Both are right only if the refusal left the
state exactly as it found it. Checked here by wrapping every journaled Engine method: the pickled
state before and after each top-level call that raised must be the same, over the golden
transcripts, generated drills and seeded hostile sequences of Engine calls; and the calls a lab
kept, replayed on the state it started from, must give the state it has.
"""

from __future__ import annotations

import functools
import pickle
import random
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

from solace_shell.transcript.replay import replay_file
from spark_jobs.generate import generate
from state_store.errors import EngineError, PartialRefusal
from state_store.journal import CallRecord
from state_store.lab_root.codec import state_text
from state_store.lab_root.engine import RootEngine
from state_store.lab_store import LabStore, replay_calls
from state_store.solace.broker_state import BrokerState
from state_store.solace.engine import Engine
from tests.support.router_engine import owner_of, router_engine

ROOT = Path(__file__).resolve().parents[2]
NY, NJ, VPN, RQ = "NY_Appliance1", "NJ_Appliance1", "Trading_VPN", "#MSGVPN_REPLICATION_DATA_QUEUE"
X1, X2 = "0021ABC4-00-01", "0021ABC4-00-02"


def _image(st: BrokerState) -> bytes:
    """Everything the state holds but the current command's work log (the journal itself)."""
    return pickle.dumps({k: v for k, v in vars(st).items() if k != "work"}, pickle.HIGHEST_PROTOCOL)


def _journaled_names() -> list[tuple[type, str]]:
    """Every journaled method: the Solace engine's and the lab's root engine's."""
    return [(cls, n) for cls in (Engine, RootEngine) for n, fn in vars(cls).items()
            if getattr(fn, "__journaled__", False)]


class Refusals:
    """Counts the refused top-level calls seen and lists those that changed the state."""

    def __init__(self) -> None:
        self.seen = 0
        self.partial = 0  # PartialRefusal: refused after changing the state, so it keeps its record
        self.dirty: list[str] = []


@pytest.fixture
def refusals(monkeypatch: pytest.MonkeyPatch) -> Iterator[Refusals]:
    found = Refusals()

    def checked(name: str, fn: Callable[..., Any]) -> Callable[..., Any]:
        @functools.wraps(fn)
        def wrapper(self: Engine, *args: Any, **kwargs: Any) -> Any:
            work = self.state.work
            if work.depth:
                return fn(self, *args, **kwargs)
            before, n_calls = _image(self.state), len(work.calls)
            try:
                return fn(self, *args, **kwargs)
            except PartialRefusal:
                found.partial += 1
                assert len(work.calls) == n_calls + 1, f"{name}: a partial refusal keeps its record"
                raise
            except EngineError as exc:
                found.seen += 1
                if _image(self.state) != before:
                    found.dirty.append(f"{name}{args!r} -> {exc!r}")
                assert len(work.calls) == n_calls, f"refused {name} left a journal record"
                raise

        return wrapper

    for cls, name in _journaled_names():
        monkeypatch.setattr(cls, name, checked(name, getattr(cls, name)))
    yield found


def test_every_journaled_method_is_checked():
    names = {name for _, name in _journaled_names()}
    assert {"publish", "consume", "advance", "tx_local_commit", "tx_xa_commit"} <= names


def test_golden_transcripts(refusals: Refusals):
    files = sorted((ROOT / "transcripts").rglob("*.txt"))
    assert files
    for f in files:
        replay_file(f)
    assert refusals.seen > 0 and refusals.dirty == []


def test_generated_drills(refusals: Refusals, tmp_path: Path):
    for seed in (3, 8):
        out = tmp_path / str(seed)
        for name in generate(count=40, seed=seed, out=out, jobs=1):
            if name.endswith(".txt"):
                replay_file(out / name)
    assert refusals.seen > 0 and refusals.dirty == []


# ------------------------------------------------------------------ hostile sequences
CLIENTS = ["trader", "settlement", "nobody"]
ROUTERS = [NY, NJ, "XX_Unknown"]
XIDS = [X1, X2, "bad-xid"]


def _calls(rnd: random.Random) -> tuple[str, tuple[Any, ...]]:
    """One Engine call with arguments a careless or hostile operator could give."""
    c, r, x = rnd.choice(CLIENTS), rnd.choice(ROUTERS), rnd.choice(XIDS)
    site = rnd.choice(["NY", "NJ", "XX"])
    options: list[tuple[str, tuple[Any, ...]]] = [
        ("advance", (rnd.choice([0, 400, 1000, 3000, -1]),)),
        ("publish", (c, rnd.choice(["trading/orders/new", "other/x", "bad//"]), rnd.choice([1, 3, 0]))),
        ("consume", (c, rnd.choice(["orders", "nosuch", RQ]), rnd.choice([1, 2, 5]))),
        ("tx_local_start", (c,)), ("tx_local_commit", (c,)), ("tx_local_rollback", (c,)),
        ("tx_xa_start", (c, x)), ("tx_xa_end", (c, x)), ("tx_xa_suspend", (c, x)),
        ("tx_xa_resume", (c, x)), ("tx_xa_prepare", (c, x)), ("tx_xa_rollback", (c, x)),
        ("tx_xa_commit", (c, x, rnd.random() < 0.5)),
        ("heuristic_commit", (r, VPN, rnd.choice(["*", X1]))),
        ("heuristic_rollback", (r, VPN, rnd.choice(["*", X2]))),
        ("heuristic_delete", (r, VPN, "*")),
        ("fail_site", (site,)), ("restore_site", (site,)), ("replace_site", (site,)),
        ("fail_link", ()), ("restore_link", ()),
        ("set_replication_role", (r, VPN, rnd.choice(["active", "standby", "bogus"]))),
        ("set_replication_enabled", (r, VPN, rnd.random() < 0.5)),
        ("set_client_running", (c, rnd.random() < 0.6)),
        ("disconnect_client", (r, VPN, c)),
        ("set_queue_shutdown", (r, VPN, rnd.choice(["orders", RQ]), rnd.random() < 0.3)),
        ("set_vpn_max_spool", (r, VPN, rnd.choice([0, None]))),
        ("delete_messages", (r, VPN, rnd.choice(["orders", "nosuch"]))),
        ("create_queue", (r, VPN, rnd.choice(["orders", "q2"]))),
        ("add_queue_subscription", (r, VPN, "q2", "trading/>")),
        ("delete_queue", (r, VPN, rnd.choice(["q2", "orders"]))),
    ]
    return rnd.choice(options)


def _run_sequence(seed: int, commands: int) -> bool:
    """Run a seeded sequence of commands; True if the calls the lab kept reproduce its state."""
    rnd = random.Random(seed)
    lab = LabStore.in_memory()
    start = pickle.dumps(lab.state, pickle.HIGHEST_PROTOCOL)
    kept: list[CallRecord] = []

    def command(calls: list[tuple[str, tuple[Any, ...]]], go_on: bool) -> Callable[[Engine], None]:
        def work(e: Engine) -> None:
            for name, args in calls:
                try:
                    getattr(owner_of(e, name), name)(*args)
                except EngineError:
                    if not go_on:  # the refusal ends the command: the store puts the state back
                        raise
            kept.extend(e.state.work.calls)

        return work

    for _ in range(commands):
        calls = [_calls(rnd) for _ in range(rnd.choice([1, 1, 2, 3]))]
        try:
            lab.run(command(calls, go_on=rnd.random() < 0.5))
        except EngineError:
            pass
    replayed: BrokerState = pickle.loads(start)
    replay_calls(replayed, kept)
    same = state_text(replayed) == state_text(lab.state)  # (pickles may share strings differently)
    lab.close()
    return same


@pytest.mark.parametrize("seed", range(12))
def test_hostile_sequences(refusals: Refusals, seed: int):
    reproduced = _run_sequence(seed, 150)
    assert refusals.seen > 0 and refusals.dirty == []
    assert reproduced, "the calls the lab kept do not reproduce its state"


def test_a_commit_refused_midway_keeps_its_record_and_rolls_back():
    """The one refusal found only after changing the state: the quotas refuse a transaction's
    publish at commit. It keeps its journal record, so the store puts the state back."""
    lab = LabStore.in_memory()
    with lab.transaction() as e:
        router_engine(e).tx_local_start("trader")
        router_engine(e).publish("trader", "trading/orders/new", 2)
        router_engine(e).set_vpn_max_spool(NY, VPN, 0)
    before = state_text(lab.state)

    def commit(e: Engine) -> None:
        try:
            router_engine(e).tx_local_commit("trader")
        finally:
            assert [c.name for c in e.state.work.calls] == ["solace.tx_local_commit"]

    with pytest.raises(PartialRefusal) as refused:
        lab.run(commit)
    assert refused.value.code == "transaction_commit_rejected"
    assert state_text(lab.state) == before
    lab.close()
