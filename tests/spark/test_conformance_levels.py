"""The conformance report tells a command the grammar does not know from one typed at a level that
does not offer it: `configure` typed inside `configure` is not a gap in the grammar. No Spark: the
split is the grammar's (spark_jobs.grammar_nodes) and the report's (spark_jobs.summary)."""

from __future__ import annotations

from spark_jobs import summary as summ
from spark_jobs.grammar_nodes import levels_knowing


def test_levels_knowing_leaves_out_what_no_level_knows() -> None:
    known = levels_knowing(["configure", "frobnicate now", "advance 5s", "replication state active",
                            "replication state"])
    assert known == {"configure": ["privileged"], "advance 5s": ["lab"],
                     "replication state active": ["configure/message-vpn"],
                     "replication state": ["configure/message-vpn"]}  # unfinished, but its words are known


def test_the_report_lists_the_two_kinds_apart() -> None:
    example = {"transcript": "c/a.cli.txt", "line": 4}
    summary = summ.build_summary(
        inputs=["c"], transcripts={"total": 1, "passed": 0, "failed": 1, "quarantined": 0},
        verdicts={"fail": 2}, by_node=[{"node": "", "pass": 0, "fail": 2, "error": 0}], by_signature=[],
        grammar_nodes=None, grammar_reason="not built", exercised=[""],
        unknown_commands=[{"command": "frobnicate now", "count": 1, "transcripts": 1, "example": example}],
        misplaced_commands=[{"command": "configure", "count": 1, "transcripts": 1, "example": example,
                             "levels": ["privileged"]}],
        quarantine=[], min_pass=0.0, gate_of="transcripts")
    assert [u["command"] for u in summary["unknown_commands"]] == ["frobnicate now"]
    assert summary["misplaced_commands"][0]["levels"] == ["privileged"]
    html = summ.render_report(summary)
    known, misplaced = html.split("Commands the grammar does not know", 1)[1].split(
        "Commands typed at a level that does not offer them", 1)
    assert "frobnicate now" in known and "configure" not in known
    assert "<code>configure</code>" in misplaced and "privileged" in misplaced
