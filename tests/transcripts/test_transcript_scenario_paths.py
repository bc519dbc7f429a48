"""A transcript's `#: scenario:` header names a bundled scenario or a file inside the transcript's
tree (its directory, or the shared `scenarios/` directory above it); anything else, and any file
that is not a scenario, is refused in one line that shows nothing of the file."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from solace_shell.transcript.replay import replay_file

ROOT = Path(__file__).resolve().parents[2]
# the bundled scenarios, as the refusal lists them
BUNDLED = ", ".join(sorted(p.stem for p in (ROOT / "state_store" / "scenarios").glob("*.yaml")))
DEFAULT = ROOT / "state_store" / "scenarios" / "default.yaml"
SECRET = "s3cr3t-line-of-a-private-file"
BODY = "lab> status\n...\n"


def _transcript(directory: Path, value: str) -> Path:
    directory.mkdir(parents=True, exist_ok=True)
    path = directory / "t.cli.txt"
    path.write_text(f"#: scenario: {value}\n{BODY}")
    return path


def _refusal(path: Path) -> str:
    result = replay_file(path)
    assert result.error is not None and not result.commands
    assert "\n" not in result.error, result.error
    assert SECRET not in result.error and "root:" not in result.error
    return result.error


@pytest.fixture
def private(tmp_path: Path) -> Path:
    secret = tmp_path / "private" / "notes.yaml"
    secret.parent.mkdir()
    secret.write_text(f"{SECRET}\nkey: {SECRET}\n- [{SECRET}\n")
    return secret


@pytest.mark.parametrize("value", ["/etc/passwd", "/etc/shadow", "~/.ssh/id_rsa"])
def test_absolute_paths_are_refused(tmp_path: Path, value: str) -> None:
    path = _transcript(tmp_path / "drills", value)
    assert _refusal(path) == (f"{path}:1: {value}: an absolute path; give a path relative to the transcript's "
                              f"directory or a bundled scenario ({BUNDLED})")


def test_dot_dot_out_of_the_tree_is_refused(tmp_path: Path, private: Path) -> None:
    path = _transcript(tmp_path / "drills", "../private/notes.yaml")
    assert _refusal(path) == f"{path}:1: ../private/notes.yaml: leads outside the transcript's directory tree"
    deep = _transcript(tmp_path / "drills", "../" * 40 + "etc/passwd")
    assert _refusal(deep).endswith(": leads outside the transcript's directory tree")


def test_a_symlink_leading_out_is_refused(tmp_path: Path, private: Path) -> None:
    drills = tmp_path / "drills"
    path = _transcript(drills, "link.yaml")
    (drills / "link.yaml").symlink_to(private)
    assert _refusal(path) == f"{path}:1: link.yaml: leads outside the transcript's directory tree"
    (drills / "sub").symlink_to(private.parent, target_is_directory=True)
    path = _transcript(drills, "sub/notes.yaml")
    assert _refusal(path).endswith("sub/notes.yaml: leads outside the transcript's directory tree")


@pytest.mark.parametrize("content, why", [
    (f"{SECRET}\n", "not a YAML mapping"),
    (f"{SECRET}: 1\nsites: []\n", "its top-level keys are not a scenario's"),
    (f"a: [{SECRET}\n", "not YAML: a syntax error at line 2"),
    (b"\xff" + SECRET.encode(), "not UTF-8 text"),
    ("x" * 1_000_001, "over 1,000,000 bytes"),
])
def test_a_file_in_the_tree_that_is_not_a_scenario(tmp_path: Path, content: str | bytes, why: str) -> None:
    drills = tmp_path / "drills"
    path = _transcript(drills, "notes.txt")
    target = drills / "notes.txt"
    target.write_bytes(content if isinstance(content, bytes) else content.encode())
    assert _refusal(path) == f"{path}:1: notes.txt: not a scenario file ({why})"


def test_not_a_regular_file_and_not_found(tmp_path: Path) -> None:
    drills = tmp_path / "drills"
    path = _transcript(drills, "fifo")
    os.mkfifo(drills / "fifo")
    assert _refusal(path) == f"{path}:1: fifo: not a regular file"  # never opened: no hang
    path = _transcript(drills, "missing.yaml")
    assert _refusal(path) == f"{path}:1: scenario file not found: {drills / 'missing.yaml'}"
    path = _transcript(drills, "nosuch")
    assert _refusal(path) == (f"{path}:1: nosuch: no such scenario file, and not a bundled scenario "
                              f"({BUNDLED})")


def test_control_characters_in_the_value(tmp_path: Path) -> None:
    path = _transcript(tmp_path, "x\x1b[2J.yaml")
    assert _refusal(path) == f"{path}:1: not a usable scenario name (too long, or control characters)"


def test_bundled_names_the_own_tree_and_the_shared_directory(tmp_path: Path) -> None:
    assert replay_file(_transcript(tmp_path / "a", "default")).passed
    swift = tmp_path / "b" / "t.cli.txt"
    swift.parent.mkdir()
    swift.write_text("#: scenario: swiftmq-ha\nlab> status\n...\n")
    assert replay_file(swift).passed
    (tmp_path / "c" / "inner").mkdir(parents=True)
    (tmp_path / "c" / "inner" / "lab.yaml").write_bytes(DEFAULT.read_bytes())
    assert replay_file(_transcript(tmp_path / "c", "inner/lab.yaml")).passed
    (tmp_path / "scenarios").mkdir()
    (tmp_path / "scenarios" / "shared.yaml").write_bytes(DEFAULT.read_bytes())
    assert replay_file(_transcript(tmp_path / "d" / "deeper", "../../scenarios/shared.yaml")).passed


def test_a_scenario_with_problems_still_lists_them(tmp_path: Path) -> None:
    drills = tmp_path / "drills"
    (drills / "bad.yaml").parent.mkdir()
    (drills / "bad.yaml").write_text(DEFAULT.read_text().replace("level: read-only", "level: superuser"))
    result = replay_file(_transcript(drills, "bad.yaml"))
    assert result.error is not None and "superuser" in result.error


def test_the_replay_command_says_it_in_one_line(tmp_path: Path) -> None:
    path = _transcript(tmp_path, "/etc/passwd")
    out = subprocess.run([sys.executable, "-c", "from solace_shell.cli import main; main()", "replay", str(path)],
                         capture_output=True, text=True, env=dict(os.environ, PYTHONPATH=str(ROOT)), timeout=120)
    assert out.returncode != 0
    assert "root:" not in out.stdout + out.stderr
    assert out.stdout.splitlines()[0] == (f"ERROR {path}:1: /etc/passwd: an absolute path; give a path relative "
                                          f"to the transcript's directory or a bundled scenario ({BUNDLED})")


def test_a_shared_scenarios_directory_that_is_a_symlink_opens_nothing(tmp_path: Path, private: Path) -> None:
    (tmp_path / "corpus" / "drills").mkdir(parents=True)
    (tmp_path / "corpus" / "scenarios").symlink_to(private.parent, target_is_directory=True)
    path = _transcript(tmp_path / "corpus" / "drills", "../scenarios/notes.yaml")
    assert _refusal(path).endswith("../scenarios/notes.yaml: leads outside the transcript's directory tree")
