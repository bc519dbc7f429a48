"""`source script <name> [stop-on-error] [no-prompt]` (C04, C17): a script from the router's script
directory runs in the session, each line echoed after its prompt as C17 frames it."""

from __future__ import annotations

import io
from pathlib import Path

from solace_shell.lab import Lab
from solace_shell.script import run_script
from state_store.scenario import ScenarioError, load_scenario

SCENARIO = Path(__file__).resolve().parents[2] / "transcripts" / "scenarios" / "gather-configs.yaml"
R = "ip-172-31-7-6"

C17_NO_PROMPT = """
ip-172-31-7-6> end

ip-172-31-7-6> home

ip-172-31-7-6> no paging

ip-172-31-7-6> ! configs

ip-172-31-7-6> show hostname

Hostname: ip-172-31-7-6"""


def test_no_prompt_frames_each_line_as_c17() -> None:
    outcome = Lab.fresh(SCENARIO).execute(R, "source script gather-configs.cli no-prompt")
    assert outcome.ok and outcome.text == C17_NO_PROMPT


def test_without_no_prompt_the_first_echo_follows_the_command() -> None:
    outcome = Lab.fresh(SCENARIO).execute(R, "source script gather-configs.cli")
    assert outcome.text == C17_NO_PROMPT.removeprefix("\n")


def test_the_script_runs_in_the_session_and_changes_its_level() -> None:
    lab = Lab.fresh(SCENARIO)
    outcome = lab.execute(R, "source script cliscripts/0_init.cli stop-on-error")
    assert not outcome.ok
    assert outcome.text.endswith("(such-command)")           # stopped at the failing line
    assert lab.prompt(R) == "ip-172-31-7-6(configure/message-spool/queue)#"
    assert lab.execute(R, "show queue q1").ok


def test_without_stop_on_error_the_run_goes_on() -> None:
    lab = Lab.fresh(SCENARIO)
    outcome = lab.execute(R, "source script cliscripts/0_init.cli")
    assert not outcome.ok and outcome.text.endswith("queue)# no shutdown")   # the line after the failure ran


def test_refusals() -> None:
    lab = Lab.fresh(SCENARIO)
    before = lab.store.dump()
    assert lab.execute(R, "source script missing.cli").text == "ERROR: Script 'missing.cli' not found."
    assert lab.execute(R, "source script x.cli bogus").text.splitlines()[-1] == \
        "   -> Unknown command, or command not available in current context (bogus)"
    assert lab.store.dump() == before
    nested = lab.execute(R, "source script nested.cli")
    assert not nested.ok
    assert nested.text.splitlines()[-1] == "ERROR: A script run by source script cannot run another script."


def test_a_cli_script_file_may_source_a_stored_script() -> None:
    out = io.StringIO()
    assert run_script(Lab.fresh(SCENARIO), R, ["source script gather-configs.cli no-prompt"], out) == 0
    assert "Hostname: ip-172-31-7-6" in out.getvalue()


def test_the_scenario_checks_its_scripts(tmp_path: Path) -> None:
    bad = tmp_path / "bad.yaml"
    bad.write_text(SCENARIO.read_text() + "  - name: no-lines.cli\n")
    try:
        load_scenario(bad)
    except ScenarioError as exc:
        assert any("lines" in problem for problem in exc.problems), exc.problems
    else:
        raise AssertionError("a script without lines was accepted")
