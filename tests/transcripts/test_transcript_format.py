"""Parsing transcripts: input lines, header, comments, and the errors of malformed files."""

import pytest

from solace_shell.transcript.format import TranscriptError, literal_line, parse_header, parse_transcript
from solace_shell.transcript.match import match_block

HOSTS = ["NY_Appliance1", "NJ_Appliance1", "lab"]


def parse(text, hosts=HOSTS):
    return parse_transcript(text, "t.cli.txt", hosts=hosts)


def problems(text, hosts=HOSTS):
    with pytest.raises(TranscriptError) as info:
        parse(text, hosts)
    return [(p.line, p.message) for p in info.value.problems], str(info.value)


def test_steps_prompts_and_blocks():
    t = parse(
        "#: version: 9.1\n"
        "#| drill 1\n"
        "NY_Appliance1> enable\n"
        "NY_Appliance1# show message-vpn Trading_VPN replication\n"
        "\n"
        "Message VPN   State\n"
        "#| the state column\n"
        "Trading_VPN   active\n"
        "\n"
        "NJ_Appliance1(configure/message-vpn)# replication state active\n"
        "lab> advance 5s\n"
        "NY_Appliance1(...e/message-vpn/replication)#\n"
    )
    assert t.header.version == "9.1"
    assert [(s.line, s.host, s.prompt, s.command) for s in t.steps] == [
        (3, "NY_Appliance1", "NY_Appliance1>", "enable"),
        (4, "NY_Appliance1", "NY_Appliance1#", "show message-vpn Trading_VPN replication"),
        (10, "NJ_Appliance1", "NJ_Appliance1(configure/message-vpn)#", "replication state active"),
        (11, "lab", "lab>", "advance 5s"),
        (12, "NY_Appliance1", "NY_Appliance1(...e/message-vpn/replication)#", ""),
    ]
    show = t.steps[1]
    assert show.expected == ("", "Message VPN   State", "Trading_VPN   active", "")
    assert show.expected_lines == (5, 6, 8, 9)
    assert t.steps[0].expected == ()


def test_only_known_hosts_start_input_lines():
    t = parse("NY_Appliance1# show x\nRouter> not a prompt\nmsgs# 5\nNY_Appliance1 > no\n")
    assert len(t.steps) == 1
    assert t.steps[0].expected == ("Router> not a prompt", "msgs# 5", "NY_Appliance1 > no")


def test_command_is_verbatim_after_one_space():
    t = parse("NY_Appliance1>  two spaces  \n")
    assert t.steps[0].command == " two spaces"


def test_crlf_and_trailing_spaces():
    t = parse("#: user: ops\r\nNY_Appliance1> show x  \r\nline 1   \r\n\r\n")
    assert t.header.user == "ops"
    assert t.steps[0].command == "show x"
    assert t.steps[0].expected == ("line 1", "")


def test_strict_blank_lines_keeps_edges():
    text = "#: strict-blank-lines\nNY_Appliance1> show x\n\nA\n\nNY_Appliance1> y\n"
    t = parse(text)
    assert t.header.strict_blank_lines
    assert t.steps[0].expected == ("", "A", "")
    # strict is the default; leniency only by header
    assert parse(text.replace("#: strict-blank-lines\n", "")).steps[0].expected == ("", "A", "")
    lenient = parse(text.replace("#: strict-blank-lines\n", "#: strict-blank-lines: no\n"))
    assert not lenient.header.strict_blank_lines and lenient.steps[0].expected == ("A",)


def test_header_values():
    h = parse_header("#| c\n\n#: scenario: ../s.yaml\n#: layout: B\n#: strict-blank-lines: no\nlab> status\n", "t")
    assert (h.scenario, h.layout, h.strict_blank_lines) == ("../s.yaml", "B", False)
    assert h.settings() == {"layout": "B"}
    assert h.lines["scenario"] == 3


def test_no_input_lines():
    lines, _ = problems("#| only a comment\n\n")
    assert lines == [(1, "no input lines (a prompt followed by a command)")]


def test_all_problems_reported_together_with_lines():
    text = (
        "#: colour: blue\n"            # 1 unknown key
        "#: layout: C\n"               # 2 bad layout
        "stray output\n"               # 3 output before first input
        "XX_Router(configure)# show\n"  # 4 unknown host
        "NY_Appliance1> show x\n"      # 5
        "(unclosed (re)\n"             # 6 bad regex
        "#: version: 9\n"              # 7 header after input
        "Other(configure)# x\n"        # 8 unknown host with a mode suffix
        "bad \udcff byte\n"            # 9 undecodable
    )
    lines, message = problems(text)
    assert [n for n, _ in lines] == [1, 2, 3, 4, 6, 7, 8, 9]
    assert "unknown header key 'colour'" in lines[0][1]
    assert "layout must be A or B" in lines[1][1]
    assert lines[2][1] == "output before the first input line"
    assert "unknown host 'XX_Router'" in lines[3][1]
    assert "bad regular expression" in lines[4][1]
    assert "header line after the first input line" in lines[5][1]
    assert "unknown host 'Other'" in lines[6][1]
    assert "undecodable bytes" in lines[7][1]
    assert message.splitlines()[0].startswith("t.cli.txt:1: unknown header key")
    assert len(message.splitlines()) == 8


def test_duplicate_header_key():
    lines, _ = problems("#: user: a\n#: user: b\nlab> status\n")
    assert lines == [(2, "header key 'user' given twice (first on line 1)")]


def test_hosts_none_accepts_any_prompt():
    t = parse("Any_Host> x\nOther# y\n", hosts=None)
    assert [s.host for s in t.steps] == ["Any_Host", "Other"]


@pytest.mark.parametrize("line", [
    "plain text", "...", "a [..] b", "Count 5 (re)", "#| looks like a comment", "#: looks: like header",
    "NY_Appliance1> show x", "NY_Appliance1>", "lab>", "Router(configure)# x", "x.y>", "-> ^", "  ...",
    "! comment in config", "# root", "[N]Y (re)",
])
def test_literal_line_matches_itself_and_is_never_syntax(line):
    written = literal_line(line)
    assert match_block([written], [line], True)
    t = parse("NY_Appliance1> echo\n" + written + "\n")
    assert len(t.steps) == 1 and t.steps[0].expected == (written,)


def test_literal_line_keeps_plain_lines():
    assert literal_line("Message VPN: Trading_VPN") == "Message VPN: Trading_VPN"
    assert literal_line("...") == r"\.\.\. (re)"
    assert literal_line("NY_Appliance1>") == "[N]Y_Appliance1> (re)"
