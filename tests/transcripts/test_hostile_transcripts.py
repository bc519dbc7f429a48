"""Hostile transcripts: `(re)` lines run on RE2 (linear time), a pattern RE2 cannot compile is a
FILE:LINE error at load, and no generated transcript ends in a traceback.

bench/bench_hostile_inputs.py runs 1,000 of them (results in bench/results-*.md); this test runs a
smaller sample so the suite stays fast.
"""

from __future__ import annotations

from hypothesis import HealthCheck, given, settings

from solace_shell.transcript.replay import replay_text
from tests.support.hostile_inputs import hostile_transcripts


def test_catastrophic_regex_is_linear():
    # `(a+)+b` against a long run of a's backtracks for ages in Python's re; RE2 answers at once.
    text = "lab> set hostname-check\n" + "(a+)+b (re)\n"
    result = replay_text(text, "t.txt")
    assert result.error is None
    # the real work: a full match of a 100,000-character line
    from solace_shell.transcript.match import compile_line

    assert not compile_line("(a+)+b (re)").matches("a" * 100_000)
    assert compile_line("(x+x+)+y (re)").matches("x" * 50 + "y")


def test_unsupported_pattern_is_file_line_error():
    text = "NY_Appliance1> show hostname\n(a)\\1 (re)\nok\n(?=a)a (re)\n"
    result = replay_text(text, "dir/t.txt")
    assert result.error is not None and not result.commands
    assert "dir/t.txt:2: bad regular expression: invalid escape sequence: \\1" in result.error
    assert "dir/t.txt:4: bad regular expression:" in result.error


def test_deep_nesting_is_no_recursion_error():
    deep = "(" * 5000 + "a" + ")" * 5000
    result = replay_text(f"NY_Appliance1> show hostname\n{deep} (re)\n", "t.txt")
    assert result.error is None or "t.txt:2:" in result.error
    unbalanced = "(" * 20000 + "a"
    result = replay_text(f"NY_Appliance1> show hostname\n{unbalanced} (re)\n", "t.txt")
    assert result.error is not None and "t.txt:2: bad regular expression: missing )" in result.error


@settings(max_examples=150, deadline=None, suppress_health_check=list(HealthCheck))
@given(hostile_transcripts())
def test_generated_transcripts_never_raise(text: str) -> None:
    result = replay_text(text, "gen.txt")
    if result.error is not None:
        assert result.error.startswith("gen.txt"), result.error
        assert "Traceback" not in result.error
    for command in result.commands:
        assert command.verdict in ("pass", "fail"), (command.command, command.actual)
