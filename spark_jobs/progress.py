"""Driver-side progress bar: rich.progress fed by polling Spark's status tracker.

Counts the tasks of every stage that ran in every job of our job group (the replay stage dominates;
stages a job skips because their output is cached are left out). Colour and
live redraw only when stderr is a terminal; otherwise the bar is not drawn at all (CI logs stay clean).
"""

from __future__ import annotations

import sys
import threading
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from rich.progress import Progress


class SparkProgress:
    def __init__(self, sc: Any, group: str, *, enabled: bool = True, interval: float = 0.25) -> None:
        self.sc, self.group, self.interval = sc, group, interval
        self.enabled = enabled and sys.stderr.isatty()
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None
        self._progress: Progress | None = None
        self._seen_stages: dict[int, tuple[int, int]] = {}
        self.label = "starting"

    def __enter__(self) -> SparkProgress:
        if self.enabled:
            # imported only for a bar that is drawn: rich costs the driver ~0.1 s before the job starts
            from rich.console import Console  # noqa: PLC0415
            from rich.progress import (  # noqa: PLC0415
                BarColumn,
                MofNCompleteColumn,
                Progress,
                TextColumn,
                TimeElapsedColumn,
            )

            console = Console(stderr=True, highlight=False)
            self._progress = Progress(
                TextColumn("[bold blue]{task.description}"), BarColumn(), MofNCompleteColumn(),
                TextColumn("tasks"), TimeElapsedColumn(), console=console, transient=False,
            )
            self._progress.start()
            self._task = self._progress.add_task(self.label, total=None)
            self._thread = threading.Thread(target=self._run, name="spark-progress", daemon=True)
            self._thread.start()
        return self

    def set_label(self, label: str) -> None:
        self.label = label

    def _poll(self) -> None:
        tracker = self.sc.statusTracker()
        active = set(tracker.getActiveStageIds())
        for job_id in tracker.getJobIdsForGroup(self.group):
            info = tracker.getJobInfo(job_id)
            if info is None:
                continue
            for stage_id in info.stageIds:
                # only stages that actually ran: a job lists stages it skips (cached shuffle output)
                if stage_id not in active and stage_id not in self._seen_stages:
                    continue
                stage = tracker.getStageInfo(stage_id)
                if stage is not None:
                    done = max(stage.numCompletedTasks, self._seen_stages.get(stage_id, (0, 0))[0])
                    self._seen_stages[stage_id] = (done, stage.numTasks)
        done = sum(d for d, _ in self._seen_stages.values())
        total = sum(t for _, t in self._seen_stages.values())
        assert self._progress is not None
        self._progress.update(self._task, completed=done, total=total or None, description=self.label)

    def _run(self) -> None:
        while not self._stop.wait(self.interval):
            try:
                self._poll()
            except Exception:  # the tracker can race with SparkContext shutdown; progress is cosmetic
                pass

    def __exit__(self, *exc: object) -> None:
        self._stop.set()
        if self._thread is not None:
            self._thread.join(timeout=2)
            try:
                self._poll()
            except Exception:
                pass
        if self._progress is not None:
            self._progress.stop()
