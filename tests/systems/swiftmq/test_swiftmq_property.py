"""Random input to the SwiftMQ admin CLI and to the SwiftMQ lab verbs: nothing escapes as an
internal error, and a rejected line changes neither the lab nor the prompt."""

from __future__ import annotations

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from solace_shell.lab import Lab, shell_grammar
from state_store.scenario import ROOT_DIR

GRAMMAR = shell_grammar()
KEYWORDS = sorted({w for c in GRAMMAR.commands if "swiftmq" in c.modes or c.syntax.startswith(("ha ", "jms "))
                   for w in c.syntax.replace("[", " ").replace("]", " ").replace("{", " ").replace("}", " ")
                   .replace("|", " ").split() if not w.startswith("<")})
NAMES = ["ha1", "ha1.A", "ha1.B", "ha1.C", "c1", "c2", "q1", "q9", "/sys$hacontroller/usage", "..", "/",
         "sys$queuemanager/queues", "negotiation-timeout", "STANDALONE", "1000", "0"]
JUNK = ["", '"', "*", "?", "x" * 300, "\x00", "\x1b[31m", "é", "$(reboot)", "`id`", "'; DROP TABLE ha_core;--",
        "-1", "99999999999999999999", "\t", "#", ">"]
WORD = st.one_of(st.sampled_from(KEYWORDS), st.sampled_from(NAMES), st.sampled_from(JUNK), st.text(max_size=10))


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(words=st.lists(WORD, max_size=6), target=st.sampled_from(["swiftmq", "lab"]), chosen=st.booleans())
def test_random_lines_never_escape_and_rejections_change_nothing(words: list[str], target: str,
                                                                  chosen: bool) -> None:
    lab = Lab.fresh(ROOT_DIR / "swiftmq-ha.yaml")
    try:
        for line in ("ha start ha1.A", "ha start ha1.B", "advance 5s"):
            assert lab.execute("lab", line).ok
        if chosen:
            assert lab.execute("swiftmq", "sr ha1").ok
        session = lab.target(target)
        line = " ".join(words)
        before, prompt = lab.store.dump(), session.prompt
        outcome = lab.execute(target, line)
        assert outcome.error_kind != "internal", (line, outcome.text)
        if not outcome.ok:
            assert lab.store.dump() == before, line
            assert session.prompt == prompt, line
            assert outcome.text, line
    finally:
        lab.close()
