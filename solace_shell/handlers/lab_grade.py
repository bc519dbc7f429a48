"""`lab> grade [RUNBOOK]`: grade this terminal's session so far against a runbook.

The session's lines are replayed on a new in-memory lab from where the session started
(solace_shell/grading/log.py), so grading reads and changes nothing of the lab itself.
"""

from __future__ import annotations

from dataclasses import dataclass

from state_store.errors import EngineError
from state_store.frozen import statically_frozen

from ..grading.loader import RunbookError, load_runbook
from ..grading.results import GradeError, TranscriptGrade
from ..grading.transcript import grade_session
from . import Args, HandlerContext, handler

DEFAULT_RUNBOOK = "controlled-failover"


@statically_frozen
@dataclass(frozen=True)
class GradeView:
    grade: TranscriptGrade


@handler("lab.grade")
def grade(ctx: HandlerContext, args: Args) -> GradeView:
    name = str(args.get("runbook") or DEFAULT_RUNBOOK)
    try:
        runbook = load_runbook(name)
    except RunbookError as exc:
        shown = name if len(name) <= 64 else name[:64] + "..."
        raise EngineError("runbook_invalid", runbook=shown, problems=len(exc.problems),
                          first=exc.problems[0] if exc.problems else "") from None
    try:
        return GradeView(grade_session(runbook, ctx.session.lab.session_log))
    except GradeError as exc:
        raise EngineError("grade_failed", reason=exc.error) from None
