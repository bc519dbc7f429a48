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
