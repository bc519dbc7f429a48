"""Every session of a class graded at once, for the trainer's `lab> progress` (the sessions on
one store: solace_shell.session_log)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from ..session_log import classmates
from .results import GradeError, Progress
from .runbook import Runbook
from .transcript import grade_session

if TYPE_CHECKING:
    from ..lab import Lab


def class_progress(lab: Lab, runbook: Runbook) -> tuple[Progress, ...]:
    """Each session of the class graded against `runbook`, by user name then lines typed."""
    out: list[Progress] = []
    for mate in classmates(lab):
        log = mate.session_log
        typed = len(log.lines)
        try:
            out.append(Progress(mate.user.name, typed, grade_session(runbook, log, mate.user.name)))
        except GradeError as exc:
            out.append(Progress(mate.user.name, typed, None, exc.error))
    return tuple(sorted(out, key=lambda p: (p.user, p.lines)))
