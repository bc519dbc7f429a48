"""Replay throughput, three ways, on one generated corpus: commands per second and their ratios.

    python bench/bench_replay_throughput.py            # 10,000 drills (the acceptance size)
    python bench/bench_replay_throughput.py --quick    # 200 drills, 5 through the terminal: a try-out

1. in-process   `solace_shell.transcript.replay.replay_text` in one Python process, file after file
                (a fresh lab per transcript, as replay always does), the loop in one
                `paced_collection` block as the replay command's and each Spark partition's are;
2. spark        the conformance job (`spark_jobs.job.run`) in local mode with every core, over the same
                files; reported with and without the Spark session start-up; with --scaling it also runs
                on local[1], local[2], local[4] ... up to every core and reports the speed-up of the job
                (session start-up excluded) and its efficiency (speed-up / cores); each point below
                every core runs in its own process confined to that many CPUs (JVM and Python workers
                alike), so local[1] cannot borrow a second core for the JVM's threads; the warm jobs
                (--pairs) also print their own split of the cores' time (run.json's `share_of_cores`:
                replay, rest of the tasks, outside them), which the machine's drift does not move;
                --partitions sets the jobs' partitions;
3. pty          the interactive `solace-shell` REPL driven through a pseudo-terminal with pexpect: one
                shell process (fresh lab database) per transcript, each command typed and its next
                prompt awaited; a sample of the corpus (`--pty-sample`), with process start-up reported
                apart. F2 switches between a router and the lab console; another router is reached with
                `lab> connect <router>`.
It also splits the in-process cost: building a fresh lab (`Lab.fresh()` + `close()`) vs replaying.

The corpus is `solace-conformance generate --count N --seed S`, recorded from the engine itself, kept
in --corpus (default: a temporary directory) and reused when its index matches. Prints a table and,
with --json FILE, writes the numbers.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from _corpus import corpus  # noqa: E402  (bench/ is on sys.path when a bench runs)

FILE_PROMPT = re.compile(rb"[A-Za-z0-9_.-]+(?:\([^()\s]+\))?[>#](?: |$)")
# prompt_toolkit draws a waiting prompt as `ESC[0m` + prompt + a cursor move (the trailing space is a
# move, not a character); the redraw of a submitted line has a real space and the typed text instead.
PROMPT = re.compile(rb"\x1b\[0m(?P<p>[A-Za-z0-9_.-]+(?:\([^()\s]+\))?[>#])\x1b\[")
ANSI = re.compile(rb"\x1b\[[0-9;?]*[A-Za-z]|\x1b[()][A-Z0-9]|\x1b[=>]")
F2 = "\x1bOQ"


def bench_in_process(files: list[Path]) -> dict[str, float]:
    from solace_shell.lab import Lab
    from solace_shell.transcript.replay import paced_collection, replay_text

    texts = [(str(f), f.read_text(encoding="utf-8")) for f in files]
    Lab.fresh().close()  # warm the template and the grammar
    sample = min(200, len(files))
    t = time.perf_counter()
    for _ in range(sample):
        Lab.fresh().close()
    fresh_ms = (time.perf_counter() - t) / sample * 1000
    commands = 0
    passed = 0
    t = time.perf_counter()
    cpu = time.process_time()
    with paced_collection():  # as the replay command and the Spark job do with their batches
        for name, text in texts:
            result = replay_text(text, name)
            commands += len(result.commands)
            passed += result.passed
    cpu = time.process_time() - cpu
    wall = time.perf_counter() - t
    per_transcript_ms = wall / len(texts) * 1000
    return {"transcripts": len(texts), "commands": commands, "passed_transcripts": passed, "seconds": wall,
            "cpu_seconds": cpu, "commands_per_second": commands / wall, "fresh_lab_ms": fresh_ms,
            "replay_ms_per_transcript": per_transcript_ms,
            "fresh_lab_share": fresh_ms / per_transcript_ms if per_transcript_ms else 0.0,
            "ms_per_command_excluding_fresh_lab": (per_transcript_ms - fresh_ms) / (commands / len(texts))}


def _descendant_cpu_seconds() -> dict[str, float]:
    """CPU seconds (user + system) of this process and its live descendants, by kind: "jvm" (the
    Spark JVM), "python" (this driver and the Python workers). Linux /proc only; {} elsewhere.
    Why: on few cores the JVM competes with the Python workers for CPU, which caps the speed-up."""
    try:
        tick = os.sysconf("SC_CLK_TCK")
        stats = {}
        for pid in (int(p) for p in os.listdir("/proc") if p.isdigit()):
            try:
                raw = Path(f"/proc/{pid}/stat").read_text()
            except OSError:
                continue
            fields = raw[raw.rindex(")") + 2:].split()
            stats[pid] = (raw[raw.index("(") + 1:raw.rindex(")")], int(fields[1]),
                          (int(fields[11]) + int(fields[12])) / tick)
    except (OSError, ValueError, AttributeError):
        return {}
    mine = {os.getpid()}
    grew = True
    while grew:
        more = {pid for pid, (_, ppid, _) in stats.items() if ppid in mine} - mine
        mine |= more
        grew = bool(more)
    out = {"jvm": 0.0, "python": 0.0}
    for pid in mine & stats.keys():
        name, _, cpu = stats[pid]
        if name == "java":
            out["jvm"] += cpu
        elif name.startswith("python"):
            out["python"] += cpu
    return out


def _own_cpu_seconds() -> float:
    """CPU seconds (user + system) of this process, every thread of it (the Spark driver's)."""
    times = os.times()
    return times.user + times.system


def _job_cpu(before: dict[str, float], after: dict[str, float], driver: float) -> dict[str, float]:
    """A job's CPU seconds by part, from `_descendant_cpu_seconds` around it and the driver's own:
    the Python workers (and their daemon), the driver, the JVM. {} where /proc cannot tell."""
    if not after:
        return {}
    python = after["python"] - before.get("python", 0.0)
    return {"workers_cpu_seconds": python - driver, "driver_cpu_seconds": driver,
            "jvm_cpu_seconds": after["jvm"] - before.get("jvm", 0.0)}


def bench_spark(path: Path, master: str, out: Path, pair_with: list[Path] | None = None,
                pairs: int = 0, partitions: int | None = None) -> dict[str, Any]:
    """The job on a new session. With `pair_with` (the corpus's files), then `pairs` rounds in the same
    session of an in-process replay of them (`bench_in_process`) followed by the same job once more: what a
    job costs once the session's Python workers are started and warm (the first job starts them), each
    warm job's ratio taken against the in-process replay run just before it.

    Why pairs: on this machine the speed of a core drifts by 10-15% over a minute, so a ratio of two
    runs made a minute apart measures the drift as much as the job; each pair's two runs are seconds
    apart, and the median of the pairs' ratios is what is reported."""
    from spark_jobs.job import RunOptions, get_spark, run

    os.environ.setdefault("SPARK_LOCAL_IP", "127.0.0.1")
    t0 = time.perf_counter()
    spark = get_spark(master, app_name="bench-replay-throughput", conf={"spark.ui.enabled": "false"})
    startup = time.perf_counter() - t0
    cpu_before = _descendant_cpu_seconds()
    t1 = time.perf_counter()
    result = run(RunOptions(inputs=[str(path)], out=str(out), progress=sys.stderr.isatty(), partitions=partitions),
                 spark=spark)
    job = time.perf_counter() - t1
    cpu_after = _descendant_cpu_seconds()  # before stop(): the Python workers are still alive
    commands = result.summary["totals"]["commands"]
    warm: list[dict[str, float]] = []
    for k in range(pairs if pair_with else 0):
        reference = bench_in_process(pair_with or [])
        before, driver_before = _descendant_cpu_seconds(), _own_cpu_seconds()
        t2 = time.perf_counter()
        warm_run = run(RunOptions(inputs=[str(path)], out=f"{out}-warm{k}", progress=False, partitions=partitions),
                       spark=spark)
        seconds = time.perf_counter() - t2
        after, driver = _descendant_cpu_seconds(), _own_cpu_seconds() - driver_before
        rate = commands / seconds
        warm.append({"in_process_commands_per_second": reference["commands_per_second"],
                     "in_process_cpu_seconds": reference["cpu_seconds"], "commands_per_second": rate,
                     "ratio": rate / reference["commands_per_second"], "seconds": seconds,
                     **{f"share_{part}": v for part, v in warm_run.run_info["share_of_cores"].items()},
                     **_job_cpu(before, after, driver)})
    cores = spark.sparkContext.defaultParallelism
    spark.stop()
    cpu = {f"{kind}_cpu_seconds": cpu_after[kind] - cpu_before.get(kind, 0.0) for kind in cpu_after}
    return {**cpu, **{f"phase_{k}_seconds": v for k, v in result.run_info.get("phase_seconds", {}).items()},
            "transcripts": result.summary["totals"]["transcripts"], "commands": commands, "cores": cores,
            "passed_transcripts": result.summary["totals"]["passed_transcripts"],
            "session_startup_seconds": startup, "job_seconds": job, "seconds": startup + job,
            "commands_per_second": commands / (startup + job), "commands_per_second_job_only": commands / job,
            **({"warm_jobs": warm, "warm_ratio_median": statistics.median(w["ratio"] for w in warm)} if warm else {})}


_TEXTS: list[tuple[str, str]] = []  # the reference's transcripts, read before its processes fork


def _replay_share(share: tuple[int, int]) -> int:
    """Replay every n-th transcript of _TEXTS from the i-th on, as bench_in_process does."""
    from solace_shell.transcript.replay import paced_collection, replay_text

    first, step = share
    with paced_collection():
        return sum(len(replay_text(text, name).commands) for name, text in _TEXTS[first::step])


def machine_reference(files: list[Path], cores: int) -> dict[str, float]:
    """The same replays in 1 and in `cores` plain forked processes (no Spark), the files read
    beforehand and each process warmed up: what this machine's cores give to perfectly parallel work,
    the ceiling for the Spark job, against one process here and against the in-process mode."""
    from multiprocessing import get_context

    _TEXTS[:] = [(str(f), f.read_text(encoding="utf-8")) for f in files]
    out: dict[str, float] = {}
    for n in sorted({1, cores}):
        with get_context("fork").Pool(n) as pool:
            pool.map(_replay_share, [(i, len(_TEXTS)) for i in range(n)], chunksize=1)  # warm each process
            t = time.perf_counter()
            commands = sum(pool.map(_replay_share, [(i, n) for i in range(n)], chunksize=1))
            out[f"processes_{n}_commands_per_second"] = commands / (time.perf_counter() - t)
    out["speedup"] = out[f"processes_{cores}_commands_per_second"] / out["processes_1_commands_per_second"]
    _TEXTS.clear()
    return out


def bench_spark_pinned(path: Path, n: int) -> dict[str, float]:
    """`bench_spark` on local[n] in a new process confined to n CPUs. Why: Spark's JVM runs threads of
    its own (the Arrow reader and writer, GC, JIT); unconfined, local[1] quietly uses a second core for
    them and the measured speed-up understates how the job scales with the cores it is given."""
    cpus = sorted(os.sched_getaffinity(0))[:n]
    with tempfile.TemporaryDirectory(prefix="bench-point-") as tmp:
        report = Path(tmp) / "point.json"
        subprocess.run([sys.executable, __file__, "--spark-point", str(n), "--corpus", str(path),
                        "--json", str(report)], check=True, preexec_fn=lambda: os.sched_setaffinity(0, cpus))
        return json.loads(report.read_text())


def bench_scaling(path: Path, files: list[Path], cores: int, known: dict[int, dict[str, float]]) -> dict[str, float]:
    """The Spark job on 1, 2, 4 ... `cores` local cores; speed-up of the job beyond session start-up,
    next to the machine's own speed-up for plain processes (on a sample of 2,000 transcripts).
    `known` holds runs already made (the `spark` mode on every core), so they are not repeated."""
    counts = sorted({1, cores} | {2 ** k for k in range(1, cores.bit_length()) if 2 ** k < cores})
    out_rows: dict[str, float] = {}
    base = None
    for n in counts:
        r = known.get(n) or bench_spark_pinned(path, n)
        rate = r["commands_per_second_job_only"]
        base = base or rate
        out_rows[f"local[{n}]_job_seconds"] = r["job_seconds"]
        out_rows[f"local[{n}]_commands_per_second_job_only"] = rate
        out_rows[f"local[{n}]_speedup"] = rate / base
        out_rows[f"local[{n}]_efficiency"] = rate / base / n
        for kind in ("python", "jvm"):
            if f"{kind}_cpu_seconds" in r:
                out_rows[f"local[{n}]_{kind}_cpu_seconds"] = r[f"{kind}_cpu_seconds"]
    out_rows["transcripts"] = r["transcripts"]
    out_rows["commands"] = r["commands"]
    out_rows["seconds"] = sum(v for k, v in out_rows.items() if k.endswith("_job_seconds"))
    out_rows["commands_per_second"] = rate
    out_rows["cores"] = counts[-1]
    sample = files[::max(1, len(files) // 2000)][:2000]
    out_rows.update({f"machine_{k}": v for k, v in machine_reference(sample, counts[-1]).items()})
    return out_rows


def _steps(text: str, name: str) -> list[tuple[str, str]]:
    from solace_shell.transcript.format import parse_transcript

    return [(s.host, s.command) for s in parse_transcript(text, name, hosts=None).steps]


def bench_pty(files: list[Path], timeout: float) -> dict[str, float]:
    import pexpect

    env = {**os.environ, "PROMPT_TOOLKIT_NO_CPR": "1", "TERM": "xterm", "PYTHONPATH": str(ROOT)}
    shell = [sys.executable, "-c", "from solace_shell.cli import main; main()"]
    commands = 0
    startup = 0.0
    driving = 0.0
    lost = 0
    tmp = Path(tempfile.mkdtemp(prefix="bench-pty-"))
    try:
        for i, f in enumerate(files):
            steps = _steps(f.read_text(encoding="utf-8"), str(f))
            routers = [h for h, _ in steps if h != "lab"]
            start = routers[0] if routers else "NY_Appliance1"
            t = time.perf_counter()
            child = pexpect.spawn(shell[0], [*shell[1:], "--db", str(tmp / f"lab{i}.sqlite"), "--router", start],
                                  env=env, dimensions=(5000, 250), timeout=timeout)
            child.delaybeforesend = None  # measure the shell, not pexpect's default 50 ms pause per send
            try:
                child.expect(PROMPT)
            except (pexpect.EOF, pexpect.TIMEOUT) as exc:
                tail = ANSI.sub(b"", child.before or b"").decode("utf-8", "replace").strip().splitlines()[-3:]
                raise RuntimeError(
                    f"the shell did not show a prompt ({type(exc).__name__}): {' | '.join(tail)}") from None
            startup += time.perf_counter() - t
            current, last_router = start, start
            t = time.perf_counter()
            for host, command in steps:
                if host != current:
                    if host == "lab" or current != "lab":
                        child.send(F2)  # router <-> lab console
                        current = "lab" if current != "lab" else last_router
                        child.expect(PROMPT)
                    if host != current:  # from the console to another router
                        child.sendline(f"connect {host}")
                        child.expect(PROMPT)
                        current = host
                    if host != "lab":
                        last_router = host
                child.sendline(command)
                try:
                    child.expect_exact("\n")
                    child.expect(PROMPT)
                except pexpect.TIMEOUT:
                    lost += 1
                commands += 1
            driving += time.perf_counter() - t
            child.sendeof()
            child.close(force=True)
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    return {"transcripts": len(files), "commands": commands, "startup_seconds": startup, "seconds": driving,
            "commands_per_second": commands / driving if driving else 0.0,
            "commands_per_second_with_startup": commands / (driving + startup) if driving else 0.0,
            "startup_ms_per_shell": startup / len(files) * 1000 if files else 0.0, "timeouts": lost}


def warm_cpu_line(warm: list[dict[str, float]], cores: int, commands: int) -> str:
    """Where a warm job's time goes, as medians of the warm jobs: the CPU of its parts against the
    in-process replay's, how busy it kept the cores, and the ratio it would reach were they never
    idle (cores x the in-process replay's seconds / the job's CPU seconds). Why: the ratio is
    (cores busy) x (replay CPU / job CPU) x cores, and this says which of the two holds it back."""
    def median(values: Any) -> float:
        return float(statistics.median(values))

    def job_cpu(w: dict[str, float]) -> float:
        return w["workers_cpu_seconds"] + w["driver_cpu_seconds"] + w["jvm_cpu_seconds"]

    workers = median(w["workers_cpu_seconds"] for w in warm)
    replay = median(w["in_process_cpu_seconds"] for w in warm)
    busy = median(job_cpu(w) / (cores * w["seconds"]) for w in warm)
    never_idle = median(cores * commands / w["in_process_commands_per_second"] / job_cpu(w) for w in warm)
    return (f"{'cpu spark warm':<18} workers {workers:.1f} s = {workers / replay:.2f}x the in-process replay's "
            f"{replay:.1f} s, driver {median(w['driver_cpu_seconds'] for w in warm):.2f} s, JVM "
            f"{median(w['jvm_cpu_seconds'] for w in warm):.2f} s; cores busy {busy:.0%} of the job; "
            f"never idle, it would run at {never_idle:.2f}x in-process (medians of the warm jobs)")


def warm_share_line(warm: list[dict[str, float]], cores: int) -> str:
    """The warm jobs' own account of the cores' time (run.json's `share_of_cores`: the executors' CPU
    inside `replay_text`, the rest of their task bodies, everything else), as medians. Why: each share
    is measured within one run, so it holds still while the machine's speed drifts, where the ratio of
    a job to an in-process replay a minute before it does not; cores x the replay's share is what the
    job reaches against one process that only replays, each replay costing what it costs in a worker."""
    def median(key: str) -> float:
        return float(statistics.median(w[key] for w in warm))

    replay = median("share_replay")
    return (f"{'share spark warm':<18} of the cores' time: replay {replay:.1%}, rest of the tasks "
            f"{median('share_rest_of_tasks'):.1%}, outside the tasks {median('share_outside_tasks'):.1%} "
            f"(medians of {len(warm)}; each: " + ", ".join(f"{w['share_replay']:.1%}" for w in warm)
            + f"); {cores} x the replay's share = {cores * replay:.2f}x a process that only replays")


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--count", type=int, default=10_000, help="drills in the corpus (default 10,000)")
    ap.add_argument("--quick", action="store_true", help="200 drills, 5 through the terminal")
    ap.add_argument("--seed", type=int, default=20240601)
    ap.add_argument("--corpus", type=Path, default=None, help="keep/reuse the corpus here")
    ap.add_argument("--pty-sample", type=int, default=None, help="transcripts driven through the pty (default 50)")
    ap.add_argument("--pty-timeout", type=float, default=10.0, help="seconds to wait for a prompt")
    ap.add_argument("--master", default="local[*]")
    ap.add_argument("--partitions", type=int, default=None,
                    help="the Spark jobs' partitions (default: the job's own, two per core)")
    ap.add_argument("--jobs", type=int, default=None, help="processes for generating the corpus")
    ap.add_argument("--pairs", type=int, default=None,
                    help="warm Spark jobs, each after an in-process replay, for the steady-state ratio "
                         "(default 3; 1 with --quick)")
    ap.add_argument("--skip", action="append", default=[], choices=["in-process", "spark", "pty"])
    ap.add_argument("--scaling", action="store_true",
                    help="also run the Spark job on local[1], local[2] ... every core (core scaling)")
    ap.add_argument("--json", type=Path, default=None, help="also write the numbers here")
    ap.add_argument("--spark-point", type=int, default=None, help=argparse.SUPPRESS)  # one pinned scaling run
    args = ap.parse_args()
    if args.partitions is not None and args.partitions < 1:
        ap.error("--partitions must be at least 1")
    if args.spark_point:
        with tempfile.TemporaryDirectory(prefix="bench-point-out-") as tmp:
            point = bench_spark(args.corpus, f"local[{args.spark_point}]", Path(tmp) / "out")
        args.json.write_text(json.dumps(point) + "\n")
        return 0
    count = 200 if args.quick else args.count
    sample = args.pty_sample if args.pty_sample is not None else (5 if args.quick else 50)
    args.pairs = args.pairs if args.pairs is not None else (1 if args.quick else 3)

    work = Path(tempfile.mkdtemp(prefix="bench-replay-"))
    path = args.corpus or work / "corpus"
    try:
        files, gen_seconds = corpus(path, count, args.seed, args.jobs)
        n_cmd = sum(1 for f in files for line in f.read_text().splitlines() if FILE_PROMPT.match(line.encode()))
        print(f"corpus: {len(files)} transcripts, ~{n_cmd} input lines in {path}"
              + (f" (generated in {gen_seconds:.1f} s)" if gen_seconds else " (reused)"))
        results: dict[str, dict[str, Any]] = {}
        failed: dict[str, str] = {}
        step = max(1, len(files) // sample) if sample > 0 else 1
        modes = {
            "in-process": lambda: bench_in_process(files),
            "spark": lambda: bench_spark(path, args.master, work / "spark-out", files, args.pairs, args.partitions),
            "pty": lambda: bench_pty(files[::step][:sample], args.pty_timeout),
        }
        if args.scaling:
            every = len(os.sched_getaffinity(0))  # the CPUs this process may use, as the pinned points do
            modes["scaling"] = lambda: bench_scaling(
                path, files, every, {int(results["spark"]["cores"]): results["spark"]} if "spark" in results else {})
        for mode, fn in modes.items():
            if mode in args.skip or (mode == "pty" and sample <= 0):
                continue
            print(f"running {mode} ...", flush=True)
            try:
                results[mode] = fn()
            except Exception as exc:  # one broken mode still reports the others
                failed[mode] = f"{type(exc).__name__}: {exc}"
    finally:
        shutil.rmtree(work, ignore_errors=True)

    if args.json:  # first: a long run's numbers must survive a problem in the printing below
        args.json.write_text(json.dumps({"count": count, "seed": args.seed, "results": results, "failed": failed},
                                        indent=2) + "\n")
    print()
    print(f"{'mode':<12}{'transcripts':>12}{'commands':>10}{'seconds':>10}{'cmd/s':>10}   notes")
    for mode, r in results.items():
        notes = ""
        if mode == "spark":
            notes = (f"{int(r['cores'])} cores; {r['session_startup_seconds']:.1f} s session start-up, "
                     f"{r['commands_per_second_job_only']:.0f} cmd/s job only")
            if "warm_jobs" in r:
                notes += "; warm jobs in the session " + ", ".join(
                    f"{w['commands_per_second']:.0f}" for w in r["warm_jobs"])
            if "jvm_cpu_seconds" in r:
                notes += (f"; CPU: Python {r['python_cpu_seconds']:.0f} s, JVM {r['jvm_cpu_seconds']:.0f} s "
                          f"({r['jvm_cpu_seconds'] / (r['python_cpu_seconds'] + r['jvm_cpu_seconds']):.0%})")
        elif mode == "pty":
            notes = (f"{r['startup_ms_per_shell']:.0f} ms shell start-up each; "
                     f"{r['commands_per_second_with_startup']:.0f} cmd/s with it; {int(r['timeouts'])} timeouts")
        elif mode == "scaling":
            notes = "; ".join(
                f"local[{n}] x{r[f'local[{n}]_speedup']:.2f} ({r[f'local[{n}]_efficiency']:.0%})"
                for n in sorted(int(k[6:k.index(']')]) for k in r if k.startswith("local[") and k.endswith("_speedup")))
            notes = ("job speed-up vs local[1], efficiency: " + notes
                     + f"; plain processes on this machine: x{r['machine_speedup']:.2f} on {int(r['cores'])}")
        elif mode == "in-process":
            notes = (f"fresh lab {r['fresh_lab_ms']:.2f} ms of {r['replay_ms_per_transcript']:.2f} ms per transcript "
                     f"({r['fresh_lab_share']:.0%}); {r['ms_per_command_excluding_fresh_lab']:.3f} ms/command")
        print(f"{mode:<12}{int(r['transcripts']):>12}{int(r['commands']):>10}{r['seconds']:>10.2f}"
              f"{r['commands_per_second']:>10.0f}   {notes}")
    for mode, why in failed.items():
        print(f"{mode:<12}FAILED: {why}")
    base = results.get("in-process", {}).get("commands_per_second")
    if base:
        print()
        for mode, r in results.items():
            if mode == "pty":  # a tiny fraction of in-process: said the other way round, as the target is
                print(f"ratio {mode:<12} {base / r['commands_per_second']:8.1f}x slower than in-process "
                      f"({base:.0f} / {r['commands_per_second']:.1f} commands/s, beyond the shells' start-up)")
            elif mode != "scaling":
                print(f"ratio {mode:<12} {r['commands_per_second'] / base:8.2f}x in-process")
            if mode == "spark":  # the job alone: the session is started once per application
                print(f"ratio {'spark job':<12} {r['commands_per_second_job_only'] / base:8.2f}x in-process "
                      f"(without the {r['session_startup_seconds']:.1f} s session start-up)")
                if "warm_jobs" in r:
                    each = ", ".join(f"{w['commands_per_second']:.0f} / {w['in_process_commands_per_second']:.0f} = "
                                     f"{w['ratio']:.2f}x" for w in r["warm_jobs"])
                    print(f"ratio {'spark warm':<12} {r['warm_ratio_median']:8.2f}x in-process (median of "
                          f"{len(r['warm_jobs'])}: a warm job in the same session / an in-process replay just "
                          f"before it: {each})")
                    if "workers_cpu_seconds" in r["warm_jobs"][0]:
                        print(warm_cpu_line(r["warm_jobs"], int(r["cores"]), int(r["commands"])))
                    print(warm_share_line(r["warm_jobs"], int(r["cores"])))
            if mode == "scaling":  # no parallel replay on these cores can go beyond this
                cores = int(r["cores"])
                ceiling = r[f"machine_processes_{cores}_commands_per_second"] / base
                print(f"ratio {'processes':<12} {ceiling:8.2f}x in-process "
                      f"({cores} plain processes, no Spark: the ceiling on these cores)")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
