"""`lab> grade [RUNBOOK]`: grade this terminal's session so far against a runbook;
`lab> progress [RUNBOOK]`: every session on this lab (the trainees of a served class).

The session's lines are replayed on a new in-memory lab from where the session started
(solace_shell/session_log.py), so grading reads and changes nothing of the lab itself. The
grading machinery is imported when a grade is asked for, not with the handlers.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, cast

from state_store.errors import EngineError
from state_store.solace.frozen import statically_frozen

from ..grading.results import GradeError, Progress, TranscriptGrade
from . import Args, HandlerContext, handler

if TYPE_CHECKING:
    from ..grading.runbook import Runbook
    from ..lab import Lab

DEFAULT_RUNBOOK = "controlled-failover"


@statically_frozen
@dataclass(frozen=True)
class GradeView:
    grade: TranscriptGrade


@statically_frozen
@dataclass(frozen=True)
class ProgressView:
    runbook: str
    sessions: tuple[Progress, ...]


def _runbook(args: Args) -> Runbook:
    from ..grading.loader import RunbookError, load_runbook

    name = str(args.get("runbook") or DEFAULT_RUNBOOK)
    try:
        return load_runbook(name, untrusted=True)
    except RunbookError as exc:
        shown = name if len(name) <= 64 else name[:64] + "..."
        raise EngineError("runbook_invalid", runbook=shown, problems=len(exc.problems),
                          first=exc.problems[0] if exc.problems else "") from None


@handler("lab.progress")
def progress(ctx: HandlerContext, args: Args) -> ProgressView:
    from ..grading.classroom import class_progress

    runbook = _runbook(args)
    return ProgressView(runbook.name, class_progress(cast("Lab", ctx.session.lab), runbook))


@handler("lab.grade")
def grade(ctx: HandlerContext, args: Args) -> GradeView:
    from ..grading.transcript import grade_session

    runbook = _runbook(args)
    try:
        return GradeView(grade_session(runbook, cast("Lab", ctx.session.lab).session_log))
    except GradeError as exc:
        raise EngineError("grade_failed", reason=exc.error) from None
