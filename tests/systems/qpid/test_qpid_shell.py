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
