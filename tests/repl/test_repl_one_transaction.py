"""A REPL line costs one store transaction: the command's own, whose Outcome carries the clock the
toolbar shows (and the masked line a recording keeps), with or without an observer on the lab (a
class's record), at the terminal and in the SSH server's asyncio shell alike."""

from __future__ import annotations

import asyncio
import io
from collections.abc import Iterator
from contextlib import AbstractContextManager
from pathlib import Path
from typing import Any

import pytest
from prompt_toolkit.input import create_pipe_input
from prompt_toolkit.output import DummyOutput

from solace_shell.lab import Lab
from solace_shell.line_event import LineEvent
from solace_shell.repl import Repl

ROUTER = "NY_Appliance1"


class Counted:
    """The store's transactions, counted (every store command, `run` or a read, opens one)."""

    def __init__(self, lab: Lab, monkeypatch: pytest.MonkeyPatch) -> None:
        self.count = 0
        original = lab.store.transaction

        def transaction() -> AbstractContextManager[Any]:
            self.count += 1
            return original()

        monkeypatch.setattr(lab.store, "transaction", transaction)

    def during(self, run: Any) -> int:
        before = self.count
        run()
        return self.count - before


@pytest.fixture
def lab(tmp_path: Path) -> Iterator[Lab]:
    opened = Lab.open(tmp_path / "drill.lab")
    try:
        yield opened
    finally:
        opened.close()


def _repl(lab: Lab, pipe: Any, recorder: Any = None) -> Repl:
    return Repl(lab, ROUTER, input=pipe, output=DummyOutput(), stdout=io.StringIO(), recorder=recorder)


def _toolbar(repl: Repl) -> str:
    return "".join(fragment[1] for fragment in repl._toolbar())


@pytest.mark.parametrize("observed", [False, True])
def test_each_command_line_opens_one_transaction_and_the_toolbar_shows_its_clock(
        lab: Lab, monkeypatch: pytest.MonkeyPatch, observed: bool) -> None:
    events: list[LineEvent] = []
    if observed:
        lab.observe(events.append)
    with create_pipe_input() as pipe:
        repl = _repl(lab, pipe)
        counted = Counted(lab, monkeypatch)
        # the session's first line also keeps where the session started (for `lab> grade`), once
        assert counted.during(lambda: repl.run_line("enable")) == 2
        assert counted.during(lambda: repl.run_line("show hostname")) == 1
        assert counted.during(lambda: repl.run_line("show message-vpn NoSuchVpn")) == 1
        assert repl.toggle_console() is None
        assert counted.during(lambda: repl.run_line("advance 65s")) == 1
        assert "T+1m05s" in _toolbar(repl)
        assert counted.during(lambda: repl.run_line("publish 0 nothing")) == 1   # refused by the parser or lab
        # a line that runs no store command reads the clock once (another shell may have moved it)
        assert counted.during(lambda: repl.run_line("")) == 1
        assert counted.during(lambda: repl.run_line("zzz")) == 1
    if observed:
        assert [e.clock_ms for e in events] == [0, 0, 0, 65_000, 65_000, 65_000, 65_000]
        assert [e.line for e in events][:2] == ["enable", "show hostname"]


def test_the_asyncio_shell_line_opens_one_transaction(lab: Lab, monkeypatch: pytest.MonkeyPatch) -> None:
    with create_pipe_input() as pipe:
        repl = _repl(lab, pipe)
        assert repl.toggle_console() is None
        repl.run_line("status")    # the session's first line keeps its start
        counted = Counted(lab, monkeypatch)
        assert counted.during(lambda: asyncio.run(repl.run_line_async("advance 2s"))) == 1
        assert "T+2s" in _toolbar(repl)


def test_a_reset_is_read_anew(lab: Lab, monkeypatch: pytest.MonkeyPatch) -> None:
    """`lab> reset` changes the lab after its command: the toolbar's clock is the new lab's."""
    with create_pipe_input() as pipe:
        repl = _repl(lab, pipe)
        assert repl.toggle_console() is None
        repl.run_line("advance 1h")
        assert "T+1h" in _toolbar(repl)
        repl.run_line("reset")
        assert "T+0s" in _toolbar(repl)


def test_a_recording_keeps_the_line_masked_as_it_was_read(lab: Lab) -> None:
    class Recorder:
        def __init__(self) -> None:
            self.records: list[tuple[str, str, str]] = []

        def record(self, prompt: str, line: str, output: str) -> None:
            self.records.append((prompt, line, output))

    recorder = Recorder()
    with create_pipe_input() as pipe:
        repl = _repl(lab, pipe, recorder)
        for line in ("enable", "configure", "create client-username bob message-vpn Trading_VPN",
                     "password s3cret-Word", "exit"):
            repl.run_line(line)
    kept = [line for _, line, _ in recorder.records]
    assert "s3cret-Word" not in " ".join(kept)
    assert "password ********" in kept
