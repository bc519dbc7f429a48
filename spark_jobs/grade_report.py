"""Pure-Python half of the grading job: one class's grades added up, as `summary.json` and the report.

The driver feeds every transcript's row to a `GradeTally` in name order; `summary()` gives plain
sorted data and `render_grade_report` turns it into HTML. Nothing here depends on time, host or
partitioning, so `summary.json` and `report.html` are the same bytes for the same inputs and runbook.

A transcript's lost and duplicated messages are what its audit measured for the whole session. Each
failed step is charged with the whole cost of every transcript that failed it (a transcript failing
two steps counts in both rows); the "failed only this step" columns count the transcripts where that
step was the only failure, which is the cost the step alone explains.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from .summary import _CSS, _e, _table

SCHEMA_VERSION = 1
PASSING = ("done", "not-applicable", "met")
# The statuses in the order the report's columns show them (the grader's, then the outcome's); any
# other a grader may give comes after them.
STATUS_ORDER = ("done", "not-applicable", "met", "missing", "out-of-order", "wrong-router",
                "precondition-not-met", "forbidden-action", "not-met")
OUTCOME_ID = "outcome"  # the id a grade's failed steps give the runbook's expected outcome not met
TOP_PATTERNS = 20  # distinct sets of failed steps listed in the summary


@dataclass(frozen=True)
class GradeRow:
    """One input, graded or quarantined (`reason`), as the grades table holds it."""

    transcript: str
    status: str                          # graded | quarantined
    passed: bool
    score: float | None
    verdict: str | None
    failed_steps: tuple[str, ...]
    steps: tuple[tuple[str, str], ...]   # (step id, status) in the runbook's order
    lost: int | None
    duplicated: int | None
    reason: str | None


@dataclass
class _Cost:
    transcripts: int = 0
    lost: int = 0
    duplicated: int = 0

    def add(self, row: GradeRow) -> None:
        self.transcripts += 1
        self.lost += row.lost or 0
        self.duplicated += row.duplicated or 0

    def as_json(self) -> dict[str, Any]:
        mean = self.transcripts or 1
        return {"transcripts": self.transcripts, "lost": self.lost, "duplicated": self.duplicated,
                "mean_lost": round(self.lost / mean, 3), "mean_duplicated": round(self.duplicated / mean, 3)}


@dataclass
class GradeTally:
    """The class's counts, fed one row at a time (`add`), in any order."""

    runbook: str
    title: str
    steps: Sequence[tuple[str, str]]     # (id, title): the steps in the runbook's order, its forbidden
                                         # actions, then OUTCOME_ID (whose status is met or not-met)
    statuses: dict[str, dict[str, int]] = field(default_factory=dict)   # step -> status -> transcripts
    failed_cost: dict[str, _Cost] = field(default_factory=dict)          # step -> transcripts failing it
    alone_cost: dict[str, _Cost] = field(default_factory=dict)           # step -> failing only it
    patterns: dict[tuple[str, ...], _Cost] = field(default_factory=dict)
    passed_cost: _Cost = field(default_factory=_Cost)
    all_cost: _Cost = field(default_factory=_Cost)
    scores: float = 0.0
    quarantine: list[tuple[str, str]] = field(default_factory=list)

    def add(self, row: GradeRow) -> None:
        if row.status != "graded":
            self.quarantine.append((row.transcript, row.reason or ""))
            return
        self.all_cost.add(row)
        self.scores += row.score or 0.0
        outcome = ((OUTCOME_ID, "not-met" if OUTCOME_ID in row.failed_steps else "met"),)
        for step, status in row.steps + outcome:
            counts = self.statuses.setdefault(step, {})
            counts[status] = counts.get(status, 0) + 1
        for step in row.failed_steps:
            self.failed_cost.setdefault(step, _Cost()).add(row)
        if len(row.failed_steps) == 1:
            self.alone_cost.setdefault(row.failed_steps[0], _Cost()).add(row)
        if row.passed:
            self.passed_cost.add(row)
        else:
            self.patterns.setdefault(row.failed_steps, _Cost()).add(row)

    def summary(self, inputs: Sequence[str]) -> dict[str, Any]:
        graded = self.all_cost.transcripts
        titles = dict(self.steps)
        known = [step for step, _ in self.steps]
        extra = sorted({*self.statuses, *self.failed_cost} - set(known))  # forbidden actions, the outcome
        by_step = []
        for step in known + extra:
            counts = self.statuses.get(step, {})
            applicable = sum(n for status, n in counts.items() if status != "not-applicable")
            failed = self.failed_cost.get(step, _Cost())
            by_step.append({
                "step": step, "title": titles.get(step, ""),
                "applicable": applicable,
                "statuses": dict(sorted(counts.items())),
                "failed": failed.transcripts,
                "fail_rate": round(failed.transcripts / graded, 6) if graded else 0.0,
                "cost_when_failed": failed.as_json(),
                "cost_when_only_failure": self.alone_cost.get(step, _Cost()).as_json(),
            })
        patterns = sorted(self.patterns.items(), key=lambda kv: (-kv[1].transcripts, kv[0]))
        passed = self.passed_cost.transcripts
        return {
            "schema": SCHEMA_VERSION,
            "runbook": self.runbook,
            "title": self.title,
            "inputs": list(inputs),
            "totals": {
                "transcripts": graded + len(self.quarantine),
                "graded": graded, "passed": passed, "failed": graded - passed,
                "quarantined": len(self.quarantine),
                "pass_rate": round(passed / graded, 6) if graded else 0.0,
                "mean_score": round(self.scores / graded, 6) if graded else 0.0,
                "lost": self.all_cost.lost, "duplicated": self.all_cost.duplicated,
            },
            "cost_when_passed": self.passed_cost.as_json(),
            "by_step": by_step,
            "failure_patterns": [{"failed_steps": list(steps), **cost.as_json()}
                                 for steps, cost in patterns[:TOP_PATTERNS]],
            "quarantine": [{"transcript": t, "reason": r} for t, r in sorted(self.quarantine)],
        }


def dumps(summary: dict[str, Any]) -> str:
    return json.dumps(summary, indent=2, ensure_ascii=False) + "\n"


def _bars(by_step: Sequence[dict[str, Any]]) -> str:
    """Transcripts failing each step as an inline SVG bar chart, most failed first."""
    rows = sorted((s for s in by_step if s["failed"]), key=lambda s: (-s["failed"], s["step"]))
    if not rows:
        return "<p>No step failed.</p>"
    label_w, bar_w, row_h = 200, 520, 18
    width, height = label_w + bar_w + 80, row_h * len(rows) + 6
    peak = rows[0]["failed"]
    parts = [f'<svg xmlns="http://www.w3.org/2000/svg" width="{width}" height="{height}" '
             f'viewBox="0 0 {width} {height}" font-family="sans-serif" font-size="11" role="img" '
             f'aria-label="transcripts failing each step">']
    for i, s in enumerate(rows):
        y = i * row_h
        w = round(bar_w * s["failed"] / peak, 2)
        parts.append(f'<text x="{label_w - 6}" y="{y + 12}" text-anchor="end">{_e(s["step"])}</text>'
                     f'<rect x="{label_w}" y="{y + 2}" width="{w}" height="{row_h - 5}" fill="#d64545">'
                     f'<title>{_e(s["step"])}: {s["failed"]} failed</title></rect>'
                     f'<text x="{round(label_w + w + 4, 2)}" y="{y + 12}">{s["failed"]}</text>')
    parts.append("</svg>")
    return "".join(parts)


def render_grade_report(summary: dict[str, Any], *, max_rows: int = 200) -> str:
    t = summary["totals"]
    steps = summary["by_step"]
    statuses = sorted({status for s in steps for status in s["statuses"]},
                      key=lambda st: (STATUS_ORDER.index(st) if st in STATUS_ORDER else len(STATUS_ORDER), st))
    ranked = sorted(steps, key=lambda s: (-s["failed"], s["step"]))
    parts = [
        "<!DOCTYPE html>",
        f'<html lang="en"><head><meta charset="utf-8"><title>runbook grades: {_e(summary["runbook"])}</title>',
        f"<style>{_CSS}</style></head><body>",
        f"<h1>Runbook grades: {_e(summary['runbook'])}</h1>",
        f"<p>{_e(summary['title'])}</p>",
        _table(["transcripts", "graded", "passed", "failed", "quarantined", "pass rate", "mean score",
                "lost", "duplicated"],
               [[t["transcripts"], t["graded"], t["passed"], t["failed"], t["quarantined"],
                 f"{t['pass_rate']:.2%}", f"{t['mean_score']:.3f}", t["lost"], t["duplicated"]]],
               numeric=set(range(9))),
        "<h2>Which steps fail most</h2>",
        _bars(steps),
        _table(["step", "title", "applicable", "failed", "fail rate", *statuses],
               ([s["step"], s["title"], s["applicable"], s["failed"], f"{s['fail_rate']:.1%}",
                 *(s["statuses"].get(st, 0) for st in statuses)] for s in ranked),
               numeric={2, 3, 4, *range(5, 5 + len(statuses))}),
        "<h2>What each failure cost</h2>",
        "<p>Messages the audit found lost or duplicated at the end of the session. A transcript that "
        "failed several steps counts in each of their rows; the last three columns count only the "
        "transcripts where the step was the one failure.</p>",
    ]
    failed = [s for s in ranked if s["failed"]]
    passed = summary["cost_when_passed"]
    if failed:
        parts.append(_table(
            ["step", "transcripts", "lost", "duplicated", "mean lost", "mean duplicated",
             "only failure", "lost", "duplicated"],
            [*([s["step"], s["cost_when_failed"]["transcripts"], s["cost_when_failed"]["lost"],
                s["cost_when_failed"]["duplicated"], s["cost_when_failed"]["mean_lost"],
                s["cost_when_failed"]["mean_duplicated"], s["cost_when_only_failure"]["transcripts"],
                s["cost_when_only_failure"]["lost"], s["cost_when_only_failure"]["duplicated"]] for s in failed),
             ["(passed)", passed["transcripts"], passed["lost"], passed["duplicated"], passed["mean_lost"],
              passed["mean_duplicated"], "", "", ""]],
            numeric=set(range(1, 9))))
    else:
        parts.append("<p>No step failed.</p>")
    parts.append("<h2>Failure patterns</h2>")
    if summary["failure_patterns"]:
        parts.append(_table(["failed steps", "transcripts", "lost", "duplicated"],
                            ([", ".join(p["failed_steps"]), p["transcripts"], p["lost"], p["duplicated"]]
                             for p in summary["failure_patterns"]), numeric={1, 2, 3}))
    else:
        parts.append("<p>None.</p>")
    parts.append("<h2>Quarantine</h2>")
    quarantine = summary["quarantine"]
    if quarantine:
        parts.append(_table(["transcript", "reason"], ([q["transcript"], q["reason"]] for q in quarantine[:max_rows])))
        if len(quarantine) > max_rows:
            parts.append(f"<p class=muted>{len(quarantine) - max_rows} more in summary.json.</p>")
    else:
        parts.append("<p>None.</p>")
    parts.append("</body></html>")
    return "\n".join(parts) + "\n"


def render_grade_text(summary: dict[str, Any]) -> str:
    """The terminal's short account: totals, then the steps that failed, most failed first."""
    t = summary["totals"]
    lines = [f"runbook     {summary['runbook']}",
             f"transcripts {t['transcripts']} (passed {t['passed']}, failed {t['failed']}, "
             f"quarantined {t['quarantined']}); mean score {t['mean_score']:.3f}"]
    failed = sorted((s for s in summary["by_step"] if s["failed"]), key=lambda s: (-s["failed"], s["step"]))
    if failed:
        lines.append("failed steps:")
        for s in failed[:10]:
            cost = s["cost_when_failed"]
            lines.append(f"  {s['failed']:>6}  {s['step']}  (lost {cost['lost']}, duplicated {cost['duplicated']})")
    return "\n".join(lines)
