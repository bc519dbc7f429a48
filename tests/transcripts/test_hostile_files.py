"""Files a handed-in transcript names from the lab console (`lab> reset PATH`, `lab> grade PATH`) and
files given on the command line (`grade --runbook`, `--scenario`, `-s`) are read through
state_store/user_files.py: each hostile one is refused in one line that names the path and the
problem, quotes nothing of any file, shows no traceback, and comes back at once (a device or a FIFO
is never read). Run through `solace-shell` itself, with a timeout as the bound."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from solace_shell.lab import Lab
from state_store.user_files import RUNBOOK_MAX_BYTES, FileRefused, read_bytes, reading_for_transcript

ROOT = Path(__file__).resolve().parents[2]
SECRET = "s3cr3t-entry-of-a-private-file"
BOUND_S = 120  # far above what a refusal takes; a read of /dev/zero or a FIFO would never end


def _shell(*args: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "PYTHONPATH": str(ROOT), "XDG_DATA_HOME": str(cwd / "data")}
    return subprocess.run([sys.executable, "-m", "solace_shell.cli", *args], cwd=cwd, env=env, text=True,
                          capture_output=True, timeout=BOUND_S, stdin=subprocess.DEVNULL)


@pytest.fixture
def tree(tmp_path: Path) -> Path:
    """A class's directory with a hostile transcript's helpers in it, and a private file beside it."""
    private = tmp_path / "private"
    private.mkdir()
    (private / "notes.yaml").write_text(f"{SECRET}: x\nsites: []\n")
    drills = tmp_path / "drills"
    drills.mkdir()
    os.mkfifo(drills / "fifo.yaml")
    (drills / "out.yaml").symlink_to(private / "notes.yaml")
    (drills / "zero.yaml").symlink_to("/dev/zero")
    (drills / "dir.yaml").mkdir()
    (drills / "big.yaml").write_text("runbook: big\n#" + "x" * RUNBOOK_MAX_BYTES + "\n")
    (drills / "notes.txt").write_text(f"{SECRET}\n")
    return drills


HOSTILE = [
    ("reset /etc/shadow", "ERROR: Scenario refused: /etc/shadow: an absolute path; give a path relative to the "
                          "transcript's directory or a bundled scenario ("),
    ("grade /etc/shadow", "ERROR: Runbook '/etc/shadow' cannot be used (1 problem(s)); first: /etc/shadow:0: cannot "
                          "read the runbook: an absolute path; a transcript names files relative to its own directory"),
    ("grade /dev/zero", "ERROR: Runbook '/dev/zero' cannot be used (1 problem(s)); first: /dev/zero:0: cannot read "
                        "the runbook: an absolute path; a transcript names files relative to its own directory"),
    ("reset zero.yaml", "ERROR: Scenario refused: zero.yaml: leads outside the transcript's directory tree"),
    ("grade zero.yaml", "ERROR: Runbook 'zero.yaml' cannot be used (1 problem(s)); first: zero.yaml:0: cannot read "
                        "the runbook: leads outside the transcript's directory tree"),
    ("reset fifo.yaml", "ERROR: Scenario refused: fifo.yaml: not a regular file"),
    ("grade fifo.yaml", "ERROR: Runbook 'fifo.yaml' cannot be used (1 problem(s)); first: {d}/fifo.yaml:0: "
                        "cannot read the runbook: not a regular file (a FIFO)"),
    ("reset dir.yaml", "ERROR: Scenario refused: dir.yaml: not a regular file"),
    ("reset out.yaml", "ERROR: Scenario refused: out.yaml: leads outside the transcript's directory tree"),
    ("grade out.yaml", "ERROR: Runbook 'out.yaml' cannot be used (1 problem(s)); first: out.yaml:0: cannot read the "
                       "runbook: leads outside the transcript's directory tree"),
    ("reset ../private/notes.yaml", "ERROR: Scenario refused: ../private/notes.yaml: leads outside the transcript's "
                                    "directory tree"),
    ("grade big.yaml", "ERROR: Runbook 'big.yaml' cannot be used (1 problem(s)); first: {d}/big.yaml:0: cannot "
                       f"read the runbook: too large: {RUNBOOK_MAX_BYTES + 15:,} bytes (the limit is "
                       f"{RUNBOOK_MAX_BYTES:,})"),
    ("reset notes.txt", "ERROR: Scenario refused: notes.txt: not a scenario file (not a YAML mapping)"),
    ("grade notes.txt", "ERROR: Runbook 'notes.txt' cannot be used (1 problem(s)); first: {d}/notes.txt:0: not "
                        "a runbook file (its top-level keys are not a runbook's)"),
]


def test_a_hostile_transcript_gets_one_line_refusals_that_quote_nothing(tree: Path) -> None:
    transcript = tree / "hostile.cli.txt"
    transcript.write_text("".join(f"lab> {command}\n" for command, _ in HOSTILE) + "lab> status\n...\n")
    done = _shell("replay", "--json", str(transcript), cwd=tree.parent)
    rows = [json.loads(line) for line in done.stdout.splitlines()]
    assert done.returncode == 1 and done.stderr == ""
    assert [r["command"] for r in rows] == [c for c, _ in HOSTILE] + ["status"]
    real = os.path.realpath(tree)
    for row, (_, expected) in zip(rows, HOSTILE):
        assert "\n" not in row["actual"], row
        assert row["actual"].startswith(expected.format(d=real)), (row["actual"], expected)
    assert rows[-1]["verdict"] == "pass"  # the lab goes on: nothing was changed
    for text in (done.stdout, done.stderr):
        assert SECRET not in text and "root:" not in text and "Traceback" not in text


def test_the_same_lines_in_a_users_own_shell_are_bounded_too(tree: Path) -> None:
    """Outside a transcript the lab console reads what its user names, but never a device, a FIFO, a
    file over its limit, or a file that is not its kind quoted back."""
    lab = Lab.fresh()
    try:
        zero = lab.execute("lab", "grade /dev/zero")
        assert zero.text.endswith("cannot read the runbook: not a regular file (a device)")
        fifo = lab.execute("lab", f"reset {tree / 'fifo.yaml'}")
        assert fifo.text == f"ERROR: Scenario refused: {tree / 'fifo.yaml'}: not a regular file"
        shadow = lab.execute("lab", "reset /etc/shadow")
        assert not shadow.ok and "root:" not in shadow.text and "\n" not in shadow.text
        notes = lab.execute("lab", f"reset {tree / 'notes.txt'}")
        assert notes.text.endswith("notes.txt: not a scenario file (not a YAML mapping)")
        assert SECRET not in notes.text
    finally:
        lab.close()


@pytest.mark.parametrize(("args", "expected"), [
    (["grade", "--runbook", "/dev/zero", "t.cli.txt"], "/dev/zero:0: cannot read the runbook: not a regular file (a device)"),
    (["grade", "--runbook", "drills/fifo.yaml", "t.cli.txt"],
     "drills/fifo.yaml:0: cannot read the runbook: not a regular file (a FIFO)"),
    (["grade", "--runbook", "drills/big.yaml", "t.cli.txt"],
     f"drills/big.yaml:0: cannot read the runbook: too large: {RUNBOOK_MAX_BYTES + 15:,} bytes"),
    (["--db", "new.lab", "--scenario", "drills/fifo.yaml", "-c", "show hostname"],
     "scenario drills/fifo.yaml has 1 problem(s):\ndrills/fifo.yaml:0: not a regular file (a FIFO)"),
    (["-s", "drills/fifo.yaml"], "solace-shell: cannot read script drills/fifo.yaml: not a regular file (a FIFO)"),
])
def test_files_on_the_command_line_are_refused_by_name(tree: Path, args: list[str], expected: str) -> None:
    (tree.parent / "t.cli.txt").write_text("lab> status\n...\n")
    done = _shell(*args, cwd=tree.parent)
    assert done.returncode == 2, done
    assert expected in done.stderr and "Traceback" not in done.stderr
    assert len(done.stderr.splitlines()) <= 2
    assert not (tree.parent / "new.lab").exists()


def test_the_reader_itself(tmp_path: Path) -> None:
    small = tmp_path / "small.txt"
    small.write_bytes(b"abc")
    assert read_bytes(small, 3) == b"abc"
    with pytest.raises(FileRefused, match=r"small.txt: too large: 3 bytes \(the limit is 2\)") as refused:
        read_bytes(small, 2)
    assert refused.value.kind == "too-large" and refused.value.size == 3
    with pytest.raises(FileRefused, match="no such file|No such file"):
        read_bytes(tmp_path / "missing", 10)
    with pytest.raises(FileRefused, match="not a regular file \\(a directory\\)"):
        read_bytes(tmp_path, 10)
    with pytest.raises(FileRefused, match="leads outside the directories"):
        read_bytes(small, 10, within=[tmp_path / "elsewhere"])
    with pytest.raises(FileRefused, match="\\\\x1b"):  # a path's control characters are escaped, never sent
        read_bytes(tmp_path / "a\x1b[2Jb", 10)


def test_a_transcripts_confinement_ends_with_its_replay(tmp_path: Path) -> None:
    from state_store.user_files import confinement

    with reading_for_transcript(tmp_path) as confined:
        assert confinement() == confined and confined.base == Path(os.path.realpath(tmp_path))
    assert confinement() is None
