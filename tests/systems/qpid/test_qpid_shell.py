"""The broker shell: bad input gets the tools' own texts and exit statuses and changes nothing;
`echo $?` shows the last exit status."""

from __future__ import annotations

from pathlib import Path

import pytest

from solace_shell.lab import Lab
from state_store.scenario_files import ROOT_DIR

BAD = [
    ("qpid-ha", 1, "Exception: No valid command"),
    ("qpid-ha promote", 1, "To call from a cluster manager use 'promote --cluster-manager'."),
    ("qpid-ha status --bogus", 2, "qpid-ha: error: no such option: --bogus"),
    ("qpid-ha status --timeout abc", 2, "qpid-ha: error: option --timeout: invalid floating-point value: 'abc'"),
    ("qpid-ha status -b", 2, "qpid-ha: error: -b option requires an argument"),
    ("qpid-ha status -b nosuchhost", 1, "ConnectError: [Errno -2] Name or service not known"),
    ("qpid-ha replicate q1", 1, "Exception: Wrong number of arguments"),
    ("qpid-ha --cluster-manager promote -b b2 --all", 2, "qpid-ha: error: no such option: --all"),
    ("qpid-config add queue q9 --replicate sometimes", 1,
     "Exception: Invalid replication level 'sometimes', should be one of: none, configuration, all"),
    ("qpid-config --ssl-key k.pem queues", 2,
     "qpid-config: error: missing '--ssl-certificate' (required by '--ssl-key')"),
    ("qpid-ha ping --ssl-key k.pem", 2, "qpid-ha: error: missing '--ssl-certificate' (required by '--ssl-key')"),
    ("qpid-config add queue q9", 1, "Failed: ConnectionError: connection aborted"),
    ("qpid-config -b b7 queues", 1, "Failed: ConnectError: [Errno -2] Name or service not known"),
    ("frobnicate", 127, "-bash: frobnicate: command not found"),
]


@pytest.fixture(scope="module")
def lab() -> Lab:
    found = Lab.fresh(ROOT_DIR / "qpid-ha.yaml")
    yield found  # type: ignore[misc]
    found.close()


@pytest.mark.parametrize(("line", "status", "last"), BAD)
def test_bad_input_prints_the_tools_text_and_changes_nothing(lab: Lab, line: str, status: int, last: str) -> None:
    before = lab.store.dump()
    out = lab.execute("qpid", line)
    assert out.text.splitlines()[-1] == last
    assert lab.store.dump() == before
    assert lab.execute("qpid", "echo $?").text == str(status)


def test_replicate_takes_the_remote_broker_then_the_queue_as_the_tool_does(lab: Lab) -> None:
    assert lab.execute("qpid", "qpid-ha --cluster-manager promote").ok
    assert lab.execute("lab", "advance 3s").ok
    out = lab.execute("qpid", "qpid-ha replicate -b b2 b1 q1")
    assert (out.text, lab.execute("qpid", "echo $?").text) == ("", "0")
    out = lab.execute("qpid", "qpid-ha replicate -b b2 q1 b1")     # the usage string's order: queue "b1"
    assert out.text == ("Exception: Exception from Agent: {u'error_code': 7, u'error_text': 'not-found: Queue "
                        "not found: b1 (/builddir/build/BUILD/qpid-cpp-1.39.0/src/qpid/broker/QueueRegistry.cpp:176)'}")


def test_the_broker_shell_is_reachable_over_ssh(tmp_path: Path) -> None:
    """The tools' shell listens after the routers like every HA system's CLI (docs/ssh.md); a tool's
    refusal is its own text, and an exec that fails exits non-zero."""
    from tests.support.ssh_clients import Shell, connect, run_exec, serving

    path = tmp_path / "qpid.lab"
    Lab.open(path, scenario=ROOT_DIR / "qpid-ha.yaml").close()
    with serving(path) as server:
        assert [listener.router for listener in server.listeners] == ["qpid"]
        status, text = run_exec(server.port("qpid"), "admin", "admin", "qpid-ha status --bogus")
        assert status != 0 and "qpid-ha: error: no such option: --bogus" in text
        client = connect(server.port("qpid"), "admin", "admin")
        try:
            shell = Shell(client)
            shell.login_text()
            assert "ConnectError: [Errno -2] Name or service not known" in shell.command(
                "qpid-ha status -b nosuchhost")
        finally:
            client.close()


def test_a_tool_reads_its_words_once_and_each_command_runs_its_own_handler(
        lab: Lab, monkeypatch: pytest.MonkeyPatch) -> None:
    """optparse reads the line once, before the store command, however often the store runs it;
    the command it names runs through its grammar command's handler, and what that returns
    prints through the renderer registered for it."""
    from solace_shell.handlers import HANDLERS
    from solace_shell.personalities.qpid import options
    from solace_shell.personalities.qpid.tool_views import HaStatus, QueueList
    from solace_shell.renderers import RENDERERS

    shell_commands = [c for c in lab.grammar.commands if c.modes == ("qpid",)]
    named = {c.syntax: c.handler for c in shell_commands}
    assert named["qpid-ha status"] == "qpid.ha_status" and named["qpid-config queues"] == "qpid.config_queues"
    assert len({named[s] for s in named if s.startswith("qpid-ha ")}) == 5   # one handler a command
    assert all(handler in HANDLERS for handler in named.values())

    reads: list[list[str]] = []
    parse_args = options.ToolParser.parse_args

    def counted(self: options.ToolParser, args: list[str]) -> object:
        reads.append(list(args))
        return parse_args(self, args)

    store = lab.store
    run = store.run

    def twice(work, **kwargs):   # what a lost race does: the whole work again
        run(work, **kwargs)
        return run(work, **kwargs)

    monkeypatch.setattr(options.ToolParser, "parse_args", counted)
    monkeypatch.setattr(store, "run", twice)
    monkeypatch.setitem(RENDERERS, HaStatus, lambda r: f"status view of {len(r.brokers)} broker(s)")
    monkeypatch.setitem(RENDERERS, QueueList, lambda r: f"queue view of {r.pattern or 'all'}")
    assert lab.execute("qpid", "qpid-ha status --all").text == "status view of 3 broker(s)"
    assert lab.execute("qpid", "qpid-config queues -b b1 --ha-admin q").text == "queue view of q"
    assert reads == [["status", "--all"], ["queues", "-b", "b1", "--ha-admin", "q"]]
