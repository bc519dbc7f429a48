"""A transcript graded as it grows at its end: the grade after each addition costs the added
lines, not a replay of the whole transcript.

Contract: after `GrowingTranscript(runbook, text, name)` and `extend(more)` calls, `grade()` is
what `grade_text(runbook, text + more..., name)` gives (the same result, or the same GradeError).
Why it holds: the replay of a transcript runs its input lines one after the other on one lab with
one grader, and nothing about a line depends on the lines after it, so the lab and grader left
after `text` are where the replay of the longer text would be; the added text is scanned as the
whole would be after its first input line (line numbers counted on from `text`), its input lines
run as the replay runs them, and `Grader.finish` leaves the grader as it was. An addition the
whole-text replay would refuse (a scan problem) raises `Unfollowable`: the caller grades the whole
text instead.
"""

from __future__ import annotations

from pathlib import Path

from state_store.user_files import reading_for_transcript

from ..transcript.format import LAB_HOST, TranscriptError, scan_transcript
from ..transcript.replay import paced_collection
from .observed import GradedLab
from .results import TranscriptGrade
from .runbook import Runbook
from .transcript import checked, replay_graded


class Unfollowable(Exception):
    """The added text cannot be graded from where the transcript was (grade the whole text)."""


class GrowingTranscript:
    """One transcript's lab and grader kept open between additions; `close` when done."""

    def __init__(self, runbook: Runbook, text: str, name: str, base_dir: Path | None = None) -> None:
        """Replay `text` (whole lines, each ending in a line break). Raises GradeError (one line)
        when it cannot be replayed, as `grade_text` does."""
        self.runbook = runbook
        self.name = name
        self.base = base_dir if base_dir is not None else Path(name).parent
        self.graded: GradedLab = replay_graded(runbook, text, name, base_dir, keep_open=True)
        self.hosts = self.graded.hosts
        self.line_count = text.count("\n")
        self._grade = self.graded.result
        self._spent = False

    def extend(self, more: str) -> None:
        """Run the input lines of `more` (whole lines appended to the text). Raises
        `Unfollowable` when the whole text would not replay (the transcript is spent then)."""
        if self._spent:
            raise Unfollowable(f"{self.name}: an earlier addition could not be followed")
        if not more:
            return
        if not more.endswith("\n") or LAB_HOST not in self.hosts:
            self._spent = True
            raise Unfollowable(f"{self.name}: the addition cannot be read on its own")
        try:  # read as the whole text reads it after its first input line: after an input line
            scanned = scan_transcript(f"{LAB_HOST}>\n{more}", self.name, hosts=self.hosts)
        except TranscriptError as exc:
            self._spent = True
            raise Unfollowable(str(exc)) from None
        blocks = list(scanned.blocks())[1:]
        first = self.line_count - 1  # line n of the scanned text is line first + n of the whole
        self.line_count += more.count("\n")
        if not blocks:
            return
        graded = self.graded
        if graded.numbers is not None:
            graded.numbers.extend(first + line for line, _, _, _ in blocks)
        with paced_collection(), reading_for_transcript(self.base):
            for _, prompt, _, _ in blocks:
                try:  # as replay runs a command: one that raises is that command's error
                    graded.prompt(prompt.host)
                    graded.execute(prompt.host, prompt.command)
                except Exception:  # noqa: BLE001, S112  (replay's verdict `error`, not grading's)
                    continue
        self._grade = None

    def grade(self) -> TranscriptGrade:
        """The grade of the text so far (GradeError when the runbook does not grade it)."""
        if self._grade is None:
            self._grade = self.graded.finish(self.name)
        return checked(self.runbook, self.graded, self._grade)

    def close(self) -> None:
        self.graded.lab.close()
