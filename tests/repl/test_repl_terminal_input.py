"""Control and bidi characters typed at the REPL (Ctrl-V, a paste, undecodable bytes): refused with
the caret under them on Enter, `?` and Tab alike, never echoed raw, never an exception inside
prompt_toolkit's keys; passwords on such lines are still masked in the history."""

from __future__ import annotations

import io
import os
import sys
from pathlib import Path

import pexpect
import pytest
from prompt_toolkit.document import Document
from prompt_toolkit.layout.processors import TransformationInput

from grammar.masking import mask_secrets
from solace_shell.escaped_input import EscapeInvisibleProcessor
from solace_shell.lab import Lab
from solace_shell.line_limit import MAX_LINE_CHARS, TYPED_TOO_LONG, paste_too_long_text
from solace_shell.repl import Repl, history_path_for
from state_store.errors import ScenarioError
from state_store.scenario_schema import load_scenario
from tests.support.repl_driver import drive

ROOT = Path(__file__).resolve().parents[2]
CTRL_D = "\x04"
CTRL_V = "\x16"
PROMPT = "NY_Appliance1>"
# C0, C1, bidi override / embedding / isolate / mark, zero-width, byte-order mark, tag
REFUSED = ["\x07", "\x1b", "\x9b", "\u202e", "\u202a", "\u2066", "\u2069", "\u200f", "\u061c", "\u200b",
           "\ufeff", "\U000e0041"]


def _spawn(tmp_path: Path) -> pexpect.spawn:
    env = dict(os.environ, PYTHONPATH=str(ROOT), TERM="xterm", PROMPT_TOOLKIT_NO_CPR="1")
    return pexpect.spawn(sys.executable, ["-c", "from solace_shell.cli import main; main()", "--db",
                                          str(tmp_path / "lab.sqlite")],
                         env=env, encoding="utf-8", codec_errors="replace", timeout=30, dimensions=(24, 120))


def test_ctrl_v_a_control_character_and_enter_is_refused_and_the_shell_goes_on(tmp_path: Path) -> None:
    child = _spawn(tmp_path)
    child.logfile_read = seen = io.StringIO()
    child.expect(PROMPT)
    child.send("show" + CTRL_V + "\x07" + "x\r")
    child.expect("Control character U\\+0007 is not allowed in a command line")
    child.send("show hostname\r")
    child.expect("Hostname: NY_Appliance1")
    child.send("exit\r")   # (not Ctrl-D: between two prompts the terminal's line discipline takes it)
    child.expect(pexpect.EOF)
    child.close()
    text = seen.getvalue()
    assert "Unhandled exception" not in text and "Traceback" not in text and "Press ENTER" not in text
    assert child.exitstatus == 0


@pytest.mark.parametrize("char", REFUSED)
def test_a_line_holding_it_is_refused_with_the_caret_under_it(lab: Lab, char: str) -> None:
    code, out = drive(lab, f"show {CTRL_V}{char} hostname\r" + CTRL_D)
    assert code == 0
    caret, message = out.split("\n")[:2]
    assert caret == " " * len(f"{PROMPT} show ") + "^"
    assert message == "Invalid command input"
    assert f"Control character U+{ord(char):04X} is not allowed" in out
    assert char not in out


@pytest.mark.parametrize("char", REFUSED)
def test_question_mark_echoes_it_as_a_question_mark_with_the_caret(lab: Lab, char: str) -> None:
    _, out = drive(lab, f"show {CTRL_V}{char}?" + CTRL_D)
    lines = out.split("\n")
    assert lines[0] == f"{PROMPT} show ??"
    assert lines[1] == " " * len(f"{PROMPT} show ") + "^"
    assert char not in out


def test_question_mark_echoes_the_text_after_the_cursor_escaped_too(lab: Lab) -> None:
    _, out = drive(lab, f"show {CTRL_V}\x1b[31m\x1b[D\x1b[D\x1b[D\x1b[D\x1b[D?" + CTRL_D)
    assert "\x1b" not in out and out.startswith(f"{PROMPT} show ?")


@pytest.mark.parametrize("char", REFUSED)
def test_tab_refuses_it_with_the_caret_instead_of_completing(lab: Lab, char: str) -> None:
    _, out = drive(lab, f"sh {CTRL_V}{char}x\t" + CTRL_D)
    lines = out.split("\n")
    assert lines[0] == f"{PROMPT} sh ?x"
    assert lines[1] == " " * len(f"{PROMPT} sh ") + "^"
    assert f"Control character U+{ord(char):04X}" in lines[3]
    assert char not in out


def test_a_key_whose_output_fails_is_logged_and_the_prompt_stays(lab: Lab, monkeypatch: pytest.MonkeyPatch,
                                                                  executed: list[tuple[str, str]]) -> None:
    def broken(self: Repl, text: str) -> None:
        raise BrokenPipeError("terminal gone")

    monkeypatch.setattr(Repl, "write_help", broken)
    code, _ = drive(lab, "show ?\renable\r" + CTRL_D)
    assert code == 0
    assert ("NY_Appliance1", "enable") in executed


def test_a_password_on_a_line_with_a_control_character_is_still_masked(lab: Lab) -> None:
    bridge = "configure/message-vpn/replication/bridge"
    for line in ("authentication basic client-username u password s3cret\x07",
                 "authentication basic client-username u pass\x07word s3cret",
                 "authentication basic client-username u\u202e password s3cret"):
        masked = mask_secrets(lab.parser, bridge, line)
        assert "s3cret" not in masked and masked.endswith("********")


def test_the_history_keeps_such_a_line_masked(lab: Lab, tmp_path: Path) -> None:
    history = history_path_for(tmp_path / "drill.lab")
    keys = ("enable\rconfigure\rmessage-vpn Trading_VPN\rreplication\rbridge\r"
            f"authentication basic client-username u password s3cret{CTRL_V}\x07\r" + CTRL_D)
    code, _ = drive(lab, keys, history_path=history)
    text = history.read_text()
    assert code == 0 and "s3cret" not in text and "password ********" in text


def _shown(text: str) -> tuple[str, object]:
    processor = EscapeInvisibleProcessor()
    ti = TransformationInput(None, Document(text), 0, lambda i: i, [("", text)], 80, 1)  # type: ignore[arg-type]
    done = processor.apply_transformation(ti)
    return "".join(fragment[1] for fragment in done.fragments), done


def test_the_line_being_typed_shows_bidi_and_invisible_characters_escaped() -> None:
    shown, done = _shown("ab\u202ec\u200bd\U000e0041e")
    assert shown == "ab\\u202ec\\u200bd\\U000e0041e"
    source_to_display = done.source_to_display  # type: ignore[attr-defined]
    display_to_source = done.display_to_source  # type: ignore[attr-defined]
    assert [source_to_display(i) for i in range(9)] == [0, 1, 2, 8, 9, 15, 16, 26, 27]
    assert display_to_source(5) == 2 and display_to_source(8) == 3 and display_to_source(27) == 8


def test_ordinary_lines_and_c0_controls_are_left_to_prompt_toolkit() -> None:
    for text in ("show queue *", "create queue \"Zürich 中文\"", "a\x07b"):
        assert _shown(text)[0] == text


@pytest.mark.parametrize("char", ["\u202e", "\u200b", "\u2066"])
def test_a_scenario_name_holding_one_is_refused_with_the_character_escaped(tmp_path: Path, char: str) -> None:
    source = (ROOT / "state_store" / "scenarios" / "default.yaml").read_text(encoding="utf-8")
    assert "name: orders" in source
    path = tmp_path / "bidi.yaml"
    path.write_text(source.replace("name: orders", f'name: "ord{char}ers"', 1), encoding="utf-8")
    with pytest.raises(ScenarioError) as refused:
        load_scenario(path)
    report = "\n".join(refused.value.problems)
    assert "contains a control character" in report and char not in report


def test_a_paste_longer_than_a_line_may_be_is_refused_whole(lab: Lab, executed: list[tuple[str, str]]) -> None:
    paste = "\x1b[200~show " + "x" * MAX_LINE_CHARS + "\x1b[201~"
    _, out = drive(lab, "show " + paste + "hostname\r" + CTRL_D)
    assert out.split("\n")[0] == paste_too_long_text(MAX_LINE_CHARS + 5)
    assert executed == [("NY_Appliance1", "show hostname")]


def test_typing_past_the_longest_line_is_dropped_and_said_once(lab: Lab, executed: list[tuple[str, str]]) -> None:
    _, out = drive(lab, "x" * (MAX_LINE_CHARS + 50) + "\r" + CTRL_D)
    assert out.count(TYPED_TOO_LONG) == 1
    assert [len(line) for _, line in executed] == [MAX_LINE_CHARS]


def test_over_ssh_the_same_keys_are_refused_and_the_server_serves_on(tmp_path: Path) -> None:
    from tests.support.ssh_clients import Shell, connect, serving

    with serving(tmp_path / "ssh.lab") as server:
        client, other = connect(server.port("NY_Appliance1"), "admin", "admin"), None
        try:
            shell = Shell(client)
            shell.login_text()
            shell.send("show" + CTRL_V + "\x07x" + CTRL_V + "\u202e\r")
            assert "Control character U+0007 is not allowed" in shell.until("not allowed in a command line")
            other = connect(server.port("NY_Appliance1"), "admin", "admin")
            second = Shell(other)
            second.login_text()
            assert "Hostname: NY_Appliance1" in second.command("show hostname")
            assert "Hostname: NY_Appliance1" in shell.command("show hostname")
            shell.send("\x04")
            assert shell.exit_status() == 0
            assert "Unhandled exception" not in shell.raw and "Press ENTER" not in shell.raw
        finally:
            client.close()
            if other is not None:
                other.close()
