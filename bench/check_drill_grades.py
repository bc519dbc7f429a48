"""Generated drills against their runbook: every clean drill passes, every labelled mistake fails
at the step it names (`spark_jobs.drills.RUNBOOK_FAILURES`); a clean failback drill passes every
step (its expected outcome may be missed: see BEGINS_LATER).

    python bench/check_drill_grades.py --count 1000          # exit 1 on any drill that breaks the rule
    python bench/check_drill_grades.py --count 40 --jobs 1

Drills of the types that have a runbook (`RUNBOOKS`) are graded in-process (`--jobs` processes) from
the transcripts `solace-conformance generate` recorded (kept in --corpus, reused when its index
matches); the others are counted and left out. Prints, per (mistake, verdict), how many drills and
which failed steps they had.
"""

from __future__ import annotations

import argparse
import json
import sys
import tempfile
from collections import Counter
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path
from typing import Any

from _corpus import corpus, table

from spark_jobs.drills import RUNBOOK_FAILURES, RUNBOOKS
from spark_jobs.generate import INDEX_FILE


def grade(args: tuple[str, str]) -> tuple[str, bool, tuple[str, ...], str | None]:
    """(transcript, passed, failed step ids, error) of one drill against its runbook."""
    from solace_shell.grading import GradeError, grade_transcript, load_runbook

    path, runbook = args
    try:
        result = grade_transcript(load_runbook(runbook), Path(path))
    except GradeError as exc:
        return path, False, (), exc.error
    return path, result.passed, tuple(result.failed_steps), None


# Types whose runbook begins in the middle of the drill: what happened before it (a failback's
# uncontrolled failover duplicates messages consumed on the failed site) counts in the session's
# audit, so a clean drill of such a type must pass every step and may miss the expected outcome.
BEGINS_LATER = {"failback"}


def violation(kind: str, mistake: str | None, passed: bool, failed: tuple[str, ...],
              error: str | None) -> str | None:
    """Why a drill's grade breaks the rule, or None."""
    if error is not None:
        return f"not graded: {error}"
    if mistake is None:
        if passed or (kind in BEGINS_LATER and failed == ("outcome",)):
            return None
        return f"clean drill failed at {', '.join(failed)}"
    expected = RUNBOOK_FAILURES.get(mistake)
    if expected is not None and not set(expected) & set(failed):
        return f"{mistake} should fail at {' or '.join(expected)}; " + (
            "it passed" if passed else f"failed at {', '.join(failed)}")
    return None


def check(path: Path, jobs: int) -> tuple[list[list[Any]], list[str], int]:
    rows = [json.loads(line) for line in (path / INDEX_FILE).read_text().splitlines()]
    graded = [r for r in rows if r["kind"] in RUNBOOKS]
    with ProcessPoolExecutor(jobs) as pool:
        results = list(pool.map(grade, [(str(path / r["name"]), RUNBOOKS[r["kind"]]) for r in graded],
                                chunksize=16))
    tally: Counter[tuple[str, str, str, str]] = Counter()
    problems = []
    for row, (name, passed, failed, error) in zip(graded, results, strict=True):
        tally[(RUNBOOKS[row["kind"]], row["mistake"] or "(none)", "pass" if passed else "fail",
               ", ".join(failed) or "-")] += 1
        why = violation(row["kind"], row["mistake"], passed, failed, error)
        if why:
            problems.append(f"{Path(name).name}: {why}")
    lines = [[r, m, v, f, n] for (r, m, v, f), n in sorted(tally.items())]
    return lines, problems, len(graded)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--count", type=int, default=1000)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--jobs", type=int, default=2)
    parser.add_argument("--corpus", type=Path, default=None, help="where the drills are kept (default: temporary)")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="check-drill-grades-") as tmp:
        path = args.corpus or Path(tmp) / "corpus"
        files, _ = corpus(path, args.count, args.seed, jobs=args.jobs)
        lines, problems, graded = check(path, args.jobs)
    print(table(["runbook", "mistake", "verdict", "failed steps", "drills"], lines))
    print(f"{graded} of {len(files)} drills graded against their runbook; {len(problems)} break the rule")
    for problem in problems[:20]:
        print(f"  {problem}")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
