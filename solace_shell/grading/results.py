"""What grading a session against a runbook gives: frozen, plain data (JSON through `as_json`)."""

from __future__ import annotations

from dataclasses import asdict, dataclass
from typing import Any, Literal

Status = Literal["done", "missing", "out-of-order", "wrong-router", "precondition-not-met",
                 "forbidden-action", "not-applicable"]
STATUSES: tuple[Status, ...] = ("done", "missing", "out-of-order", "wrong-router", "precondition-not-met",
                                "forbidden-action", "not-applicable")
PASSING: frozenset[str] = frozenset({"done", "not-applicable"})
OUTCOME_ID = "outcome"     # the id `failed_steps` gives an expected outcome that was not met


@dataclass(frozen=True)
class StepResult:
    """One step of the runbook (or one forbidden action that was taken) in one session."""

    id: str
    title: str
    status: Status
    line: int | None        # the transcript line (the session's n-th line, live) that decided it
    text: str               # that line as typed, prompt included ("" when none)
    reason: str             # what grading saw: the unmet check, the router it ran on, ...
    rationale: str          # why the step exists, in the runbook's words
    consequence: str        # what the audit measured of the step's measures ("" when it passed)

    @property
    def passed(self) -> bool:
        return self.status in PASSING


@dataclass(frozen=True)
class TranscriptGrade:
    transcript: str
    runbook: str
    passed: bool
    score: float            # passed applicable steps / applicable steps, 0..1 (forbidden actions count)
    verdict: str            # "pass", or "fail at <ids>"
    steps: tuple[StepResult, ...]
    failed_steps: tuple[str, ...]
    outcome: tuple[tuple[str, int, int], ...]   # (measure, expected, measured)
    notes: tuple[str, ...]

    def as_json(self) -> dict[str, Any]:
        doc = asdict(self)
        doc["outcome"] = [{"measure": m, "expected": e, "measured": v} for m, e, v in self.outcome]
        return doc


class GradeError(ValueError):
    """A transcript that cannot be graded (unreadable, of another system, not replayable);
    str() is the one line that says why."""

    def __init__(self, transcript: str, error: str) -> None:
        super().__init__(error)
        self.transcript = transcript
        self.error = error

    def as_json(self) -> dict[str, Any]:
        return {"transcript": self.transcript, "passed": False, "failed_steps": [], "error": self.error}


@dataclass(frozen=True)
class Progress:
    """One session of a class (`lab> progress`)."""

    user: str
    lines: int                          # lines typed in the session
    grade: TranscriptGrade | None       # None: not gradable yet (`problem` says why)
    problem: str = ""
