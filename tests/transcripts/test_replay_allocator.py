"""The C allocator's thresholds a replay raises (solace_shell.transcript.allocator)."""

from __future__ import annotations

import platform
import sys

import pytest

from solace_shell.transcript import allocator
from solace_shell.transcript.replay import paced_collection


@pytest.mark.skipif(not sys.platform.startswith("linux") or platform.libc_ver()[0] != "glibc",
                    reason="mallopt's thresholds are glibc's")
def test_a_replay_raises_the_thresholds_once_on_glibc(monkeypatch):
    monkeypatch.setattr(allocator, "_taken", None)  # as in a process that has not replayed yet
    with paced_collection():
        assert allocator._taken is True  # the block itself raised them, before any transcript
    assert allocator.raise_thresholds() is True  # once per process: the answer is kept


def test_elsewhere_nothing_is_set(monkeypatch):
    monkeypatch.setattr(allocator.sys, "platform", "darwin")
    assert allocator._set_thresholds() is False
