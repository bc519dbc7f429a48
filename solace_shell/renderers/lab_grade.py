"""`lab> grade`: the grade report (solace_shell/grading/report.py); `lab> progress`: a line per
session of the class."""

from __future__ import annotations

from ..grading.report import grade_lines
from ..handlers.lab_grade import GradeView, ProgressView
from . import renderer
from .lab_console import table


@renderer(GradeView)
def grade(view: GradeView) -> str:
    return "\n".join(grade_lines(view.grade))


@renderer(ProgressView)
def progress(view: ProgressView) -> str:
    rows: list[tuple[str, ...]] = [(p.user, str(p.lines), p.grade.verdict if p.grade else p.problem,
             f"{p.grade.score:.2f}" if p.grade else "-") for p in view.sessions]
    return "\n".join([f"runbook {view.runbook}", *table(("user", "lines", "verdict", "score"), rows)])
