"""The SwiftMQ lab through the shell: the admin CLI personality, the lab verbs, transcripts'
`swiftmq:` prompts, the scenario section's validation, reset, a lab file shared by two shells,
`?` help and Tab completion."""

from __future__ import annotations

from pathlib import Path

import pytest
from prompt_toolkit.completion import CompleteEvent
from prompt_toolkit.document import Document

from solace_shell.completer import ShellCompleter, help_text
from solace_shell.lab import Lab
from solace_shell.live_names import LiveNames
from solace_shell.transcript.format import (
    TranscriptError,
    literal_line,
    match_prompt,
    parse_transcript,
)
from solace_shell.transcript.replay import replay_text
from state_store.solace.scenario import ROOT_DIR, ScenarioError, load_scenario

SCENARIO = ROOT_DIR / "swiftmq-ha.yaml"


@pytest.fixture()
def lab():
    lab = Lab.fresh(SCENARIO)
    yield lab
    lab.close()


def run(lab: Lab, target: str, line: str) -> str:
    return lab.execute(target, line).text


def pair(lab: Lab) -> None:
    for line in ("ha start ha1.A", "ha start ha1.B", "advance 5s"):
        assert lab.execute("lab", line).ok


def test_a_swiftmq_lab_starts_at_the_cli_and_has_no_solace_router(lab: Lab) -> None:
    assert lab.targets() == ["swiftmq", "lab"]
    assert lab.start_target() == "swiftmq"
    assert lab.prompt("swiftmq") == "swiftmq:>"
    assert lab.target("swiftmq").prompt == ">"


def test_sr_cc_lc_and_the_prompt(lab: Lab) -> None:
    pair(lab)
    assert run(lab, "swiftmq", "sr ha1") == ""
    assert lab.target("swiftmq").prompt == "ha1>"
    run(lab, "swiftmq", "cc /sys$hacontroller/usage")
    assert lab.target("swiftmq").prompt == "ha1/sys$hacontroller/usage>"
    out = run(lab, "swiftmq", "lc").split("\n")
    assert out[:4] == ["", "Entity:      Usage", "Description: Usage", ""]
    assert "ha-state (R/O)                          ACTIVE" in out
    assert out[7] == "-" * 62
    run(lab, "swiftmq", "cc ..")
    assert lab.target("swiftmq").prompt == "ha1/sys$hacontroller>"


def test_failover_notices_cancel_the_request_and_drop_the_context(lab: Lab) -> None:
    pair(lab)
    run(lab, "swiftmq", "sr ha1")
    run(lab, "lab", "ha kill ha1.A")
    out = lab.execute("swiftmq", "lc")
    assert not out.ok
    assert out.text.split("\n") == ["Router 'ha1' is unavailable for administration.",
                                    "Reconnect occured: Request cancelled.",
                                    "Router 'ha1' is available for administration."]
    assert lab.target("swiftmq").prompt == ">"


def test_errors_are_bare_message_lines_and_change_nothing(lab: Lab) -> None:
    pair(lab)
    before = lab.store.dump()
    assert run(lab, "swiftmq", "sr nosuch") == "Router 'nosuch' is unknown."
    assert run(lab, "swiftmq", "sr") == "Invalid command, please try 'sr <router>'"
    assert run(lab, "swiftmq", "lc") == "Invalid command, please try 'sr <router>'"
    run(lab, "swiftmq", "sr ha1")
    assert run(lab, "swiftmq", "cc") == "Invalid command, please try 'cc <context>'"
    assert run(lab, "swiftmq", "cc /nowhere") == "Unknown context"
    assert run(lab, "swiftmq", "cc /sys$hacontroller/usage") == ""
    assert run(lab, "swiftmq", "set ha-state STANDBY") == "Property 'ha-state' is read-only"
    assert lab.store.dump() == before
    assert lab.target("swiftmq").prompt == "ha1/sys$hacontroller/usage>"


def test_set_is_seen_by_the_state_machine(lab: Lab) -> None:
    pair(lab)
    run(lab, "swiftmq", "sr ha1")
    run(lab, "swiftmq", "cc /sys$hacontroller")
    assert run(lab, "swiftmq", "set negotiation-timeout 5000") == ""
    run(lab, "lab", "ha kill ha1.A")
    run(lab, "lab", "ha kill ha1.B")
    run(lab, "lab", "ha file ha1.B write STANDBY")
    run(lab, "lab", "ha start ha1.B")
    run(lab, "lab", "advance 5s")
    assert "B         up       STANDALONE" in run(lab, "lab", "ha state ha1")


def test_rebootstandby_and_haltactive(lab: Lab) -> None:
    pair(lab)
    run(lab, "swiftmq", "sr ha1")
    assert lab.execute("swiftmq", "rebootstandby").ok
    run(lab, "lab", "advance 5s")
    assert "B         up       STANDBY" in run(lab, "lab", "ha state ha1")
    run(lab, "swiftmq", "sr ha1")
    assert lab.execute("swiftmq", "haltactive").ok
    state = run(lab, "lab", "ha state ha1")
    assert "A         down" in state and "B         up       STANDALONE" in state


def test_exit_says_bye_and_ends(lab: Lab) -> None:
    out = lab.execute("swiftmq", "exit")
    assert (out.text, out.ended) == ("Bye.", True)


def test_help_and_tab_in_the_swiftmq_cli(lab: Lab) -> None:
    text = help_text(lab.parser, "swiftmq", ">", "reboot")
    assert "rebootactive" in text and "rebootstandby" in text
    completer = ShellCompleter(lab.parser, lambda: lab.target("lab"), LiveNames(lab))
    got = [c.text for c in completer.get_completions(Document("ha start ha1."), CompleteEvent())]
    assert got == ["ha1.A ", "ha1.B "]


def test_transcript_prompt_rule() -> None:
    p = match_prompt("swiftmq:ha1/sys$hacontroller/usage> lc")
    assert p is not None and (p.host, p.prompt, p.command) == ("swiftmq", "swiftmq:ha1/sys$hacontroller/usage>", "lc")
    assert match_prompt("swiftmq:> ") is not None
    assert match_prompt("Router 'ha1' is unavailable for administration.") is None
    # an output line that reads as such an input line is escaped, and matches itself
    assert literal_line("swiftmq:> x").endswith(" (re)")
    # in a lab without an HA router the personality is not addressable
    with pytest.raises(TranscriptError, match="unknown host 'swiftmq'"):
        parse_transcript("swiftmq:> ar\n", "t", hosts=["NY_Appliance1", "lab"])


def test_a_transcript_on_the_shipped_scenario(tmp_path: Path) -> None:
    text = ("#: scenario: ../scenarios/swiftmq-ha.yaml\nlab> ha start ha1.A\n"
            "instance ha1.A started state UNKNOWN peer ha1.B - disconnected - reconnected -\n"
            "swiftmq:> ar\nAvailable Routers:\n\n\n")
    base = Path(__file__).resolve().parents[3] / "transcripts" / "swiftmq"
    result = replay_text(text, "t.cli.txt", base_dir=base)
    assert [c.verdict for c in result.commands] == ["pass", "pass"]


def test_scenario_section_problems_are_reported_with_lines(tmp_path: Path) -> None:
    bad = tmp_path / "bad.yaml"
    bad.write_text("sites: []\nswiftmq:\n  routers:\n    - name: ha1\n      instances: [A]\n"
                   "      preferred_active: C\n      negotiation_timeout_ms: 5\n"
                   "      ha_state: {A: BOGUS}\n      clients: [{name: c1}, {name: c1}]\n")
    with pytest.raises(ScenarioError) as err:
        load_scenario(bad)
    text = "\n".join(err.value.problems)
    assert f"{bad}:5: swiftmq router 'ha1': an HA router has exactly two instances" in text
    assert f"{bad}:6: swiftmq router 'ha1': preferred_active 'C'" in text
    assert f"{bad}:7: swiftmq router 'ha1': negotiation_timeout_ms must be at least 1000" in text
    assert f"{bad}:8: swiftmq.routers[0].ha_state.A: 'BOGUS' is not one of" in text
    assert "JMS client 'c1': name already used" in text


def test_reset_switches_between_the_labs(lab: Lab) -> None:
    pair(lab)
    assert run(lab, "lab", "reset") == "reset to scenario default"
    assert "swiftmq" not in lab.targets()
    assert "== ha_core -\n" in lab.store.dump()  # no HA core in the default lab
    assert run(lab, "lab", "reset swiftmq-ha") == "reset to scenario swiftmq-ha"
    assert "A         down" in run(lab, "lab", "ha state ha1")


def test_a_lab_file_keeps_the_ha_state_between_shells(tmp_path: Path) -> None:
    path = tmp_path / "sw.lab"
    first = Lab.open(path, scenario=SCENARIO)
    pair(first)
    first.close()
    second = Lab.open(path)
    try:
        assert "A         up       ACTIVE" in run(second, "lab", "ha state ha1")
        run(second, "swiftmq", "sr ha1")
        assert second.target("swiftmq").prompt == "ha1>"
    finally:
        second.close()


def test_the_repl_on_the_swiftmq_cli_records_swiftmq_prompts_and_says_bye_on_eof(lab: Lab) -> None:
    from tests.support.repl_driver import ListRecorder, drive

    pair(lab)
    recorder = ListRecorder()
    code, out = drive(lab, "sr ha1\rcc /sys$hacontroller/usage\rlc\r", start="swiftmq", recorder=recorder)
    assert code == 0
    assert [r[:2] for r in recorder.records] == [
        ("swiftmq:>", "sr ha1"), ("swiftmq:ha1>", "cc /sys$hacontroller/usage"),
        ("swiftmq:ha1/sys$hacontroller/usage>", "lc")]
    assert "ha-state (R/O)                          ACTIVE" in out
    assert out.rstrip("\n").endswith("Bye.")


def test_f2_after_resetting_to_the_swiftmq_lab_goes_to_its_cli() -> None:
    from tests.support.repl_driver import ListRecorder, drive

    lab = Lab.fresh()
    try:
        recorder = ListRecorder()
        F2 = "\x1bOQ"
        drive(lab, F2 + "reset swiftmq-ha\r" + F2 + "ar\r", recorder=recorder)
        assert [r[:2] for r in recorder.records] == [("lab>", "reset swiftmq-ha"), ("swiftmq:>", "ar")]
    finally:
        lab.close()


def test_a_line_is_read_once_however_often_the_store_runs_it(lab: Lab, monkeypatch: pytest.MonkeyPatch) -> None:
    """The store runs a command again when another shell wrote first: the CLI's notices are
    decided afresh on each attempt, but the line is parsed once, before the store command."""
    pair(lab)
    assert run(lab, "swiftmq", "sr ha1") == ""
    store, parser = lab.store, lab.parser
    original_run, original_parse = store.run, parser.parse
    parses: list[str] = []

    def twice(work, **kwargs):   # what a lost race does: the whole work again
        original_run(work, **kwargs)
        return original_run(work, **kwargs)

    def parse(mode, line):
        parses.append(line)
        return original_parse(mode, line)

    monkeypatch.setattr(store, "run", twice)
    monkeypatch.setattr(parser, "parse", parse)
    assert lab.execute("swiftmq", "cc /sys$hacontroller/usage").ok
    assert parses == ["cc /sys$hacontroller/usage"]
