"""The REPL over a real `Lab.fresh()`: live names, Tab, `?`, F2 and exit end to end."""

from __future__ import annotations

from pathlib import Path

from solace_shell.lab import Lab
from solace_shell.live_names import LiveNames
from tests.support.repl_driver import ListRecorder, drive

F2 = "\x1bOQ"
CTRL_D = "\x04"


def test_f2_is_refused_without_the_lab_administration_right() -> None:
    lab = Lab.fresh(settings={"user": "monitor"})
    try:
        before = lab.store.dump()
        code, out = drive(lab, "show ho" + F2 + "stname\r" + F2 + "status\r" + CTRL_D)
        refusal = "ERROR: The lab console is for lab administrators; user 'monitor' has no lab-administration right."
        # the typed text stayed at the router's prompt; `status` is not a router command
        assert code == 0 and out == (
            f"{refusal}\n\nHostname: NY_Appliance1\n{refusal}\n               ^\nInvalid command input\n"
            "   -> Unknown command, or command not available in current context (status)\n")
        assert lab.store.dump() == before
        code, out = drive(lab, "status\r", start="lab")
        assert code == 1 and out == refusal + "\n"
    finally:
        lab.close()


def test_f2_opens_the_console_for_the_lab_admin(lab: Lab) -> None:
    code, out = drive(lab, F2 + "status\r" + CTRL_D)
    assert code == 0 and out.startswith("clock 00:00:00.000 link up scenario default\n")


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


def test_lab_console_exit_returns_to_the_router_and_help_lists_its_commands(lab: Lab) -> None:
    code, out = drive(lab, "enable\r" + F2 + "help\rexit\rshow hostname\r" + CTRL_D)
    assert code == 0
    assert "advance <duration>" in out and "exit  " in out and "Leave the lab console" in out
    assert "\nHostname: NY_Appliance1" in out     # `show hostname` ran on the router again
    assert lab.target("NY_Appliance1").prompt == "NY_Appliance1#"


def test_the_lab_console_keeps_its_own_history(lab: Lab, tmp_path: Path) -> None:
    from solace_shell.repl import console_history_path

    history = tmp_path / "lab.sqlite.history"
    drive(lab, "enable\r" + F2 + "advance 1s\r" + F2 + "show hostname\r" + CTRL_D, history_path=history)
    routers = history.read_text(encoding="utf-8")
    console = console_history_path(history).read_text(encoding="utf-8")
    assert "+enable" in routers and "+show hostname" in routers and "advance" not in routers
    assert "+advance 1s" in console and "enable" not in console
