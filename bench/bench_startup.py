"""Whole-process start-up: `solace-shell -c "show hostname"` beside the bare library imports.

Run: python bench/bench_startup.py [--runs N]
Reports medians and the ratio measured in the same run, so a noisy machine affects both sides.
The shell runs as `python -m solace_shell.cli` (no launcher script in the way) with byte-code
caching on, as an installed copy runs; it also lists which SQLAlchemy modules that start imports
(none: a command that only reads never needs them, see state_store/lab_store.py).
"""

from __future__ import annotations

import argparse
import os
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
    shell = [sys.executable, "-m", "solace_shell.cli"]
    with tempfile.TemporaryDirectory() as tmp:
        env = dict(os.environ, SOLACE_SHELL_DB=str(Path(tmp) / "lab.sqlite"))
        env.pop("PYTHONDONTWRITEBYTECODE", None)
        subprocess.run([*shell, "-c", "show hostname"], env=env, check=True, capture_output=True)  # create the lab
        imports = subprocess.run([sys.executable, "-X", "importtime", *shell[1:], "-c", "show hostname"], env=env,
                                 check=True, capture_output=True, text=True).stderr
        baseline = timed([sys.executable, "-c", "import prompt_toolkit, sqlalchemy"], env, args.runs)
        bare = timed([sys.executable, "-c", "pass"], env, args.runs)
        shell_t = timed([*shell, "-c", "show hostname"], env, args.runs)
    loaded = [line.rsplit("|", 1)[-1].strip() for line in imports.splitlines() if "|" in line]
    sa = [name for name in loaded if name.split(".")[0] == "sqlalchemy"]
    b, p, s = statistics.median(baseline), statistics.median(bare), statistics.median(shell_t)
    print(f"python -c pass                          median {p * 1000:7.1f} ms")
    print(f"python -c 'import prompt_toolkit, sqlalchemy' median {b * 1000:7.1f} ms")
    print(f"solace-shell -c 'show hostname'         median {s * 1000:7.1f} ms")
    print(f"ratio shell / library imports           {s / b:7.2f}x   ({args.runs} runs each)")
    orm = " (sqlalchemy.orm among them)" if any(n.startswith("sqlalchemy.orm") for n in sa) else ""
    print(f"SQLAlchemy modules the shell imported   {len(sa)}{orm}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
