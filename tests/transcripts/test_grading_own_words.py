"""Grading the CLIs that read their own words (gfsh's `--option=value` options, a broker host's
`qpid-ha` and `qpid-config`): each personality hands the grader its reading of a line as a
`ParsedCommand`, runbook commands written at its level are read the same way, so abbreviations
and option orders still match. The bundled Geode and Qpid runbooks against their clean drills
and their classic mistakes, through the grader and the real `solace-shell grade`."""

from __future__ import annotations

import json
import os
import subprocess
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from solace_shell.grading import RunbookError, grade_transcript, load_runbook
from solace_shell.grading.vocabulary import is_check
from solace_shell.lab import Lab
from solace_shell.parsed_command import ParsedCommand
from solace_shell.personalities.geode.cli import parse_command as gfsh_command
from solace_shell.personalities.qpid.tools import parse_command as broker_shell_command
from state_store.scenario_files import ROOT_DIR

ROOT = Path(__file__).resolve().parents[2]
DATA = ROOT / "tests" / "data" / "grading"
GEODE_RUNBOOK, QPID_RUNBOOK = "geode-durable-queue-server-restart", "qpid-primary-failover"
GEODE_CLEAN = ROOT / "transcripts" / "geode" / "durable-queue-server-restart.cli.txt"
GEODE_MISTAKE = DATA / "geode-stop-while-durable-offline.cli.txt"
QPID_CLEAN = ROOT / "transcripts" / "qpid" / "primary-failover-fenced.cli.txt"
QPID_MISTAKE = DATA / "qpid-promote-beside-live-primary.cli.txt"
D1 = "192.0.2.0(5143:loner):60922:1196bc66:d1"


def _graded_text(path: Path, *swaps: tuple[str, str]) -> str:
    text = path.read_text(encoding="utf-8").replace("../scenarios/", "").replace(".yaml\n", "\n", 1)
    for old, new in swaps:
        assert old in text, old
        text = text.replace(old, new)
    return text


# -- the hook ---------------------------------------------------------------------------------------
def test_every_personality_hands_the_grader_a_parsed_command() -> None:
    lab = Lab.fresh(ROOT_DIR / "geode-ha.yaml")
    try:
        gfsh = lab.target("geode").parsed_command(f"describe  client --clientID={D1}")
        assert gfsh == ParsedCommand("geode.describe_client", {"clientID": D1}, subjects=("g1",))
        assert lab.target("geode").parsed_command(f"describe client --clientId={D1}") is None
        stop = lab.target("geode").parsed_command("stop server --name s2")
        assert (stop.command, dict(stop.args), stop.subjects) == ("geode.stop_server", {"name": "s2"}, ("g1.s2", "g1"))
        console = lab.target("lab").parsed_command("adv 1s")
        assert (console.command, console.args["duration"]) == ("lab.advance", "1s")
        assert lab.target("geode").parsed_command("stop server --nme=s2") is None
    finally:
        lab.close()
    lab = Lab.fresh(ROOT_DIR / "qpid-ha.yaml")
    try:
        line = lab.target("qpid").parsed_command("qpid-ha status --al -b root@b2:5672")
        assert line == ParsedCommand("qpid-ha status", {"all": True, "broker": "root@b2:5672"}, subjects=("c1.b2",))
        here = lab.target("qpid").parsed_command("qpid-ha --cluster-manager promote  # on b1")
        assert here == ParsedCommand("qpid-ha promote", {"cluster-manager": True}, subjects=("c1.b1",))
    finally:
        lab.close()
    lab = Lab.fresh()
    try:
        router = lab.targets()[0]
        shown = lab.target(router).parsed_command("sh message-vpn Trading_VPN repl")
        assert shown is not None and shown.vpn == "Trading_VPN" and shown.command.startswith("show.")
    finally:
        lab.close()


def test_the_tools_read_options_anywhere_and_their_refusals_are_reasons() -> None:
    assert broker_shell_command(None, "qpid-ha -bb2 promote --cluster-manager") == \
        ParsedCommand("qpid-ha promote", {"broker": "b2", "cluster-manager": True})
    assert broker_shell_command(None, "qpid-config --durable add queue q3 -b b1") == \
        ParsedCommand("qpid-config add queue", {"durable": True, "broker": "b1", "name": "q3"})
    assert broker_shell_command(None, "ssh root@b3") == ParsedCommand("ssh", {"destination": "root@b3"})
    assert broker_shell_command(None, "   # nothing") is None
    assert broker_shell_command(None, "qpid-ha promot") == "Exception: No valid command"
    assert broker_shell_command(None, "qpid-ha status --bogus") == "qpid-ha: error: no such option: --bogus"
    from solace_shell.lab import shell_grammar

    assert gfsh_command(shell_grammar(), "list membrs") == \
        "Command 'list membrs' not found (for assistance press TAB)"


def test_the_check_families_and_redundancy() -> None:
    for name in ("redundant", "not-redundant", "some-state-active", "not-some-serving", "some-saved-standalone"):
        assert is_check(name), name
    for name in ("some-one-serving", "some-redundant", "some-", "every-redundant"):
        assert not is_check(name), name


WORDS = st.sampled_from(["qpid-ha", "qpid-config", "status", "promote", "--all", "--al", "-b", "b2",
                         "--cluster-manager", "add", "queue", "--durable", "--timeout", "x", "'", '"', "#", "--",
                         "=", "list", "members",
                         "describe", "client", "--clientID=", "stop", "server", "--name", "s2", "\x1b", "ssh"])


@settings(max_examples=200, deadline=None)
@given(st.lists(st.one_of(WORDS, st.text(max_size=8)), max_size=8))
def test_any_line_reads_as_a_command_a_reason_or_nothing(words: list[str]) -> None:
    from solace_shell.lab import shell_grammar

    line = " ".join(words)
    for read in (gfsh_command(shell_grammar(), line), broker_shell_command(None, line)):
        assert read is None or isinstance(read, ParsedCommand) or (isinstance(read, str) and "\n" not in read)


# -- Geode --------------------------------------------------------------------------------------
def test_the_server_restart_drill_passes() -> None:
    result = grade_transcript(load_runbook(GEODE_RUNBOOK), GEODE_CLEAN)
    assert result.passed and result.score == 1.0, result.verdict
    assert [(s.id, s.text) for s in result.steps] == [
        ("check-queue", f"geode:gfsh> describe client --clientID={D1}"),
        ("stop-server", "geode:gfsh> stop server --name=s2"),
        ("check-failover", f"geode:gfsh> describe client --clientID={D1}"),
        ("start-server", "geode:gfsh> start server --name=s2"),
        ("check-restored", "geode:gfsh> list members")]
    assert result.outcome == (("lost", 0, 0),)


def test_stopping_the_last_copy_of_an_offline_durable_queue_fails_and_costs_its_events() -> None:
    result = grade_transcript(load_runbook(GEODE_RUNBOOK), GEODE_MISTAKE)
    assert result.failed_steps == ("check-failover", "check-restored", "stop-last-copy", "outcome")
    steps = {s.id: s for s in result.steps}
    assert steps["stop-server"].status == "done"
    assert (steps["check-failover"].status, steps["check-failover"].reason) == (
        "missing", "run, but never when redundant on g1 (g1)")
    taken = steps["stop-last-copy"]
    assert (taken.status, taken.text, taken.consequence) == (
        "forbidden-action", "geode:gfsh> stop server --name=s1", "lost 4 (expected 0)")
    assert result.outcome == (("lost", 0, 4),)


def test_gfsh_option_spellings_and_orders_still_match() -> None:
    text = _graded_text(GEODE_CLEAN,
                        (f"describe client --clientID={D1}\n", f"describe client --clientID {D1}\n"),
                        ("stop server --name=s2", "stop  server --name s2"),
                        ("gfsh> list members\n", "gfsh> list mem\n"),
                        ("show subscription-queue-size --durable-client-id=d1\nMember | Status | Queue Size\n"
                         "------ | ------ | -----------------------------------\ns1     | OK     | 0",
                         "show subscription-queue-size --members=s1,s2 --durable-client-id=d1\n"
                         "Member | Status | Queue Size\n------ | ------ | -----------------------------------\n"
                         "s1     | OK     | 0"))
    result = grade_transcript(load_runbook(GEODE_RUNBOOK), text, name="spellings")
    assert result.passed, result.verdict
    assert {s.id: s.text for s in result.steps}["stop-server"] == "geode:gfsh> stop  server --name s2"


# -- Qpid ---------------------------------------------------------------------------------------
def test_the_fenced_primary_failover_passes() -> None:
    result = grade_transcript(load_runbook(QPID_RUNBOOK), QPID_CLEAN)
    assert result.passed and result.score == 1.0, result.verdict
    assert [(s.id, s.text) for s in result.steps] == [
        ("fence", "lab> ha kill c1.b1"), ("assess", "qpid:root@b2> qpid-ha status --all"),
        ("promote", "qpid:root@b2> qpid-ha --cluster-manager promote -b b2"),
        ("verify", "qpid:root@b2> qpid-ha status")]
    assert result.notes[0].endswith("the procedure begins here (one-serving on c1 (c1))")


def test_promoting_beside_a_live_primary_fails_at_promote_and_loses_its_messages() -> None:
    result = grade_transcript(load_runbook(QPID_RUNBOOK), QPID_MISTAKE)
    assert result.failed_steps == ("fence", "assess", "promote", "verify", "second-primary", "outcome")
    steps = {s.id: s for s in result.steps}
    promote = steps["promote"]
    assert (promote.status, promote.reason, promote.consequence) == (
        "precondition-not-met", "when it ran, not process-down on lost-primary (c1.b1)", "lost 2 (expected 0)")
    assert (steps["second-primary"].status, steps["second-primary"].text) == (
        "forbidden-action", "qpid:root@b2> qpid-ha --cluster-manager promote -b b2")
    assert dict((m, v) for m, _, v in result.outcome) == {"lost": 2, "stranded": 0}


def test_qpid_ha_abbreviations_and_option_orders_still_match() -> None:
    text = _graded_text(QPID_CLEAN,
                        ("qpid:root@b2> qpid-ha status --all\n", "qpid:root@b2> qpid-ha status -b b2 --al\n"),
                        ("qpid-ha --cluster-manager promote -b b2", "qpid-ha promote -bb2 --cluster-manager"))
    result = grade_transcript(load_runbook(QPID_RUNBOOK), text, name="orders")
    assert result.passed, result.verdict
    assert {s.id: s.text for s in result.steps}["promote"] == "qpid:root@b2> qpid-ha promote -bb2 --cluster-manager"


def test_the_acceptance_drill_promotes_without_looking_after_the_loss() -> None:
    """A-QP-1 kills the primary and promotes b2 at once: no `status --all` while b1 is gone."""
    result = grade_transcript(load_runbook(QPID_RUNBOOK),
                              ROOT / "transcripts" / "qpid" / "a-qp-1-promote-failover-duplicates.cli.txt")
    assert result.failed_steps == ("assess",)


def test_lab_grade_grades_a_live_broker_shell_session() -> None:
    lab = Lab.fresh(ROOT_DIR / "qpid-ha.yaml")
    try:
        for target, line in (("lab", "qpid cli"), ("qpid", "qpid-ha --cluster-manager promote -b b1"),
                             ("lab", "advance 3s"), ("qpid", "qpid-ha status --all"), ("lab", "ha kill c1.b1"),
                             ("qpid", "qpid-ha status --all -b b2"),
                             ("qpid", "qpid-ha --cluster-manager promote -b b2"), ("lab", "advance 3s"),
                             ("qpid", "qpid-ha status -b b2")):
            assert lab.execute(target, line).ok, line
        shown = lab.execute("lab", f"grade {QPID_RUNBOOK}").text.splitlines()
    finally:
        lab.close()
    assert shown[0] == f"this session: pass (score 1.00, runbook {QPID_RUNBOOK})"
    assert shown[3].split() == ["promote", "done", "line", "7:", "qpid:root@b1>", "qpid-ha", "--cluster-manager",
                                "promote", "-b", "b2"]


# -- bad runbooks and the command line ---------------------------------------------------------------
@pytest.mark.parametrize(("runbook", "old", "new", "problem"), [
    (GEODE_RUNBOOK, "      - stop server --name=<name>\n    preconditions:",
     "      - stop server --nme=<name>\n    preconditions:",
     "unknown command in step 'stop-server': 'stop server --nme=<name>' is no command at level geode "
     "(Option 'nme' is not available for this command. Use tab assist or the \"help\" command to see the "
     "legal options)"),
    (QPID_RUNBOOK, "      - qpid-ha --cluster-manager promote\n    preconditions:",
     "      - qpid-ha --cluster-manager promot\n    preconditions:",
     "unknown command in step 'promote': 'qpid-ha --cluster-manager promot' is no command at level qpid "
     "(Exception: No valid command)"),
])
def test_a_bad_command_of_a_cli_with_its_own_words_is_one_problem(tmp_path: Path, runbook: str, old: str,
                                                                   new: str, problem: str) -> None:
    text = (ROOT / "solace_shell" / "grading" / "runbooks" / f"{runbook}.yaml").read_text(encoding="utf-8")
    assert old in text
    path = tmp_path / "bad.yaml"
    path.write_text(text.replace(old, new), encoding="utf-8")
    line = text.replace(old, new).split("\n").index(new.split("\n")[0]) + 1
    with pytest.raises(RunbookError) as err:
        load_runbook(path)
    assert err.value.problems == [f"{path}:{line}: {problem}"]


@pytest.mark.parametrize(("runbook", "clean", "mistake"), [
    (GEODE_RUNBOOK, GEODE_CLEAN, GEODE_MISTAKE), (QPID_RUNBOOK, QPID_CLEAN, QPID_MISTAKE)])
def test_solace_shell_grade_passes_the_clean_drill_and_fails_the_mistake(runbook: str, clean: Path,
                                                                          mistake: Path) -> None:
    done = subprocess.run(["solace-shell", "grade", "--runbook", runbook, "--json", str(clean), str(mistake)],
                          cwd=ROOT, capture_output=True, text=True, timeout=300,
                          env={**os.environ, "PYTHONPATH": str(ROOT)})
    assert done.returncode == 1, done.stderr
    rows = [json.loads(line) for line in done.stdout.splitlines()]
    assert [r["passed"] for r in rows] == [True, False]
    lost = next(m for m in rows[1]["outcome"] if m["measure"] == "lost")
    assert lost["measured"] > lost["expected"] == 0


# -- one reading, one store command ------------------------------------------------------------------
@pytest.mark.parametrize(("runbook", "transcript", "opening"), [(GEODE_RUNBOOK, GEODE_CLEAN, 0),
                                                                  (QPID_RUNBOOK, QPID_CLEAN, 1)])
def test_a_graded_line_is_read_once_and_runs_one_store_command(runbook: str, transcript: Path, opening: int,
                                                               monkeypatch: pytest.MonkeyPatch) -> None:
    """Grading sees a line as its CLI read it to run it (the pipeline's one reading) and reads
    the lab's facts inside the line's own store command: no second parse, no second store read."""
    from solace_shell.personalities.geode.gfsh_parser import GfshParser
    from solace_shell.personalities.qpid.options import ToolParser
    from state_store.lab_store import LabStore

    loaded = load_runbook(runbook)      # (its own commands are read once, when it loads)
    counts = {"runs": 0, "gfsh": 0, "tools": 0}

    def counting(cls: type, name: str, key: str) -> None:
        original = getattr(cls, name)

        def counted(*args: object, **kwargs: object) -> object:
            counts[key] += 1
            return original(*args, **kwargs)

        monkeypatch.setattr(cls, name, counted)

    counting(LabStore, "run", "runs")
    counting(GfshParser, "read", "gfsh")
    counting(ToolParser, "parse_args", "tools")
    result = grade_transcript(loaded, transcript)
    assert result.passed
    lines = [line for line in transcript.read_text(encoding="utf-8").splitlines()
             if line.startswith(("lab> ", "geode:gfsh> ", "qpid:"))]
    assert counts["gfsh"] == sum(line.startswith("geode:") for line in lines)
    assert counts["tools"] == sum(" qpid-ha " in line or " qpid-config " in line for line in lines)
    # one store command a line, and four for the lab: its user and routers when it opens, the
    # start its session keeps at its first line, the facts before the first line and at the end;
    # and what a CLI reads when it opens (the broker shell: its hosts)
    assert counts["runs"] == len(lines) + 4 + opening
