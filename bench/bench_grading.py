"""Grading against replaying: what following a runbook costs on top of replaying a transcript.

    python bench/bench_grading.py                   # the controlled fail-over drills, 20 rounds
    python bench/bench_grading.py --rounds 5 FILE...

Each transcript is replayed (`replay_text`, a fresh in-memory lab) and graded against the
`controlled-failover` runbook (`grade_transcript`, which replays it too, reading the lab's facts
before every line a step names, and the facts and audit at the end), in one process, alternately,
`--rounds` times; the best round of each is kept. Reported per file and in total: replay ms, grade
ms and their ratio.
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from solace_shell.grading import grade_transcript, load_runbook  # noqa: E402
from solace_shell.transcript.replay import replay_text  # noqa: E402

DEFAULT_FILES = [*sorted((ROOT / "tests" / "data" / "grading").glob("*.cli.txt")),
                 ROOT / "transcripts" / "seed000" / "controlled-failover.cli.txt",
                 ROOT / "transcripts" / "failover-types" / "controlled.cli.txt"]


def best_ms(action: object, rounds: int) -> float:
    assert callable(action)
    best = float("inf")
    for _ in range(rounds):
        started = time.perf_counter()
        action()
        best = min(best, time.perf_counter() - started)
    return best * 1000.0


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("files", nargs="*", type=Path)
    parser.add_argument("--rounds", type=int, default=20)
    args = parser.parse_args()
    runbook = load_runbook("controlled-failover")
    total_replay = total_grade = 0.0
    for path in args.files or DEFAULT_FILES:
        text = path.read_text(encoding="utf-8")
        replay_text(text, str(path))                       # warm the caches once
        grade_transcript(runbook, text, name=str(path))
        replay = best_ms(lambda: replay_text(text, str(path)), args.rounds)  # noqa: B023
        grade = best_ms(lambda: grade_transcript(runbook, text, name=str(path)), args.rounds)  # noqa: B023
        total_replay += replay
        total_grade += grade
        print(f"{path.relative_to(ROOT) if path.is_relative_to(ROOT) else path}: replay {replay:.1f} ms, "
              f"grade {grade:.1f} ms, x{grade / replay:.2f}")
    print(f"total: replay {total_replay:.1f} ms, grade {total_grade:.1f} ms, x{total_grade / total_replay:.2f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
