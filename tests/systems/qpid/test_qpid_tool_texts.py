"""The Qpid tools' texts built from their source: optparse's 78-column help, the agent's
exception as BrokerAgent wraps it, Python 2's dict order for qpid-config's overview, and the
refusals of a primary broker (each changing nothing)."""

from __future__ import annotations

import pytest

from solace_shell.lab import Lab
from solace_shell.personalities.qpid import tools
from solace_shell.personalities.qpid.agent_texts import agent_exception, py2_bytes_repr
from solace_shell.personalities.qpid.config_lists import py2_dict_order
from state_store.qpid.views import ToolResult
from state_store.scenario_files import ROOT_DIR

AGENT = "Exception: Exception from Agent: {u'error_code': 7, u'error_text': "


@pytest.mark.parametrize("argv", [["status", "--help"], ["--cluster-manager", "help-all"], ["replicate", "x"]])
def test_qpid_ha_help_is_wrapped_at_78_columns(argv: list[str]) -> None:
    read = tools.read_ha(argv)
    assert isinstance(read, ToolResult)
    assert max(len(line) for line in read.lines if not line.startswith(("Set up", "[Cluster", "  replicate"))) <= 78


def test_qpid_config_help_has_its_groups_and_examples() -> None:
    read = tools.read_config(["--help"])
    assert isinstance(read, ToolResult) and read.status == 0
    text = "\n".join(read.lines)
    for heading in ("Examples:", "  General Options:", "  Options for Adding Queues:",
                    "  Formatting options for 'list' action:"):
        assert heading in text


def test_cluster_manager_lists_promote_in_the_usage() -> None:
    read = tools.read_ha(["--cluster-manager"])
    assert isinstance(read, ToolResult)
    assert "  promote      [Cluster manager only] Promote a backup broker to primary." in read.lines
    assert read.lines[-2:] == ("", "Exception: No valid command")


def test_wrong_number_of_arguments_follows_the_help_directly() -> None:
    read = tools.read_ha(["replicate", "q1"])
    assert isinstance(read, ToolResult)
    assert read.lines[-2].strip() == "overridden by command-line options.)"


def test_the_agent_exception_is_python_2s_repr() -> None:
    assert agent_exception("object-exists", "q1") == AGENT + "'object already exists: q1'}"
    assert py2_bytes_repr("it's") == '"it\'s"'
    assert py2_bytes_repr("é") == "'\\xc3\\xa9'"


def test_py2_dict_order_matches_python_2() -> None:
    """Recorded from Python 2.7.18: the overview's types in qpid-config's insertion order."""
    kinds = ["direct", "amq.failover", "fanout", "headers", "topic", "management-direct", "management-topic"]
    assert py2_dict_order(kinds) == ["management-direct", "direct", "topic", "headers", "fanout",
                                     "management-topic", "amq.failover"]


@pytest.fixture(scope="module")
def primary() -> Lab:
    found = Lab.fresh(ROOT_DIR / "qpid-ha.yaml")
    assert found.execute("qpid", "qpid-ha --cluster-manager promote").ok
    assert found.execute("lab", "advance 3s").ok
    yield found  # type: ignore[misc]
    found.close()


REFUSED = [
    ("qpid-config add queue q1", "Failed: " + AGENT + "'object already exists: q1'}"),
    ("qpid-config add exchange direct amq.direct", "Failed: " + AGENT + "'object already exists: amq.direct'}"),
    ("qpid-config add exchange bogus x", "Failed: " + AGENT + "'Invalid exchange type: bogus "
     "(/builddir/build/BUILD/qpid-cpp-1.39.0/src/qpid/broker/Broker.cpp:895)'}"),
    ("qpid-config bind amq.direct nosuch k", "Failed: " + AGENT + "'not-found: Bind failed. No such queue: nosuch "
     "(/builddir/build/BUILD/qpid-cpp-1.39.0/src/qpid/broker/Broker.cpp:1615)'}"),
    ("qpid-ha replicate b2 nosuch", AGENT + "'not-found: Queue not found: nosuch "
     "(/builddir/build/BUILD/qpid-cpp-1.39.0/src/qpid/broker/QueueRegistry.cpp:176)'}"),
    ("qpid-config queues --replicate x",
     "Exception: Invalid replication level 'x', should be one of: none, configuration, all"),
    ("qpid-config queues nosuch", None),
]


@pytest.mark.parametrize(("line", "last"), REFUSED)
def test_a_primary_refuses_as_its_agent_answers_and_nothing_changes(primary: Lab, line: str,
                                                                     last: str | None) -> None:
    before = primary.store.dump()
    out = primary.execute("qpid", line)
    assert (out.text.splitlines()[-1] if last else out.text) == (last or "")
    assert "Failed: Failed:" not in out.text
    assert primary.store.dump() == before
    assert primary.execute("qpid", "echo $?").text == "1"


def test_queues_lists_the_tools_reply_queue_first(primary: Lab) -> None:
    lines = primary.execute("qpid", "qpid-config queues").text.splitlines()
    assert lines[0].startswith("Queue Name") and set(lines[1]) == {"="}
    assert lines[2].endswith(":0.0  --replicate=none auto-del excl")
    assert lines[3].startswith("q1 ") and "--replicate=all --argument qpid.ha-uuid=" in lines[3]
