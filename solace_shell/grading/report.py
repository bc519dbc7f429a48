"""A grade as text for a terminal (`solace-shell grade`, `lab> grade`) and as JSON."""

from __future__ import annotations

import json
import textwrap

from .results import TranscriptGrade

STATUS_WIDTH = max(len(s) for s in ("precondition-not-met", "forbidden-action"))
WIDTH = 100   # explanations wrap at this column (a step's line is never wrapped: it is a command)


def _wrapped(indent: str, label: str, text: str) -> list[str]:
    lines = textwrap.wrap(text, WIDTH, initial_indent=f"{indent}{label}: ",
                          subsequent_indent=indent + " " * (len(label) + 2), break_on_hyphens=False)
    return lines or [f"{indent}{label}:"]


def grade_lines(grade: TranscriptGrade, heading: str | None = None) -> list[str]:
    """The report of one grade: a heading with verdict and score, a line per step (its status and
    the line that decided it), and for every failed step the reason, the runbook's rationale and
    what the audit measured; then the expected outcome and the notes."""
    name = heading if heading is not None else grade.transcript
    out = [f"{name}: {grade.verdict} (score {grade.score:.2f}, runbook {grade.runbook})"]
    width = max((len(s.id) for s in grade.steps), default=0)
    for step in grade.steps:
        where = f"line {step.line}: {step.text}" if step.line is not None else "-"
        out.append(f"  {step.id:<{width}}  {step.status:<{STATUS_WIDTH}}  {where}".rstrip())
        if not step.passed:
            indent = " " * (width + 4)
            if step.reason:
                out += _wrapped(indent, "seen", step.reason)
            out += _wrapped(indent, "why", step.rationale)
            if step.consequence:
                out += _wrapped(indent, "cost", step.consequence)
    if grade.outcome:
        measured = ", ".join(f"{m} {v}" + ("" if v == e else f" (expected {e})") for m, e, v in grade.outcome)
        out.append(f"  outcome: {measured}")
    for note in grade.notes:
        out.append(f"  note: {note}")
    return out


def grade_json(grade: TranscriptGrade) -> str:
    return json.dumps(grade.as_json(), sort_keys=True)
