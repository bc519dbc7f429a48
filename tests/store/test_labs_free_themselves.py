"""A closed lab is freed by reference counting: replaying a transcript leaves the cyclic collector
nothing to find.

Why it is a contract: replay builds and closes a lab per transcript. A lab whose objects form a
reference cycle (sessions pointing back at their lab, services at one another) lives on, with its
whole state, until the collector runs, and that collection cost the replay of generated drills
about 4% of its time. `Lab.close` and `Engine.close` cut those cycles; a new one shows up here.
"""

from __future__ import annotations

import gc
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from solace_shell.lab import Lab
from solace_shell.transcript.replay import read_transcript, replay_text

ROOT = Path(__file__).resolve().parents[2]
CORPUS = ROOT / "transcripts"
FILES = sorted(CORPUS.rglob("*.cli.txt"))
IDS = [str(p.relative_to(CORPUS)) for p in FILES]


@pytest.fixture
def collector_off() -> Iterator[None]:
    """The collector stopped, after a full collection: whatever it finds next was made since."""
    gc.collect()
    was_enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if was_enabled:
            gc.enable()


def _cyclic_garbage_of(work: Callable[[], None]) -> list[str]:
    """The types of the unreachable objects a collection finds after `work` ran (what the warm-up
    before it left, such as the C library handle the first replay of a process opens, is collected
    first: it is not `work`'s)."""
    gc.collect()
    gc.set_debug(gc.DEBUG_SAVEALL)
    try:
        work()
        gc.collect()
        found = sorted({type(o).__qualname__ for o in gc.garbage})
    finally:
        gc.set_debug(0)
        gc.garbage.clear()
    return found


@pytest.mark.parametrize("path", FILES, ids=IDS)
def test_replaying_a_transcript_leaves_no_cyclic_garbage(path: Path, collector_off: None) -> None:
    text = read_transcript(path)
    replay_text(text, str(path))  # first: templates, parse caches and lazy imports are made once

    def replay() -> None:
        result = replay_text(text, str(path))
        assert result.error is None and result.commands

    assert _cyclic_garbage_of(replay) == []


def test_a_closed_lab_after_a_reset_leaves_no_cyclic_garbage(collector_off: None) -> None:
    def use() -> None:
        lab = Lab.fresh()
        assert lab.console.execute("publish trader trading/orders/new count 3").ok
        assert lab.execute("NY_Appliance1", "show queue * message-vpn Trading_VPN").ok
        assert lab.console.execute("reset").ok
        assert lab.execute("NJ_Appliance1", "enable").ok
        lab.close()

    use()
    assert _cyclic_garbage_of(use) == []
