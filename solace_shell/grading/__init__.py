"""Grading a session against a runbook: which step of the procedure went wrong, and what it cost.

`load_runbook(name_or_path)` reads a bundled or written runbook (docs/grading.md);
`grade_transcript(runbook, path_or_text)` replays a transcript on a fresh in-memory lab and
follows the runbook as its lines run; a live lab grades its own session (`lab> grade`).
"""

from __future__ import annotations

from .loader import RunbookError, bundled_names, load_runbook
from .results import GradeError, StepResult, TranscriptGrade
from .runbook import Check, ForbiddenAction, Runbook, RunbookStep
from .transcript import grade_transcript

__all__ = ["Check", "ForbiddenAction", "GradeError", "Runbook", "RunbookError", "RunbookStep", "StepResult",
           "TranscriptGrade", "bundled_names", "grade_transcript", "load_runbook"]
