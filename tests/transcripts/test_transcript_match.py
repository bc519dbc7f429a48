"""Matcher semantics of expected output blocks."""


import pytest

from solace_shell.transcript.match import BadPattern, match_block


def m(expected, actual, strict=False):
    return match_block(expected.split("\n") if expected else [], actual.split("\n") if actual else [], strict)


def test_exact_lines():
    assert m("a\nb", "a\nb")
    assert not m("a\nb", "a\nc")
    assert not m("a", "a\nb")
    assert not m("a\nb", "a")


def test_empty_blocks():
    assert m("", "")
    assert not m("", "x")
    assert not m("x", "")


@pytest.mark.parametrize("actual", ["", "x", "x\ny\nz"])
def test_ellipsis_alone_matches_anything(actual):
    assert m("...", actual)


def test_ellipsis_at_start_middle_end():
    assert m("...\nz", "a\nb\nz")
    assert m("...\nz", "z")
    assert not m("...\nz", "a\nb")
    assert m("a\n...", "a")
    assert m("a\n...", "a\nb\nc")
    assert not m("a\n...", "b\na")
    assert m("a\n...\nz", "a\nz")
    assert m("a\n...\nz", "a\n1\n2\nz")
    assert not m("a\n...\nz", "a\n1\n2")


def test_consecutive_ellipses():
    assert m("...\n...", "")
    assert m("a\n...\n...\nb", "a\nb")
    assert m("a\n...\n...\nb", "a\nx\ny\nb")


def test_ellipsis_does_not_need_greedy_choice():
    # the first `x` after `...` must be allowed to be a later one
    assert m("...\nx\ny", "x\nx\ny")
    assert m("...\nx\n...\nx\nend", "x\nq\nx\nx\nend")


def test_ellipsis_must_be_whole_line():
    assert not m("  ...", "anything")
    assert m("  ...", "  ...")
    assert not m("a...", "abc")


def test_any_run_matcher():
    assert m("Uptime: [..] seconds", "Uptime: 42 seconds")
    assert m("Uptime: [..] seconds", "Uptime:  seconds")
    assert not m("Uptime: [..] seconds", "Uptime: 42 minutes")
    assert m("[..]: [..] ([..])", "State: up (since 5s)")
    assert not m("[..]: [..] ([..])", "State up since 5s")
    assert match_block(["[..]"], [""], True)   # an empty run, on a (strict) blank line
    assert m("a.b[..]", "a.b+c")       # other characters are literal
    assert not m("a.b[..]", "axb")


def test_regex_full_line_anchoring():
    assert m(r"Count: \d+ (re)", "Count: 12")
    assert not m(r"Count: \d+ (re)", "Count: 12 msgs")   # full match, not search
    assert not m(r"\d+ (re)", "x 12")
    assert m("a|b (re)", "b")
    assert not m("a|b (re)", "ab")
    assert m(r"[..] (re)", ".")      # regex wins over [..]: here it is a class of '.'
    assert not m(r"[..] (re)", "x")


def test_regex_marker_needs_space():
    assert not m(r"\d+(re)", "12")
    assert m(r"\d+(re)", r"\d+(re)")


def test_bad_regex_raises():
    with pytest.raises(BadPattern):
        m("(unclosed (re)", "x")


def test_trailing_spaces_and_crlf_ignored():
    assert match_block(["a  ", "b\r"], ["a", "b   \r"], False)
    assert match_block(["Count: 5 (re)\r"], ["Count: 5\t"], False)
    assert not match_block([" a"], ["a"], False)   # leading spaces count


def test_blank_edges_non_strict():
    assert m("\n\na\nb\n\n", "a\nb")
    assert m("a\nb", "\na\nb\n\n")
    assert not m("a\n\nb", "a\nb")      # inner blank lines always count


def test_blank_edges_strict():
    assert not m("\na", "a", strict=True)
    assert not m("a", "a\n", strict=True)
    assert m("\na\n", "\na\n", strict=True)
    assert m("...", "\n\n", strict=True)
