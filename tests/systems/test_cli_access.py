"""Access in the HA systems' CLIs (gfsh, the Qpid broker shell, the SwiftMQ admin CLI), read from
their grammar: every command of each CLI's mode is walked, with a sample line that reaches it.

A command declared above read-only changes a lab: run as the read-only `monitor` it is refused in
the product's own words, fails (a non-zero exit status where the path has one) and leaves the lab
as it was; as the read-write `operator` it is not refused. A command declared read-only (or none)
still works for `monitor`, and changes nothing even for the administrator: so a changing command
cannot hide behind a read-only declaration. Every entry path is tried: Lab.execute (every command),
`solace-shell -c`, `-s FILE` and piped input (every changing command, one process per system and
path), the REPL at a terminal and SSH exec and shell (a sample).

The expected refusals are written here from the products' sources, independently of the CLIs: gfsh
1.15 with security on, the SwiftMQ router's management role check, the Qpid broker's ACL refusing a
QMF method as qpid-ha and qpid-config print it.
"""

from __future__ import annotations

import os
import sqlite3
import subprocess
import sys
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pexpect  # type: ignore[import-untyped]
import pytest
import yaml

from grammar import Command
from solace_shell.lab import Lab, shell_grammar
from state_store.solace.scenario import ROOT_DIR

REPO = Path(__file__).resolve().parents[2]
PASSWORDS = {"admin": "admin", "operator": "operator", "monitor": "monitor"}
GEODE_MANAGE = "Unauthorized. Reason : monitor not authorized for CLUSTER:MANAGE"
SWIFT_NOT_GRANTED = "Command execution is not granted!"
QPID_FORBIDDEN = "Exception: Exception from Agent: {u'error_code': 6, u'error_text': 'Forbidden'}"
QPID_REFUSALS = {"qpid-ha": QPID_FORBIDDEN, "qpid-config": f"Failed: {QPID_FORBIDDEN}"}
C1 = "192.0.2.0(4987:loner):58922:5ed72aa1"    # client c1's id in the Geode lab


@dataclass(frozen=True)
class Sample:
    """A line that reaches one command, the CLI lines before it (reads that reach its context)."""

    line: str
    before: tuple[str, ...] = ()


@dataclass(frozen=True)
class System:
    name: str            # the lab's target for its CLI, and its grammar mode
    scenario: Path
    setup: tuple[str, ...]   # lab console lines that make every sample's command able to run
    samples: dict[str, Sample]

    def refusal(self, command: Command) -> str:
        if self.name == "geode":
            return GEODE_MANAGE
        if self.name == "swiftmq":
            return SWIFT_NOT_GRANTED
        return QPID_REFUSALS[command.syntax.split()[0]]


GEODE = System("geode", ROOT_DIR / "geode-ha.yaml", ("ha kill g1.s3",), {
    "list members": Sample("list members"),
    "list clients": Sample("list clients"),
    "describe client": Sample(f"describe client --clientID={C1}"),
    "describe config": Sample("describe config --member=s1"),
    "show subscription-queue-size": Sample("show subscription-queue-size --durable-client-id=d1"),
    "show metrics": Sample("show metrics --member=s1"),
    "alter runtime": Sample("alter runtime --message-sync-interval=5"),
    "start server": Sample("start server --name=s3"),
    "stop server": Sample("stop server --name=s1"),
    "help": Sample("help"),
    "exit": Sample("exit"),
})
SWIFT_ROUTER = ("sr ha1",)
SWIFT_QUEUES = ("sr ha1", "cc /sys$queuemanager/queues")
SWIFTMQ = System("swiftmq", ROOT_DIR / "swiftmq-ha.yaml", ("ha start ha1.A", "ha start ha1.B", "advance 5s"), {
    "sr <swift-router>": Sample("sr ha1"),
    "ar": Sample("ar"),
    "cc <swift-context>": Sample("cc sys$hacontroller", SWIFT_ROUTER),
    "lc [<swift-context>]": Sample("lc sys$hacontroller", SWIFT_ROUTER),
    "set <swift-property> [<swift-value>]": Sample("set negotiation-timeout 60000",
                                                   ("sr ha1", "cc sys$hacontroller")),
    "new <swift-entity> [<swift-property> <swift-value>]": Sample("new q9", SWIFT_QUEUES),
    "delete <swift-entity>": Sample("delete q2", SWIFT_QUEUES),
    "help": Sample("help"),
    "exit": Sample("exit"),
    "reboot": Sample("reboot", SWIFT_ROUTER),
    "halt": Sample("halt", SWIFT_ROUTER),
    "save": Sample("save", SWIFT_ROUTER),
    "rebootactive": Sample("rebootactive", SWIFT_ROUTER),
    "rebootstandby": Sample("rebootstandby", SWIFT_ROUTER),
    "haltactive": Sample("haltactive", SWIFT_ROUTER),
    "haltstandby": Sample("haltstandby", SWIFT_ROUTER),
})
QPID = System("qpid", ROOT_DIR / "qpid-ha.yaml", ("qpid manager c1 on", "advance 5s"), {
    "qpid-ha ping": Sample("qpid-ha ping"),
    "qpid-ha status": Sample("qpid-ha status --all"),
    "qpid-ha query": Sample("qpid-ha query"),
    "qpid-ha replicate": Sample("qpid-ha replicate -b b2 b1 q2"),
    "qpid-ha promote": Sample("qpid-ha --cluster-manager promote -b b2"),
    "qpid-config": Sample("qpid-config --ha-admin"),
    "qpid-config exchanges": Sample("qpid-config --ha-admin exchanges"),
    "qpid-config queues": Sample("qpid-config --ha-admin queues"),
    "qpid-config list": Sample("qpid-config --ha-admin list queue"),
    "qpid-config add": Sample("qpid-config --ha-admin add topic t1"),
    "qpid-config add queue": Sample("qpid-config --ha-admin add queue q9 --replicate all"),
    "qpid-config add exchange": Sample("qpid-config --ha-admin add exchange direct e1"),
    "qpid-config del": Sample("qpid-config --ha-admin del topic t1"),
    "qpid-config del queue": Sample("qpid-config --ha-admin del queue q1"),
    "qpid-config del exchange": Sample("qpid-config --ha-admin del exchange amq.direct"),
    "qpid-config bind": Sample("qpid-config --ha-admin bind amq.direct q1 k1"),
    "qpid-config unbind": Sample("qpid-config --ha-admin unbind amq.direct q1 k1"),
    "qpid-config reload-acl": Sample("qpid-config --ha-admin reload-acl"),
    "qpid-config log": Sample("qpid-config --ha-admin log"),
    "qpid-config shutdown": Sample("qpid-config --ha-admin shutdown"),
    "ssh": Sample("ssh b2"),
    "cat": Sample("cat /var/log/qpidd.log"),
    "tail": Sample("tail /var/log/qpidd.log"),
})
SYSTEMS = (GEODE, QPID, SWIFTMQ)
# Reads whose sample the lab answers with an error that is not about access (the tool's usage for
# a qpid-config command the lab does not model): only "not refused for access" is asked of them.
UNMODELLED_READS = {"qpid-config", "qpid-config exchanges", "qpid-config list"}
GRAMMAR = shell_grammar()


def commands(system: System) -> list[Command]:
    return list(GRAMMAR.by_mode[system.name])


def changes(command: Command) -> bool:
    """Declared as changing a lab: it needs more than read-only."""
    return command.access.level not in ("none", "read-only")


def changing(system: System) -> list[Command]:
    return [c for c in commands(system) if changes(c)]


def fresh(system: System, user: str) -> Lab:
    lab = Lab.fresh(system.scenario, settings={"user": user})
    for line in system.setup:
        assert lab.execute("lab", line).ok, line
    return lab


def run(lab: Lab, system: System, sample: Sample) -> object:
    for line in sample.before:
        assert lab.execute(system.name, line).ok, line
    return lab.execute(system.name, sample.line)


# ---------------------------------------------------------------- the grammar and the scenarios
@pytest.mark.parametrize("system", SYSTEMS, ids=lambda s: s.name)
def test_every_command_of_the_cli_has_a_sample_and_some_change_the_lab(system: System) -> None:
    assert sorted(system.samples) == sorted(c.syntax for c in commands(system))
    assert changing(system), "a CLI whose commands all only read has nothing to refuse"
    assert {c.access.level for c in commands(system)} <= {"none", "read-only", "read-write"}


def test_every_command_the_qpid_tools_read_is_in_the_grammar() -> None:
    """The shell checks the command the tool's reading names: a name the grammar lacks would run
    unchecked, so every command the tools know is grammar."""
    from solace_shell.personalities.qpid.tools import CONFIG_COMMANDS, HA_COMMANDS

    known = {c.syntax for c in commands(QPID)}
    assert {f"qpid-ha {name}" for name in (*HA_COMMANDS, "promote")} <= known
    assert {" ".join(("qpid-config", *words)) for words in CONFIG_COMMANDS} <= known


@pytest.mark.parametrize("system", SYSTEMS, ids=lambda s: s.name)
def test_each_ha_scenario_has_a_read_only_and_a_read_write_user(system: System) -> None:
    users = {u["name"]: u for u in yaml.safe_load(system.scenario.read_text(encoding="utf-8"))["users"]}
    assert (users["monitor"]["scope"], users["monitor"]["level"]) == ("global", "read-only")
    assert (users["operator"]["scope"], users["operator"]["level"]) == ("global", "read-write")
    assert not users["monitor"].get("lab_admin") and not users["operator"].get("lab_admin")


# ---------------------------------------------------------------- Lab.execute: every command
@pytest.mark.parametrize("system", SYSTEMS, ids=lambda s: s.name)
def test_a_changing_command_is_refused_to_monitor_and_changes_nothing(system: System) -> None:
    for command in changing(system):
        lab = fresh(system, "monitor")
        try:
            sample = system.samples[command.syntax]
            for line in sample.before:
                assert lab.execute(system.name, line).ok, line
            before = lab.store.dump()
            outcome = lab.execute(system.name, sample.line)
            assert (outcome.ok, outcome.error_kind) == (False, "access"), (command.syntax, outcome)
            # gfsh prints a blank line after an error
            assert outcome.text.rstrip("\n") == system.refusal(command), command.syntax
            assert lab.store.dump() == before, command.syntax
            if system is QPID:
                assert lab.execute("qpid", "echo $?").text == "1"
        finally:
            lab.close()


@pytest.mark.parametrize("system", SYSTEMS, ids=lambda s: s.name)
def test_a_changing_command_is_not_refused_to_operator(system: System) -> None:
    changed = 0
    for command in changing(system):
        lab = fresh(system, "operator")
        try:
            sample = system.samples[command.syntax]
            for line in sample.before:
                assert lab.execute(system.name, line).ok, line
            before = lab.store.dump()
            outcome = lab.execute(system.name, sample.line)
            assert outcome.error_kind != "access", (command.syntax, outcome)
            changed += lab.store.dump() != before
        finally:
            lab.close()
    assert changed >= 3, "the samples must show real changes"


@pytest.mark.parametrize("system", SYSTEMS, ids=lambda s: s.name)
@pytest.mark.parametrize("user", ["monitor", "admin"])
def test_a_read_works_for_monitor_and_changes_nothing_for_anyone(system: System, user: str) -> None:
    for command in commands(system):
        if changes(command):
            continue
        lab = fresh(system, user)
        try:
            sample = system.samples[command.syntax]
            for line in sample.before:
                assert lab.execute(system.name, line).ok, line
            before = lab.store.dump()
            outcome = lab.execute(system.name, sample.line)
            assert outcome.error_kind != "access", (command.syntax, outcome)
            if command.syntax not in UNMODELLED_READS:
                assert outcome.ok, (command.syntax, outcome)
            assert lab.store.dump() == before, (user, command.syntax)
        finally:
            lab.close()


# ---------------------------------------------------------------- lab files and the command line
def lab_file(system: System, directory: Path) -> Path:
    path = directory / f"{system.name}.lab"
    lab = Lab.open(path, scenario=system.scenario)
    try:
        for line in system.setup:
            assert lab.execute("lab", line).ok, line
    finally:
        lab.close()
    return path


def journal(path: Path) -> list[tuple[object, ...]]:
    """Every row of the lab file's journal, read without writing."""
    with sqlite3.connect(f"file:{path}?mode=ro", uri=True) as db:
        return db.execute("SELECT * FROM journal ORDER BY 1").fetchall()


def refused_lines(system: System) -> tuple[list[str], list[str]]:
    """Every changing command's sample, each after the lines that reach its context; and the
    refusals they get, in order."""
    lines: list[str] = []
    refusals: list[str] = []
    for command in changing(system):
        sample = system.samples[command.syntax]
        lines += [*sample.before, sample.line]
        refusals.append(system.refusal(command))
    return lines, refusals


def solace_shell(path: Path, *args: str, stdin: str = "") -> subprocess.CompletedProcess[str]:
    env = dict(os.environ, PYTHONPATH=str(REPO), SOLACE_SHELL_PASSWORD="monitor", SOLACE_SHELL_LOGIN_DELAY="0")
    return subprocess.run([sys.executable, "-m", "solace_shell.cli", "--db", str(path), "--user", "monitor", *args],
                          input=stdin, capture_output=True, text=True, env=env, timeout=120)


@pytest.mark.parametrize("system", SYSTEMS, ids=lambda s: s.name)
@pytest.mark.parametrize("how", ["-c", "-s", "stdin"])
def test_the_command_line_refuses_every_changing_command(system: System, how: str, tmp_path: Path) -> None:
    path = lab_file(system, tmp_path)
    before = journal(path)
    lines, refusals = refused_lines(system)
    if how == "-c":
        result = solace_shell(path, *(arg for line in lines for arg in ("-c", line)))
    elif how == "-s":
        script = tmp_path / "changes.cli"
        script.write_text("".join(f"{line}\n" for line in lines), encoding="utf-8")
        result = solace_shell(path, "-s", str(script))
    else:
        result = solace_shell(path, stdin="".join(f"{line}\n" for line in lines))
    assert result.returncode == 1, result
    assert "Traceback" not in result.stderr
    out = result.stdout.splitlines()
    assert [line for line in out if line in set(refusals)] == refusals, result.stdout
    assert journal(path) == before


@pytest.mark.parametrize("system", SYSTEMS, ids=lambda s: s.name)
def test_a_one_shot_refusal_exits_non_zero_and_a_read_zero(system: System, tmp_path: Path) -> None:
    path = lab_file(system, tmp_path)
    before = journal(path)
    command = changing(system)[-1]
    sample = system.samples[command.syntax]
    refused = solace_shell(path, *(arg for line in (*sample.before, sample.line) for arg in ("-c", line)))
    assert refused.returncode == 1 and system.refusal(command) in refused.stdout.splitlines(), refused
    read = next(c for c in commands(system) if c.access.level == "read-only")
    sample = system.samples[read.syntax]
    allowed = solace_shell(path, *(arg for line in (*sample.before, sample.line) for arg in ("-c", line)))
    assert allowed.returncode == 0, allowed
    assert journal(path) == before


# ---------------------------------------------------------------- a terminal and SSH (samples)
@pytest.mark.parametrize("system", SYSTEMS, ids=lambda s: s.name)
def test_the_repl_at_a_terminal_refuses_a_changing_command(system: System, tmp_path: Path) -> None:
    path = lab_file(system, tmp_path)
    before = journal(path)
    command = changing(system)[0]
    sample = system.samples[command.syntax]
    env = dict(os.environ, PYTHONPATH=str(REPO), TERM="xterm", PROMPT_TOOLKIT_NO_CPR="1",
               SOLACE_SHELL_PASSWORD="monitor", SOLACE_SHELL_LOGIN_DELAY="0")
    child = pexpect.spawn(sys.executable, ["-m", "solace_shell.cli", "--db", str(path), "--user", "monitor"],
                          env=env, encoding="utf-8", timeout=60, dimensions=(24, 200))
    try:
        for line in (*sample.before, sample.line):
            child.expect_exact(">")
            child.sendline(line)
        child.expect_exact(system.refusal(command))
        child.expect_exact(">")    # the prompt again: the command is over
    finally:
        child.close(force=True)
    assert journal(path) == before


@pytest.fixture(scope="module")
def served(tmp_path_factory: pytest.TempPathFactory) -> Iterator[dict[str, tuple[Path, object]]]:
    from tests.support.ssh_clients import serving

    directory = tmp_path_factory.mktemp("served")
    with serving(lab_file(GEODE, directory)) as geode, serving(lab_file(QPID, directory)) as qpid, \
            serving(lab_file(SWIFTMQ, directory)) as swiftmq:
        yield {"geode": (geode.lab_path, geode), "qpid": (qpid.lab_path, qpid), "swiftmq": (swiftmq.lab_path, swiftmq)}


@pytest.mark.ssh
@pytest.mark.parametrize("system", SYSTEMS, ids=lambda s: s.name)
def test_ssh_exec_and_shell_refuse_a_changing_command(system: System,
                                                      served: dict[str, tuple[Path, object]]) -> None:
    from tests.support.ssh_clients import Shell, connect, run_exec

    path, server = served[system.name]
    port = server.port(system.name)  # type: ignore[attr-defined]
    before = journal(path)
    exec_command, shell_command = changing(system)[0], changing(system)[-1]
    sample = system.samples[exec_command.syntax]
    status, text = run_exec(port, "monitor", "monitor", "\n".join((*sample.before, sample.line)))
    assert status != 0 and system.refusal(exec_command) in text.splitlines(), text
    client = connect(port, "monitor", "monitor")
    try:
        shell = Shell(client)
        shell.login_text()
        sample = system.samples[shell_command.syntax]
        for line in sample.before:
            shell.command(line)
        assert system.refusal(shell_command) in shell.command(sample.line).splitlines()
    finally:
        client.close()
    assert journal(path) == before
