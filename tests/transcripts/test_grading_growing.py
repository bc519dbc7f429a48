"""A transcript graded as it grows (`GrowingTranscript`) grades as the whole text does
(`grade_text`), however the text is cut into additions: the hand-written drills of every runbook
kind, cut at random line boundaries."""

from __future__ import annotations

from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from solace_shell.grading import GradeError, load_runbook
from solace_shell.grading.growing import GrowingTranscript, Unfollowable
from solace_shell.grading.results import TranscriptGrade
from solace_shell.grading.runbook import Runbook
from solace_shell.grading.transcript import grade_text

ROOT = Path(__file__).resolve().parents[2]
DATA = ROOT / "tests" / "data" / "grading"
DRILLS = [
    *((DATA / f"{name}.cli.txt", "controlled-failover") for name in (
        "clean", "forbidden-heuristic", "promote-before-demote", "skip-drain-check", "typo-corrected",
        "wrong-router")),
    (DATA / "geode-stop-while-durable-offline.cli.txt", "geode-durable-queue-server-restart"),
    (DATA / "qpid-promote-beside-live-primary.cli.txt", "qpid-primary-failover"),
    (DATA / "ha-pair-release-revert.cli.txt", "ha-pair-revert"),
    (DATA / "ha-pair-reclaim-unchecked.cli.txt", "ha-pair-local-failover"),
    (DATA / "swiftmq-kill-before-swap.cli.txt", "swiftmq-preferred-active-return"),
    (DATA / "swiftmq-restart-keeping-state.cli.txt", "swiftmq-split-brain-recovery"),
    (ROOT / "transcripts" / "failover-types" / "failback.cli.txt", "failback"),
]


def whole(runbook: Runbook, text: str, path: Path) -> TranscriptGrade | str:
    """The whole text's grade, or its GradeError's line."""
    try:
        return grade_text(runbook, text, str(path), path.parent)
    except GradeError as exc:
        return exc.error


def growing(follower: GrowingTranscript) -> TranscriptGrade | str:
    try:
        return follower.grade()
    except GradeError as exc:
        return exc.error


def lines_of(path: Path) -> list[str]:
    text = path.read_text(encoding="utf-8")
    return (text if text.endswith("\n") else text + "\n").splitlines(keepends=True)


def follow(runbook: Runbook, path: Path, lines: list[str], cuts: list[int]) -> int:
    """Grow the text by the pieces `cuts` make, comparing with the whole text's grade at each;
    the number of comparisons made while following."""
    follower: GrowingTranscript | None = None
    compared = 0
    try:
        for cut in [*sorted(set(cuts)), len(lines)]:
            text = "".join(lines[:cut])
            expected = whole(runbook, text, path)
            if follower is None:
                try:
                    follower = GrowingTranscript(runbook, text, str(path), path.parent)
                except GradeError as exc:
                    assert exc.error == expected
                    continue
                assert growing(follower) == expected
                continue
            try:
                follower.extend(text[sum(map(len, lines[:follower.line_count])):])
            except Unfollowable:
                assert isinstance(expected, str), "the whole text grades, the growing one could not follow"
                follower.close()
                return compared
            assert growing(follower) == expected, f"{path.name} cut at {cut}"
            compared += 1
    finally:
        if follower is not None:
            follower.close()
    return compared


@pytest.mark.parametrize(("path", "runbook"), DRILLS, ids=[p.name for p, _ in DRILLS])
def test_line_by_line_grades_as_the_whole_text(path: Path, runbook: str) -> None:
    lines = lines_of(path)
    assert follow(load_runbook(runbook), path, lines, list(range(1, len(lines)))) > 0


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(drill=st.sampled_from(DRILLS), data=st.data())
def test_any_cut_grades_as_the_whole_text(drill: tuple[Path, str], data: st.DataObject) -> None:
    path, runbook = drill
    lines = lines_of(path)
    cuts = data.draw(st.lists(st.integers(1, len(lines)), max_size=6))
    follow(load_runbook(runbook), path, lines, cuts)


def test_an_addition_the_whole_text_would_refuse_is_not_followed() -> None:
    runbook = load_runbook("controlled-failover")
    path = DATA / "clean.cli.txt"
    text = "".join(lines_of(path))
    follower = GrowingTranscript(runbook, text, str(path), path.parent)
    try:
        before = follower.grade()
        with pytest.raises(Unfollowable):
            follower.extend("#: scenario: default\n")
        assert isinstance(whole(runbook, text + "#: scenario: default\n", path), str)
        with pytest.raises(Unfollowable):
            follower.extend("NY_Appliance1> show hostname\n")
        assert follower.grade() == before
    finally:
        follower.close()


def test_finish_leaves_the_grader_as_it_was() -> None:
    runbook = load_runbook("controlled-failover")
    path = DATA / "typo-corrected.cli.txt"
    lines = lines_of(path)
    follower = GrowingTranscript(runbook, "".join(lines[:len(lines) // 2]), str(path), path.parent)
    try:
        first = follower.grade()
        follower._grade = None  # finish again from the same grader
        assert follower.grade() == first
    finally:
        follower.close()
