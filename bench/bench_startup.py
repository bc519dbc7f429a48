"""Whole-process start-up: `solace-shell -c "show hostname"` beside the imports it makes.

Run: python bench/bench_startup.py [--runs N]
The floor is what the one-shot start cannot avoid: a Python process importing every module outside
this repository that the start imports (click, PyYAML, sqlite3 and the standard library modules
they and the shell need, read from `-X importtime`, less those a bare `python -c pass` imports).
Reports the CPU time (user + system, of each child process) of a bare interpreter, of the floor
and of the shell, as medians of alternated runs, the ratio shell / floor, the share of the
shell's import time spent in this repository's modules (and in which), and which SQLAlchemy
modules the start imports (none: a command that only reads never needs them,
see state_store/lab_store.py). The shell runs as `python -m solace_shell.cli` (no launcher
script in the way) with byte-code caching on, as an installed copy runs.
"""

from __future__ import annotations

import argparse
import importlib.util
import os
import resource
import statistics
import subprocess
import sys
import tempfile
from collections import Counter
from pathlib import Path

OWN = {"solace_shell", "state_store", "grammar", "spark_jobs"}


def children_cpu() -> float:
    used = resource.getrusage(resource.RUSAGE_CHILDREN)
    return used.ru_utime + used.ru_stime


def cpu_of(cmd: list[str], env: dict[str, str]) -> float:
    before = children_cpu()
    subprocess.run(cmd, env=env, check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                   cwd=env["SOLACE_SHELL_BENCH_CWD"])
    return children_cpu() - before


def found(module: str) -> bool:
    """Whether the module exists here (`-X importtime` also lists the imports a module only tries)."""
    try:
        return importlib.util.find_spec(module) is not None
    except (ImportError, ValueError):
        return False


def imported(cmd: list[str], env: dict[str, str]) -> list[tuple[str, int]]:
    """(module, its own import microseconds) in the order `-X importtime` reports them."""
    err = subprocess.run([sys.executable, "-X", "importtime", *cmd], env=env, check=True, capture_output=True,
                         text=True, cwd=env["SOLACE_SHELL_BENCH_CWD"]).stderr
    out = []
    for line in err.splitlines():
        if line.startswith("import time:") and "|" in line and "self [us]" not in line:
            own_us, _, name = line[len("import time:"):].split("|")
            out.append((name.strip(), int(own_us)))
    return out


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--runs", type=int, default=15)
    args = parser.parse_args()
    shell = [sys.executable, "-m", "solace_shell.cli", "-c", "show hostname"]
    with tempfile.TemporaryDirectory() as tmp:
        # run from an empty directory: `python -m` puts the working directory first on the path, so
        # the tree measured is the one PYTHONPATH (or the installation) names, not the one run from
        env = dict(os.environ, SOLACE_SHELL_DB=str(Path(tmp) / "lab.sqlite"), SOLACE_SHELL_BENCH_CWD=tmp)
        env.pop("PYTHONDONTWRITEBYTECODE", None)
        subprocess.run(shell, env=env, check=True, capture_output=True, cwd=tmp)  # create the lab, warm caches
        loaded = imported(shell[1:], env)
        bare_modules = {name for name, _ in imported(["-c", "pass"], env)}
        outside = list(dict.fromkeys(name for name, _ in loaded
                                     if name.split(".")[0] not in OWN and name not in bare_modules and found(name)))
        floor = [sys.executable, "-c", "import " + ", ".join(outside)]
        samples: dict[str, list[float]] = {"bare": [], "floor": [], "shell": []}
        for _ in range(args.runs):
            samples["bare"].append(cpu_of([sys.executable, "-c", "pass"], env))
            samples["floor"].append(cpu_of(floor, env))
            samples["shell"].append(cpu_of(shell, env))
    p, f, s = (statistics.median(samples[k]) for k in ("bare", "floor", "shell"))
    own_us = Counter[str]()
    for name, us in loaded:
        if name.split(".")[0] in OWN:
            own_us[name] += us
    total_us = sum(us for _, us in loaded)
    tops = sorted({name.split(".")[0] for name in outside if not name.startswith("_")})
    print(f"python -c pass                        CPU median {p * 1000:7.1f} ms")
    print(f"the imports it makes ({len(outside)} modules)  CPU median {f * 1000:7.1f} ms   ({', '.join(tops)})")
    print(f"solace-shell -c 'show hostname'       CPU median {s * 1000:7.1f} ms")
    print(f"ratio shell / its imports             {s / f:7.2f}x   ({args.runs} runs each, alternated)")
    print(f"this repository's modules: {len(own_us)}, {sum(own_us.values()) / max(total_us, 1):.0%} of the import time;"
          " the largest: " + ", ".join(f"{n} {us / 1000:.1f} ms" for n, us in own_us.most_common(5)))
    sa = [name for name, _ in loaded if name.split(".")[0] == "sqlalchemy"]
    orm = " (sqlalchemy.orm among them)" if any(n.startswith("sqlalchemy.orm") for n in sa) else ""
    print(f"SQLAlchemy modules the shell imported {len(sa)}{orm}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
