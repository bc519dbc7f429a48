"""`accept`: failing blocks are rewritten, matchers that still match and everything else are kept.

Run against the real lab. Two lines no real command prints (an exception, and output that looks like
transcript syntax) come from `tests.support.lab_patches.echo_and_boom` (`boom` and `echo` only).
"""

import os
from collections.abc import Iterator

import pytest

from solace_shell.lab import Lab
from solace_shell.transcript.accept import accept, accept_text
from solace_shell.transcript.replay import replay_text

from tests.support.lab_patches import echo_and_boom

V1 = "Solace PubSub+ Enterprise Version 10.4.1.52"
V3 = "Current load is: soltr_10.4.1.52"
V4 = "System uptime: 0d 0h 0m 0s"
VERSION = f"{V1}\n\n{V3}\n{V4}\n"


@pytest.fixture
def patched() -> Iterator[None]:
    with echo_and_boom():
        yield


def acc(text, name="t.cli.txt"):
    new, report = accept_text(text, name)
    return new, report


def test_passing_transcript_is_unchanged():
    text = "#: version: 9.1\n#| c\nNY_Appliance1> show hostname\n\nHostname: [..]\n"
    new, report = acc(text)
    assert new == text and not report.changed


def test_failing_literal_lines_are_replaced_and_passing_blocks_kept_byte_identical():
    text = (
        "#: layout: B   \n"
        "#| keep me  \n"
        "NY_Appliance1> show hostname   \n"
        "\n"
        "Hostname: NY_Appliance1  \r\n"
        "NY_Appliance1> show version\n"
        "\n"
        "Solace PubSub+ Enterprise Version 8.0\n"
        "\n"
        f"{V3}\n"
        "System uptime: 9d\n"
        "#| trailing comment\n"
        "lab> status\n"
        "...\n"
    )
    new, report = acc(text)
    assert report.rewritten == [6]
    assert new == text.replace("Version 8.0\n", "Version 10.4.1.52\n").replace("uptime: 9d\n", "uptime: 0d 0h 0m 0s\n")
    assert replay_text(new, "t").passed


def test_matchers_that_still_match_are_kept():
    text = (
        "NY_Appliance1> show version\n"
        "\n"
        "Solace PubSub+ Enterprise Version [..]\n"   # still matches
        "\n"
        "Current load is: wrong\n"                  # wrong: replaced
        "System uptime: \\w+ (re)\n"                # regex no longer matches (the value has spaces): replaced
    )
    new, _ = acc(text)
    assert new == f"NY_Appliance1> show version\n\nSolace PubSub+ Enterprise Version [..]\n\n{V3}\n{V4}\n"


def test_regex_kept_when_it_matches_and_ellipsis_kept():
    text = (
        "lab> advance 5s\n"
        "clock 00:00:\\d+\\.000 \\(\\+5s\\) drained 0 reconnected - (re)\n"
        "lab> status\n"
        "clock 00:00:01.000 link up scenario default\n"    # wrong
        "...\n"                                             # still covers the rest
        "lab> advance 2s\n"
        "clock 00:00:07.000 (+2s) drained 0 reconnected -\n"
        "extra line\n"                                      # deleted
    )
    new, report = acc(text)
    assert report.rewritten == [3, 6]
    assert new == (
        "lab> advance 5s\n"
        "clock 00:00:\\d+\\.000 \\(\\+5s\\) drained 0 reconnected - (re)\n"
        "lab> status\n"
        "clock 00:00:05.000 link up scenario default\n"
        "...\n"
        "lab> advance 2s\n"
        "clock 00:00:07.000 (+2s) drained 0 reconnected -\n"
    )


def test_ellipsis_in_front_keeps_tail():
    text = "NY_Appliance1> show version\n...\nSystem uptime: 9d\n"
    new, _ = acc(text)
    assert new == f"NY_Appliance1> show version\n...\n{V4}\n"


def test_empty_expected_block_gets_output_before_separators():
    text = "NY_Appliance1> show hostname\n\n#| note\nNY_Appliance1> show hostname\n\nHostname: NY_Appliance1\n"
    new, _ = acc(text)
    assert new == ("NY_Appliance1> show hostname\n\nHostname: NY_Appliance1\n#| note\n"
                   "NY_Appliance1> show hostname\n\nHostname: NY_Appliance1\n")


def test_strict_blank_lines_by_default_a_separator_blank_line_is_output():
    text = ("NY_Appliance1> show hostname\n\nHostname: NY_Appliance1\n\n"
            "NY_Appliance1> show hostname\n\nHostname: NY_Appliance1\n")
    new, report = acc(text)
    assert report.rewritten == [1]
    assert new == ("NY_Appliance1> show hostname\n\nHostname: NY_Appliance1\n"
                   "NY_Appliance1> show hostname\n\nHostname: NY_Appliance1\n")


def test_output_removed_when_command_prints_nothing():
    text = "NY_Appliance1> enable\nsomething\n\nNY_Appliance1# show hostname\n\nHostname: NY_Appliance1\n"
    new, _ = acc(text)
    assert new == "NY_Appliance1> enable\nNY_Appliance1# show hostname\n\nHostname: NY_Appliance1\n"


def test_comments_inside_block_stay_with_their_line():
    text = (f"NY_Appliance1> show version\n\nSolace PubSub+ Enterprise Version 1\n\n#| about load\n{V3}\n"
            "#| about uptime\nSystem uptime: x\n")
    new, _ = acc(text)
    assert new == f"NY_Appliance1> show version\n\n{V1}\n\n#| about load\n{V3}\n#| about uptime\n{V4}\n"


def test_prompt_mismatch_rewrites_prompt():
    text = "NY_Appliance1> enable\nNY_Appliance1> show hostname\n\nHostname: NY_Appliance1\n"
    new, report = acc(text)
    assert report.rewritten == [2]
    assert new == "NY_Appliance1> enable\nNY_Appliance1# show hostname\n\nHostname: NY_Appliance1\n"


def test_actual_lines_that_look_like_syntax_are_escaped(patched):
    text = "NY_Appliance1> echo ...\\n#| x\\nNY_Appliance1> y\\na [..] b\nold\n"
    new, _ = acc(text)
    assert new.splitlines()[1:] == [r"\.\.\. (re)", r"\#\|\ x (re)", r"NY_Appliance1>\ y (re)",
                                    r"a\ \[\.\.\]\ b (re)"]
    assert replay_text(new, "t").passed


def test_errors_are_not_accepted_and_strict_blank_edges_rewritten(patched):
    text = "#: strict-blank-lines\nNY_Appliance1> boom\nNY_Appliance1> echo \\nMessage VPN: V\\n\nMessage VPN: V\n"
    new, report = acc(text)
    assert report.rewritten == [3]
    assert new == ("#: strict-blank-lines\nNY_Appliance1> boom\nNY_Appliance1> echo \\nMessage VPN: V\\n\n\n"
                   "Message VPN: V\n\n")


def test_crlf_file_uses_crlf_for_new_lines():
    text = "NY_Appliance1> show hostname\r\nHostname: x\r\n"
    new, _ = acc(text)
    assert new == "NY_Appliance1> show hostname\r\n\r\nHostname: NY_Appliance1\r\n"


def test_unparsable_file_untouched(tmp_path):
    f = tmp_path / "x.cli.txt"
    f.write_bytes(b"stray\n")
    report = accept(f)
    assert report.before.error and not report.changed
    assert f.read_bytes() == b"stray\n"


def test_accept_file_in_place_keeps_bom_and_then_passes(tmp_path):
    f = tmp_path / "x.cli.txt"
    f.write_bytes(b"\xef\xbb\xbfNY_Appliance1> show hostname\nHostname: x")
    report = accept(f)
    assert report.rewritten == [1]
    assert f.read_bytes() == b"\xef\xbb\xbfNY_Appliance1> show hostname\n\nHostname: NY_Appliance1\n"
    assert not accept(f).changed


def test_accept_rewrites_through_a_link_keeping_the_mode(tmp_path):
    real = tmp_path / "golden" / "x.cli.txt"
    real.parent.mkdir()
    real.write_bytes(b"NY_Appliance1> show hostname\nHostname: x\n")
    real.chmod(0o640)
    link = tmp_path / "x.cli.txt"
    link.symlink_to(real)
    assert accept(link).rewritten == [1]
    assert link.is_symlink() and real.read_bytes() == b"NY_Appliance1> show hostname\n\nHostname: NY_Appliance1\n"
    assert real.stat().st_mode & 0o777 == 0o640
    assert sorted(p.name for p in real.parent.iterdir()) == ["x.cli.txt"]


def test_a_rewrite_that_fails_midway_leaves_the_transcript_as_it_was(tmp_path, monkeypatch):
    f = tmp_path / "x.cli.txt"
    f.write_bytes(b"NY_Appliance1> show hostname\nHostname: x\n")

    def full_disk(src, dst):
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(os, "replace", full_disk)
    with pytest.raises(OSError, match="No space left"):
        accept(f)
    assert f.read_bytes() == b"NY_Appliance1> show hostname\nHostname: x\n"
    assert [p.name for p in tmp_path.iterdir()] == ["x.cli.txt"]


# --- property: whatever the expected blocks say, accept makes the transcript pass ---------------
from hypothesis import given, settings  # noqa: E402
from hypothesis import strategies as st  # noqa: E402

SESSION = [
    ("NY_Appliance1", "show version"), ("NY_Appliance1", "enable"), ("lab", "advance 3s"),
    ("lab", "status"), ("NY_Appliance1", "configure"), ("NY_Appliance1", "show message-vpn Trading_VPN"),
    ("NJ_Appliance1", "nonsense"), ("NJ_Appliance1", "show hostname"),
]
JUNK = st.sampled_from(["junk", "...", "[..]", "Solace PubSub+ Enterprise Version [..]", r"\w+: .* (re)", "",
                        "#| comment", "Hostname: NJ_Appliance1", "Trading_VPN  [..]"])


@settings(max_examples=100, deadline=None)
@given(blocks=st.lists(st.lists(JUNK, max_size=5), min_size=len(SESSION), max_size=len(SESSION)),
       strict=st.booleans())
def test_accept_always_yields_a_passing_transcript(blocks, strict):
    lab = Lab.fresh()
    lines = ["#: strict-blank-lines"] if strict else []
    try:
        for (host, command), block in zip(SESSION, blocks, strict=True):
            lines.append(f"{lab.prompt(host)} {command}")
            lab.execute(host, command)
            lines.extend(block)
    finally:
        lab.close()
    text = "\n".join(lines) + "\n"
    new, report = acc(text)
    assert report.before.error is None
    assert replay_text(new, "t").passed, new
    again, second = acc(new)
    assert again == new and not second.changed
    # passing blocks (and their comments) are byte-identical
    old_lines = text.splitlines()
    for c in report.before.commands:
        if c.verdict == "pass":
            assert old_lines[c.line - 1] in new.splitlines()
