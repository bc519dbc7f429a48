"""Every script of bench/ runs to its end at a tiny size, within a bounded time.

Why: a benchmark that no longer runs (an API it calls changed, a default file it reads no longer
fits) is found when someone needs its figure, long after the change that broke it. Each script is
run as a user runs it (`python bench/NAME.py ...`, from the repository root) with the smallest
sizes its options allow; only that it finishes with status 0 is checked, never a figure. Scripts
that need Spark, SSH or a terminal carry those markers; the longer ones are marked slow. A new
script must be added to the table (the last test says so).
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
BENCH = ROOT / "bench"
CORPUS = "{corpus}"     # stands for a directory of a few generated drills
TIMEOUT = 600           # seconds any one script may take at its tiny size

slow, spark, ssh, pty = pytest.mark.slow, pytest.mark.spark, pytest.mark.ssh, pytest.mark.pty

# script -> (arguments for a tiny run, markers)
SCRIPTS: dict[str, tuple[tuple[str, ...], tuple[pytest.MarkDecorator, ...]]] = {
    "bench_class_load.py": (("--trainees", "2", "--seconds", "2", "--workers", "1"), (ssh, slow)),
    "bench_class_pg.py": (("--quick", "--commands", "20", "--trainees", "2", "--per-trainee", "3"), (slow,)),
    "bench_class_web.py": (("--trainees", "2", "--seconds", "2", "--history", "3"), (ssh, slow)),
    "bench_classroom.py": (("--trainees", "2", "--seconds", "1", "--idle", "2", "--logins", "2", "--guessers", "2",
                            "--burst", "2"), (ssh, slow)),
    "bench_engine_scale.py": (("--messages", "1000", "--repeats", "1"), ()),
    "bench_first_lab.py": (("--corpus", CORPUS, "--a", str(ROOT), "--b", str(ROOT), "--runs", "1"), (slow,)),
    "bench_fuzz.py": (("--lines", "200"), (slow,)),
    "bench_geode_scale.py": (("--count", "1000", "--runs", "1"), ()),
    "bench_grade.py": (("--count", "4", "--rounds", "1"), (spark, slow)),
    "bench_grading.py": (("--rounds", "1"), ()),
    "bench_hostile_inputs.py": (("--scenarios", "5", "--transcripts", "5"), ()),
    "bench_job_idle.py": (("--corpus", CORPUS, "--runs", "1"), (spark, slow)),
    "bench_job_overhead.py": (("--corpus", CORPUS, "--partitions", "1", "--rounds", "1"), (spark, slow)),
    "bench_lab_corruption.py": (("--cases", "5"), ()),
    "bench_lock.py": (("--messages", "1000"), (slow,)),
    "bench_memory.py": (("--commands", "400", "--every", "200"), (slow,)),
    "bench_parse_cache.py": (("--corpus", CORPUS, "--files", "4", "--rounds", "1"), ()),
    "bench_qpid_scale.py": ((), ()),
    "bench_repl_fuzz.py": (("--runs", "1", "--keys", "5", "--paste-every", "0"), (pty, slow)),
    "bench_replay_e2e.py": (("--count", "4"), (slow,)),
    "bench_replay_throughput.py": (("--count", "8", "--skip", "spark", "--skip", "pty"), (slow,)),
    "bench_session_length.py": (("--sizes", "10,20", "--runs", "1"), ()),
    "bench_session_memory.py": (("--sessions", "2", "--queues", "50"), ()),
    "bench_snapshot.py": (("--messages", "1000"), ()),
    "bench_ssh.py": (("--sessions", "2", "--commands", "2"), (ssh, slow)),
    "bench_ssh_attacks.py": (("--samples", "3"), (ssh, slow)),
    "bench_ssh_limits.py": (("--logins", "2", "--commands", "3"), (ssh, slow)),
    "bench_startup.py": (("--runs", "1"), (slow,)),
    "bench_swiftmq_race.py": (("--n", "2"), (slow,)),
    "bench_swiftmq_scale.py": (("--count", "1000", "--runs", "1"), (slow,)),
    "bench_trees_ab.py": (("--corpus", CORPUS, "--a", str(ROOT), "--b", str(ROOT), "--runs", "1"), (slow,)),
    "bench_two_shells.py": (("--part", "a", "--commands", "50"), (slow,)),
    "trace_line_modules.py": ((), ()),
    "bench_worker_gc.py": (("--corpus", CORPUS, "--partitions", "1", "--rounds", "1"), (spark, slow)),
    "check_drill_grades.py": (("--count", "4", "--jobs", "1"), ()),
}


@pytest.fixture(scope="module")
def drills(tmp_path_factory: pytest.TempPathFactory) -> Path:
    from spark_jobs.generate import generate

    out = tmp_path_factory.mktemp("drills")
    generate(count=4, seed=1, out=out, jobs=1)
    return out


@pytest.mark.parametrize("script", [pytest.param(name, marks=marks) for name, (_, marks) in SCRIPTS.items()])
def test_the_script_runs_at_a_tiny_size(script: str, drills: Path, tmp_path: Path) -> None:
    args = [a.replace(CORPUS, str(drills)) for a in SCRIPTS[script][0]]
    env = dict(os.environ, PYTHONPATH=str(ROOT), TMPDIR=str(tmp_path))
    env["PATH"] = os.pathsep.join([str(Path(sys.executable).parent), env.get("PATH", "")])
    done = subprocess.run([sys.executable, str(BENCH / script), *args], cwd=ROOT, env=env, capture_output=True,
                          text=True, timeout=TIMEOUT, check=False)
    assert done.returncode == 0, (done.stdout[-2000:], done.stderr[-2000:])


def test_every_script_is_in_the_table() -> None:
    scripts = {p.name for p in BENCH.glob("*.py") if not p.name.startswith("_")}
    assert scripts == set(SCRIPTS)
