"""A pasted block at the local shell runs line by line, as if typed: each line after its prompt, in
turn; text after the last line feed stays on the line; a pasted line too long for a command line
is refused alone (the others run)."""

from __future__ import annotations

import io
import os
import sys
from pathlib import Path

import pexpect
import pytest

from solace_shell.lab import Lab
from solace_shell.line_limit import MAX_LINE_CHARS, paste_too_long_text
from tests.support.repl_driver import drive

ROOT = Path(__file__).resolve().parents[2]
CTRL_D = "\x04"
NY = "NY_Appliance1"


def _paste(text: str) -> str:
    return f"\x1b[200~{text}\x1b[201~"


def test_a_pasted_block_runs_each_line_in_turn(lab: Lab, executed: list[tuple[str, str]]) -> None:
    _, out = drive(lab, _paste("show hostname\r\nenable\nshow hostname\n") + CTRL_D)
    assert executed == [(NY, "show hostname"), (NY, "enable"), (NY, "show hostname")]
    assert out.count(f"Hostname: {NY}") == 2
    assert "not allowed in a command line" not in out


def test_text_after_the_last_line_feed_stays_on_the_line(lab: Lab, executed: list[tuple[str, str]]) -> None:
    drive(lab, "show " + _paste("hostname\nshow host") + "name\r" + CTRL_D)
    assert executed == [(NY, "show hostname"), (NY, "show hostname")]


def test_a_pasted_line_too_long_is_refused_alone(lab: Lab, executed: list[tuple[str, str]]) -> None:
    long_line = "show " + "x" * MAX_LINE_CHARS
    _, out = drive(lab, _paste(f"show hostname\n{long_line}\nshow hostname\n") + CTRL_D)
    assert executed == [(NY, "show hostname"), (NY, "show hostname")]
    assert paste_too_long_text(len(long_line)) in out


@pytest.mark.parametrize("bracketed", [True, False])
def test_in_a_terminal_each_pasted_line_shows_after_its_prompt(tmp_path: Path, bracketed: bool) -> None:
    env = dict(os.environ, PYTHONPATH=str(ROOT), TERM="xterm", PROMPT_TOOLKIT_NO_CPR="1")
    child = pexpect.spawn(sys.executable, ["-c", "from solace_shell.cli import main; main()", "--db",
                                           str(tmp_path / "lab.sqlite")],
                          env=env, encoding="utf-8", codec_errors="replace", timeout=30, dimensions=(24, 120))
    child.logfile_read = seen = io.StringIO()
    child.expect_exact(f"{NY}>")
    block = "show hostname\nenable\nshow hostname\n"
    child.send(_paste(block) if bracketed else block.replace("\n", "\r"))
    for text in (f"{NY}> show hostname", f"Hostname: {NY}", f"{NY}> enable", f"{NY}# show hostname",
                 f"Hostname: {NY}", f"{NY}#"):
        child.expect_exact(text)
    child.send("exit\r")
    child.expect_exact(f"{NY}>")
    child.send("exit\r")
    child.expect(pexpect.EOF)
    child.close()
    assert child.exitstatus == 0
    assert "not allowed in a command line" not in seen.getvalue()
