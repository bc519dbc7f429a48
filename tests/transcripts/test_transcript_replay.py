"""Replaying transcripts against the real lab: verdicts, signatures, determinism, diff, JSON, runner."""

import dataclasses
import io
import json
import os
import pickle
import signal
from collections.abc import Iterator
from pathlib import Path

import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st

from solace_shell.lab import Lab
from solace_shell.transcript.diff import command_diff
from solace_shell.transcript.replay import replay_file, replay_text, run_text
from solace_shell.transcript.results import CommandResult
from solace_shell.transcript.runner import run_replay_command

from tests.support.lab_patches import echo_and_boom

GOOD = """\
#: version: 9.2
#| enable, then configure a VPN
NY_Appliance1> enable
NY_Appliance1# configure
NY_Appliance1(configure)# message-vpn Trading_VPN
NY_Appliance1(configure/message-vpn)# show message-vpn Trading_VP*

                                                           Messages      Spool
Message VPN                      Status  Clients  Queues    Spooled  Usage(MB)
-------------------------------- ------- ------- ------- ---------- ----------
Trading_VPN                      [..]
NY_Appliance1(configure/message-vpn)# show version

Solace PubSub+ Enterprise Version 9.2
...
lab> advance 5s
clock 00:00:\\d+\\.000 \\(\\+5s\\) drained 0 reconnected - (re)
NJ_Appliance1> show hostname

Hostname: NJ_Appliance1
"""

VERSION = ["", "Solace PubSub+ Enterprise Version 10.4.1.52", "", "Current load is: soltr_10.4.1.52",
           "System uptime: 0d 0h 0m 0s"]   # show output begins with one blank line


def replay(text, name="t.cli.txt"):
    return replay_text(text, name)


def strip_times(result):
    return [{k: v for k, v in c.to_dict().items() if k != "duration_ms"} for c in result.commands]


@pytest.fixture
def exploding() -> Iterator[None]:
    """The real lab, except that `boom` raises (a crash no real command can be made to cause)."""
    with echo_and_boom():
        yield


def spy_factory(labs, seen=None):
    """A lab factory that builds the real fresh lab and keeps what it was given and built."""
    def factory(scenario, settings):
        if seen is not None:
            seen.append((scenario, dict(settings)))
        labs.append(Lab.fresh(scenario=scenario, settings=settings))
        return labs[-1]
    return factory


def test_good_transcript_passes_with_nodes():
    r = replay(GOOD)
    assert r.passed and r.error is None, [c for c in r.commands if c.verdict != "pass"]
    assert [c.verdict for c in r.commands] == ["pass"] * 7
    assert [c.node for c in r.commands][:3] == ["exec: enable", "privileged: configure",
                                                "configure: message-vpn <vpn-name>"]
    assert r.commands[3].expected.split("\n")[:1] == [""]
    assert r.commands[3].expected.split("\n")[3:] == ["-" * 32 + " ------- ------- ------- ---------- ----------",
                                                       "Trading_VPN                      [..]"]
    assert r.commands[3].line == 6 and r.commands[3].router == "NY_Appliance1"
    assert all(c.signature == "" for c in r.commands)


def test_header_settings_reach_the_lab():
    labs, seen = [], []
    r = replay_text("#: layout: A\n#: version: 9.2\nNY_Appliance1> show version\n\n"
                    "Solace PubSub+ Enterprise Version 9.2\n...\n", "t", lab_factory=spy_factory(labs, seen))
    assert seen == [(None, {"layout": "A", "version": "9.2"})]
    assert r.passed


def test_replay_twice_is_identical():
    text = GOOD.replace("Hostname: NJ_Appliance1", "Hostname: NJ_Appliance7") + "NY_Appliance1> nonsense\n"
    assert strip_times(replay(text)) == strip_times(replay(text))


def test_prompt_mismatch_fails_even_with_right_output():
    r = replay("NY_Appliance1# show hostname\n\nHostname: NY_Appliance1\n")
    c = r.commands[0]
    assert (c.verdict, c.signature, c.actual) == ("fail", "prompt-mismatch", "\nHostname: NY_Appliance1")


def test_wrong_mode_then_right_prompts_continue():
    r = replay("NY_Appliance1> enable\nNY_Appliance1(configure)# exit\nNY_Appliance1> show hostname\n"
               "\nHostname: NY_Appliance1\n")
    assert [c.verdict for c in r.commands] == ["pass", "fail", "pass"]


def test_signatures(exploding):
    def version(lines):
        return "NY_Appliance1> show version\n" + "".join(f"{line}\n" for line in lines)

    text = (
        version(["", "Solace PubSub+ Enterprise Version 10.4.1.53", *VERSION[2:]])    # number difference, line 2
        + version([*VERSION[:3], "Current load is: soltr_other", VERSION[4]])       # value difference, line 4
        + version([*VERSION, "Extra: x"])                                            # missing line
        + version(VERSION[:4])                                                      # extra line
        + "NY_Appliance1> frobnicate\ndone\n"           # an error where output was expected
        + "NY_Appliance1> boom\n"                       # exception
        + "NY_Appliance1> show hostname\n\nClock stopped\n"  # text difference, line 2
    )
    sigs = [c.signature for c in replay(text).commands]
    assert sigs == [
        "output:line 2:number",
        "output:line 4:value",
        "output:line 6:missing",
        "output:line 5:extra",
        "error:invalid",
        "exception:RuntimeError",
        "output:line 2:text",
    ]


def test_signature_is_stable_across_names():
    a = replay("NY_Appliance1> show hostname\n\nHostname: VPN_A\n")
    b = replay("NJ_Appliance1> show hostname\n\nHostname: Other_9\n")
    assert a.commands[0].signature == b.commands[0].signature == "output:line 2:value"


def test_exception_is_error_verdict_and_replay_continues(exploding):
    r = replay("NY_Appliance1> boom\nNY_Appliance1> show hostname\n\nHostname: NY_Appliance1\n")
    assert [c.verdict for c in r.commands] == ["error", "pass"]
    assert r.commands[0].actual == "RuntimeError: the lab exploded"
    assert r.commands[0].node == ""


def test_expected_error_output_passes():
    r = replay("NY_Appliance1> nonsense\n               ^\nInvalid command input\n"
               "   -> Unknown command, or command not available in current context (nonsense)\n")
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
    scenario = Path(__file__).resolve().parents[2] / "state_store" / "scenarios" / "default.yaml"
    (tmp_path / "scenarios").mkdir()  # a corpus's shared scenarios (docs/transcripts.md)
    (tmp_path / "scenarios" / "two.yaml").write_bytes(scenario.read_bytes())
    drills = tmp_path / "drills"
    drills.mkdir()
    f = drills / "d.cli.txt"
    f.write_text("#: scenario: ../scenarios/two.yaml\nlab> status\n...\n")
    labs, seen = [], []
    assert replay_file(f, lab_factory=spy_factory(labs, seen)).passed
    assert [s for s, _ in seen] == [(tmp_path / "scenarios" / "two.yaml").resolve()]
    f.write_text("#: scenario: missing.yaml\nlab> status\n...\n")
    r = replay_file(f)
    assert "d.cli.txt:1: scenario file not found" in r.error


def test_undecodable_file_lists_lines(tmp_path):
    f = tmp_path / "x.cli.txt"
    f.write_bytes(b"NY_Appliance1> show hostname\nHostname: \xff0s\nok\n\xfe\n")
    r = replay_file(f)
    assert [line.split(": ", 1)[0] for line in r.error.splitlines()] == [f"{f}:2", f"{f}:4"]


def test_lab_is_closed(exploding):
    labs = []
    closed = []
    factory = spy_factory(labs)

    def closing_factory(scenario, settings):
        lab = factory(scenario, settings)
        real_close = lab.close
        lab.close = lambda: (closed.append(lab), real_close())
        return lab

    replay_text("NY_Appliance1> boom\n", "t", lab_factory=closing_factory)
    assert closed == labs and len(labs) == 1


def test_diff_has_file_line_and_prompt():
    run = run_text("NY_Appliance1> enable\nNY_Appliance1> show hostname\n\nHostname: NY_9\n", "d.cli.txt")
    step = run.steps[1]
    diff = command_diff(step.result, step.actual_prompt, strict_blank=True)   # as the runner calls it
    assert diff.splitlines() == [
        "--- d.cli.txt:2 expected",
        "+++ d.cli.txt:2 actual",
        "@@ -1,3 +1,3 @@",
        "-NY_Appliance1> show hostname",
        "+NY_Appliance1# show hostname",
        " ",
        "-Hostname: NY_9",
        "+Hostname: NY_Appliance1",
    ]
    assert command_diff(run.steps[0].result) == ""


def test_to_dict_is_json_row():
    c = replay(GOOD).commands[0]
    row = json.loads(json.dumps(c.to_dict()))
    assert set(row) == {"transcript", "line", "router", "prompt", "command", "node", "verdict", "expected",
                        "actual", "signature", "duration_ms"}


def test_command_result_is_a_frozen_record_of_exactly_its_fields():
    # CommandResult writes its fields itself (a faster __init__ than the generated one): it must
    # still set every field, in order, and nothing else, and stay immutable, hashable, picklable
    values = {f.name: f"v{i}" for i, f in enumerate(dataclasses.fields(CommandResult))}
    result = CommandResult(**values)
    assert list(vars(result).items()) == list(values.items())
    assert result == dataclasses.replace(result) and hash(result) == hash(dataclasses.replace(result))
    assert pickle.loads(pickle.dumps(result)) == result
    with pytest.raises(dataclasses.FrozenInstanceError):
        result.line = 2


def test_run_replay_command_text_and_exit_codes(tmp_path):
    (tmp_path / "sub").mkdir()
    good = tmp_path / "sub" / "good.cli.txt"
    good.write_text(GOOD)
    (tmp_path / "ignored.txt").write_text("not a transcript")
    out = io.StringIO()
    assert run_replay_command([tmp_path], False, False, out) == 0
    assert out.getvalue().splitlines()[-1] == "1 transcript(s), 7 command(s): 7 passed, 0 failed, 0 error(s)"

    bad = tmp_path / "bad.cli.txt"
    bad.write_text("NY_Appliance1> show hostname\n\nHostname: NY_Appliance2\n")
    out = io.StringIO()
    assert run_replay_command([tmp_path], False, False, out) == 1
    text = out.getvalue()
    assert f"FAIL {bad}:1: NY_Appliance1> show hostname  [output:line 2:number]" in text
    assert f"--- {bad}:1 expected" in text and "+Hostname: NY_Appliance1" in text

    out = io.StringIO()
    assert run_replay_command([tmp_path / "nope"], False, False, out) == 2


@pytest.mark.parametrize("signum", [signal.SIGINT, signal.SIGTERM])
def test_a_stopped_replay_reports_what_was_replayed_and_exits_128_plus_the_signal(tmp_path, capsys, signum):
    from solace_shell.transcript.lab_api import default_lab_factory

    for name in ("a", "b", "c"):
        (tmp_path / f"{name}.cli.txt").write_text(GOOD)
    labs: list[str] = []
    before = signal.getsignal(signal.SIGTERM)

    def stopped_at_the_third(base_dir, settings):
        labs.append("lab")
        if len(labs) == 3:
            os.kill(os.getpid(), signum)  # Ctrl-C, or a supervisor's SIGTERM, in the middle of the batch
        return default_lab_factory(base_dir, settings)

    out = io.StringIO()
    assert run_replay_command([tmp_path], False, False, out, lab_factory=stopped_at_the_third) == 128 + signum
    assert out.getvalue() == "2 transcript(s), 14 command(s): 14 passed, 0 failed, 0 error(s)\n"
    name = signal.Signals(signum).name
    assert capsys.readouterr().err == f"solace-shell: interrupted ({name}) after 2 of 3 transcript(s)\n"
    assert signal.getsignal(signal.SIGTERM) is before, "the SIGTERM handler the replay found is back"


def test_run_replay_command_json(tmp_path):
    f = tmp_path / "a.cli.txt"
    f.write_text("NY_Appliance1> show hostname\nHostname: NY_Appliance2\nlab> status\n...\n")
    g = tmp_path / "b.cli.txt"
    g.write_text("stray\n")
    out = io.StringIO()
    assert run_replay_command([f, g], False, True, out) == 1
    rows = [json.loads(line) for line in out.getvalue().splitlines()]
    assert [r["verdict"] for r in rows] == ["fail", "pass", "error"]
    assert rows[0]["line"] == 1 and rows[1]["line"] == 3
    assert rows[2]["error"].startswith(f"{g}:1: output before the first input line")


def test_run_replay_command_accept(tmp_path):
    f = tmp_path / "a.cli.txt"
    f.write_text("NY_Appliance1> show hostname\nHostname: NY_Appliance2\n")
    out = io.StringIO()
    assert run_replay_command([f], True, False, out) == 0
    assert f.read_text() == "NY_Appliance1> show hostname\n\nHostname: NY_Appliance1\n"
    assert out.getvalue().startswith(f"ACCEPTED {f}: rewrote command(s) at line(s) 1\n")


# ------------------------------------------------------------------ the verbatim shortcut
# `replay_text` skips reading an expected block that is the output as written (`_verbatim`);
# `run_text` always reads it. Both must give the same results for any block and any output.
_PIECES = ["a", "b c", " ", "\t", "\r", "", "...", "[..]", "#|", "#| note", " (re)", "a (re)", "x.*", "-"]
_lines = st.lists(st.lists(st.sampled_from(_PIECES), max_size=3).map("".join), max_size=4)


@settings(max_examples=300, deadline=None)
@example(output=["a\t", "b"], block=[], same=True, strict=True, end_of_file=False)
@example(output=["a\r", "b"], block=[], same=True, strict=True, end_of_file=False)
@example(output=["a ", "b"], block=[], same=True, strict=True, end_of_file=False)
@example(output=["a", "#| note", "b"], block=[], same=True, strict=True, end_of_file=False)
@example(output=["a (re)", "b"], block=[], same=True, strict=True, end_of_file=False)
@example(output=["", "a", ""], block=[], same=True, strict=False, end_of_file=False)
@given(output=_lines, block=_lines, same=st.booleans(), strict=st.booleans(), end_of_file=st.booleans())
def test_the_verbatim_shortcut_agrees_with_reading_the_block(output, block, same, strict, end_of_file):
    lines = output if same else block
    text = (f"#: strict-blank-lines: {'yes' if strict else 'no'}\n"
            "NY_Appliance1> echo " + "\\n".join(output) + "\n" + "".join(line + "\n" for line in lines))
    if end_of_file and text.endswith("\n") and lines:
        text = text[:-1]
    with echo_and_boom():
        shortcut = strip_times(replay_text(text, "t"))
        read = strip_times(run_text(text, "t").result)
    assert shortcut == read
