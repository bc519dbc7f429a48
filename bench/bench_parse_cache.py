"""Does the parser's (mode, line) cache pay? In-process replay with the cache on and off, interleaved.

    python bench/bench_parse_cache.py --corpus DIR [--files 100] [--rounds 3]

DIR is a generated corpus (`solace-conformance generate --count N --out DIR`, or the --corpus of
bench_replay_throughput.py). Each round replays the same files once with `Parser.parse` (cached) and
once with the uncached parse, in alternating order, so machine load hits both alike. Times are CPU
time of this process (`time.process_time`), which other processes on a shared machine disturb far
less than wall time. It prints commands per CPU second of each, their ratio, the share of repeated
lines and the parse's share of replay time.
"""

from __future__ import annotations

import argparse
import time
from collections.abc import Callable
from pathlib import Path

from grammar.parser import ParseOutcome, Parser
from solace_shell.transcript.replay import replay_text

Parse = Callable[[Parser, str, str], "ParseOutcome | None"]


def replay_all(texts: list[tuple[str, str]], parse: Parse) -> tuple[int, float, float]:
    """(commands, CPU seconds, CPU seconds inside parse) for one pass over `texts`."""
    inside = [0.0]

    def timed(self: Parser, mode: str, line: str) -> ParseOutcome | None:
        started = time.process_time()
        try:
            return parse(self, mode, line)
        finally:
            inside[0] += time.process_time() - started

    original = Parser.parse
    Parser.parse = timed  # type: ignore[method-assign]
    try:
        started = time.process_time()
        commands = sum(len(replay_text(text, name).commands) for text, name in texts)
        return commands, time.process_time() - started, inside[0]
    finally:
        Parser.parse = original  # type: ignore[method-assign]


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--corpus", type=Path, required=True)
    ap.add_argument("--files", type=int, default=100)
    ap.add_argument("--rounds", type=int, default=3)
    args = ap.parse_args()
    files = sorted(args.corpus.glob("*.cli.txt"))[: args.files]
    texts = [(f.read_text(encoding="utf-8"), str(f)) for f in files]
    cached: Parse = Parser.parse
    uncached: Parse = Parser._parse
    replay_all(texts[:2], cached)   # warm: imports, grammar, automata, lab template
    totals = {"on": [0, 0.0, 0.0], "off": [0, 0.0, 0.0]}
    for round_ in range(args.rounds):
        order = [("on", cached), ("off", uncached)] if round_ % 2 == 0 else [("off", uncached), ("on", cached)]
        for name, parse in order:
            n, wall, inside = replay_all(texts, parse)
            totals[name][0] += n
            totals[name][1] += wall
            totals[name][2] += inside
    lookups = hits = 0
    seen: set[tuple[str, str]] = set()
    for text, name in texts:   # hit rate of one pass over the corpus (a fresh cache)
        for c in replay_text(text, name).commands:
            key = (c.router, c.command)
            lookups += 1
            hits += key in seen
            seen.add(key)
    rate = {k: v[0] / v[1] for k, v in totals.items()}
    for k in ("off", "on"):
        n, wall, inside = totals[k]
        print(f"cache {k:3}  {n:7d} commands  {wall:7.2f} CPU s  {rate[k]:7.0f} cmd/CPU s  "
              f"parse {inside * 1e6 / n:6.1f} us/command ({inside / wall:.1%} of replay)")
    print(f"ratio on/off {rate['on'] / rate['off']:.3f}x; repeated (target, line) pairs in the corpus "
          f"{hits / lookups:.0%} (an upper bound of the hit rate)")


if __name__ == "__main__":
    main()
