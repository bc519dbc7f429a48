"""`solace-shell replay`'s progress: a bar on a terminal, erased when done; nothing in a pipe,
where the report is the same bytes as without a terminal anywhere."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pexpect

ROOT = Path(__file__).resolve().parents[2]
CORPUS = ROOT / "transcripts" / "geode"


def _env() -> dict[str, str]:
    return dict(os.environ, PYTHONPATH=str(ROOT), TERM="xterm")


def _failing_copy(tmp_path: Path) -> Path:
    """The Geode drills, one of them with a wrong expected line (a failure to report)."""
    corpus = tmp_path / "geode"
    corpus.mkdir()
    for src in CORPUS.glob("*.cli.txt"):
        (corpus / src.name).write_text(src.read_text(encoding="utf-8"), encoding="utf-8")
    drill = sorted(corpus.glob("*.cli.txt"))[0]
    text = drill.read_text(encoding="utf-8")
    at = text.index("\nclock ")
    drill.write_text(text[:at] + "\nclock wrong" + text[text.index("\n", at + 1):], encoding="utf-8")
    shutil.copytree(ROOT / "transcripts" / "scenarios", tmp_path / "scenarios")
    return corpus


def test_a_pipe_gets_the_report_alone(tmp_path: Path) -> None:
    corpus = _failing_copy(tmp_path)
    done = subprocess.run([sys.executable, "-m", "solace_shell.cli", "replay", str(corpus)], env=_env(),
                          capture_output=True, text=True, timeout=300, check=False)
    assert done.returncode == 1
    assert "\x1b" not in done.stdout and "\x1b" not in done.stderr and "replaying" not in done.stderr
    assert done.stdout.startswith("FAIL ") and " 1 failed, 0 error(s)\n" in done.stdout


def test_a_terminal_shows_the_bar_and_the_same_report(tmp_path: Path) -> None:
    corpus = _failing_copy(tmp_path)
    piped = subprocess.run([sys.executable, "-m", "solace_shell.cli", "replay", str(corpus)], env=_env(),
                           capture_output=True, text=True, timeout=300, check=False).stdout
    child = pexpect.spawn(sys.executable, ["-m", "solace_shell.cli", "replay", str(corpus)], env=_env(),
                          encoding="utf-8", timeout=300, dimensions=(24, 200))
    child.expect(pexpect.EOF)
    child.close()
    assert child.exitstatus == 1
    shown = child.before
    assert "replaying" in shown
    for line in piped.splitlines():
        if line.startswith(("FAIL ", "-", "+")):
            assert line in shown
    assert piped.splitlines()[-1] in shown
