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
import time
from concurrent.futures import ProcessPoolExecutor
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

    target = out / SCENARIO_DIR / f"{name}.yaml"
    if not target.is_file():
        source = resolve_scenario(name)
        if source is None:
            raise FileNotFoundError(f"bundled scenario {name!r}")
        target.parent.mkdir(parents=True, exist_ok=True)
        partial = target.with_name(f"_{target.name}.{os.getpid()}{PARTIAL_SUFFIX}")
        partial.write_bytes(source.read_bytes())
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
    from state_store import systems  # noqa: PLC0415 - the lab's own planner needs no engine

    model = systems.load_model(system)
    planner = None if model is None else model.MODEL.plan_drill
    if planner is None:
        raise ValueError(f"no drill planner for system {system!r}")
    kind, mistake, steps, scenario = planner(seed, index)
    return Drill(seed, index, kind, mistake, None, steps, scenario, system)


def planners() -> list[str]:
    """The registered HA systems that plan drills."""
    from state_store import systems  # noqa: PLC0415

    found = []
    for name in systems.names():
        model = systems.load_model(name)
        if model is not None and model.MODEL.plan_drill is not None:
            found.append(name)
    return found


def transcript_name(drill: Drill) -> str:
    return f"{drill.name}{TRANSCRIPT_SUFFIX}"




def _record_one(args: tuple[int, int, str, str, float]) -> tuple[int, str, str | None]:
    """Record one drill under a hidden name, then give it its own: a corpus never holds a half-written
    transcript, whatever stops the recording (an engine crash, Ctrl-C)."""
    seed, index, out, system, local_failover = args
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


def _wait_for_workers(timeout_s: float = 30.0) -> None:
    """The recording processes still alive when `generate` is stopped end first (each ends the drill it
    is recording, or is stopped by the same signal): what the caller then counts and removes in `out`
    is final, and no worker writes there after the command has said how many drills it holds."""
    deadline = time.monotonic() + timeout_s
    for child in multiprocessing.active_children():
        child.join(max(0.0, deadline - time.monotonic()))


def transcripts_in(out: str | Path) -> int:
    """How many complete drill transcripts `out` holds."""
    return sum(1 for _ in Path(out).glob(f"*{TRANSCRIPT_SUFFIX}"))


def remove_partial(out: str | Path) -> None:
    """The drills a stopped `generate` left half-recorded: removed as it stops (Ctrl-C, SIGTERM), or by
    the next `generate` into `out` when it was killed outright."""
    for partial in Path(out).glob(f"_*{PARTIAL_SUFFIX}"):
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
            with ProcessPoolExecutor(max_workers=jobs) as pool:
                results = list(pool.map(_record_one, tasks, chunksize=max(1, min(64, count // (jobs * 4) or 1))))
    except BaseException:  # Ctrl-C (KeyboardInterrupt) above all: the complete drills stay, no partial one
        _wait_for_workers()
        remove_partial(out)
        raise
    failures = [(name, err) for _, name, err in results if err]
    if failures:
        head = "; ".join(f"{n}: {e}" for n, e in failures[:5])
        raise RuntimeError(f"{len(failures)} of {count} drills could not be recorded ({head})")
    return [name for _, name, _ in results]
