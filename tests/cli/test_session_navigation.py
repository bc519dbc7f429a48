"""Levels and prompts exactly as the real CLI shows them, and the navigation commands."""

from __future__ import annotations

import pytest


def run(session, *lines):
    outcome = None
    for line in lines:
        outcome = session.execute(line)
    return outcome


def test_starts_at_user_exec(ny) -> None:
    assert ny.prompt == "NY_Appliance1>"


@pytest.mark.parametrize("lines,prompt", [
    (["enable"], "NY_Appliance1#"),
    (["enable", "configure"], "NY_Appliance1(configure)#"),
    (["enable", "config"], "NY_Appliance1(configure)#"),
    (["enable", "configure", "message-vpn Trading_VPN"], "NY_Appliance1(configure/message-vpn)#"),
    (["enable", "configure", "message-vpn Trading_VPN", "replication"],
     "NY_Appliance1(configure/message-vpn/replication)#"),
    (["enable", "configure", "message-vpn Trading_VPN", "replication queue"],
     "NY_Appliance1(configure/message-vpn/replication/queue)#"),
    (["enable", "configure", "message-vpn Trading_VPN", "replication", "bridge"],
     "NY_Appliance1(configure/message-vpn/replication/bridge)#"),
    (["enable", "configure", "message-vpn Trading_VPN", "replication", "ack-propagation"],
     "NY_Appliance1(...ssage-vpn/replication/ack-propagation)#"),
    (["enable", "admin"], "NY_Appliance1(admin)#"),
    (["enable", "admin", "message-spool message-vpn Trading_VPN"], "NY_Appliance1(admin/message-spool)#"),
    (["enable", "admin", "system message-spool"], "NY_Appliance1(admin/system/message-spool)#"),
    (["enable", "configure", "message-spool message-vpn Trading_VPN"], "NY_Appliance1(configure/message-spool)#"),
    (["enable", "configure", "replication", "mate"], "NY_Appliance1(configure/replication/mate)#"),
    (["enable", "show"], "NY_Appliance1(show)>"),
])
def test_levels_and_prompts(ny, lines, prompt) -> None:
    for line in lines:
        assert ny.execute(line).ok, line
    assert ny.prompt == prompt


def test_crossing_levels_on_one_line_keeps_intermediate_levels_for_exit(ny) -> None:
    run(ny, "enable", "configure", "message-vpn Trading_VPN")
    assert run(ny, "replication queue").ok
    assert ny.prompt == "NY_Appliance1(configure/message-vpn/replication/queue)#"
    run(ny, "exit")
    assert ny.prompt == "NY_Appliance1(configure/message-vpn/replication)#"
    run(ny, "exit")
    assert ny.prompt == "NY_Appliance1(configure/message-vpn)#"


def test_a_crossed_line_ending_on_a_leaf_leaves_the_prompt_where_it_was(ny) -> None:
    run(ny, "enable")
    outcome = run(ny, "show hostname")
    assert outcome.text == "\nHostname: NY_Appliance1"
    assert ny.prompt == "NY_Appliance1#"


def test_exit_end_home(ny) -> None:
    run(ny, "enable", "configure", "message-vpn Trading_VPN", "replication")
    run(ny, "end")
    assert ny.prompt == "NY_Appliance1#"
    run(ny, "configure", "message-vpn Trading_VPN", "replication")
    run(ny, "home")
    assert ny.prompt == "NY_Appliance1>"
    run(ny, "enable", "show")
    run(ny, "exit")
    assert ny.prompt == "NY_Appliance1#"


def test_exit_at_the_top_level_ends_the_session(ny) -> None:
    run(ny, "enable")
    assert not run(ny, "exit").ended
    assert ny.prompt == "NY_Appliance1>"
    assert run(ny, "exit").ended


def test_show_level_takes_show_objects(ny) -> None:
    run(ny, "enable", "show")
    assert run(ny, "hostname").text == "\nHostname: NY_Appliance1"
    assert ny.prompt == "NY_Appliance1(show)>"


def test_show_works_from_config_levels(ny) -> None:
    run(ny, "enable", "configure", "message-vpn Trading_VPN")
    assert run(ny, "show hostname").text == "\nHostname: NY_Appliance1"
    assert ny.prompt == "NY_Appliance1(configure/message-vpn)#"


def test_unknown_vpn_uses_the_broker_wording_and_keeps_the_level(ny) -> None:
    run(ny, "enable", "configure")
    outcome = run(ny, "message-vpn Nowhere_VPN")
    assert not outcome.ok and outcome.error_kind == "engine"
    assert outcome.text == "ERROR: Message VPN 'Nowhere_VPN' not found."
    assert ny.prompt == "NY_Appliance1(configure)#"


def test_invalid_input_caret_sits_under_the_bad_word(ny) -> None:
    outcome = run(ny, "show mesage-vpn x")
    prompt = "NY_Appliance1> "
    assert outcome.error_kind == "invalid"
    assert outcome.text.splitlines() == [
        " " * (len(prompt) + len("show ")) + "^",
        "Invalid command input",
        "   -> Unknown command, or command not available in current context (mesage-vpn)",
    ]


def test_ambiguous_and_incomplete_errors(ny) -> None:
    run(ny, "enable", "configure")
    ambiguous = run(ny, "mes Trading_VPN")
    assert ambiguous.error_kind == "ambiguous"
    assert ambiguous.text.splitlines()[1:] == [
        "Ambiguous command input", "   -> 'mes' could be: message-spool message-vpn"]
    incomplete = run(ny, "message-vpn")
    assert incomplete.error_kind == "incomplete"
    assert incomplete.text.splitlines() == [
        " " * (len("NY_Appliance1(configure)# ") + len("message-vpn")) + "^",
        "Incomplete command input",
        "   -> Expected: <vpn-name>",
    ]
    assert ny.prompt == "NY_Appliance1(configure)#"


def test_wrong_mode_is_invalid_input(ny) -> None:
    outcome = run(ny, "configure")
    assert outcome.error_kind == "invalid" and ny.prompt == "NY_Appliance1>"


def test_paging_setting(ny) -> None:
    assert ny.paging
    run(ny, "no paging")
    assert not ny.paging
    run(ny, "paging")
    assert ny.paging


def test_each_router_keeps_its_own_level_stack(lab) -> None:
    ny, nj = lab.session("NY_Appliance1"), lab.session("NJ_Appliance1")
    run(ny, "enable", "configure")
    assert nj.prompt == "NJ_Appliance1>"
    assert run(nj, "show hostname").text == "\nHostname: NJ_Appliance1"


def test_a_failing_renderer_is_an_error_not_a_traceback_and_undoes_the_command(lab, ny, monkeypatch) -> None:
    from solace_shell import renderers
    from solace_shell.personalities.solace.handlers.system import Hostname

    def broken(result):
        raise ValueError("boom")

    monkeypatch.setitem(renderers.RENDERERS, Hostname, broken)
    outcome = ny.execute("show hostname")
    assert not outcome.ok and outcome.error_kind == "internal"
    assert outcome.text.startswith("ERROR: Internal error")
