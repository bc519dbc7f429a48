"""Grading against replaying: what following a runbook costs on top of replaying a transcript.

    python bench/bench_grading.py                   # the grading examples, each with its runbook, 20 rounds
    python bench/bench_grading.py --rounds 5 [--runbook NAME] FILE...

Each transcript is replayed (`replay_text`, a fresh in-memory lab) and graded against a runbook
(`grade_transcript`, which replays it too, reading the lab's facts before every line a step names,
and the facts and audit at the end), in one process, alternately, `--rounds` times; the best round
of each is kept. The default files are the grading examples (tests/data/grading) and two clean
drills, each with the runbook of its system and procedure; files given are graded against
`--runbook` (default `controlled-failover`). Reported per file and in total: replay ms, grade ms
and their ratio, in CPU time.
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

_DATA = ROOT / "tests" / "data" / "grading"
# a grading example's runbook: its system's procedure (the router's by default)
_RUNBOOK_OF = {
    "geode-stop-while-durable-offline": "geode-durable-queue-server-restart",
    "ha-pair-reclaim-unchecked": "ha-pair-local-failover",
    "ha-pair-release-revert": "ha-pair-local-failover",
    "qpid-promote-beside-live-primary": "qpid-primary-failover",
    "swiftmq-kill-before-swap": "swiftmq-preferred-active-return",
    "swiftmq-restart-keeping-state": "swiftmq-split-brain-recovery",
}
DEFAULT_FILES = [*((p, _RUNBOOK_OF.get(p.name.removesuffix(".cli.txt"), "controlled-failover"))
                   for p in sorted(_DATA.glob("*.cli.txt"))),
                 (ROOT / "transcripts" / "seed000" / "controlled-failover.cli.txt", "controlled-failover"),
                 (ROOT / "transcripts" / "failover-types" / "controlled.cli.txt", "controlled-failover")]


def best_ms(action: object, rounds: int) -> float:
    assert callable(action)
    best = float("inf")
    for _ in range(rounds):
        started = time.process_time()
        action()
        best = min(best, time.process_time() - started)
    return best * 1000.0


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("files", nargs="*", type=Path)
    parser.add_argument("--rounds", type=int, default=20)
    parser.add_argument("--runbook", default="controlled-failover", help="the runbook of the files given")
    args = parser.parse_args()
    total_replay = total_grade = 0.0
    for path, name in [(f, args.runbook) for f in args.files] or DEFAULT_FILES:
        runbook = load_runbook(name)
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
