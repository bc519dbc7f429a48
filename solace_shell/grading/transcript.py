"""Grading a transcript: replayed on a fresh in-memory lab, the grader watching each line.

The replay machinery is the one `solace-shell replay` uses (header, scenario, a new lab per
transcript, closed afterwards), so a transcript grades exactly as it replays; expected output that
differs from what the lab prints does not matter here (a hand-written drill may abbreviate it). No
lab file is opened or written.
"""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

from ..session_log import SessionLog
from ..transcript.format import TranscriptError, scan_transcript
from ..transcript.replay import read_transcript, stream_text
from .grader import Grader
from .observed import GradedLab
from .results import GradeError, TranscriptGrade
from .runbook import Runbook
from .vocabulary import ROUTER_SYSTEM


def _looks_like_path(value: str | Path) -> bool:
    return isinstance(value, Path) or ("\n" not in value and bool(value.strip()))


def grade_transcript(runbook: Runbook, path_or_text: str | Path, name: str | None = None) -> TranscriptGrade:
    """Grade one transcript (a file, or its text when `path_or_text` holds a line break or `name`
    is given) against `runbook`. Raises GradeError (one line) for one that cannot be graded."""
    base_dir: Path | None = None
    if name is None and _looks_like_path(path_or_text):
        path = Path(path_or_text)
        name = str(path)
        try:
            text = read_transcript(path)
        except OSError as exc:
            raise GradeError(name, f"{name}: cannot read: {exc.strerror or exc}") from None
        base_dir = path.parent
    else:
        text = str(path_or_text)
        name = name or "<transcript>"
    return grade_text(runbook, text, name, base_dir)


def grade_text(runbook: Runbook, text: str, name: str, base_dir: Path | None = None) -> TranscriptGrade:
    graded = replay_graded(runbook, text, name, base_dir)
    assert graded.result is not None
    return checked(runbook, graded, graded.result)


def replay_graded(runbook: Runbook, text: str, name: str, base_dir: Path | None = None,
                  keep_open: bool = False) -> GradedLab:
    """`text` replayed on a fresh lab with a grader watching: the graded lab, its `result` taken
    at the end. With `keep_open` its lab stays open (the caller closes it) so that more lines can
    run on it. Raises GradeError (one line) when the text cannot be replayed."""
    from ..lab import Lab

    built: list[GradedLab] = []

    def factory(scenario: Path | None, settings: dict[str, str]) -> GradedLab:
        lab = Lab.fresh(scenario=scenario, settings=settings)
        try:
            numbers = list(scan_transcript(text, name, hosts=lab.targets()).inputs)
        except TranscriptError:
            numbers = None      # replay reports the problems itself
        graded = GradedLab(lab, Grader(runbook), name, numbers, keep_open=keep_open)
        built.append(graded)
        return graded

    try:
        run = stream_text(text, name, lambda result, prompt, strict: None, lab_factory=factory, base_dir=base_dir,
                          passes=False)
        if run.result.error is not None:
            raise GradeError(name, run.result.error.split("\n")[0] + _more(run.result.error))
        graded = built[-1] if built else None
        if graded is None or graded.result is None:
            raise GradeError(name, f"{name}:0: the transcript could not be replayed")
    except BaseException:
        if keep_open:
            for lab in built:
                lab.lab.close()
        raise
    return graded


def checked(runbook: Runbook, graded: GradedLab, grade: TranscriptGrade) -> TranscriptGrade:
    """`grade` (of `graded`'s lines) when the lines are ones `runbook` grades; else GradeError:
    no line on a router (a router runbook), or a lab without the runbook's system or VPN."""
    name = graded.name
    start = graded.grader.start_facts
    if runbook.system != ROUTER_SYSTEM:
        if start is not None and not any(g.system == runbook.system for g in start.groups):
            raise GradeError(name, f"{name}:0: the transcript's lab holds no {runbook.system} group, and the "
                                    f"runbook {runbook.name!r} grades {runbook.system} sessions")
        return grade
    if graded.grader.router_lines == 0:
        raise GradeError(name, f"{name}:0: no line of the transcript runs on a router, and the runbook "
                                f"{runbook.name!r} grades {runbook.system} router sessions")
    if start is not None and not any(r.vpn(runbook.vpn) is not None for r in start.routers):
        raise GradeError(name, f"{name}:0: no router of the transcript's lab has the Message VPN "
                                f"{runbook.vpn!r} of the runbook {runbook.name!r}")
    return grade


def _more(error: str) -> str:
    extra = error.count("\n")
    return f" (and {extra} more problem{'s' if extra > 1 else ''})" if extra else ""


def grade_session(runbook: Runbook, log: SessionLog, name: str = "this session") -> TranscriptGrade:
    """Grade a live session's lines (`Lab.session_log`) as they ran: replayed on a new in-memory
    lab from the session's start, line numbers counting the session's lines from 1."""
    lines = list(log.lines)     # (another thread may be typing into a served session meanwhile)
    if log.start is None or not lines:
        raise GradeError(name, "no line has been typed yet")
    try:
        lab = log.start()
    except RuntimeError as exc:
        raise GradeError(name, str(exc)) from None
    graded = GradedLab(lab, Grader(runbook), name)
    try:
        for target, line in lines:
            graded.execute(target, line)
        grade = graded.finish(name)
    finally:
        graded.lab.close()
    if runbook.system == ROUTER_SYSTEM and graded.grader.router_lines == 0:
        raise GradeError(name, "no line has been typed on a router yet")
    if log.dropped:
        note = f"only the first {len(log.lines)} lines were kept and graded ({log.dropped} after them were not)"
        grade = replace(grade, notes=(*grade.notes, note))
    return grade
