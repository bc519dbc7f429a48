"""Grading a session against a runbook: which step of the procedure went wrong, and what it cost.

`load_runbook(name_or_path)` reads a bundled or written runbook (docs/grading.md);
`grade_transcript(runbook, path_or_text)` replays a transcript on a fresh in-memory lab and
follows the runbook as its lines run; a live lab grades its own session (`lab> grade`).

The names are imported on first use: every lab loads the `lab> grade` handler and renderer, and
a lab that never grades should not pay for the replay machinery.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from .loader import RunbookError, bundled_names, load_runbook
    from .results import GradeError, StepResult, TranscriptGrade
    from .runbook import Check, ForbiddenAction, Runbook, RunbookStep
    from .transcript import grade_session, grade_transcript

_WHERE = {
    "RunbookError": "loader", "bundled_names": "loader", "load_runbook": "loader",
    "GradeError": "results", "StepResult": "results", "TranscriptGrade": "results",
    "Check": "runbook", "ForbiddenAction": "runbook", "Runbook": "runbook", "RunbookStep": "runbook",
    "grade_session": "transcript", "grade_transcript": "transcript",
}
__all__ = ["Check", "ForbiddenAction", "GradeError", "Runbook", "RunbookError", "RunbookStep", "StepResult",
           "TranscriptGrade", "bundled_names", "grade_session", "grade_transcript", "load_runbook"]


def __getattr__(name: str) -> Any:
    module = _WHERE.get(name)
    if module is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    return getattr(importlib.import_module(f"{__name__}.{module}"), name)
