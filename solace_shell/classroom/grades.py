"""A class's grades as rows and as a document: a row per trainee and runbook step with its status
and partial score (nbgrader's shape), the same rows `class grades --csv` writes, and the document
`class grades --json` prints and the class view serves."""

from __future__ import annotations

from typing import Any

from .room import ClassRoom

GRADE_COLUMNS = ("assignment", "student_id", "team", "step_id", "step_title", "status", "hint_taken", "score",
                 "max_score", "timestamp")


def grade_rows(room: ClassRoom) -> list[dict[str, Any]]:
    """A row per trainee and runbook step: the step's status and partial score (nbgrader-like)."""
    rows: list[dict[str, Any]] = []
    last = room.record.last_activity()
    for member in room.class_file.trainees:
        graded = room.grade(member.lab)
        steps = graded.grade.steps if graded.grade is not None else ()
        for step in steps:
            applicable = step.status != "not-applicable"
            rows.append({"assignment": room.runbook.name, "student_id": member.name, "team": member.team or "",
                         "step_id": step.id, "step_title": step.title, "status": step.status,
                         "hint_taken": step.id in graded.hinted,
                         "score": graded.step_score(step.id, step.passed) if applicable else 0.0,
                         "max_score": 1.0 if applicable else 0.0, "timestamp": last.get(member.lab, "")})
        if not steps:
            rows.append({"assignment": room.runbook.name, "student_id": member.name, "team": member.team or "",
                         "step_id": "", "step_title": graded.problem, "status": "not-gradable",
                         "hint_taken": False, "score": 0.0, "max_score": 0.0,
                         "timestamp": last.get(member.lab, "")})
    return rows


def grades_document(room: ClassRoom, rows: list[dict[str, Any]] | None = None) -> dict[str, Any]:
    """The grades as `class grades --json` prints them: the runbook and, per trainee, the score,
    lines, hints and steps."""
    rows = grade_rows(room) if rows is None else rows
    trainees = []
    for member in room.class_file.trainees:
        graded = room.grade(member.lab)
        trainees.append({"student_id": member.name, "team": member.team, "lab": member.lab,
                         "score": round(graded.score, 4), "lines": graded.lines,
                         "hints": sorted(graded.hinted), "problem": graded.problem,
                         "steps": [r for r in rows if r["student_id"] == member.name and r["step_id"]]})
    return {"assignment": room.runbook.name, "trainees": trainees}
