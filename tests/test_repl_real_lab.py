"""The REPL over a real `Lab.fresh()`: live names, Tab, `?`, F2 and exit end to end."""

from __future__ import annotations

from solace_shell.lab import Lab
from solace_shell.live_names import LiveNames

from .repl_driver import ListRecorder, drive

F2 = "\x1bOQ"
CTRL_D = "\x04"


def test_live_names_from_the_engine(lab: Lab) -> None:
    live = LiveNames(lab)
    assert "NY" in live.names("site", None)
    assert "admin" in live.names("user", None)
    assert "orders" in live.names("queue", "NY_Appliance1", "Trading_VPN")


def test_live_vpn_names_from_the_engine(lab: Lab) -> None:
    names = LiveNames(lab).names("vpn", "NY_Appliance1")
    assert "Trading_VPN" in names


def test_tab_completes_a_real_vpn_name(lab: Lab) -> None:
    recorder = ListRecorder()
    drive(lab, "enable\rconfigure\rmessage-vpn Tradi\t\r" + CTRL_D, recorder=recorder)
    assert recorder.records[-1][:2] == ("NY_Appliance1(configure)#", "message-vpn Trading_VPN ")


def test_question_mark_on_the_real_grammar(lab: Lab) -> None:
    _, out = drive(lab, "ena?\r" + CTRL_D)
    lines = out.split("\n")
    assert lines[0] == "NY_Appliance1> ena?"
    assert lines[1].startswith("  enable  ")
    assert lab.target("NY_Appliance1").prompt == "NY_Appliance1#"


def test_f2_and_exit_on_a_lab(lab: Lab) -> None:
    recorder = ListRecorder()
    code, _ = drive(lab, "enable\r" + F2 + F2 + "exit\rexit\renable\r", recorder=recorder)
    assert code == 0
    assert [r[:2] for r in recorder.records] == [
        ("NY_Appliance1>", "enable"), ("NY_Appliance1#", "exit"), ("NY_Appliance1>", "exit"),
    ]
