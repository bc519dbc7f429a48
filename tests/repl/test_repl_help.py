"""`?` help: the echoed line, the candidates in two aligned columns, errors with their caret."""

from __future__ import annotations

from solace_shell.completer import format_candidates, help_text
from solace_shell.lab import Lab
from tests.support.repl_driver import drive


def test_help_after_a_space_lists_every_next_word_with_help(lab: Lab) -> None:
    text = help_text(lab.parser, "privileged", "NY_Appliance1#", "configure ")
    assert text.split("\n") == [
        "NY_Appliance1# configure ?",
        "  acl-profile      The ACL profile",
        "  client-profile   The client profile",
        "  client-username  The client username",
        "  config-sync      Config-sync (configuration synchronization)",
        "  create           Create an object",
        "  jndi             The Message VPN's JNDI objects",
        "  message-spool    Message spool",
        "  message-vpn      Message VPN",
        "  no               Negate a command or set its default",
        "  redundancy       Redundancy (high availability) configuration",
        "  replication      Replication",
        "  <cr>",
    ]


def test_help_at_an_empty_line(lab: Lab) -> None:
    text = help_text(lab.parser, "exec", "NY_Appliance1>", "")
    assert text.split("\n") == [
        "NY_Appliance1> ?",
        "  enable  Enter the Privileged EXEC level",
        "  exit    Leave the current level",
        "  home    Return to the User EXEC level",
        "  no      Negate a command or set its default",
        "  paging  Page long output",
        "  show    Show information",
        "  source  Run commands from a file",
    ]


def test_help_inside_a_word_lists_its_completions(lab: Lab) -> None:
    text = help_text(lab.parser, "exec", "NY_Appliance1>", "e")
    assert text.split("\n") == [
        "NY_Appliance1> e?",
        "  enable  Enter the Privileged EXEC level",
        "  exit    Leave the current level",
    ]


def test_help_for_a_parameter(lab: Lab) -> None:
    text = help_text(lab.parser, "configure", "NY_Appliance1(configure)#", "message-vpn ")
    assert text.split("\n") == [
        "NY_Appliance1(configure)# message-vpn ?",
        "  <vpn-name>  The name of the Message VPN",
    ]


def test_help_after_an_unknown_word_shows_the_error_with_its_caret(lab: Lab) -> None:
    text = help_text(lab.parser, "exec", "NY_Appliance1>", "zz ")
    assert text.split("\n") == [
        "NY_Appliance1> zz ?",
        "               ^",
        "Invalid command input",
        "   -> Unknown command, or command not available in current context (zz)",
    ]


def test_help_on_a_prefix_nothing_starts_with(lab: Lab) -> None:
    text = help_text(lab.parser, "exec", "NY_Appliance1>", "show zz")
    assert text.split("\n")[:2] == ["NY_Appliance1> show zz?", "                    ^"]


def test_format_candidates_aligns_two_columns() -> None:
    from grammar import Candidate

    assert format_candidates([Candidate("a", "first"), Candidate("<long-name>", "second"), Candidate("<cr>", "")]) == [
        "  a            first",
        "  <long-name>  second",
        "  <cr>",
    ]


def test_question_mark_prints_help_and_keeps_the_line(lab: Lab, executed: list[tuple[str, str]]) -> None:
    # `?` is not inserted: Enter afterwards runs `enable`, the line as it was before the `?`.
    code, out = drive(lab, "ena?\r\x04")
    assert code == 0
    assert out.split("\n")[:2] == ["NY_Appliance1> ena?", "  enable  Enter the Privileged EXEC level"]
    assert executed == [("NY_Appliance1", "ena")]
    assert lab.target("NY_Appliance1").prompt == "NY_Appliance1#"


def test_question_mark_after_a_space_in_the_repl(lab: Lab) -> None:
    code, out = drive(lab, "enable\rconfigure ?\x04")
    assert out.split("\n")[:13] == [
        "NY_Appliance1# configure ?",
        "  acl-profile      The ACL profile",
        "  client-profile   The client profile",
        "  client-username  The client username",
        "  config-sync      Config-sync (configuration synchronization)",
        "  create           Create an object",
        "  jndi             The Message VPN's JNDI objects",
        "  message-spool    Message spool",
        "  message-vpn      Message VPN",
        "  no               Negate a command or set its default",
        "  redundancy       Redundancy (high availability) configuration",
        "  replication      Replication",
        "  <cr>",
    ]


def test_question_mark_inside_quotes_is_literal(lab: Lab, executed: list[tuple[str, str]]) -> None:
    _, out = drive(lab, 'show message-vpn "a?b"\r\x04')
    assert executed == [("NY_Appliance1", 'show message-vpn "a?b"')]
    assert "Message VPN" in out and "<vpn-pattern>" not in out


def test_ctrl_v_question_mark_inserts_a_literal_wildcard(lab: Lab, executed: list[tuple[str, str]]) -> None:
    code, out = drive(lab, "show message-vpn a\x16?b\r\x04")
    assert executed == [("NY_Appliance1", "show message-vpn a?b")]
    assert "Message VPN" in out and "<vpn-pattern>" not in out


def test_help_fragments_colour_names_only(lab: Lab) -> None:
    from solace_shell.completer import help_fragments

    text = help_text(lab.parser, "exec", "NY_Appliance1>", "e")
    fragments = help_fragments(text)
    assert "".join(t for _, t in fragments) == text + "\n"
    assert ("class:help.name", "enable") in fragments
    error = help_text(lab.parser, "exec", "NY_Appliance1>", "zz ")
    assert "".join(t for _, t in help_fragments(error)) == error + "\n"
    assert not any(style == "class:help.name" for style, _ in help_fragments(error))
