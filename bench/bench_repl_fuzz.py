"""The interactive shell under random keys in a pseudo-terminal, run after run (tests/support/repl_fuzz.py).

    python bench/bench_repl_fuzz.py                  # 30 runs, seeds 0..29, a 1 MB paste in every third
    python bench/bench_repl_fuzz.py --runs 5 --keys 50

Each run starts `solace-shell --db LAB` in a pty of a random size on a new lab file and types random
keys (words, Enter, Tab, `?`, control keys, Ctrl-V sequences, escape sequences, bytes that are not
UTF-8, window resizes, output left unread for a while), then asks the shell to answer `?` and to
end on Ctrl-D. A run is clean with no traceback, no "Unhandled exception", no hang (every wait
bounded by --timeout) and the lab's state unchanged. Prints one line per failing run (its seed and
problems, enough to replay it with `fuzz_once(seed, ...)`), then the counts. Exit status 1 when a
run failed.
"""

from __future__ import annotations

import argparse
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from tests.support.repl_fuzz import fuzz_once  # noqa: E402


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--runs", type=int, default=30)
    parser.add_argument("--first-seed", type=int, default=0)
    parser.add_argument("--keys", type=int, default=150, help="key bursts a run (default 150)")
    parser.add_argument("--paste-every", type=int, default=3, help="a 1 MB paste in every Nth run (0: none)")
    parser.add_argument("--timeout", type=float, default=30.0, help="seconds any one wait may take")
    args = parser.parse_args()
    clean = failed = pastes = 0
    slowest = 0.0
    started = time.monotonic()
    for seed in range(args.first_seed, args.first_seed + args.runs):
        paste = 1 << 20 if args.paste_every and seed % args.paste_every == 0 else 0
        pastes += bool(paste)
        with tempfile.TemporaryDirectory() as tmp:
            result = fuzz_once(seed, Path(tmp), keys=args.keys, paste_bytes=paste, timeout=args.timeout)
        slowest = max(slowest, result.seconds)
        if result.clean:
            clean += 1
        else:
            failed += 1
            print(f"seed {seed} (paste {paste} bytes): " + " | ".join(p[:500] for p in result.problems), flush=True)
    print(f"runs {args.runs}: clean {clean}, failed {failed}; keys a run {args.keys}, 1 MB pastes in {pastes}; "
          f"slowest run {slowest:.1f} s, all {time.monotonic() - started:.0f} s")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
