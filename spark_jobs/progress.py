"""Driver-side progress bar (rich): the run's partitions, counted as each one's Spark job ends.

Why the driver counts and does not poll Spark's status tracker: each partition is a job of one task
(`fetch.py`), and a poll between two task ends misses a short job entirely; the driver knows how many
partitions there are and sees each one end. Colour and live redraw only when stderr is a terminal;
otherwise the bar is not drawn at all (CI logs stay clean).
"""

from __future__ import annotations

import sys
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from rich.console import Console
    from rich.progress import Progress, TaskID


class RunProgress:
    """`with RunProgress(enabled=...) as progress:` then `expect(n)`, `advance()` from any thread,
    `set_label(text)`. `console` is for tests: a bar drawn there whatever stderr is."""

    def __init__(self, *, enabled: bool = True, console: Console | None = None) -> None:
        self.enabled = enabled and (console is not None or sys.stderr.isatty())
        self._console = console
        self._progress: Progress | None = None
        self._task: TaskID | None = None

    def __enter__(self) -> RunProgress:
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

            console = self._console or Console(stderr=True, highlight=False)
            self._progress = Progress(
                TextColumn("[bold blue]{task.description}"), BarColumn(), MofNCompleteColumn(),
                TextColumn("partitions"), TimeElapsedColumn(), console=console, transient=False,
            )
            self._progress.start()
            self._task = self._progress.add_task("starting", total=None)
        return self

    def set_label(self, label: str) -> None:
        if self._progress is not None and self._task is not None:
            self._progress.update(self._task, description=label)

    def expect(self, total: int) -> None:
        if self._progress is not None and self._task is not None:
            self._progress.update(self._task, total=total)

    def advance(self) -> None:
        """One more partition has ended (rich's Progress takes its own lock: any thread may call)."""
        if self._progress is not None and self._task is not None:
            self._progress.advance(self._task)

    def __exit__(self, *exc: object) -> None:
        if self._progress is not None:
            self._progress.stop()
