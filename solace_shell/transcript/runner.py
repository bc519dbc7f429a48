"""The `solace-shell replay FILE... [--accept] [--json]` command, as one call for the CLI glue.

This is the only module of the transcript package that writes to a stream: everything it prints
goes to the `out_stream` it is given.
"""

from __future__ import annotations

import io
import json
import os
import signal
from collections.abc import Callable, Iterable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import TYPE_CHECKING, TextIO, cast

from solace_shell.transcript.accept import accept as accept_file
from solace_shell.transcript.diff import command_diff
from solace_shell.transcript.format import TRANSCRIPT_SUFFIX
from solace_shell.transcript.lab_api import LabFactory
from solace_shell.transcript.replay import ReplayRun, ResultSink, paced_collection, stream_file
from solace_shell.transcript.results import CommandResult
from solace_shell.transcript.shown import capped
from solace_shell.transcript.stopping import sigterm_as_interrupt, stop_signal

if TYPE_CHECKING:
    from rich.console import Console

EXIT_OK, EXIT_FAILED, EXIT_USAGE = 0, 1, 2


def discover(paths: Iterable[Path | str]) -> tuple[list[Path], list[str]]:
    """Files as given (any name), directories searched recursively for `*.cli.txt` (sorted);
    returns (files, problems) where problems name paths that do not exist."""
    files: list[Path] = []
    problems: list[str] = []
    for p in map(Path, paths):
        if p.is_dir():
            files.extend(sorted(f for f in p.rglob(f"*{TRANSCRIPT_SUFFIX}") if f.is_file()))
        elif p.is_file():
            files.append(p)
        elif os.path.lexists(p):
            problems.append(f"{p}: not a regular file or a directory")
        else:
            problems.append(f"{p}: no such file or directory")
    return files, problems


def _print_failure(r: CommandResult, actual_prompt: str, strict: bool, out: TextIO) -> None:
    out.write(f"{r.verdict.upper()} {r.transcript}:{r.line}: {r.prompt} {capped(r.command)}  [{r.signature}]\n")
    prompt = actual_prompt if actual_prompt != r.prompt and actual_prompt else None
    diff = command_diff(r, prompt, strict_blank=strict)
    if diff:
        out.write(diff + "\n")


def _report(json_out: bool, out: TextIO) -> ResultSink:
    """What is printed for each replayed command, as it comes (nothing is kept): its JSON line,
    or a failure with its diff."""
    if json_out:
        def json_line(result: CommandResult, _prompt: str, _strict: bool) -> None:
            row = result.to_dict()
            for key in ("command", "expected", "actual"):  # capped as every report caps them
                row[key] = capped(str(row[key]))
            out.write(json.dumps(row, sort_keys=True) + "\n")
        return json_line

    def failure(result: CommandResult, actual_prompt: str, strict: bool) -> None:
        if result.verdict != "pass":
            _print_failure(result, actual_prompt, strict, out)
    return failure


def _print_error(run: ReplayRun, json_out: bool, out: TextIO) -> None:
    if json_out:
        out.write(json.dumps({"transcript": run.result.transcript, "verdict": "error", "error": run.result.error},
                             sort_keys=True) + "\n")
    else:
        out.write(f"ERROR {run.result.error}\n")


class _AboveBar(io.TextIOBase):
    """A terminal stream written through the live progress bar's console, so each report line
    lands above the bar instead of through it."""

    def __init__(self, console: Console) -> None:
        self._console = console

    def write(self, text: str) -> int:
        self._console.out(text, end="", highlight=False)
        return len(text)

    def isatty(self) -> bool:
        return True


@contextmanager
def _progress(total: int, out: TextIO, err: TextIO) -> Iterator[tuple[Callable[[], None], TextIO]]:
    """A progress bar over the transcripts while a terminal shows it (rich, erased when done):
    on `out` when it is a terminal (the report is then written above the bar), else on `err`
    when that is one; nothing at all when neither is, so a pipe or a file gets the report
    alone, byte for byte. Yields the call that counts one transcript done and the stream to
    write the report to meanwhile."""
    stream = out if out.isatty() else err if err.isatty() else None
    if total < 2 or stream is None:
        yield (lambda: None), out
        return
    from rich.console import Console
    from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn

    columns = (TextColumn("replaying"), BarColumn(), MofNCompleteColumn(), TimeElapsedColumn())
    console = Console(file=stream)
    with Progress(*columns, console=console, transient=True, redirect_stdout=False, redirect_stderr=False) as bar:
        task = bar.add_task("replay", total=total)
        yield (lambda: bar.advance(task)), (cast(TextIO, _AboveBar(console)) if stream is out else out)


def run_replay_command(paths: Iterable[Path | str], accept: bool = False, json_out: bool = False,
                       out_stream: TextIO | None = None, *, lab_factory: LabFactory | None = None) -> int:
    """Replay (and with `accept`, first rewrite) transcripts; print results; return the exit code.

    Exit 0 only when every command of every transcript passes (after accepting, when asked),
    1 when something failed, 2 when a path does not exist or nothing was found, 130 after Ctrl-C and
    143 after SIGTERM (what was replayed is reported first). Text mode prints a diff per failing
    command and a summary line; `--json` prints one JSON object per command per line (a file that
    could not be parsed gives one object with `verdict: error` and `error`).
    """
    import sys

    out = out_stream if out_stream is not None else sys.stdout
    files, problems = discover(paths)
    for problem in problems:  # on stderr: standard output holds results only (one per line with --json)
        sys.stderr.write(f"solace-shell: {problem}\n")
    if not files:
        if not problems:
            sys.stderr.write("solace-shell: no transcripts found\n")
        return EXIT_USAGE

    counts = {"pass": 0, "fail": 0, "error": 0}
    bad_files = 0
    done = 0
    stopped_by: signal.Signals | None = None
    try:
        with (sigterm_as_interrupt(), paced_collection(),  # the latter once for the whole batch (see there)
              _progress(len(files), out, sys.stderr) as (advance, shown)):
            report = _report(json_out, shown)
            for path in files:
                if accept:
                    rewritten = accept_file(path, lab_factory=lab_factory).rewritten
                    if rewritten and not json_out:
                        lines = ", ".join(map(str, rewritten))
                        shown.write(f"ACCEPTED {path}: rewrote command(s) at line(s) {lines}\n")
                run = stream_file(path, report, lab_factory=lab_factory, passes=json_out)  # text: failures only
                if run.result.error is not None:
                    bad_files += 1
                    _print_error(run, json_out, shown)
                for verdict, n in run.counts.items():
                    counts[verdict] += n
                done += 1
                advance()
    except KeyboardInterrupt as interruption:  # Ctrl-C, SIGTERM: what was replayed is reported, the rest
        stopped_by = stop_signal(interruption)  # is said to be left out
    if not json_out:
        out.write(f"{done} transcript(s), {sum(counts.values())} command(s): {counts['pass']} passed, "
                  f"{counts['fail']} failed, {counts['error']} error(s)"
                  + (f", {bad_files} transcript(s) unreadable" if bad_files else "") + "\n")
    if stopped_by is not None:
        out.flush()
        # on stderr: with --json, standard output stays one result per line
        sys.stderr.write(f"solace-shell: interrupted ({stopped_by.name}) after {done} of {len(files)} transcript(s)\n")
        return 128 + stopped_by
    if problems:
        return EXIT_USAGE
    return EXIT_OK if counts["fail"] == counts["error"] == bad_files == 0 else EXIT_FAILED

