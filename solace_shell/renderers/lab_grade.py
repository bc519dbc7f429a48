"""`lab> grade`: the grade report (solace_shell/grading/report.py)."""

from __future__ import annotations

from ..grading.report import grade_lines
from ..handlers.lab_grade import GradeView
from . import renderer


@renderer(GradeView)
def grade(view: GradeView) -> str:
    return "\n".join(grade_lines(view.grade))
