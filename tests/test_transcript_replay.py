"""Replaying transcripts against the fake lab: verdicts, signatures, determinism, diff, JSON, runner."""

import io
import json
from pathlib import Path

from solace_shell.transcript.diff import command_diff
from solace_shell.transcript.fake_lab import FakeLab
from solace_shell.transcript.replay import replay_file, replay_text, run_text
from solace_shell.transcript.runner import run_replay_command

GOOD = """\
#: version: 9.2
#| enable, then configure a VPN
NY_Appliance1> enable
NY_Appliance1# configure
NY_Appliance1(configure)# message-vpn Trading_VPN
NY_Appliance1(configure/message-vpn)# show state Trading_VPN

Message VPN: [..]
State:       standby

NY_Appliance1(configure/message-vpn)# show version
Version: 9.2
...
lab> advance 5s
Clock advanced to T\\+\\d+s (re)
NJ_Appliance1> show clock
Uptime: 5s
"""


def replay(text, name="t.cli.txt"):
    return replay_text(text, name, lab_factory=FakeLab)


def strip_times(result):
    return [{k: v for k, v in c.to_dict().items() if k != "duration_ms"} for c in result.commands]


def test_good_transcript_passes_with_nodes():
    r = replay(GOOD)
    assert r.passed and r.error is None
    assert [c.verdict for c in r.commands] == ["pass"] * 7
    assert [c.node for c in r.commands][:3] == ["enable", "configure", "configure.message_vpn"]
    assert r.commands[3].expected == "\nMessage VPN: [..]\nState:       standby\n"
    assert r.commands[3].line == 6 and r.commands[3].router == "NY_Appliance1"
    assert all(c.signature == "" for c in r.commands)


def test_header_settings_reach_the_lab():
    seen = {}

    def factory(scenario, settings):
        seen.update(settings)
        return FakeLab(scenario, settings)

    replay_text("#: layout: B\n#: user: ops\nlab> status\n...\n", "t", lab_factory=factory)
    assert seen == {"layout": "B", "user": "ops"}


def test_replay_twice_is_identical():
    text = GOOD.replace("Uptime: 5s", "Uptime: 7s") + "NY_Appliance1> nonsense\n"
    assert strip_times(replay(text)) == strip_times(replay(text))


def test_prompt_mismatch_fails_even_with_right_output():
    r = replay("NY_Appliance1# show clock\nUptime: 0s\n")
    c = r.commands[0]
    assert (c.verdict, c.signature, c.actual) == ("fail", "prompt-mismatch", "Uptime: 0s")


def test_wrong_mode_then_right_prompts_continue():
    r = replay("NY_Appliance1> enable\nNY_Appliance1(configure)# exit\nNY_Appliance1> show clock\nUptime: 0s\n")
    assert [c.verdict for c in r.commands] == ["pass", "fail", "pass"]


def test_signatures():
    text = (
        "NY_Appliance1> show version\n"          # number difference on line 1
        "Version: 9.3\nLayout:  A\nUser:    admin\n"
        "NY_Appliance1> show version\n"          # value difference on line 3
        "Version: 9.1\nLayout:  A\nUser:    root\n"
        "NY_Appliance1> show version\n"          # missing line
        "Version: 9.1\nLayout:  A\nUser:    admin\nExtra: x\n"
        "NY_Appliance1> show version\n"          # extra line
        "Version: 9.1\nLayout:  A\n"
        "NY_Appliance1> frobnicate\n"            # an error where output was expected
        "done\n"
        "NY_Appliance1> boom\n"                  # exception
        "NY_Appliance1> show clock\n"            # text difference
        "Clock stopped\n"
    )
    sigs = [c.signature for c in replay(text).commands]
    assert sigs == [
        "output:line 1:number",
        "output:line 3:value",
        "output:line 4:missing",
        "output:line 3:extra",
        "error:invalid-input",
        "exception:RuntimeError",
        "output:line 1:text",
    ]


def test_signature_is_stable_across_names():
    a = replay("NY_Appliance1> show state VPN_A\n\nMessage VPN: VPN_A\nState:       active\n\n")
    b = replay("NJ_Appliance1> show state Other_9\n\nMessage VPN: Other_9\nState:       active\n\n")
    assert a.commands[0].signature == b.commands[0].signature == "output:line 3:value"


def test_exception_is_error_verdict_and_replay_continues():
    r = replay("NY_Appliance1> boom\nNY_Appliance1> show clock\nUptime: 0s\n")
    assert [c.verdict for c in r.commands] == ["error", "pass"]
    assert r.commands[0].actual == "RuntimeError: the fake lab exploded"
    assert r.commands[0].node == ""


def test_expected_error_output_passes():
    r = replay("NY_Appliance1> nonsense\nInvalid command input\n ->  nonsense\n     ^\n")
    assert r.passed


def test_parse_error_is_transcript_error():
    r = replay("NY_Appliance9> show\n", name="bad.cli.txt")
    assert not r.passed and r.commands == []
    assert r.error.startswith("bad.cli.txt:1: unknown host 'NY_Appliance9'")


def test_header_error_also_lists_body_problems():
    r = replay("#: nope: 1\nstray\nNY_Appliance1> x\n", name="b")
    assert r.error.splitlines() == [
        "b:1: unknown header key 'nope' (known: scenario, version, layout, user, strict-blank-lines)",
        "b:2: output before the first input line",
    ]


def test_scenario_resolved_relative_to_file(tmp_path):
    (tmp_path / "scen").mkdir()
    (tmp_path / "scen" / "two.yaml").write_text("x: 1\n")
    drills = tmp_path / "drills"
    drills.mkdir()
    f = drills / "d.cli.txt"
    f.write_text("#: scenario: ../scen/two.yaml\nlab> status\n...\n")
    seen = []
    assert replay_file(f, lab_factory=lambda s, st: seen.append(s) or FakeLab(s, st)).passed
    assert seen == [drills / "../scen/two.yaml"]
    f.write_text("#: scenario: missing.yaml\nlab> status\n...\n")
    r = replay_file(f, lab_factory=FakeLab)
    assert "d.cli.txt:1: scenario file not found" in r.error


def test_undecodable_file_lists_lines(tmp_path):
    f = tmp_path / "x.cli.txt"
    f.write_bytes(b"NY_Appliance1> show clock\nUptime: \xff0s\nok\n\xfe\n")
    r = replay_file(f, lab_factory=FakeLab)
    assert [line.split(": ", 1)[0] for line in r.error.splitlines()] == [f"{f}:2", f"{f}:4"]


def test_lab_is_closed():
    labs = []

    def factory(s, st):
        labs.append(FakeLab(s, st))
        return labs[-1]

    replay_text("NY_Appliance1> boom\n", "t", lab_factory=factory)
    assert labs[0].closed


def test_diff_has_file_line_and_prompt():
    run = run_text("NY_Appliance1> enable\nNY_Appliance1> show clock\nUptime: 9s\n", "d.cli.txt",
                   lab_factory=FakeLab)
    step = run.steps[1]
    diff = command_diff(step.result, step.actual_prompt)
    assert diff.splitlines() == [
        "--- d.cli.txt:2 expected",
        "+++ d.cli.txt:2 actual",
        "@@ -1,2 +1,2 @@",
        "-NY_Appliance1> show clock",
        "-Uptime: 9s",
        "+NY_Appliance1# show clock",
        "+Uptime: 0s",
    ]
    assert command_diff(run.steps[0].result) == ""


def test_to_dict_is_json_row():
    c = replay(GOOD).commands[0]
    row = json.loads(json.dumps(c.to_dict()))
    assert set(row) == {"transcript", "line", "router", "prompt", "command", "node", "verdict", "expected",
                        "actual", "signature", "duration_ms"}


def test_run_replay_command_text_and_exit_codes(tmp_path):
    (tmp_path / "sub").mkdir()
    good = tmp_path / "sub" / "good.cli.txt"
    good.write_text(GOOD)
    (tmp_path / "ignored.txt").write_text("not a transcript")
    out = io.StringIO()
    assert run_replay_command([tmp_path], False, False, out, lab_factory=FakeLab) == 0
    assert out.getvalue().splitlines()[-1] == "1 transcript(s), 7 command(s): 7 passed, 0 failed, 0 error(s)"

    bad = tmp_path / "bad.cli.txt"
    bad.write_text("NY_Appliance1> show clock\nUptime: 1s\n")
    out = io.StringIO()
    assert run_replay_command([tmp_path], False, False, out, lab_factory=FakeLab) == 1
    text = out.getvalue()
    assert f"FAIL {bad}:1: NY_Appliance1> show clock  [output:line 1:number]" in text
    assert f"--- {bad}:1 expected" in text and "+Uptime: 0s" in text

    out = io.StringIO()
    assert run_replay_command([tmp_path / "nope"], False, False, out, lab_factory=FakeLab) == 2


def test_run_replay_command_json(tmp_path):
    f = tmp_path / "a.cli.txt"
    f.write_text("NY_Appliance1> show clock\nUptime: 1s\nlab> status\n...\n")
    g = tmp_path / "b.cli.txt"
    g.write_text("stray\n")
    out = io.StringIO()
    assert run_replay_command([f, g], False, True, out, lab_factory=FakeLab) == 1
    rows = [json.loads(line) for line in out.getvalue().splitlines()]
    assert [r["verdict"] for r in rows] == ["fail", "pass", "error"]
    assert rows[0]["line"] == 1 and rows[1]["line"] == 3
    assert rows[2]["error"].startswith(f"{g}:1: output before the first input line")


def test_run_replay_command_accept(tmp_path):
    f = tmp_path / "a.cli.txt"
    f.write_text("NY_Appliance1> show clock\nUptime: 1s\n")
    out = io.StringIO()
    assert run_replay_command([f], True, False, out, lab_factory=FakeLab) == 0
    assert f.read_text() == "NY_Appliance1> show clock\nUptime: 0s\n"
    assert out.getvalue().startswith(f"ACCEPTED {f}: rewrote command(s) at line(s) 1\n")
