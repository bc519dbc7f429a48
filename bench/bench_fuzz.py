"""Random input at volume: generated lines in every level, as every kind of user, and at the lab console.

    python bench/bench_fuzz.py                     # 100,000 lines (the issue-15 size)
    python bench/bench_fuzz.py --lines 5000        # a try-out

The same generator as tests/cli/test_property_bad_input.py (grammar keywords, sample values, junk:
control characters, escape sequences, Unicode, overlong words, quotes, SQL- and shell-looking
names, random text), driven by a seeded `random.Random` instead of hypothesis so a run of any size
is cheap and repeatable. Each line runs on a fresh lab (`walk_lab`, the default lab plus the
objects every level needs) logged in as one of the five users of the access test, either at the lab
console or at a level reached from User EXEC by its entry path (a path the user cannot take stops
where it is refused: the line then runs at that level). Checked for every line:
- no internal error (a traceback turned into "internal error" by the session);
- a rejected line leaves the lab byte-identical (`LabStore.dump()`), keeps the prompt and says why.
Reported: lines, accepted / rejected, internal errors (must be 0), changed-by-a-rejection (must be
0), the slowest line and the lines per second. Exit status 1 when a check failed.
"""

from __future__ import annotations

import argparse
import random
import string
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from solace_shell.lab import shell_grammar  # noqa: E402
from tests.support.grammar_walk import SAMPLE_VALUES, paths_to_levels, walk_lab  # noqa: E402

USERS = ("admin", "operator", "meshmgr", "monitor", "trading_admin")
ROUTER = "NY_Appliance1"
JUNK = ["", '"', '""', "*", "?", "x" * 300, "\x00", "\x1b[31m", "\x1bOQ", "\x85", "\u2028", "\x0c", "é", "日本",
        "$(reboot)", "`id`", "Trading_VPN'; DROP TABLE queue;--", "-1", "99999999999999999999", "\t", "no",
        "#", "!", ">", "../../etc/passwd", "%s%n", "\\", "{", "[", "|"]
ALPHABET = string.printable + "éü日本\x00\x07\x1b\x7f\x85\u2028"


def _words(rng: random.Random, keywords: list[str], values: list[str]) -> list[str]:
    out = []
    for _ in range(rng.randint(0, 8)):
        pick = rng.random()
        if pick < 0.45:
            out.append(rng.choice(keywords))
        elif pick < 0.65:
            out.append(rng.choice(values))
        elif pick < 0.85:
            out.append(rng.choice(JUNK))
        else:
            out.append("".join(rng.choice(ALPHABET) for _ in range(rng.randint(0, 12))))
    return out


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--lines", type=int, default=100_000)
    ap.add_argument("--seed", type=int, default=15)
    args = ap.parse_args()
    grammar = shell_grammar()
    paths = paths_to_levels(grammar)
    levels = sorted(paths)
    keywords = sorted({w for c in grammar.commands for w in c.syntax.replace("[", " ").replace("]", " ")
                       .replace("{", " ").replace("}", " ").replace("|", " ").split() if not w.startswith("<")})
    values = sorted(SAMPLE_VALUES.values())
    rng = random.Random(args.seed)
    accepted = rejected = internal = changed = console = 0
    slowest, slowest_line = 0.0, ""
    failures: list[str] = []
    started = time.perf_counter()
    for n in range(args.lines):
        user = USERS[n % len(USERS)]
        lab = walk_lab(settings={"user": user})
        try:
            at_console = rng.random() < 0.2
            if at_console:
                console += 1
                session = lab.console
            else:
                session = lab.session(ROUTER)
                for step in paths[rng.choice(levels)]:
                    if not session.execute(step).ok:
                        break  # this user cannot go further: fuzz the level it reached
            line = " ".join(_words(rng, keywords, values))
            before, prompt = lab.store.dump(), session.prompt
            t = time.perf_counter()
            outcome = session.execute(line)
            spent = time.perf_counter() - t
            if spent > slowest:
                slowest, slowest_line = spent, line
            if outcome.error_kind == "internal":
                internal += 1
                failures.append(f"internal error: user {user}, line {line!r}: {outcome.text[:200]!r}")
            if outcome.ok:
                accepted += 1
            else:
                rejected += 1
                if lab.store.dump() != before or session.prompt != prompt or not outcome.text:
                    changed += 1
                    failures.append(f"rejection changed something: user {user}, line {line!r}")
        finally:
            lab.close()
        if (n + 1) % 10_000 == 0:
            print(f"  {n + 1:,} lines, {internal} internal errors, {changed} changed by a rejection", flush=True)
    wall = time.perf_counter() - started
    print(f"lines {args.lines:,} (seed {args.seed}; {console:,} at the lab console, the rest in the router's "
          f"levels; users {', '.join(USERS)} in turn)")
    print(f"accepted {accepted:,}, rejected {rejected:,}; internal errors {internal}; "
          f"rejections that changed the lab or the prompt or said nothing {changed}")
    print(f"slowest line {slowest * 1000:.1f} ms ({slowest_line[:60]!r}); {args.lines / wall:,.0f} lines/s "
          f"including a fresh lab each")
    for f in failures[:20]:
        print(f)
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
