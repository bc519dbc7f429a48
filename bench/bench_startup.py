"""Whole-process start-up: `solace-shell -c "show hostname"` beside the bare library imports.

Run: python bench/bench_startup.py [--runs N]
Reports medians and the ratio measured in the same run, so a noisy machine affects both sides.
"""

from __future__ import annotations

import argparse
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path


def timed(cmd: list[str], env: dict[str, str], runs: int) -> list[float]:
    samples = []
    for _ in range(runs):
        start = time.perf_counter()
        subprocess.run(cmd, env=env, check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        samples.append(time.perf_counter() - start)
    return samples


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--runs", type=int, default=15)
    args = parser.parse_args()
    shell = shutil.which("solace-shell")
    if shell is None:
        print("solace-shell is not installed (pip install -e .)", file=sys.stderr)
        return 2
    with tempfile.TemporaryDirectory() as tmp:
        env = dict(os.environ, SOLACE_SHELL_DB=str(Path(tmp) / "lab.sqlite"))
        subprocess.run([shell, "-c", "show hostname"], env=env, check=True, capture_output=True)  # create the lab
        baseline = timed([sys.executable, "-c", "import prompt_toolkit, sqlalchemy"], env, args.runs)
        bare = timed([sys.executable, "-c", "pass"], env, args.runs)
        shell_t = timed([shell, "-c", "show hostname"], env, args.runs)
    b, p, s = statistics.median(baseline), statistics.median(bare), statistics.median(shell_t)
    print(f"python -c pass                          median {p * 1000:7.1f} ms")
    print(f"python -c 'import prompt_toolkit, sqlalchemy' median {b * 1000:7.1f} ms")
    print(f"solace-shell -c 'show hostname'         median {s * 1000:7.1f} ms")
    print(f"ratio shell / library imports           {s / b:7.2f}x   ({args.runs} runs each)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
