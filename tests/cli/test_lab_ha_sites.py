"""The shared failure verbs (`ha kill|start|hang|replace <ha-node>`, `ha partition|heal
<ha-network>`) on the replication lab: a site's one router and the inter-site link fail through the
same journaled Engine calls as `fail|restore|replace site` and `fail|restore link` (same line
printed, same state, same audit, same journal); a redundancy group's member through its kernel
node, as `fail|restore router` (docs/lab.md, "Failures")."""

from __future__ import annotations

import os
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from prompt_toolkit.completion import CompleteEvent
from prompt_toolkit.document import Document

from solace_shell.completer import ShellCompleter, help_text
from solace_shell.lab import Lab
from solace_shell.live_names import LiveNames
from state_store.lab_store import LabStore
from state_store.scenario_files import resolve_scenario
from tests.support.repl_driver import drive
from tests.support.router_engine import router_engine

NY, NJ, VPN = "NY_Appliance1", "NJ_Appliance1", "Trading_VPN"
Journal = list[list[tuple[str, tuple[Any, ...], tuple[tuple[str, Any], ...]]]]


@pytest.fixture
def journal(monkeypatch: pytest.MonkeyPatch) -> Journal:
    """The journaled calls (name, arguments, keyword arguments) of every command that changed a lab
    during the test, one list per command."""
    commands: Journal = []
    real_end = LabStore._end

    def _end(self: LabStore, st: Any, started: float) -> None:
        if st.work.changed:
            commands.append([(c.name, c.args, tuple(sorted(c.kwargs.items()))) for c in st.work.calls])
        real_end(self, st, started)

    monkeypatch.setattr(LabStore, "_end", _end)
    return commands


@pytest.fixture
def pair_lab() -> Iterator[Lab]:
    """Scenario two-site-ha: each site a redundancy group (primary, backup, monitor) named after it."""
    lab = Lab.fresh(scenario=resolve_scenario("two-site-ha"))
    yield lab
    lab.close()


def ok(lab: Lab, line: str) -> str:
    outcome = lab.execute("lab", line)
    assert outcome.ok, (line, outcome.text)
    return outcome.text


def refused(lab: Lab, line: str) -> str:
    before = lab.store.dump()
    outcome = lab.execute("lab", line)
    assert not outcome.ok and outcome.error_kind == "engine", (line, outcome)
    assert lab.store.dump() == before, line
    assert len(outcome.text.splitlines()) == 1, outcome.text
    return outcome.text


def on_router(lab: Lab, router: str, *lines: str) -> None:
    for line in lines:
        outcome = lab.execute(router, line)
        assert outcome.ok, (router, line, outcome.text)


def failover_drill(lab: Lab, verbs: dict[str, str]) -> list[str]:
    """Short-term outage, complete failure and a link cut, the failures written by `verbs`; returns
    the lab's lines (the audit last)."""
    out = [ok(lab, "publish trader trading/orders/new count 3"), ok(lab, "advance 1s"),
           ok(lab, "publish trader trading/orders/new count 2"), ok(lab, verbs["kill"])]
    on_router(lab, NJ, "enable", "configure", f"message-vpn {VPN}", "replication state active")
    out += [ok(lab, "advance 1s"), ok(lab, "publish trader trading/orders/new count 4"), ok(lab, verbs["start"])]
    on_router(lab, NY, "enable", "configure", f"message-vpn {VPN}", "replication state standby")
    out += [ok(lab, "advance 5s"), ok(lab, verbs["partition"]), ok(lab, "publish trader trading/orders/new count 2"),
            ok(lab, verbs["heal"]), ok(lab, "advance 5s"), ok(lab, verbs["kill"]), ok(lab, verbs["replace"]),
            ok(lab, "advance 1s"), ok(lab, "consume settlement orders count 100"), ok(lab, "audit")]
    return out


OLD = {"kill": "fail site NY", "start": "restore site NY", "replace": "replace site NY",
       "partition": "fail link", "heal": "restore link"}
NEW = {"kill": f"ha kill {NY}", "start": f"ha start {NY}", "replace": f"ha replace {NY}",
       "partition": "ha partition NY-NJ", "heal": "ha heal NJ-NY"}


def test_the_ha_verbs_on_a_sites_one_router_and_the_link_equal_the_site_and_link_verbs(journal: Journal) -> None:
    labs = [Lab.fresh(), Lab.fresh()]
    try:
        old_lines = failover_drill(labs[0], OLD)
        old_journal = list(journal)
        journal.clear()
        new_lines = failover_drill(labs[1], NEW)
        assert new_lines == old_lines
        assert labs[1].store.dump() == labs[0].store.dump()
        # the same calls, the link named by its sites where `fail link` fails every link
        link = {("solace.fail_link", ("NY", "NJ"), ()): ("solace.fail_link", (), ()),
                ("solace.restore_link", ("NY", "NJ"), ()): ("solace.restore_link", (), ())}
        assert [[link.get(c, c) for c in calls] for calls in journal] == old_journal
        assert [line for line in new_lines if line.startswith(("site ", "link "))] == [
            "site NY down routers NY_Appliance1 disconnected settlement,trader",
            "site NY up routers NY_Appliance1 disconnected -", "link down", "link up",
            "site NY down routers NY_Appliance1 disconnected -",
            "site NY replaced routers NY_Appliance1 disconnected -"]
    finally:
        for lab in labs:
            lab.close()


def test_ha_kill_prints_the_site_line_and_journals_fail_site(lab: Lab, journal: Journal) -> None:
    assert ok(lab, f"ha kill {NY}") == "site NY down routers NY_Appliance1 disconnected settlement,trader"
    assert ok(lab, f"ha start {NY}") == "site NY up routers NY_Appliance1 disconnected -"
    assert ok(lab, f"ha kill {NJ}") == "site NJ down routers NJ_Appliance1 disconnected -"
    assert ok(lab, f"ha replace {NJ}") == "site NJ replaced routers NJ_Appliance1 disconnected -"
    assert journal == [[("solace.fail_site", ("NY",), ())], [("solace.restore_site", ("NY",), ())],
                       [("solace.fail_site", ("NJ",), ())], [("solace.replace_site", ("NJ",), ())]]
    with lab.store.transaction() as e:
        # a replacement comes up
        assert [(s.name, s.up) for s in router_engine(e).sites()] == [("NY", True), ("NJ", True)]


@pytest.mark.parametrize(("before", "line", "text"), [
    ((), f"ha hang {NY}", "ERROR: A hung router is not modelled for replication; 'ha kill NY_Appliance1' fails it."),
    ((), f"ha replace {NY}",
     "ERROR: Router 'NY_Appliance1' is running; kill it first (only a stopped router is replaced)."),
    ((), f"ha start {NY}", "ERROR: Site 'NY' is already up."),
    ((f"ha kill {NY}",), f"ha kill {NY}", "ERROR: Site 'NY' is already down."),
    ((f"ha kill {NY}",), f"ha hang {NY}",
     "ERROR: A hung router is not modelled for replication; 'ha kill NY_Appliance1' fails it."),
    ((), "ha kill NY_Appliance2",
     "ERROR: Router or HA instance 'NY_Appliance2' not found (write a router's name or <group>.<node>)."),
    ((), "ha kill NY", "ERROR: Router or HA instance 'NY' not found (write a router's name or <group>.<node>)."),
    ((), "ha kill ha1.A",
     "ERROR: Router or HA instance 'ha1.A' not found (write a router's name or <group>.<node>)."),
    ((), "ha partition NY",
     "ERROR: Inter-site link or HA router 'NY' not found (write a link as <site>-<site>)."),
    ((), "ha partition NY-NY",
     "ERROR: Inter-site link or HA router 'NY-NY' not found (write a link as <site>-<site>)."),
    ((), "ha heal NY-NJ", "ERROR: The inter-site link is already up."),
    (("ha partition NY-NJ",), "ha partition NJ-NY", "ERROR: The inter-site link is already down."),
])
def test_refusals_are_one_line_and_change_nothing(lab: Lab, before: tuple[str, ...], line: str, text: str) -> None:
    for done in before:
        ok(lab, done)
    assert refused(lab, line) == text


def test_bad_input_is_refused_by_the_grammar_in_one_error(lab: Lab) -> None:
    for line, kind in (("ha kill", "incomplete"), ("ha partition", "incomplete"), ("ha kill NY*", "invalid-value"),
                       ("ha partition " + "N" * 130, "invalid-value"), ("ha kill NY_Appliance1 now", "invalid")):
        before = lab.store.dump()
        outcome = lab.execute("lab", line)
        assert not outcome.ok and outcome.error_kind == kind, (line, outcome)
        assert lab.store.dump() == before


def completions(lab: Lab, text: str) -> list[str]:
    session = lab.target("lab")
    completer = ShellCompleter(lab.parser, lambda: session, LiveNames(lab), lambda: NY)
    return [c.text for c in completer.get_completions(Document(text), CompleteEvent(completion_requested=True))]


def test_tab_offers_the_routers_and_the_link_and_question_mark_says_what_they_are(lab: Lab) -> None:
    for verb in ("start", "kill", "hang", "replace"):
        assert completions(lab, f"ha {verb} ") == [f"{NY} ", f"{NJ} "]
    assert completions(lab, "ha partition ") == ["NY-NJ "]
    assert completions(lab, "ha heal NY") == ["NY-NJ "]
    assert help_text(lab.parser, "lab", "lab>", "ha kill ").splitlines()[1:] == [
        "  <ha-node>  The HA node (<group>.<node>, e.g. ha1.A) or a router of the lab (e.g. NY_Appliance1)"]
    assert help_text(lab.parser, "lab", "lab>", "ha partition ").splitlines()[1:] == [
        "  <ha-network>  The HA group (e.g. ha1) or an inter-site link (<site>-<site>, e.g. NY-NJ)"]


def test_tab_completes_a_router_at_the_console_prompt(lab: Lab, executed: list[tuple[str, str]]) -> None:
    drive(lab, "ha kill NY\t\rha partition N\t\r\x04", start="lab")
    assert executed == [("lab", f"ha kill {NY} "), ("lab", "ha partition NY-NJ ")]
    with lab.store.transaction() as e:
        assert [(s.name, s.up) for s in router_engine(e).sites()] == [("NY", False), ("NJ", True)]
        assert not router_engine(e).status().link_up


def test_the_command_line_example_kills_the_router(tmp_path: Path) -> None:
    env = {**os.environ, "PYTHONPATH": str(Path(__file__).resolve().parents[2])}
    run = subprocess.run([sys.executable, "-m", "solace_shell.cli", "--db", str(tmp_path / "t.lab"), "--router", "lab",
                          "-c", f"ha kill {NY}"], capture_output=True, text=True, env=env, timeout=120)
    assert run.returncode == 0, run.stderr
    assert run.stdout.strip().splitlines()[-1] == "site NY down routers NY_Appliance1 disconnected settlement,trader"


# ---------------------------------------------------------------- two-site-ha: a redundancy group per site
def test_a_group_members_router_name_is_its_kernel_node_as_fail_router(journal: Journal) -> None:
    """`ha kill NY_Appliance1` = `fail router NY_Appliance1` = `ha kill NY.NY_Appliance1`."""
    outputs, dumps, journals = [], [], []
    for kill, start in ((f"fail router {NY}", f"restore router {NY}"), (f"ha kill NY.{NY}", f"ha start NY.{NY}"),
                        (f"ha kill {NY}", f"ha start {NY}")):
        lab = Lab.fresh(scenario=resolve_scenario("two-site-ha"))
        try:
            journal.clear()
            outputs.append([ok(lab, "publish trader trading/orders/new count 2"), ok(lab, kill),
                            ok(lab, "advance 1s"), ok(lab, start), ok(lab, "advance 1s"), ok(lab, "audit")])
            dumps.append(lab.store.dump())
            journals.append(list(journal))
        finally:
            lab.close()
    assert outputs[0] == outputs[1] == outputs[2]
    assert outputs[2][1] == ("site NY NY_Appliance1 killed: activity NY_Appliance2, redundancy down "
                             "(One or more nodes is offline)")
    assert dumps[0] == dumps[1] == dumps[2]
    assert journals[0] == journals[1] == journals[2]
    assert journals[2][1] == [("kernel_call", ("solace-redundancy.kill", f"NY.{NY}"), ())]


def test_a_members_hang_and_replace_are_the_groups_and_the_monitor_is_a_node_too(pair_lab: Lab) -> None:
    assert ok(pair_lab, "ha hang NY_Appliance2") == "site NY NY_Appliance2 hung: activity NY_Appliance1, redundancy up"
    assert ok(pair_lab, "ha kill NY_Monitor") == ("site NY NY_Monitor killed: activity NY_Appliance1, redundancy down "
                                                 "(One or more nodes is offline)")
    assert refused(pair_lab, "ha replace NJ_Appliance1").startswith("ERROR: ")
    ok(pair_lab, "ha kill NJ_Appliance1")
    assert ok(pair_lab, "ha replace NJ_Appliance1") == ("site NJ NJ_Appliance1 replaced: activity NJ_Appliance2, "
                                                       "redundancy down (One or more nodes is offline)")


def test_a_site_name_is_still_its_groups_network_and_the_link_is_named_by_both_sites(pair_lab: Lab) -> None:
    assert ok(pair_lab, "ha partition NY").startswith("site NY NY partitioned:")
    assert ok(pair_lab, "ha heal NY").startswith("site NY NY healed:")
    assert ok(pair_lab, "ha partition NY-NJ") == "link down"
    with pair_lab.store.transaction() as e:
        assert not router_engine(e).status().link_up
    assert ok(pair_lab, "ha heal NY-NJ") == "link up"


def test_two_site_ha_completion_lists_nodes_routers_groups_and_the_link(pair_lab: Lab) -> None:
    nodes = completions(pair_lab, "ha kill ")
    assert f"NY.{NY} " in nodes and f"{NY} " in nodes and "NJ_Monitor " in nodes
    assert completions(pair_lab, "ha partition ") == ["NY ", "NJ ", "NY-NJ "]


def test_a_router_sharing_its_site_outside_a_redundancy_group_is_refused(tmp_path: Path) -> None:
    """The replication model fails whole sites: one of several routers of a site cannot fail alone."""
    default = resolve_scenario("default")
    assert default is not None
    text = default.read_text(encoding="utf-8").replace(
        "          connect_via: 192.168.160.12\n",
        "          connect_via: 192.168.160.12\n      - name: NY_Spare\n        message_id_seed: 17\n", 1)
    scenario = tmp_path / "two-in-ny.yaml"
    scenario.write_text(text, encoding="utf-8")
    lab = Lab.fresh(scenario=scenario)
    try:
        for verb in ("kill", "hang", "start", "replace"):
            assert refused(lab, f"ha {verb} NY_Spare") == (
                "ERROR: Router 'NY_Spare' is not alone in site 'NY'; the replication lab fails whole sites "
                "(fail site NY).")
    finally:
        lab.close()
