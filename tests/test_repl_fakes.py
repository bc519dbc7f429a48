"""A lab with the surface the REPL uses, built from the real grammar, parser and sessions over a
small fake engine (so the REPL is testable while the state engine is being finished), plus helpers
to drive the REPL in-process with a pipe input and DummyOutput.
"""

from __future__ import annotations

import io
from contextlib import contextmanager
from dataclasses import dataclass, field
from typing import Any, Callable, Iterator, TypeVar

import pytest
from prompt_toolkit.input import create_pipe_input
from prompt_toolkit.output import DummyOutput

from grammar import Parser, load_grammar
from solace_shell import handlers, renderers
from solace_shell.access import UserAccess
from solace_shell.results import Outcome
from solace_shell.session import Session
from state_store.errors import EngineError

T = TypeVar("T")

ROUTERS = ("NY_Appliance1", "NJ_Appliance1")


@dataclass
class FakeEngine:
    vpns: dict[str, list[str]] = field(default_factory=lambda: {
        "NY_Appliance1": ["Trading_VPN", "Treasury_VPN", "default"],
        "NJ_Appliance1": ["Trading_VPN", "default"],
    })
    queues: dict[tuple[str, str], list[str]] = field(default_factory=lambda: {
        ("NY_Appliance1", "Trading_VPN"): ["orders", "orders-dlq", "trades"],
    })
    now: int = 5000
    fail: bool = False

    def vpn_names(self, router: str) -> list[str]:
        if self.fail:
            raise EngineError("router_down", router=router)
        return list(self.vpns.get(router, []))

    def queue_names(self, router: str, vpn: str) -> list[str]:
        return list(self.queues.get((router, vpn), []))

    def require_vpn(self, router: str, vpn: str) -> None:
        if vpn not in self.vpns.get(router, []):
            raise EngineError("vpn_not_found", vpn=vpn)

    def now_ms(self) -> int:
        return self.now


class FakeStore:
    def __init__(self) -> None:
        self.engine = FakeEngine()
        self.transactions = 0

    @contextmanager
    def transaction(self) -> Iterator[FakeEngine]:
        self.transactions += 1
        yield self.engine

    def run(self, work: Callable[[FakeEngine], T], *, max_wait_s: float | None = None) -> T:
        """`LabStore.run`: the work in one transaction (a fake engine is never busy)."""
        with self.transaction() as engine:
            return work(engine)


class FakeLab:
    """`Lab`'s REPL surface: grammar, parser, store, routers(), targets(), target(), execute()."""

    def __init__(self) -> None:
        self.grammar = load_grammar(handlers=handlers.load_all().keys())
        renderers.load_all()
        self.parser = Parser(self.grammar)
        self.store = FakeStore()
        self.user = UserAccess("admin", "admin", "read-write")
        self.console = Session(self, host="lab", router=None, start_mode="lab", user=self.user)
        self._sessions: dict[str, Session] = {}
        self.executed: list[tuple[str, str]] = []

    def routers(self) -> list[str]:
        return list(ROUTERS)

    def targets(self) -> list[str]:
        return [*ROUTERS, "lab"]

    def session(self, router: str) -> Session:
        if router not in self._sessions:
            self._sessions[router] = Session(self, host=router, router=router, start_mode="exec", user=self.user)
        return self._sessions[router]

    def target(self, name: str) -> Session:
        return self.console if name == "lab" else self.session(name)

    def execute(self, target: str, line: str) -> Any:
        self.executed.append((target, line))
        words = line.split()
        if target == "lab" and words[:1] == ["connect"] and len(words) == 2:   # the console, until it lands
            return Outcome("", True, "lab.connect", switch_to=words[1])
        if words[:1] == ["echo"]:
            return Outcome(line.partition("echo ")[2].replace("\\n", "\n"), True, "echo")
        return self.target(target).execute(line)


class ListRecorder:
    def __init__(self) -> None:
        self.records: list[tuple[str, str, str]] = []

    def record(self, prompt: str, command: str, output: str) -> None:
        self.records.append((prompt, command, output))


@pytest.fixture
def fake_lab() -> FakeLab:
    return FakeLab()


def drive(lab: Any, keys: str, start: str = "NY_Appliance1", **kwargs: Any) -> tuple[int, str]:
    """Run the REPL on `keys` (closing the input at the end = Ctrl-D); returns (exit code, stdout)."""
    from solace_shell.repl import run_repl

    out = io.StringIO()
    with create_pipe_input() as pipe:
        pipe.send_text(keys)
        pipe.close()
        kwargs.setdefault("history_path", None)
        code = run_repl(lab, start, input=pipe, output=DummyOutput(), stdout=out, **kwargs)
    return code, out.getvalue()


def test_fake_lab_runs_real_sessions(fake_lab: FakeLab) -> None:
    assert fake_lab.execute("NY_Appliance1", "enable").ok
    assert fake_lab.target("NY_Appliance1").prompt == "NY_Appliance1#"
    assert fake_lab.target("lab").prompt == "lab>"
