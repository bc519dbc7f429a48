"""Every shell command README.md and docs/*.md show runs as written, on a fresh copy of the repository.

A shell command is a line of a fenced block marked `sh`, or a `$ `-prefixed line of an unmarked
block (a console session: the other lines are its output). Each document's commands run in order,
through bash, in a fresh copy of the checkout with a HOME of its own, and must exit 0:

- an interactive `solace-shell` (no `-c`, `-s`, subcommand or redirected input) runs in a
  pseudo-terminal: it must reach its prompt, takes `show hostname` at a router, then Ctrl-D;
- `solace-shell ... serve` runs with its `--port` set to 0 (any free ports), must print the routers'
  `ssh -p` lines, then stops on SIGTERM;
- a `transcript` block of README.md is a whole session and must replay as pass.

Not run, each for the reason `SKIPS` gives: `pip install` (the environment running the tests is the
installed one), `pytest` (this suite), `ssh` (a trainee's login to a served lab on another host:
tests/ssh/test_ssh_openssh.py logs in with OpenSSH), and the Spark commands (`solace-conformance run`,
`spark-submit`: a minute or more of JVM and a cluster; tests/spark/test_spark_conformance.py runs the job)
unless SOLACE_DOCS_SPARK=1.
"""

from __future__ import annotations

import os
import re
import shutil
import signal
import subprocess
from pathlib import Path

import pexpect
import pytest

from solace_shell.transcript.replay import replay_text

ROOT = Path(__file__).resolve().parents[2]
DOCUMENTS = [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]
SPARK = os.environ.get("SOLACE_DOCS_SPARK") == "1"

# a command's first words -> why it is not run here
SKIPS = {
    "pip": "installs the project: the tests run in the installed environment",
    "python -m pip": "builds a wheel for a cluster",
    "pytest": "runs this very suite",
    "ssh": "a trainee's login to a lab served on another host (tests/ssh/test_ssh_openssh.py logs in with OpenSSH)",
    "solace-conformance run": "needs Spark and a Java runtime (tests/spark/test_spark_conformance.py runs the job); "
                              "SOLACE_DOCS_SPARK=1 runs it here",
    "spark-submit": "needs a Spark cluster",
}


def shell_commands(markdown: str) -> list[str]:
    """The shell commands of a document, in order (continuation lines joined)."""
    commands: list[str] = []
    for language, body in re.findall(r"^```(\w*)\n(.*?)^```", markdown, flags=re.S | re.M):
        lines = body.replace("\\\n", " ").splitlines()
        if language == "sh":
            commands += [line.strip() for line in lines if line.strip() and not line.lstrip().startswith("#")]
        elif language == "":
            commands += [line[2:].strip() for line in lines if line.startswith("$ ")]
    return commands


def skip_reason(command: str) -> str | None:
    if SPARK and command.startswith("solace-conformance run"):
        return None
    for start, reason in SKIPS.items():
        if command == start or command.startswith(start + " "):
            return reason
    return None


def _runnable(command: str) -> list[str]:
    """`A && B`: the parts run here (an install before the command it enables is skipped)."""
    return [part.strip() for part in command.split(" && ") if skip_reason(part.strip()) is None]


def _interactive(command: str) -> bool:
    words = command.split()
    batch = {"-c", "-s", "replay", "grade", "serve", "class", "--version", "--help", "-h"}
    return words[0] == "solace-shell" and not batch & set(words) and "<" not in words and "|" not in command


def fresh_copy(destination: Path) -> Path:
    """The checkout's files as a fresh clone has them (tracked and new files, nothing ignored)."""
    listed = subprocess.run(["git", "ls-files", "-z", "--cached", "--others", "--exclude-standard"], cwd=ROOT,
                            capture_output=True, check=False)
    if listed.returncode != 0:
        shutil.copytree(ROOT, destination, ignore=shutil.ignore_patterns(".git", "__pycache__", "*.lab*"))
        return destination
    for name in filter(None, listed.stdout.decode("utf-8", "surrogateescape").split("\0")):
        source = ROOT / name
        if source.is_file():
            target = destination / name
            target.parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(source, target)
    return destination


def _environment(home: Path) -> dict[str, str]:
    env = {key: value for key, value in os.environ.items() if not key.startswith("SOLACE_SHELL_")}
    env.update(HOME=str(home), TERM="xterm", PROMPT_TOOLKIT_NO_CPR="1", PYTHONPATH=str(ROOT))
    return env


def _run_interactive(command: str, cwd: Path, env: dict[str, str]) -> None:
    child = pexpect.spawn("bash", ["-c", command], cwd=str(cwd), env=env, encoding="utf-8", timeout=60,
                          dimensions=(24, 120))
    try:
        child.expect(r"(\w+)[>#]")
        if child.match.group(1) != "lab":
            child.send("show hostname\r")
            child.expect("Hostname: ")
            child.expect(r"\w[>#]")
        child.sendeof()
        child.expect(pexpect.EOF)
    finally:
        child.close(force=True)
    assert child.exitstatus == 0, (command, child.before)


def _run_server(command: str, cwd: Path, env: dict[str, str]) -> None:
    command = re.sub(r"--port \d+", "--port 0", command)
    with subprocess.Popen(["bash", "-c", f"exec {command}"], cwd=cwd, env=env, stdout=subprocess.PIPE,
                          stderr=subprocess.STDOUT, text=True) as server:
        assert server.stdout is not None
        try:
            seen: list[str] = []   # log lines (a new lab file, a new host key), then one line per router
            while sum("ssh -p" in line for line in seen) < 2 and len(seen) < 10:
                seen.append(server.stdout.readline())
            assert sum("ssh -p" in line for line in seen) == 2, (command, seen)
        finally:
            server.send_signal(signal.SIGTERM)
            server.wait(timeout=30)


def _run(command: str, cwd: Path, env: dict[str, str]) -> None:
    if _interactive(command):
        _run_interactive(command, cwd, env)
    elif " serve" in command:
        _run_server(command, cwd, env)
    else:
        done = subprocess.run(["bash", "-c", command], cwd=cwd, env=env, capture_output=True, text=True,
                              timeout=900, stdin=subprocess.DEVNULL)
        assert done.returncode == 0, (command, done.stdout[-2000:], done.stderr[-2000:])


@pytest.mark.parametrize("document", DOCUMENTS, ids=lambda path: path.name)
def test_every_shell_command_runs_verbatim(document: Path, tmp_path: Path) -> None:
    clone = fresh_copy(tmp_path / "clone")
    home = tmp_path / "home"
    home.mkdir()
    env = _environment(home)
    for command in shell_commands(document.read_text(encoding="utf-8")):
        for part in _runnable(command):
            _run(part, clone, env)


def test_the_readme_drill_replays() -> None:
    text = (ROOT / "README.md").read_text(encoding="utf-8")
    blocks = re.findall(r"^```transcript\n(.*?)^```", text, flags=re.S | re.M)
    assert blocks
    for block in blocks:
        result = replay_text(block, "README.md")
        assert result.error is None and all(c.verdict == "pass" for c in result.commands), result


def test_documents_show_commands() -> None:
    """The extraction finds what the README promises (so a fence typo cannot empty this test)."""
    readme = shell_commands((ROOT / "README.md").read_text(encoding="utf-8"))
    assert "pip install -e '.[test]' && pytest" in readme
    assert any(command.startswith("solace-shell --db fresh.lab --scenario bare") for command in readme)
    assert skip_reason("ssh -p 2222 operator@trainer-host") is not None
    assert _runnable("pip install -e . && solace-shell") == ["solace-shell"]


def test_commands_naming_this_repositorys_files_say_where_they_run() -> None:
    """A documented command that names a file of this repository (a transcript, test data) runs only
    from a clone's root: README.md says so, and so does every document that shows one."""
    assert "run from a clone's root" in (ROOT / "README.md").read_text(encoding="utf-8")
    for document in DOCUMENTS:
        text = document.read_text(encoding="utf-8")
        naming = [command for command in shell_commands(text)
                  if any(word.split("/")[0] in ("transcripts", "tests") and "/" in word for word in command.split())]
        if naming and document.name != "README.md":
            assert "root of a clone" in " ".join(text.split()), (document.name, naming[0])
