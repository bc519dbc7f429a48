"""The REPL loop: targets and F2, ending, Ctrl-C, history, recording, the toolbar."""

from __future__ import annotations

import io

import pytest
from prompt_toolkit.input import create_pipe_input
from prompt_toolkit.output import DummyOutput

from solace_shell.durations import elapsed_text as format_clock
from solace_shell.lab import Lab
from solace_shell.repl import Repl, history_path_for, run_repl
from solace_shell.results import Outcome
from solace_shell.toolbar import read_clock, toolbar_text
from tests.support.repl_driver import ListRecorder, drive

F2 = "\x1bOQ"
CTRL_C = "\x03"
CTRL_D = "\x04"


def test_exit_at_the_top_level_ends_the_loop(lab: Lab, executed: list[tuple[str, str]]) -> None:
    code, _ = drive(lab, "enable\rexit\rexit\renable\r")
    assert code == 0
    # The line after the top-level exit is never read.
    assert executed == [("NY_Appliance1", "enable"), ("NY_Appliance1", "exit"), ("NY_Appliance1", "exit")]


def test_ctrl_d_on_an_empty_line_ends(lab: Lab, executed: list[tuple[str, str]]) -> None:
    code, out = drive(lab, CTRL_D + "enable\r")
    assert code == 0 and executed == [] and out == ""


def test_ctrl_c_clears_the_line(lab: Lab, executed: list[tuple[str, str]]) -> None:
    drive(lab, "configure" + CTRL_C + "enable\r" + CTRL_D)
    assert executed == [("NY_Appliance1", "enable")]


def test_f2_switches_to_the_lab_console_and_back(lab: Lab, executed: list[tuple[str, str]]) -> None:
    drive(lab, "enable\r" + F2 + "status\r" + F2 + "configure\r" + CTRL_D)
    assert executed == [
        ("NY_Appliance1", "enable"), ("lab", "status"), ("NY_Appliance1", "configure"),
    ]
    assert lab.target("NY_Appliance1").prompt == "NY_Appliance1(configure)#"


def test_f2_keeps_the_typed_text(lab: Lab, executed: list[tuple[str, str]]) -> None:
    drive(lab, "ena" + F2 + "ble\r" + CTRL_D)
    assert executed == [("lab", "enable")]


def test_prompt_follows_the_target(lab: Lab) -> None:
    with create_pipe_input() as pipe:
        repl = Repl(lab, "NY_Appliance1", input=pipe, output=DummyOutput(), stdout=io.StringIO())
        assert repl.prompt_session.message() == "NY_Appliance1> "
        repl.toggle_console()
        assert repl.prompt_session.message() == "lab> "
        assert repl.target == "lab"
        repl.toggle_console()
        assert repl.target == "NY_Appliance1"


def test_console_connect_switches_the_router(lab: Lab, executed: list[tuple[str, str]]) -> None:
    drive(lab, F2 + "connect NJ_Appliance1\renable\r" + F2 + "status\r" + F2 + "show version\r" + CTRL_D)
    assert executed == [
        ("lab", "connect NJ_Appliance1"), ("NJ_Appliance1", "enable"), ("lab", "status"),
        ("NJ_Appliance1", "show version"),
    ]


def test_start_at_the_console_f2_goes_to_the_first_router(lab: Lab, executed: list[tuple[str, str]]) -> None:
    drive(lab, F2 + "enable\r" + CTRL_D, start="lab")
    assert executed == [("NY_Appliance1", "enable")]


def test_unknown_start_target(lab: Lab) -> None:
    out = io.StringIO()
    assert run_repl(lab, "LA_Appliance9", history_path=None, stdout=out) == 1
    assert "LA_Appliance9" in out.getvalue()


def test_output_is_printed_plain(lab: Lab) -> None:
    _, out = drive(lab, "show hostname\rzz\r" + CTRL_D)
    assert out.split("\n") == [
        "",   # show output begins with one blank line (T04, T13, C06)
        "Hostname: NY_Appliance1",
        "               ^",
        "Invalid command input",
        "   -> Unknown command, or command not available in current context (zz)",
        "",
    ]
    assert "\x1b" not in out


def test_a_crashing_lab_does_not_end_the_repl(lab: Lab, monkeypatch: pytest.MonkeyPatch) -> None:
    calls = []
    real_execute = lab.execute

    def boom(target: str, line: str) -> Outcome:
        calls.append(line)
        if line == "boom":
            raise RuntimeError("bug")
        return real_execute(target, line)

    monkeypatch.setattr(lab, "execute", boom)
    _, out = drive(lab, "boom\renable\r" + CTRL_D)
    assert calls == ["boom", "enable"]
    assert out.startswith("ERROR: Internal error")
    assert lab.prompt("NY_Appliance1") == "NY_Appliance1#"


def test_history_file_is_written(lab: Lab, executed: list[tuple[str, str]], tmp_path) -> None:
    history = history_path_for(tmp_path / "drill.lab")
    assert history == tmp_path / "drill.lab.history"
    drive(lab, "enable\rconfigure\r" + CTRL_D, history_path=history)
    text = history.read_text()
    assert "+enable" in text and "+configure" in text
    # A second run sees it: Up recalls the last command.
    lab2 = Lab.fresh()
    del executed[:]
    drive(lab2, "\x1b[A\r" + CTRL_D, history_path=history)
    lab2.close()
    assert executed == [("NY_Appliance1", "configure")]


def test_recorder_gets_prompt_line_and_output(lab: Lab) -> None:
    recorder = ListRecorder()
    drive(lab, "enable\r\rshow hostname\r" + F2 + "zz\r" + CTRL_D, recorder=recorder)
    assert recorder.records[:2] == [
        ("NY_Appliance1>", "enable", ""),
        ("NY_Appliance1#", "show hostname", "\nHostname: NY_Appliance1"),
    ]
    assert recorder.records[2][0:2] == ("lab>", "zz")
    assert "Invalid command input" in recorder.records[2][2]
    assert len(recorder.records) == 3   # the empty line is not recorded


def test_vi_mode(lab: Lab, executed: list[tuple[str, str]]) -> None:
    # In vi mode: type, Escape to navigation, `0` to the start, `x` deletes a character, Enter runs.
    drive(lab, "xenable\x1b0x\r" + CTRL_D, editing_mode="vi")
    assert executed == [("NY_Appliance1", "enable")]


def test_toolbar() -> None:
    assert toolbar_text("NY_Appliance1", "T+5s", "NY_Appliance1") == " NY_Appliance1 | T+5s | F2 lab console / router"
    assert toolbar_text("lab", None, "NJ_Appliance1") == " lab console | F2 lab console / router (NJ_Appliance1)"


def test_toolbar_reads_the_simulated_clock(lab: Lab) -> None:
    assert read_clock(lab) == "T+0s"
    assert lab.execute("lab", "advance 3725250ms").ok
    assert read_clock(lab) == "T+1h02m05.250s"
    lab.close()
    assert read_clock(lab) is None   # a lab that cannot be read: no clock, no exception


def test_format_clock() -> None:
    assert format_clock(0) == "T+0s"
    assert format_clock(125_000) == "T+2m05s"
    assert format_clock(90_061_000) == "T+1d01h01m01s"
