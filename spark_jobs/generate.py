"""`solace-conformance generate`: failover drills recorded from the engine as golden transcripts.

Planning is pure (spark_jobs.drills); this module is the thin recording step: run each drill's steps
through a fresh lab (`Lab.fresh()`), write prompt, command and the engine's own output with the
transcript Recorder. A recorded drill therefore replays as `pass` against the same engine by
construction; the corpus is for regression (the engine changes, the transcripts do not), throughput
benchmarks and coverage.
"""

from __future__ import annotations

import importlib
import json
import os
import shutil
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path
from types import ModuleType

from .drills import COMMENT, Drill, plan_drill

INDEX_FILE = "_drills.jsonl"  # leading "_": Hadoop input formats (and so `run`) skip it
TRANSCRIPT_SUFFIX = ".cli.txt"  # as solace_shell.transcript.format names transcripts (the planner loads no engine)
PARTIAL_SUFFIX = ".partial"  # a drill being recorded, as `_<name>.partial`: no reader takes it for a transcript


def system_planner(system: str | None) -> ModuleType | None:
    """The drill planner of an HA system (`spark_jobs.<system>_drills`: `SCENARIO`, `plan_drill`);
    None for the Solace failover drills. Raises ValueError for a system that offers no drills."""
    if system is None:
        return None
    from state_store import systems  # noqa: PLC0415

    if system not in systems.names():
        raise ValueError(f"no HA system {system[:80]!r} (registered: {', '.join(systems.names())})")
    try:
        return importlib.import_module(f"spark_jobs.{system}_drills")
    except ImportError:
        raise ValueError(f"no drills for system {system!r}") from None


def scenario_file(planner: ModuleType | None) -> Path | None:
    if planner is None:
        return None
    from state_store.scenario_files import ROOT_DIR  # noqa: PLC0415

    return Path(ROOT_DIR) / f"{planner.SCENARIO}.yaml"


def record_drill(drill: Drill, path: Path, scenario: Path | None = None) -> int:
    """Run `drill` on a fresh lab (of `scenario`, whose copy sits next to `path`) and write it to
    `path`; returns the number of commands."""
    from solace_shell.lab import Lab  # noqa: PLC0415 - the planner (--plan-only) needs no engine
    from solace_shell.transcript.record import Recorder  # noqa: PLC0415

    lab = Lab.fresh(scenario)
    n = 0
    header = None if scenario is None else path.parent / scenario.name
    try:
        with Recorder.open(path, scenario=header) as rec:
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


def transcript_name(drill: Drill) -> str:
    return f"{drill.name}{TRANSCRIPT_SUFFIX}"




def _record_one(args: tuple[int, int, str, str | None]) -> tuple[int, str, str | None]:
    """Record one drill under a hidden name, then give it its own: a corpus never holds a half-written
    transcript, whatever stops the recording (an engine crash, Ctrl-C)."""
    seed, index, out, system = args
    planner = system_planner(system)
    drill = planner.plan_drill(seed, index) if planner is not None else plan_drill(seed, index)
    path = Path(out) / transcript_name(drill)
    partial = path.with_name(f"_{path.name}{PARTIAL_SUFFIX}")
    try:
        record_drill(drill, partial, scenario_file(planner))
        os.replace(partial, path)
    except Exception as exc:  # an engine crash must not lose the other drills; it is reported
        partial.unlink(missing_ok=True)
        return index, path.name, f"{type(exc).__name__}: {exc}"
    return index, path.name, None


def transcripts_in(out: str | Path) -> int:
    """How many complete drill transcripts `out` holds."""
    return sum(1 for _ in Path(out).glob(f"*{TRANSCRIPT_SUFFIX}"))


def remove_partial(out: str | Path) -> None:
    """The drills a stopped `generate` left half-recorded: removed as it stops (Ctrl-C, SIGTERM), or by
    the next `generate` into `out` when it was killed outright."""
    for partial in Path(out).glob(f"_*{PARTIAL_SUFFIX}"):
        partial.unlink(missing_ok=True)


def generate(*, count: int, seed: int, out: str | Path, plan_only: bool = False,
             jobs: int | None = None, system: str | None = None) -> list[str]:
    """Plan and record `count` drills into `out`; returns the transcript file names written.
    `system`: an HA system's drills (its planner, `system_planner`) instead of the Solace failover
    drills; its scenario file is copied into `out`, where the drills' headers name it.

    Output is the same for the same (count, seed) whatever `jobs` is.
    """
    planner = system_planner(system)
    out = Path(out)
    out.mkdir(parents=True, exist_ok=True)
    plan = planner.plan_drill if planner is not None else plan_drill
    plans = [plan(seed, i) for i in range(count)]
    scenario = scenario_file(planner)
    if scenario is not None and not plan_only:
        shutil.copyfile(scenario, out / scenario.name)
    with (out / INDEX_FILE).open("w", encoding="utf-8", newline="\n") as fh:
        for d in plans:
            row = {"name": transcript_name(d), "index": d.index, "kind": d.kind, "mistake": d.mistake,
                   "transaction": d.transaction, "commands": len(d.commands())}
            if plan_only:
                row["steps"] = [list(s) for s in d.steps]
            fh.write(json.dumps(row, sort_keys=True) + "\n")
    if plan_only:
        return [INDEX_FILE]
    jobs = jobs or os.cpu_count() or 1
    remove_partial(out)  # what a recording killed outright left (two generates into one DIR at once: unsupported)
    tasks = [(seed, i, str(out), system) for i in range(count)]
    try:
        if jobs == 1 or count < 8:
            results = [_record_one(t) for t in tasks]
        else:
            with ProcessPoolExecutor(max_workers=jobs) as pool:
                results = list(pool.map(_record_one, tasks, chunksize=max(1, min(64, count // (jobs * 4) or 1))))
    except BaseException:  # Ctrl-C (KeyboardInterrupt) above all: the complete drills stay, no partial one
        remove_partial(out)
        raise
    failures = [(name, err) for _, name, err in results if err]
    if failures:
        head = "; ".join(f"{n}: {e}" for n, e in failures[:5])
        raise RuntimeError(f"{len(failures)} of {count} drills could not be recorded ({head})")
    return [name for _, name, _ in results]
