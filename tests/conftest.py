"""Shared fixtures: a fresh in-memory default lab per test (copied from a cached template)."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from solace_shell.lab import Lab
from solace_shell.results import Outcome
from solace_shell.session import Session


@pytest.fixture
def lab() -> Iterator[Lab]:
    """A fresh real lab (the default two-site scenario, in memory)."""
    lab = Lab.fresh()
    yield lab
    lab.close()


@pytest.fixture
def ny(lab: Lab) -> Session:
    return lab.session("NY_Appliance1")


@pytest.fixture
def nj(lab: Lab) -> Session:
    return lab.session("NJ_Appliance1")


@pytest.fixture(autouse=True)
def _no_login_delay(monkeypatch):
    """A failed login pauses (solace_shell.cli); tests that fail logins on purpose need no pause."""
    monkeypatch.setenv("SOLACE_SHELL_LOGIN_DELAY", "0")
@pytest.fixture
def executed(monkeypatch: pytest.MonkeyPatch) -> list[tuple[str, str]]:
    """Every (target, line) any lab runs during the test, in order (the real `Lab.execute` still runs)."""
    calls: list[tuple[str, str]] = []
    real_execute = Lab.execute

    def execute(self: Lab, target: str, line: str) -> Outcome:
        calls.append((target, line))
        return real_execute(self, target, line)

    monkeypatch.setattr(Lab, "execute", execute)
    return calls


_SLOW_MODULES = frozenset({"test_crash_and_concurrency", "test_personality_concurrency"})
_PTY_WORDS = ("drive(", "pexpect", "spawn(")
_pty_cache: dict[object, bool] = {}


def _drives_a_terminal(fn: object) -> bool:
    found = _pty_cache.get(fn)
    if found is None:
        import inspect

        try:
            source = inspect.getsource(fn)  # type: ignore[arg-type]
        except (OSError, TypeError):
            source = ""
        found = _pty_cache[fn] = any(word in source for word in _PTY_WORDS)
    return found


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    """The markers of setup.cfg: spark and ssh by module, slow for the child-process races and
    kills, pty for a test that drives the shell through a terminal."""
    for item in items:
        module = getattr(getattr(item, "module", None), "__name__", "").rsplit(".", 1)[-1]
        if module.startswith("test_spark_"):
            item.add_marker(pytest.mark.spark)
        if module.startswith("test_ssh_"):
            item.add_marker(pytest.mark.ssh)
        if module in _SLOW_MODULES or "sigkill" in item.name:
            item.add_marker(pytest.mark.slow)
        fn = getattr(item, "function", None)
        if fn is not None and _drives_a_terminal(fn):
            item.add_marker(pytest.mark.pty)
