"""Shared pieces of the replay benchmarks: the generated drill corpus, the real entry point, memory.

Why one module: bench_replay_e2e.py, bench_memory.py and bench_two_shells.py must measure the same
things the same way (the corpus of `solace-conformance generate`, the installed `solace-shell`
console script, resident memory as the kernel reports it), or their figures cannot be compared.
Scripts in bench/ import it as `_corpus` (their own directory is first on sys.path).
"""

from __future__ import annotations

import json
import os
import shutil
import sys
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from spark_jobs.generate import INDEX_FILE, generate  # noqa: E402


def corpus(path: Path, count: int, seed: int, jobs: int | None = None) -> tuple[list[Path], float | None]:
    """The `count` drills of `seed` in `path` (generated, or reused when its index says so);
    returns the transcript files and the seconds generating took (None: reused)."""
    index = path / INDEX_FILE
    if index.exists():
        rows = [json.loads(line) for line in index.read_text().splitlines()]
        files = [path / r["name"] for r in rows]
        if len(rows) == count and all(f.exists() for f in files) and f"drill-{seed}-" in rows[0]["name"]:
            return files, None
    if path.exists():
        shutil.rmtree(path)
    started = time.perf_counter()
    names = generate(count=count, seed=seed, out=path, jobs=jobs)
    return [path / n for n in names], time.perf_counter() - started


def corpus_commands(path: Path) -> int:
    """Input lines of the corpus, from its index (each drill's planned commands, as recorded)."""
    rows = [json.loads(line) for line in (path / INDEX_FILE).read_text().splitlines()]
    return sum(int(r["commands"]) for r in rows)


def shell_executable() -> str:
    """The installed `solace-shell` console script of this interpreter (what a user runs), else the
    one on PATH. Not a version manager's shim: that would time the shim's own start-up too."""
    beside = Path(sys.executable).parent / "solace-shell"
    if beside.is_file() and os.access(beside, os.X_OK):
        return str(beside)
    found = shutil.which("solace-shell")
    if found is None:
        raise SystemExit("solace-shell is not installed (pip install -e .)")
    return found


def child_env() -> dict[str, str]:
    """The environment of every child: this checkout first on the import path."""
    return {**os.environ, "PYTHONPATH": os.pathsep.join([str(ROOT), *filter(None, [os.environ.get("PYTHONPATH")])])}


def rss_kb(pid: int | str = "self") -> int:
    """Resident set size now (not the peak) of a process, in KiB (Linux /proc); 0 when unknown."""
    try:
        for line in Path(f"/proc/{pid}/status").read_text().splitlines():
            if line.startswith("VmRSS:"):
                return int(line.split()[1])
    except (OSError, ValueError):
        pass
    return 0


def mem_available_kb() -> int:
    """MemAvailable of the machine in KiB (Linux /proc); a very large number when unknown."""
    try:
        for line in Path("/proc/meminfo").read_text().splitlines():
            if line.startswith("MemAvailable:"):
                return int(line.split()[1])
    except (OSError, ValueError):
        pass
    return 1 << 60


def write_json(path: Path | None, data: dict[str, Any]) -> None:
    if path is not None:
        path.write_text(json.dumps(data, indent=2, sort_keys=True) + "\n")


def table(headers: Sequence[str], rows: Sequence[Sequence[object]]) -> str:
    """A plain text table: first column left-aligned, the others right-aligned, two spaces apart."""
    cells = [[str(h) for h in headers], *[[str(c) for c in r] for r in rows]]
    widths = [max(len(r[i]) for r in cells) for i in range(len(headers))]
    lines = []
    for r in cells:
        lines.append("  ".join(c.ljust(widths[i]) if i == 0 else c.rjust(widths[i]) for i, c in enumerate(r)).rstrip())
    return "\n".join(lines)
