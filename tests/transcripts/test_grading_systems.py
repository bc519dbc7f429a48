"""Grading sessions of the HA systems on the kernel and of the Solace redundancy pair: lines of the
lab console and of the systems' CLIs, state checks over kernel nodes and groups, the kernel audit,
and outcomes counted from where the procedure begins. Bundled runbooks against the corpus drills
that follow their procedure, and deviating copies in tests/data/grading."""

from __future__ import annotations

import os
import subprocess
from dataclasses import fields, replace
from pathlib import Path

import pytest

from solace_shell.grading import GradeError, RunbookError, grade_transcript, load_runbook
from solace_shell.grading.vocabulary import AUDIT_MEASURES, ROUTER_SYSTEM, audit_measures, measures_of
from solace_shell.lab import Lab
from state_store.kernel.audit import AuditTotals
from state_store.scenario_files import ROOT_DIR
from state_store.solace.views import SolaceAuditTotals

ROOT = Path(__file__).resolve().parents[2]
DATA = ROOT / "tests" / "data" / "grading"
SWIFTMQ = ROOT / "transcripts" / "swiftmq"
HA_PAIR = ROOT / "transcripts" / "ha-pair"


def statuses(runbook: str, path: Path) -> dict[str, str]:
    return {s.id: s.status for s in grade_transcript(load_runbook(runbook), path).steps}


# -- SwiftMQ --------------------------------------------------------------------------------------
def test_the_partition_drill_recovers_from_its_split_brain_by_the_runbook() -> None:
    result = grade_transcript(load_runbook("swiftmq-split-brain-recovery"), SWIFTMQ / "partition-split-brain.cli.txt")
    assert result.passed, result.verdict
    assert [(s.id, s.text) for s in result.steps] == [
        ("delete-state", "lab> ha file ha1.B delete"), ("restart", "lab> ha start ha1.B"),
        ("verify", "lab> ha state ha1")]
    assert result.outcome == (("lost", 0, 0), ("duplicated", 0, 0))


def test_restarting_the_shut_down_instance_with_its_saved_state_fails_at_delete_state() -> None:
    result = grade_transcript(load_runbook("swiftmq-split-brain-recovery"),
                              DATA / "swiftmq-restart-keeping-state.cli.txt")
    assert result.failed_steps == ("delete-state", "verify")
    steps = {s.id: s for s in result.steps}
    assert steps["delete-state"].status == "missing" and steps["restart"].status == "done"
    assert "state-standby on shut-down (ha1.B)" in steps["verify"].reason


def test_the_preferred_active_return_drill_passes() -> None:
    result = grade_transcript(load_runbook("swiftmq-preferred-active-return"),
                              SWIFTMQ / "a-sw-1-startup-crash-return-preferred.cli.txt")
    assert result.passed, result.verdict
    assert result.notes[0].endswith("(process-down on preferred (ha1.A), serving on survivor (ha1.B))")


def test_killing_the_serving_instance_before_the_swap_is_a_forbidden_action() -> None:
    result = grade_transcript(load_runbook("swiftmq-preferred-active-return"),
                              DATA / "swiftmq-kill-before-swap.cli.txt")
    assert result.failed_steps == ("wait-swap", "kill-serving-before-swap")
    taken = result.steps[-1]
    assert (taken.status, taken.text, taken.reason) == ("forbidden-action", "lab> ha kill ha1.B", "ran on ha1.B")


def test_deleting_the_survivors_state_is_refused_and_no_step() -> None:
    text = (SWIFTMQ / "partition-split-brain.cli.txt").read_text(encoding="utf-8").replace(
        "lab> ha file ha1.B delete", "lab> ha file ha1.A delete").replace("../scenarios/swiftmq-ha.yaml", "swiftmq-ha")
    result = grade_transcript(load_runbook("swiftmq-split-brain-recovery"), text, name="wrong-instance")
    assert result.failed_steps == ("delete-state", "verify")
    assert result.notes[1] == ("line 58: refused by the lab (engine), not counted for step delete-state: "
                               "lab> ha file ha1.A delete")


# -- the Solace redundancy pair -------------------------------------------------------------------
def test_a_release_and_revert_drill_passes_the_local_failover() -> None:
    result = grade_transcript(load_runbook("ha-pair-local-failover"), DATA / "ha-pair-release-revert.cli.txt")
    assert result.passed and result.score == 1.0, result.verdict


def test_the_release_before_a_replication_failover_never_returns_activity() -> None:
    result = grade_transcript(load_runbook("ha-pair-local-failover"),
                              HA_PAIR / "release-before-controlled-failover.cli.txt")
    assert result.failed_steps == ("reclaim", "revert", "verify-return")
    assert any("refused by the router (engine), not counted for step release" in n for n in result.notes)


def test_taking_the_release_back_unseen_fails_at_verify_takeover() -> None:
    assert statuses("ha-pair-local-failover", DATA / "ha-pair-reclaim-unchecked.cli.txt") == {
        "release": "done", "verify-takeover": "missing", "reclaim": "done", "revert": "done",
        "verify-return": "done"}


def test_the_revert_drill_passes_its_runbook_and_its_refused_reverts_are_notes() -> None:
    result = grade_transcript(load_runbook("ha-pair-revert"), HA_PAIR / "revert-after-primary-returns.cli.txt")
    assert result.passed, result.verdict
    assert sum("refused by the router" in n for n in result.notes) == 2


def test_a_revert_while_the_primary_is_still_released_misses_the_readiness_check() -> None:
    result = grade_transcript(load_runbook("ha-pair-revert"), DATA / "ha-pair-release-revert.cli.txt")
    assert result.failed_steps == ("check-primary",)


# -- outcomes counted from the begin --------------------------------------------------------------
def test_a_clean_failback_after_a_lossy_failover_passes_its_outcome() -> None:
    """The fail-over before the fail-back duplicated messages: the failback runbook counts from its begin."""
    drill = ROOT / "transcripts" / "failover-types" / "failback-after-short-outage.cli.txt"
    text = drill.read_text(encoding="utf-8")
    runbook = load_runbook("failback")
    assert runbook.outcome_from == "begin"
    assert ("duplicated", 0, 0) in grade_transcript(runbook, text, name="failback").outcome


def test_clean_generated_failbacks_pass_though_their_failover_duplicated(tmp_path: Path) -> None:
    from spark_jobs.drills import plan_drills
    from spark_jobs.generate import record_drill

    runbook = load_runbook("failback")
    whole = replace(runbook, outcome_from="start")
    clean = [d for d in plan_drills(200, 21) if d.kind == "failback" and d.mistake is None][:4]
    duplicated_before = 0
    for drill in clean:
        path = tmp_path / f"{drill.name}.cli.txt"
        record_drill(drill, path)
        assert grade_transcript(runbook, path).passed, drill.name
        duplicated_before += dict((m, v) for m, _, v in grade_transcript(whole, path).outcome)["duplicated"]
    assert duplicated_before > 0


# -- bad input ------------------------------------------------------------------------------------
def test_a_solace_transcript_graded_by_a_system_runbook_is_one_error() -> None:
    with pytest.raises(GradeError, match=r":0: the transcript's lab holds no swiftmq group"):
        grade_transcript(load_runbook("swiftmq-split-brain-recovery"), DATA / "clean.cli.txt")


def test_a_system_runbook_refuses_router_measures_and_a_bad_from(tmp_path: Path) -> None:
    path = tmp_path / "bad.yaml"
    text = (ROOT / "solace_shell" / "grading" / "runbooks" / "swiftmq-split-brain-recovery.yaml").read_text(
        encoding="utf-8")
    text = text.replace("  from: begin", "  from: middle").replace("  duplicated: 0", "  leftover-transactions: 0")
    text = text.replace("state-standby: shut-down", "state-: shut-down")
    path.write_text(text, encoding="utf-8")
    with pytest.raises(RunbookError) as err:
        load_runbook(path)
    problems = [p.split(": ", 1)[1] for p in err.value.problems]
    assert problems[0].startswith("unknown state check 'state-' in step 'verify'")
    assert problems[1:] == [
        "`from:` of the outcome must be one of start, begin",
        "unknown measure 'leftover-transactions' in the outcome (known: published, delivered, duplicated, lost, "
        "stored, discarded, stranded, not-replicated)"]


def test_a_system_runbook_names_the_shared_measures_but_not_the_router_words(tmp_path: Path) -> None:
    path = tmp_path / "words.yaml"
    text = (ROOT / "solace_shell" / "grading" / "runbooks" / "swiftmq-split-brain-recovery.yaml").read_text(
        encoding="utf-8")
    path.write_text(text.replace("  duplicated: 0", "  duplicated: 0\n  not-replicated: 0\n  spooled: 0"),
                    encoding="utf-8")
    with pytest.raises(RunbookError) as err:
        load_runbook(path)
    (problem,) = err.value.problems
    assert problem.startswith(f"{path}:") and "unknown measure 'spooled' in the outcome" in problem


def test_one_measures_vocabulary_from_the_audit_totals() -> None:
    assert AUDIT_MEASURES == tuple(f.name.replace("_", "-") for f in fields(AuditTotals))
    assert set(measures_of("swiftmq")) == set(AUDIT_MEASURES) < set(measures_of(ROUTER_SYSTEM))
    totals = SolaceAuditTotals(published=6, delivered=4, duplicated=0, lost=2, stored=2, discarded=0, stranded=2,
                               rejected=1)
    measured = audit_measures(totals, ROUTER_SYSTEM)
    assert (measured["lost"], measured["stored"], measured["spooled"], measured["rejected"]) == (2, 2, 2, 1)
    assert tuple(audit_measures(AuditTotals(3, 3, 0, 0, 0, 0), "swiftmq")) == AUDIT_MEASURES


# -- the command line and the live lab ------------------------------------------------------------
def test_solace_shell_grade_takes_the_system_runbooks() -> None:
    done = subprocess.run(["solace-shell", "grade", "--runbook", "swiftmq-preferred-active-return",
                           "--json", str(SWIFTMQ / "a-sw-1-startup-crash-return-preferred.cli.txt"),
                           str(DATA / "swiftmq-kill-before-swap.cli.txt")],
                          cwd=ROOT, capture_output=True, text=True, timeout=300,
                          env={**os.environ, "PYTHONPATH": str(ROOT)})
    assert done.returncode == 1, done.stderr
    assert [line.count('"passed": true') for line in done.stdout.splitlines()] == [1, 0]


def test_lab_grade_grades_a_live_swiftmq_session() -> None:
    lab = Lab.fresh(ROOT_DIR / "swiftmq-ha.yaml")
    try:
        for line in ("ha start ha1.A", "ha start ha1.B", "advance 5s", "ha kill ha1.A", "advance 1s", "ha state ha1",
                     "ha start ha1.A", "advance 20s", "ha state ha1"):
            assert lab.execute("lab", line).ok, line
        shown = lab.execute("lab", "grade swiftmq-preferred-active-return").text
    finally:
        lab.close()
    assert shown.splitlines()[0] == "this session: pass (score 1.00, runbook swiftmq-preferred-active-return)"


def test_the_grading_document_names_the_audit_measures() -> None:
    text = (ROOT / "docs" / "grading.md").read_text(encoding="utf-8")
    for name in AUDIT_MEASURES:
        assert f"`{name}`" in text, name


def test_a_router_runbook_leaves_the_lab_console_lines_to_the_harness() -> None:
    text = (DATA / "clean.cli.txt").read_text(encoding="utf-8") + "lab> advnce 1s\n"
    result = grade_transcript(load_runbook("controlled-failover"), text, name="harness-typo")
    assert result.passed and result.notes == ()


def test_a_console_runbook_notes_a_corrected_console_typo() -> None:
    text = (SWIFTMQ / "partition-split-brain.cli.txt").read_text(encoding="utf-8").replace(
        "lab> ha file ha1.B delete\n", "lab> ha fiel ha1.B delete\nlab> ha file ha1.B delete\n").replace(
        "../scenarios/swiftmq-ha.yaml", "swiftmq-ha")
    result = grade_transcript(load_runbook("swiftmq-split-brain-recovery"), text, name="console-typo")
    assert result.passed
    assert "line 58: typo (corrected by line 59), not graded: lab> ha fiel ha1.B delete" in result.notes


def test_a_system_cli_line_acts_on_the_router_its_cli_is_connected_to(tmp_path: Path) -> None:
    """A step written at the SwiftMQ admin CLI's level: `lc` after `sr ha1` runs on the HA router ha1."""
    path = tmp_path / "look-after-failover.yaml"
    path.write_text("""\
runbook: look-after-failover
title: Look at the HA controller once the other instance serves
system: swiftmq
scenario: swiftmq-ha
begin:
  - process-down: ha1.A
steps:
  - id: look
    title: List the HA controller's usage on the router
    kind: check
    router: ha1
    at: swiftmq
    commands:
      - lc
    until:
      - serving: ha1.B
    rationale: The instance that serves now answers for the router.
""", encoding="utf-8")
    result = grade_transcript(load_runbook(path), SWIFTMQ / "a-sw-4-admin-cli-failover.cli.txt")
    assert result.passed, result.verdict
    assert (result.steps[0].line, result.steps[0].text) == (43, "swiftmq:ha1> lc sys$hacontroller/usage")


def test_starting_an_instance_that_ran_alone_beside_the_survivor_fails_at_delete_state() -> None:
    """The negotiation-timeout drill starts A with its saved STANDALONE state beside the STANDALONE B:
    the split brain the runbook's first step prevents, before its documented recovery."""
    result = grade_transcript(load_runbook("swiftmq-split-brain-recovery"),
                              SWIFTMQ / "a-sw-3-negotiation-timeout-split-brain.cli.txt")
    assert result.failed_steps == ("delete-state",)
    steps = {s.id: (s.status, s.line) for s in result.steps}
    assert steps == {"delete-state": ("out-of-order", 48), "restart": ("done", 30), "verify": ("done", 56)}
    assert result.notes[0].startswith("line 30: the procedure begins here")


def test_the_node_check_families_and_the_group_quantifier() -> None:
    from solace_shell.grading.vocabulary import is_check

    for name in ("state-active", "not-state-standby", "saved-standalone", "every-saved-standalone",
                 "every-process-up", "not-every-serving"):
        assert is_check(name), name
    for name in ("state-", "saved-", "every-one-serving", "every-active", "every-every-serving", "stat-active"):
        assert not is_check(name), name


def test_an_every_step_on_nodes_names_the_node_not_looked_at(tmp_path: Path) -> None:
    path = tmp_path / "both-logs.yaml"
    path.write_text("""\
runbook: both-logs
title: Read both instances' logs
system: swiftmq
scenario: swiftmq-ha
steps:
  - id: logs
    title: Read the log of each instance
    kind: check
    router: [ha1.A, ha1.B]
    every: true
    at: lab
    commands:
      - ha log <ha-instance>
    rationale: Each instance logs its own view of the negotiation.
""", encoding="utf-8")
    partition = grade_transcript(load_runbook(path), SWIFTMQ / "partition-split-brain.cli.txt")
    assert (partition.steps[0].status, partition.steps[0].reason) == ("missing", "not run on ha1.A")
    assert grade_transcript(load_runbook(path), SWIFTMQ / "a-sw-1-startup-crash-return-preferred.cli.txt").passed
