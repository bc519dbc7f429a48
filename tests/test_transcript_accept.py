"""`accept`: failing blocks are rewritten, matchers that still match and everything else are kept."""

from solace_shell.transcript.accept import accept, accept_text
from solace_shell.transcript.fake_lab import FakeLab
from solace_shell.transcript.replay import replay_text


def acc(text, name="t.cli.txt"):
    new, report = accept_text(text, name, lab_factory=FakeLab)
    return new, report


def test_passing_transcript_is_unchanged():
    text = "#: version: 9.1\n#: strict-blank-lines: no\n#| c\nNY_Appliance1> show clock\nUptime: [..]\n\n"
    new, report = acc(text)
    assert new == text and not report.changed


def test_failing_literal_lines_are_replaced_and_passing_blocks_kept_byte_identical():
    text = (
        "#: version: 9.1   \n"
        "#: strict-blank-lines: no\n"
        "#| keep me  \n"
        "NY_Appliance1> show clock   \n"
        "Uptime: 0s  \r\n"
        "\n"
        "NY_Appliance1> show version\n"
        "Version: 8.0\n"
        "Layout:  A\n"
        "User:    root\n"
        "\n"
        "#| trailing comment\n"
        "lab> status\n"
        "...\n"
    )
    new, report = acc(text)
    assert report.rewritten == [7]
    assert new == text.replace("Version: 8.0\n", "Version: 9.1\n").replace("User:    root\n", "User:    admin\n")
    assert replay_text(new, "t", lab_factory=FakeLab).passed


def test_matchers_that_still_match_are_kept():
    text = (
        "NY_Appliance1> show version\n"
        "Version: [..]\n"            # still matches
        "Layout:  B\n"               # wrong: replaced
        "User: \\w+ (re)\n"          # regex no longer matches ("User:    admin" has 4 spaces): replaced
    )
    new, _ = acc(text)
    assert new == "NY_Appliance1> show version\nVersion: [..]\nLayout:  A\nUser:    admin\n"


def test_regex_kept_when_it_matches_and_ellipsis_kept():
    text = (
        "lab> advance 5s\n"
        "Clock advanced to T\\+\\d+s (re)\n"
        "lab> status\n"
        "Clock: T+1s\n"               # wrong
        "...\n"                        # still covers the router rows
        "lab> advance 2s\n"
        "Clock advanced to T+7s\n"
        "extra line\n"                 # deleted
    )
    new, report = acc(text)
    assert report.rewritten == [3, 6]
    assert new == (
        "lab> advance 5s\n"
        "Clock advanced to T\\+\\d+s (re)\n"
        "lab> status\n"
        "Clock: T+5s\n"
        "...\n"
        "lab> advance 2s\n"
        "Clock advanced to T+7s\n"
    )


def test_ellipsis_in_front_keeps_tail():
    text = "NY_Appliance1> show version\n...\nUser:    root\n"
    new, _ = acc(text)
    assert new == "NY_Appliance1> show version\n...\nUser:    admin\n"


def test_empty_expected_block_gets_output_before_separators():
    head = "#: strict-blank-lines: no\n"
    text = head + "NY_Appliance1> show clock\n\n#| note\nNY_Appliance1> show clock\nUptime: 0s\n"
    new, _ = acc(text)
    assert new == head + "NY_Appliance1> show clock\nUptime: 0s\n\n#| note\nNY_Appliance1> show clock\nUptime: 0s\n"


def test_strict_blank_lines_by_default_a_separator_blank_line_is_output():
    text = "NY_Appliance1> show clock\nUptime: 0s\n\nNY_Appliance1> show clock\nUptime: 0s\n"
    new, report = acc(text)
    assert report.rewritten == [1]
    assert new == "NY_Appliance1> show clock\nUptime: 0s\nNY_Appliance1> show clock\nUptime: 0s\n"


def test_output_removed_when_command_prints_nothing():
    text = "#: strict-blank-lines: no\nNY_Appliance1> enable\nsomething\n\nNY_Appliance1# show clock\nUptime: 0s\n"
    new, _ = acc(text)
    assert new == "#: strict-blank-lines: no\nNY_Appliance1> enable\n\nNY_Appliance1# show clock\nUptime: 0s\n"


def test_comments_inside_block_stay_with_their_line():
    text = "NY_Appliance1> show version\nVersion: 1\n#| about layout\nLayout:  A\n#| about user\nUser:    x\n"
    new, _ = acc(text)
    assert new == ("NY_Appliance1> show version\nVersion: 9.1\n#| about layout\nLayout:  A\n"
                   "#| about user\nUser:    admin\n")


def test_prompt_mismatch_rewrites_prompt():
    text = "NY_Appliance1> enable\nNY_Appliance1> show clock\nUptime: 0s\n"
    new, report = acc(text)
    assert report.rewritten == [2]
    assert new == "NY_Appliance1> enable\nNY_Appliance1# show clock\nUptime: 0s\n"


def test_actual_lines_that_look_like_syntax_are_escaped():
    text = "NY_Appliance1> echo ...\\n#| x\\nNY_Appliance1> y\\na [..] b\nold\n"
    new, _ = acc(text)
    assert new.splitlines()[1:] == [r"\.\.\. (re)", r"\#\|\ x (re)", r"NY_Appliance1>\ y (re)",
                                    r"a\ \[\.\.\]\ b (re)"]
    assert replay_text(new, "t", lab_factory=FakeLab).passed


def test_errors_are_not_accepted_and_strict_blank_edges_rewritten():
    text = "#: strict-blank-lines\nNY_Appliance1> boom\nNY_Appliance1> show state V\nMessage VPN: V\n"
    new, report = acc(text)
    assert report.rewritten == [3]
    assert new == ("#: strict-blank-lines\nNY_Appliance1> boom\nNY_Appliance1> show state V\n\n"
                   "Message VPN: V\nState:       standby\n\n")


def test_crlf_file_uses_crlf_for_new_lines():
    text = "NY_Appliance1> show version\r\nVersion: 1\r\nLayout:  A\r\nUser:    admin\r\n"
    new, _ = acc(text)
    assert new == text.replace("Version: 1", "Version: 9.1")


def test_unparsable_file_untouched(tmp_path):
    f = tmp_path / "x.cli.txt"
    f.write_bytes(b"stray\n")
    report = accept(f, lab_factory=FakeLab)
    assert report.before.error and not report.changed
    assert f.read_bytes() == b"stray\n"


def test_accept_file_in_place_keeps_bom_and_then_passes(tmp_path):
    f = tmp_path / "x.cli.txt"
    f.write_bytes(b"\xef\xbb\xbfNY_Appliance1> show clock\nUptime: 3s")
    report = accept(f, lab_factory=FakeLab)
    assert report.rewritten == [1]
    assert f.read_bytes() == b"\xef\xbb\xbfNY_Appliance1> show clock\nUptime: 0s\n"
    assert not accept(f, lab_factory=FakeLab).changed


# --- property: whatever the expected blocks say, accept makes the transcript pass ---------------
from hypothesis import given, settings  # noqa: E402
from hypothesis import strategies as st  # noqa: E402

SESSION = [
    ("NY_Appliance1", "show version"), ("NY_Appliance1", "enable"), ("lab", "advance 3s"),
    ("lab", "status"), ("NY_Appliance1", "configure"), ("NY_Appliance1", "show state V"),
    ("NJ_Appliance1", "nonsense"), ("NJ_Appliance1", "show clock"),
]
JUNK = st.sampled_from(["junk", "...", "[..]", "Version: [..]", r"\w+: .* (re)", "", "#| comment",
                        "Uptime: 0s", "State:       standby"])


@settings(max_examples=100, deadline=None)
@given(blocks=st.lists(st.lists(JUNK, max_size=5), min_size=len(SESSION), max_size=len(SESSION)),
       strict=st.booleans())
def test_accept_always_yields_a_passing_transcript(blocks, strict):
    lab = FakeLab()
    lines = ["#: strict-blank-lines"] if strict else []
    for (host, command), block in zip(SESSION, blocks):
        lines.append(f"{lab.prompt(host)} {command}")
        lab.execute(host, command)
        lines.extend(block)
    text = "\n".join(lines) + "\n"
    new, report = acc(text)
    assert report.before.error is None
    assert replay_text(new, "t", lab_factory=FakeLab).passed, new
    again, second = acc(new)
    assert again == new and not second.changed
    # passing blocks (and their comments) are byte-identical
    old_lines = text.splitlines()
    for c in report.before.commands:
        if c.verdict == "pass":
            assert old_lines[c.line - 1] in new.splitlines()
