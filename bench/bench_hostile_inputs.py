"""Hostile input files at volume: generated scenario files and transcripts, each timed.

Run: python bench/bench_hostile_inputs.py [--scenarios N] [--transcripts N] [--seed S]

Every scenario file (tests/support/hostile_inputs.py: alias bombs, deep nesting, huge and negative
numbers, wrong types, invalid topics, overlong names, random text) is loaded as `lab> reset` and
`--scenario` load it: `LabStore.in_memory(path)`, which is a lab or one ScenarioError. Every
transcript (catastrophic and unsupported regexes, deep nesting, unknown hosts, junk) is replayed
with `replay_text`. Reported: how many, how many built/replayed cleanly vs refused, tracebacks
(any other exception: must be 0), and the slowest single answer (target: under 2 s).
"""

from __future__ import annotations

import argparse
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from hypothesis import HealthCheck, Phase, given, seed, settings

from solace_shell.transcript.replay import replay_text
from state_store.lab_store import LabStore
from state_store.scenario import ScenarioError
from tests.support.hostile_inputs import hostile_scenarios, hostile_transcripts


class Tally:
    def __init__(self) -> None:
        self.count = self.clean = self.refused = 0
        self.tracebacks: list[str] = []
        self.slowest = 0.0

    def line(self, what: str, clean: str, refused: str) -> str:
        return (f"{what}: {self.count:,} generated, {self.clean:,} {clean}, {self.refused:,} {refused}, "
                f"{len(self.tracebacks)} tracebacks, slowest {self.slowest * 1000:.0f} ms")


def _settings(n: int):  # type: ignore[no-untyped-def]
    return settings(max_examples=n, database=None, deadline=None, phases=[Phase.generate],
                    suppress_health_check=list(HealthCheck))


def run_scenarios(n: int, s: int, workdir: Path) -> Tally:
    tally = Tally()

    @seed(s)
    @_settings(n)
    @given(hostile_scenarios())
    def one(text: str) -> None:
        path = workdir / f"s{tally.count}.yaml"
        path.write_text(text, encoding="utf-8", errors="surrogatepass")
        tally.count += 1
        started = time.perf_counter()
        try:
            LabStore.in_memory(path).close()
            tally.clean += 1
        except ScenarioError:
            tally.refused += 1
        except Exception as exc:  # noqa: BLE001 - what the bench counts
            tally.tracebacks.append(f"{path}: {type(exc).__name__}: {exc}")
        tally.slowest = max(tally.slowest, time.perf_counter() - started)
        path.unlink()

    one()
    return tally


def run_transcripts(n: int, s: int) -> Tally:
    tally = Tally()

    @seed(s)
    @_settings(n)
    @given(hostile_transcripts())
    def one(text: str) -> None:
        tally.count += 1
        started = time.perf_counter()
        try:
            result = replay_text(text, f"t{tally.count}.txt")
            if result.error is None:
                tally.clean += 1
            else:
                tally.refused += 1
            errors = [c for c in result.commands if c.verdict == "error"]
            if errors:
                tally.tracebacks.append(f"t{tally.count}: command error {errors[0].actual}")
        except Exception as exc:  # noqa: BLE001 - what the bench counts
            tally.tracebacks.append(f"t{tally.count}: {type(exc).__name__}: {exc}")
        tally.slowest = max(tally.slowest, time.perf_counter() - started)

    one()
    return tally


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--scenarios", type=int, default=1000)
    parser.add_argument("--transcripts", type=int, default=1000)
    parser.add_argument("--seed", type=int, default=15)
    args = parser.parse_args()
    # warm-up (imports, grammar, the default template), so each figure is one input's own cost
    replay_text("NY_Appliance1> show hostname\n", "warm-up.txt")
    with tempfile.TemporaryDirectory() as tmp:
        sc = run_scenarios(args.scenarios, args.seed, Path(tmp))
    tr = run_transcripts(args.transcripts, args.seed)
    print(sc.line("scenario files", "built a lab", "refused with one ScenarioError"))
    print(tr.line("transcripts", "replayed", "refused with FILE:LINE problems"))
    for problem in (sc.tracebacks + tr.tracebacks)[:20]:
        print("  " + problem)
    return 1 if sc.tracebacks or tr.tracebacks or max(sc.slowest, tr.slowest) > 2.0 else 0


if __name__ == "__main__":
    sys.exit(main())
