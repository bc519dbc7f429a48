"""Grading sessions against runbooks: hand-written drills (tests/data/grading), runbook
validation, `solace-shell grade` through a subprocess, `lab> grade` through a Lab, and the
figures docs/grading.md and docs/tutorial.md show.
"""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from dataclasses import replace
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from solace_shell.grading import GradeError, Runbook, RunbookError, bundled_names, grade_transcript, load_runbook
from solace_shell.grading.vocabulary import CHECKS, MEASURES, ROLE_SOURCES
from solace_shell.lab import Lab
from solace_shell.transcript.format import scan_transcript
from state_store.lab_store import LabStore

ROOT = Path(__file__).resolve().parents[2]
DATA = ROOT / "tests" / "data" / "grading"
CONTROLLED = load_runbook("controlled-failover")


def _whole_session(runbook: Runbook) -> Runbook:
    """The runbook with its outcome counted over the whole session."""
    return replace(runbook, outcome_from="start")


def grade(name: str) -> object:
    return grade_transcript(CONTROLLED, DATA / f"{name}.cli.txt")


def statuses(name: str) -> dict[str, str]:
    result = grade_transcript(CONTROLLED, DATA / f"{name}.cli.txt")
    return {step.id: step.status for step in result.steps}


# -- the controlled-failover runbook on hand-written drills -------------------------------------
def test_controlled_failover_has_the_six_steps_in_order() -> None:
    assert [s.id for s in CONTROLLED.steps] == ["verify-bridge", "standby", "drain", "heuristics", "activate",
                                                "delete-completed"]


def test_a_clean_drill_passes_every_step_however_it_is_typed() -> None:
    result = grade_transcript(CONTROLLED, DATA / "clean.cli.txt")
    assert result.passed and result.verdict == "pass" and result.score == 1.0
    assert result.failed_steps == () and result.notes == ()
    assert all(step.status == "done" for step in result.steps)
    texts = {step.id: step.text for step in result.steps}
    assert texts["verify-bridge"] == 'NJ_Appliance1> sh message-vpn "Trading_VPN" replication'
    assert texts["standby"] == "NY_Appliance1(configure)# message-vpn Trading_VPN replication state standby"
    assert result.outcome == (("lost", 0, 0), ("duplicated", 0, 0), ("leftover-transactions", 0, 0))


def test_the_procedure_transcript_of_the_corpus_passes() -> None:
    result = grade_transcript(CONTROLLED, ROOT / "transcripts" / "seed000" / "controlled-failover.cli.txt")
    assert result.passed, result


def test_promoting_before_demoting_fails_at_standby_or_activate() -> None:
    result = grade_transcript(CONTROLLED, DATA / "promote-before-demote.cli.txt")
    assert not result.passed
    assert {"standby", "activate"} & set(result.failed_steps)
    activate = next(s for s in result.steps if s.id == "activate")
    assert activate.status == "precondition-not-met" and "standby on formerly-active" in activate.reason
    assert activate.consequence == "lost 2 (expected 0)"


def test_skipping_the_drain_check_fails_at_drain() -> None:
    result = grade_transcript(CONTROLLED, DATA / "skip-drain-check.cli.txt")
    assert result.failed_steps == ("drain",)
    assert statuses("skip-drain-check")["drain"] == "missing"


def test_corrected_typos_are_notes_not_failures() -> None:
    result = grade_transcript(CONTROLLED, DATA / "typo-corrected.cli.txt")
    assert result.passed
    assert len(result.notes) == 2
    assert all(re.match(r"line \d+: typo \(corrected by line \d+\), not graded: ", n) for n in result.notes)


def test_a_check_on_the_wrong_router() -> None:
    result = grade_transcript(CONTROLLED, DATA / "wrong-router.cli.txt")
    drain = next(s for s in result.steps if s.id == "drain")
    assert result.failed_steps == ("drain",)
    assert drain.status == "wrong-router" and drain.text.startswith("NJ_Appliance1> show queue")


def test_a_heuristic_commit_on_the_newly_active_site_is_forbidden() -> None:
    result = grade_transcript(CONTROLLED, DATA / "forbidden-heuristic.cli.txt")
    taken = next(s for s in result.steps if s.id == "heuristic-on-newly-active")
    assert taken.status == "forbidden-action" and taken.text.endswith("commit-transaction xid 0021ABC4-00-09")
    assert "heuristic-on-newly-active" in result.failed_steps and "outcome" in result.failed_steps
    assert ("leftover-transactions", 0, 2) in result.outcome


def test_grading_starts_again_after_a_lab_reset() -> None:
    text = (DATA / "clean.cli.txt").read_text(encoding="utf-8") + "lab> reset\nreset to scenario default\n"
    result = grade_transcript(CONTROLLED, text, name="reset.cli.txt")
    assert not result.passed and any("the lab was reset" in n for n in result.notes)
    assert [s.status for s in result.steps] == ["missing", "missing", "missing", "not-applicable", "missing",
                                                "not-applicable"]


def test_bundled_runbooks_grade_their_corpus_drills() -> None:
    assert set(bundled_names()) >= {"controlled-failover", "uncontrolled-short-term-outage",
                                    "uncontrolled-long-term-outage", "uncontrolled-complete-failure", "failback"}
    drills = ROOT / "transcripts" / "failover-types"
    assert grade_transcript(load_runbook("uncontrolled-short-term-outage"), drills / "short-term-outage.cli.txt").passed
    assert grade_transcript(load_runbook("uncontrolled-long-term-outage"), drills / "long-term-outage.cli.txt").passed
    failback = grade_transcript(load_runbook("failback"), drills / "failback-after-short-outage.cli.txt")
    assert "drain" in failback.failed_steps
    # the 3 duplicates came of the short outage's uncontrolled fail-over: failback measures from its begin
    assert ("duplicated", 0, 0) in failback.outcome
    assert ("duplicated", 0, 3) in grade_transcript(_whole_session(load_runbook("failback")),
                                                     drills / "failback-after-short-outage.cli.txt").outcome


def test_a_router_runbook_measures_the_shared_totals_and_spooled_as_stored() -> None:
    runbook = replace(CONTROLLED, outcome=(("spooled", 0), ("stored", 0), ("stranded", 0), ("published", 0)))
    result = grade_transcript(runbook, DATA / "promote-before-demote.cli.txt")
    assert result.outcome == (("spooled", 0, 2), ("stored", 0, 2), ("stranded", 0, 2), ("published", 0, 6))


# -- what cannot be graded -----------------------------------------------------------------------
def test_a_transcript_of_another_system_is_one_error() -> None:
    swiftmq = sorted((ROOT / "transcripts" / "swiftmq").glob("*.cli.txt"))[0]
    with pytest.raises(GradeError, match=r":0: no line of the transcript runs on a router"):
        grade_transcript(CONTROLLED, swiftmq)


def test_an_unreadable_or_broken_transcript_is_one_error(tmp_path: Path) -> None:
    with pytest.raises(GradeError, match=r"missing\.cli\.txt: cannot read: No such file or directory$"):
        grade_transcript(CONTROLLED, tmp_path / "missing.cli.txt")  # no line number: no line was read
    broken = tmp_path / "broken.cli.txt"
    broken.write_text("some output\nXX_Router1(configure)# show hostname\n", encoding="utf-8")
    with pytest.raises(GradeError) as raised:
        grade_transcript(CONTROLLED, broken)
    assert "\n" not in str(raised.value)


# -- runbook validation --------------------------------------------------------------------------
def test_every_runbook_problem_is_reported_at_once_with_its_line() -> None:
    with pytest.raises(RunbookError) as raised:
        load_runbook(str(DATA / "bad-runbook.yaml"))
    found = {(int(m.group(1)), m.group(2)) for m in
             (re.match(r".*bad-runbook\.yaml:(\d+): (unknown [a-z ]+)", p) for p in raised.value.problems) if m}
    assert found == {(7, "unknown role source "), (15, "unknown command in step "), (20, "unknown router or role "),
                     (22, "unknown command in step "), (24, "unknown state check "), (27, "unknown measure ")}


@pytest.mark.parametrize(("text", "problem"), [
    ("runbook: x\ntitle: t\nvpn: V\nsteps: []\nextra: 1\n", ":5: unknown key 'extra' in a runbook"),
    ("runbook: x\ntitle: t\nvpn: V\nsteps: []\n", ":4: a runbook needs at least one step"),
    ("runbook: x\ntitle: t\nvpn: V\nsteps:\n  - id: a\n    title: t\n    rationale: r\n    router: NY_Appliance1\n"
     "    commands: [show hostname]\n  - id: a\n    title: t\n    rationale: r\n    router: NY_Appliance1\n"
     "    commands: [show hostname]\n", ":10: id 'a' given twice (first on line 5)"),
    ("runbook: x\ntitle: t\nvpn: V\nsteps:\n  - id: a\n    title: t\n    rationale: r\n    router: NY_Appliance1\n"
     "    until: [{standby: NY_Appliance1}]\n    commands: [show hostname]\n",
     ":9: `until:` is for steps of kind check"),
    ("runbook: [unclosed\n", ":2: "),
])
def test_runbook_problems(tmp_path: Path, text: str, problem: str) -> None:
    path = tmp_path / "runbook.yaml"
    path.write_text(text, encoding="utf-8")
    with pytest.raises(RunbookError) as raised:
        load_runbook(str(path))
    assert any(problem in p for p in raised.value.problems), raised.value.problems


def test_an_unknown_runbook_name_lists_the_bundled_ones() -> None:
    with pytest.raises(RunbookError, match=r"nope:0: cannot read the runbook: .*bundled: .*controlled-failover"):
        load_runbook("nope")


# -- solace-shell grade ----------------------------------------------------------------------------
def _grade_cli(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "solace_shell.cli", "grade", *args], cwd=ROOT, capture_output=True,
                          text=True, timeout=300, env={**os.environ, "PYTHONPATH": str(ROOT)})


def test_the_grade_command_reports_and_exits_by_verdict() -> None:
    done = _grade_cli("--runbook", "controlled-failover", str(DATA / "clean.cli.txt"))
    assert done.returncode == 0 and done.stderr == ""
    assert done.stdout.splitlines()[0].endswith("clean.cli.txt: pass (score 1.00, runbook controlled-failover)")
    failed = _grade_cli("--runbook", "controlled-failover", str(DATA / "clean.cli.txt"),
                        str(DATA / "skip-drain-check.cli.txt"))
    assert failed.returncode == 1
    assert "seen: never done before line 48" in failed.stdout


def test_the_grade_command_json() -> None:
    done = _grade_cli("--runbook", "controlled-failover", "--json", str(DATA / "clean.cli.txt"),
                      str(DATA / "wrong-router.cli.txt"))
    rows = [json.loads(line) for line in done.stdout.splitlines()]
    assert [(Path(r["transcript"]).name, r["passed"], r["failed_steps"]) for r in rows] == [
        ("clean.cli.txt", True, []), ("wrong-router.cli.txt", False, ["drain"])]
    assert done.returncode == 1


def test_the_grade_command_gives_one_line_per_unusable_file(tmp_path: Path) -> None:
    swiftmq = sorted((ROOT / "transcripts" / "swiftmq").glob("*.cli.txt"))[0]
    done = _grade_cli("--runbook", "controlled-failover", str(tmp_path / "missing.cli.txt"), str(swiftmq),
                      str(DATA / "clean.cli.txt"))
    assert done.returncode == 2
    assert len(done.stderr.splitlines()) == 2 and "Traceback" not in done.stderr
    assert "pass" in done.stdout
    bad = _grade_cli("--runbook", str(DATA / "bad-runbook.yaml"), str(DATA / "clean.cli.txt"))
    assert bad.returncode == 2 and len(bad.stderr.splitlines()) == 6 and bad.stdout == ""
    assert all(line.startswith("solace-shell: ") for line in bad.stderr.splitlines())


# -- lab> grade ---------------------------------------------------------------------------------------
def _type(lab: Lab, transcript: Path) -> None:
    text = transcript.read_text(encoding="utf-8")
    for step in scan_transcript(text, transcript.name, hosts=lab.targets()).steps():
        lab.execute(step.host, step.command)


def test_the_lab_grades_its_own_session() -> None:
    lab = Lab.fresh()
    try:
        empty = lab.execute("lab", "grade")
        assert not empty.ok and empty.text == "ERROR: This session cannot be graded: no line has been typed yet"
        _type(lab, DATA / "clean.cli.txt")
        typed = len(lab.session_log.lines)
        outcome = lab.execute("lab", "grade")
        assert outcome.ok
        assert outcome.text.splitlines()[0] == "this session: pass (score 1.00, runbook controlled-failover)"
        assert len(lab.session_log.lines) == typed       # grading is not part of the session it grades
        lab.execute("NJ_Appliance1", "show queue #MSGVPN_REPLICATION_DATA_QUEUE message-vpn Trading_VPN")
        again = lab.execute("lab", "grade failback")
        assert again.ok and again.text.startswith("this session: fail at ")
        refused = lab.execute("lab", "grade nope")
        assert not refused.ok and len(refused.text.splitlines()) == 1
        assert refused.text.startswith("ERROR: Runbook 'nope' cannot be used (1 problem(s)); first: nope:0: ")
    finally:
        lab.close()


def test_grading_never_changes_a_lab_file(tmp_path: Path) -> None:
    path = tmp_path / "class.lab"
    lab = Lab.open(path)
    try:
        _type(lab, DATA / "skip-drain-check.cli.txt")
        before = lab.store.dump()
        size = path.stat().st_size
        outcome = lab.execute("lab", "grade")
        assert outcome.ok and outcome.text.startswith("this session: fail at drain")
        assert lab.store.dump() == before and path.stat().st_size == size
    finally:
        lab.close()


# -- the documents -------------------------------------------------------------------------------------
def _console_examples(markdown: str) -> list[tuple[str, str]]:
    blocks = re.findall(r"^```\n(\$ .*?)^```", markdown, flags=re.S | re.M)
    return [(block.split("\n", 1)[0][2:], block.split("\n", 1)[1].rstrip("\n")) for block in blocks]


def test_the_grading_document_shows_real_output() -> None:
    examples = _console_examples((ROOT / "docs" / "grading.md").read_text(encoding="utf-8"))
    assert len(examples) == 4
    for command, shown in examples:
        done = subprocess.run(["bash", "-c", command], cwd=ROOT, capture_output=True, text=True, timeout=300,
                              env={**os.environ, "PYTHONPATH": str(ROOT)})
        assert (done.stdout + done.stderr).rstrip("\n") == shown, command


def test_the_grading_document_names_the_whole_vocabulary() -> None:
    text = (ROOT / "docs" / "grading.md").read_text(encoding="utf-8")
    for name in (*CHECKS, *ROLE_SOURCES, *MEASURES, *bundled_names()):
        assert f"`{name}`" in text, name


def test_the_tutorial_session_passes_until_its_first_reset() -> None:
    text = (ROOT / "transcripts" / "tutorial" / "first-hour.cli.txt").read_text(encoding="utf-8")
    result = grade_transcript(CONTROLLED, text[: text.index("lab> reset\n")], name="first-hour")
    assert result.passed
    assert "same command says `this session: pass (score 1.00, runbook controlled-failover)`" in " ".join(
        (ROOT / "docs" / "tutorial.md").read_text(encoding="utf-8").split())


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(st.one_of(st.binary(max_size=300), st.text(max_size=300).map(lambda t: t.encode("utf-8", "surrogatepass"))))
def test_any_runbook_file_is_a_runbook_or_its_problems(tmp_path: Path, data: bytes) -> None:
    path = tmp_path / "any.yaml"
    path.write_bytes(data)
    try:
        load_runbook(str(path))
    except RunbookError as exc:
        assert exc.problems and all(p.startswith(f"{path}:") and "\n" not in p for p in exc.problems)


def test_the_trainer_lists_every_session_on_the_lab() -> None:
    store = LabStore.in_memory()
    trainer, trainee, elsewhere = Lab(store, "admin"), Lab(store, "operator"), Lab.fresh()
    try:
        _type(trainee, DATA / "skip-drain-check.cli.txt")
        _type(elsewhere, DATA / "clean.cli.txt")
        shown = trainer.execute("lab", "progress").text.splitlines()
        assert shown[0] == "runbook controlled-failover"
        assert shown[1].split() == ["user", "lines", "verdict", "score"]
        assert [line.split()[:2] for line in shown[2:]] == [["admin", "0"], ["operator", "18"]]
        assert shown[3].split()[2:] == ["fail", "at", "drain", "0.75"]
        assert len(trainee.session_log.lines) == 18 and len(trainer.session_log.lines) == 0
    finally:
        for lab in (trainer, trainee, elsewhere):
            lab.close()


def test_a_step_may_leave_its_command_on_other_routers_alone() -> None:
    """delete-completed is on the formerly active site; deleting on the newly active site too is allowed."""
    text = (DATA / "forbidden-heuristic.cli.txt").read_text(encoding="utf-8")
    text += "NJ_Appliance1(admin/message-spool)# delete-transaction xid 0021ABC4-00-09\n"
    result = grade_transcript(CONTROLLED, text, name="delete-on-both.cli.txt")
    assert {s.id: s.status for s in result.steps}["delete-completed"] == "not-applicable"


def test_a_lab_without_the_runbooks_message_vpn_is_one_error(tmp_path: Path) -> None:
    path = tmp_path / "other-vpn.yaml"
    path.write_text((ROOT / "solace_shell" / "grading" / "runbooks" / "failback.yaml").read_text(encoding="utf-8")
                    .replace("vpn: Trading_VPN", "vpn: Other_VPN"), encoding="utf-8")
    with pytest.raises(GradeError, match=r"clean.cli.txt:0: no router of the transcript's lab has the Message VPN"):
        grade_transcript(load_runbook(str(path)), DATA / "clean.cli.txt")
