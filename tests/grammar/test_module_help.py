"""Every module entry point answers `--help` with a short usage and exit status 0, and does nothing
else (no reference printed, no daemon started, no Spark session). The worker daemon takes whatever
other arguments Spark starts it with (tests/spark/test_spark_conformance.py runs it under Spark)."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
MODULES = ["grammar.reference", "solace_shell.cli", "spark_jobs.cli", "spark_jobs.conformance", "spark_jobs.daemon"]


@pytest.mark.parametrize("module", MODULES)
def test_help_is_short_usage(module: str) -> None:
    done = subprocess.run([sys.executable, "-m", module, "--help"], cwd=ROOT, capture_output=True, text=True,
                          timeout=60, stdin=subprocess.DEVNULL)
    assert done.returncode == 0, done.stderr
    assert done.stdout.lower().startswith("usage:"), done.stdout[:200]
    assert len(done.stdout) < 4000 and "## " not in done.stdout


def test_a_stray_argument_is_refused() -> None:
    for module, argument in (("grammar.reference", "--wrtie"),):
        done = subprocess.run([sys.executable, "-m", module, argument], cwd=ROOT, capture_output=True, text=True,
                              timeout=60, stdin=subprocess.DEVNULL)
        assert done.returncode == 2 and "usage" in done.stderr.lower(), (module, done.stderr)
