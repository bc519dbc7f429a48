"""`solace-conformance generate`: failover drills recorded from the engine as golden transcripts.

Planning is pure (spark_jobs.drills); this module is the thin recording step: run each drill's steps
through a fresh lab (`Lab.fresh()`), write prompt, command and the engine's own output with the
transcript Recorder. A recorded drill therefore replays as `pass` against the same engine by
construction; the corpus is for regression (the engine changes, the transcripts do not), throughput
benchmarks and coverage.
"""

from __future__ import annotations

import json
import multiprocessing
import os
import signal
import time
from collections.abc import Iterator
from concurrent.futures import ProcessPoolExecutor
from contextlib import contextmanager
from multiprocessing.process import BaseProcess
from multiprocessing.synchronize import Event
from pathlib import Path

from .drills import COMMENT, Drill, draws_local_failover, plan_drill, with_local_failover

INDEX_FILE = "_drills.jsonl"  # leading "_": Hadoop input formats (and so `run`) skip it
TRANSCRIPT_SUFFIX = ".cli.txt"  # as solace_shell.transcript.format names transcripts (the planner loads no engine)
PARTIAL_SUFFIX = ".partial"  # a drill being recorded, as `_<name>.partial`: no reader takes it for a transcript
SCENARIO_DIR = "scenarios"  # scenarios of drills planned by HA systems, beside the transcripts


def record_drill(drill: Drill, path: Path) -> int:
    """Run `drill` on a fresh lab and write it to `path`; returns the number of commands."""
    from solace_shell.lab import Lab  # noqa: PLC0415 - the planner (--plan-only) needs no engine
    from solace_shell.transcript.record import Recorder  # noqa: PLC0415

    scenario = None if drill.scenario is None else scenario_beside(drill.scenario, path.parent)
    lab = Lab.fresh(scenario)
    n = 0
    try:
        with Recorder.open(path, scenario=scenario) as rec:
            for target, command in drill.steps:
                if target == COMMENT:
                    rec.comment(command)
                    continue
                prompt = lab.prompt(target)
                outcome = lab.execute(target, command)
                rec.record(prompt, command, outcome.text)
                n += 1
    finally:
        lab.close()
    return n


def scenario_beside(name: str, out: Path) -> Path:
    """The bundled scenario ``name`` copied to ``out/scenarios/`` (once; atomically, as drills are
    recorded in parallel), so the corpus replays wherever it is moved (the header names it)."""
    from state_store.scenario_files import resolve_scenario  # noqa: PLC0415
    from state_store.user_files import SCENARIO_MAX_BYTES, read_bytes  # noqa: PLC0415

    target = out / SCENARIO_DIR / f"{name}.yaml"
    if not target.is_file():
        source = resolve_scenario(name)
        if source is None:
            raise FileNotFoundError(f"bundled scenario {name!r}")
        target.parent.mkdir(parents=True, exist_ok=True)
        partial = target.with_name(f"_{target.name}.{os.getpid()}{PARTIAL_SUFFIX}")
        partial.write_bytes(read_bytes(source, SCENARIO_MAX_BYTES))
        os.replace(partial, target)
    return target


def plan(seed: int, index: int, system: str = "", local_failover: float = 0.0) -> Drill:
    """Drill ``index`` of ``seed``: the lab's own (``system`` ""), or one planned by a
    registered HA system's model (``state_store.systems``). A share ``local_failover`` (0 to 1) of
    the lab's own drills run on the redundancy groups' lab with a local failover at NY
    (`spark_jobs.drills.with_local_failover`); an HA system's drills take none."""
    if not system:
        drill = plan_drill(seed, index)
        return with_local_failover(drill) if draws_local_failover(seed, index, local_failover) else drill
    from state_store import loader  # noqa: PLC0415 - the lab's own planner needs no engine

    model = loader.load_model(system)
    planner = None if model is None else model.MODEL.plan_drill
    if planner is None:
        raise ValueError(f"no drill planner for system {system!r}")
    kind, mistake, steps, scenario = planner(seed, index)
    return Drill(seed, index, kind, mistake, None, steps, scenario, system)


def planners() -> list[str]:
    """The registered HA systems that plan drills."""
    from state_store import loader, systems  # noqa: PLC0415

    found = []
    for name in systems.names():
        model = loader.load_model(name)
        if model is not None and model.MODEL.plan_drill is not None:
            found.append(name)
    return found


def transcript_name(drill: Drill) -> str:
    return f"{drill.name}{TRANSCRIPT_SUFFIX}"


STOP_SIGNALS = (signal.SIGINT, signal.SIGTERM)
STOP_GRACE_SECONDS = 10.0  # a stopped generate waits this long for the drills being recorded to end
SKIPPED = "not recorded: generate was stopped"

_stopping: Event | None = None  # in a recording worker: set by the parent when generate is stopped


def _start_worker(stopping: Event) -> None:
    """A recording worker takes no stop signal of its own: the parent alone decides (`_record_in_pool`).
    Ctrl-C reaches the whole process group, and a worker interrupted in the middle of a drill would
    leave files behind that the parent may already have counted; so SIGINT is ignored here, the
    parent sets `stopping`, and each worker ends the drill it is recording and skips the rest. SIGTERM
    ends a worker at once (Python's default, not the handler inherited from the command), so the pool
    or a user can still end one from outside; what it leaves is removed as a half-recorded drill.
    The worker started with both signals held (`_stop_signals_held`): none is lost or acted on early."""
    global _stopping  # noqa: PLW0603 - the worker's one piece of state, set once as it starts
    _stopping = stopping
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    signal.signal(signal.SIGTERM, signal.SIG_DFL)
    signal.pthread_sigmask(signal.SIG_UNBLOCK, STOP_SIGNALS)


def _record_one(args: tuple[int, int, str, str, float]) -> tuple[int, str, str | None]:
    """Record one drill under a hidden name, then give it its own: a corpus never holds a half-written
    transcript, whatever stops the recording (an engine crash, Ctrl-C). In a worker of a stopped
    `generate`, the drill is skipped."""
    seed, index, out, system, local_failover = args
    if _stopping is not None and _stopping.is_set():
        return index, "", SKIPPED
    drill = plan(seed, index, system, local_failover)
    path = Path(out) / transcript_name(drill)
    partial = path.with_name(f"_{path.name}{PARTIAL_SUFFIX}")
    try:
        record_drill(drill, partial)
        os.replace(partial, path)
    except Exception as exc:  # an engine crash must not lose the other drills; it is reported
        partial.unlink(missing_ok=True)
        return index, path.name, f"{type(exc).__name__}: {exc}"
    return index, path.name, None


@contextmanager
def _stop_signals_held() -> Iterator[None]:
    """SIGINT and SIGTERM held back from the calling thread within the block (delivered as it ends).
    Processes started within it start with them held (fork and spawn keep the signal mask)."""
    previous = signal.pthread_sigmask(signal.SIG_BLOCK, STOP_SIGNALS)
    try:
        yield
    finally:
        signal.pthread_sigmask(signal.SIG_SETMASK, previous)


def _record_in_pool(tasks: list[tuple[int, int, str, str, float]], jobs: int,
                    chunksize: int) -> list[tuple[int, str, str | None]]:
    """`_record_one` for every task in `jobs` worker processes. Stopped (Ctrl-C, SIGTERM, any error),
    it tells the workers to stop between drills and returns (raises) only once every worker has
    exited: whatever the caller then counts or removes in the corpus is final."""
    context = multiprocessing.get_context()
    stopping = context.Event()
    known = set(multiprocessing.active_children())
    pool = ProcessPoolExecutor(max_workers=jobs, mp_context=context, initializer=_start_worker, initargs=(stopping,))
    try:
        with _stop_signals_held():  # the workers start on the first tasks, and take no signal until ready
            recorded = pool.map(_record_one, tasks, chunksize=chunksize)
        results = list(recorded)
    except BaseException:
        _stop_workers(pool, stopping, known, STOP_GRACE_SECONDS)
        raise
    pool.shutdown(wait=True)
    return results


def _stop_workers(pool: ProcessPoolExecutor, stopping: Event, known: set[BaseProcess], grace_s: float) -> None:
    """Tell the pool's workers (the processes not in `known`) to stop between drills and wait for them
    to exit. One still recording after `grace_s` seconds (a drill that does not end), or when a
    second Ctrl-C or SIGTERM comes, is killed: it writes nothing more, and the drill it leaves is
    removed as half-recorded. Returns (or lets the second signal through) only once all have exited."""
    workers: list[BaseProcess] = []
    try:
        stopping.set()
        workers = [p for p in multiprocessing.active_children() if p not in known]
        pool.shutdown(wait=False, cancel_futures=True)
        deadline = time.monotonic() + grace_s
        for worker in workers:
            worker.join(max(0.0, deadline - time.monotonic()))
    finally:
        with _stop_signals_held():  # killing and reaping is quick: no further signal cuts it short
            workers = workers or [p for p in multiprocessing.active_children() if p not in known]
            for worker in workers:
                if worker.is_alive():
                    worker.kill()
            for worker in workers:
                worker.join()


def transcripts_in(out: str | Path) -> int:
    """How many complete drill transcripts `out` holds."""
    return sum(1 for _ in Path(out).glob(f"*{TRANSCRIPT_SUFFIX}"))


def remove_partial(out: str | Path) -> None:
    """The drills a stopped `generate` left half-recorded: removed as it stops (Ctrl-C, SIGTERM), or by
    the next `generate` into `out` when it was killed outright. A drill stopped as its recording began
    may be the recorder's hidden staging file of the partial name (`staged_glob`); a scenario being
    copied is one `_<name>.<pid>.partial` in `scenarios/`."""
    from solace_shell.private_files import staged_glob  # noqa: PLC0415 - the planner needs no shell

    pattern = f"_*{PARTIAL_SUFFIX}"
    left = [*Path(out).glob(pattern), *Path(out).glob(staged_glob(pattern)), *(Path(out) / SCENARIO_DIR).glob(pattern)]
    for partial in left:
        partial.unlink(missing_ok=True)


def generate(*, count: int, seed: int, out: str | Path, plan_only: bool = False,
             jobs: int | None = None, system: str = "", local_failover: float = 0.0) -> list[str]:
    """Plan and record `count` drills into `out` (of an HA `system` when given; a share
    `local_failover` of the lab's own drills with a local failover); returns the transcript file
    names written.

    Output is the same for the same (count, seed, system, local_failover) whatever `jobs` is.
    """
    out = Path(out)
    out.mkdir(parents=True, exist_ok=True)
    if local_failover and system:
        raise ValueError("a local failover is added to the lab's own drills only, not to --system drills")
    plans = [plan(seed, i, system, local_failover) for i in range(count)]
    with (out / INDEX_FILE).open("w", encoding="utf-8", newline="\n") as fh:
        for d in plans:
            row = {"name": transcript_name(d), "index": d.index, "kind": d.kind, "mistake": d.mistake,
                   "transaction": d.transaction, "commands": len(d.commands())}
            if local_failover:  # the index of a corpus without local failovers is as it always was
                row["local_failover"] = d.local_failover
            if plan_only:
                row["steps"] = [list(s) for s in d.steps]
            fh.write(json.dumps(row, sort_keys=True) + "\n")
    if plan_only:
        return [INDEX_FILE]
    jobs = jobs or os.cpu_count() or 1
    remove_partial(out)  # what a recording killed outright left (two generates into one DIR at once: unsupported)
    tasks = [(seed, i, str(out), system, local_failover) for i in range(count)]
    try:
        if jobs == 1 or count < 8:
            results = [_record_one(t) for t in tasks]
        else:
            results = _record_in_pool(tasks, jobs, chunksize=max(1, min(64, count // (jobs * 4) or 1)))
    except BaseException:  # Ctrl-C (KeyboardInterrupt) above all: the complete drills stay, no partial one
        remove_partial(out)  # no worker is left to write (_record_in_pool)
        raise
    failures = [(name, err) for _, name, err in results if err]
    if failures:
        head = "; ".join(f"{n}: {e}" for n, e in failures[:5])
        raise RuntimeError(f"{len(failures)} of {count} drills could not be recorded ({head})")
    return [name for _, name, _ in results]
