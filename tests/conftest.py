"""Shared fixtures: a fresh in-memory default lab per test (copied from a cached template)."""

from __future__ import annotations

import pytest


@pytest.fixture
def lab():
    from solace_shell.lab import Lab

    lab = Lab.fresh()
    yield lab
    lab.close()


@pytest.fixture
def ny(lab):
    return lab.session("NY_Appliance1")


@pytest.fixture
def nj(lab):
    return lab.session("NJ_Appliance1")


@pytest.fixture(autouse=True)
def _no_login_delay(monkeypatch):
    """A failed login pauses (solace_shell.cli); tests that fail logins on purpose need no pause."""
    monkeypatch.setenv("SOLACE_SHELL_LOGIN_DELAY", "0")
