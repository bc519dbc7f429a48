"""Random input in every level: nothing escapes, and a rejected command changes nothing."""

from __future__ import annotations

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from solace_shell.lab import shell_grammar
from tests.support.grammar_walk import SAMPLE_VALUES, paths_to_levels, walk_lab

GRAMMAR = shell_grammar()
LEVEL_PATHS = paths_to_levels(GRAMMAR)
KEYWORDS = sorted({w for c in GRAMMAR.commands for w in c.syntax.replace("[", " ").replace("]", " ")
                   .replace("{", " ").replace("}", " ").replace("|", " ").split() if not w.startswith("<")})
JUNK = ["", '"', '""', "*", "?", "x" * 300, "\x00", "\x1b[31m", "é", "日本", "$(reboot)", "`id`",
        "Trading_VPN'; DROP TABLE queue;--", "-1", "99999999999999999999", "\t", "no", "#", "!", ">"]
WORD = st.one_of(st.sampled_from(KEYWORDS), st.sampled_from(sorted(SAMPLE_VALUES.values())),
                 st.sampled_from(JUNK), st.text(max_size=12))


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(level=st.sampled_from(sorted(LEVEL_PATHS)), words=st.lists(WORD, max_size=8),
       target_lab=st.booleans())
def test_random_lines_never_escape_and_rejections_change_nothing(level: str, words: list[str],
                                                                  target_lab: bool) -> None:
    lab = walk_lab()
    try:
        session = lab.console if target_lab else lab.session("NY_Appliance1")
        if not target_lab:
            for line in LEVEL_PATHS[level]:
                assert session.execute(line).ok, (level, line)
        line = " ".join(words)
        before, prompt = lab.store.dump(), session.prompt
        outcome = session.execute(line)
        assert outcome.error_kind != "internal", (line, outcome.text)
        if not outcome.ok:
            assert lab.store.dump() == before, line
            assert session.prompt == prompt, line
            assert outcome.text, line
    finally:
        lab.close()
