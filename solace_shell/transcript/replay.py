"""Replaying a transcript against a fresh lab: one `CommandResult` per input line.

Replay is pure and in-process: no terminal, a new lab per transcript, closed afterwards, and the
simulated clock only moves on `lab> advance`, so two replays of a file give the same results (only
`duration_ms` differs). A problem with the file itself (parse errors, missing scenario, a lab that
cannot be built) yields a `TranscriptResult` with `error` set and no commands: the Spark jobs
quarantine such files instead of counting their commands as failures.
"""

from __future__ import annotations

import gc
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from functools import lru_cache
from pathlib import Path

from solace_shell.transcript.allocator import raise_thresholds
from solace_shell.transcript.format import (
    Header,
    Problem,
    Step,
    Transcript,
    TranscriptError,
    parse_header,
    read_block,
    scan_transcript,
    split_raw,
)
from solace_shell.transcript.lab_api import LabFactory, LabLike, OutcomeLike, default_lab_factory
from solace_shell.transcript.match import (
    LineMatcher,
    compile_line,
    is_regex_line,
    match_entries,
    strip_blank_edges,
)
from solace_shell.transcript.results import CommandResult, TranscriptResult, Verdict
from solace_shell.transcript.signature import (
    PROMPT_MISMATCH,
    error_signature,
    exception_signature,
    output_signature,
)
from state_store.user_files import TRANSCRIPT_MAX_BYTES, FileRefused, read_bytes, reading_for_transcript

_BOM = "\ufeff"


@dataclass(frozen=True)
class StepRun:
    """A replayed step with what `accept` and the diff need beyond the public result."""

    step: Step
    result: CommandResult
    actual_prompt: str
    matchers: tuple[LineMatcher, ...]
    actual_lines: tuple[str, ...]      # normalised the way they were compared
    prompt_ok: bool
    output_ok: bool
    strict_blank: bool = True          # the transcript's strict-blank-lines (how actual_lines were normalised)


StepSink = Callable[[StepRun], None]
# a command's result, the session's prompt before it ("" when the command could not be run) and
# the transcript's strict-blank-lines (how its output was compared)
ResultSink = Callable[[CommandResult, str, bool], None]


@dataclass
class ReplayRun:
    """One transcript's replay. Kept (the default), it holds every step and result; streamed (an
    `on_step` given to `run_text`), each step went to that callback and only the verdict counts
    are here, so a transcript of any length replays in memory bounded by its own text."""

    result: TranscriptResult
    transcript: Transcript | None = None
    steps: list[StepRun] = field(default_factory=list)
    header: Header | None = None
    counts: dict[Verdict, int] = field(default_factory=lambda: {"pass": 0, "fail": 0, "error": 0})


def read_transcript(path: Path) -> str:
    """Read a transcript file (a regular file within `TRANSCRIPT_MAX_BYTES`, else FileRefused);
    bytes that are not UTF-8 survive as surrogates so the parser can report each offending line
    instead of failing on the first byte."""
    text = read_bytes(path, TRANSCRIPT_MAX_BYTES).decode("utf-8", errors="surrogateescape")
    return text[1:] if text.startswith(_BOM) else text


def run_text(text: str, name: str, *, lab_factory: LabFactory | None = None,
             base_dir: Path | None = None, on_step: StepSink | None = None) -> ReplayRun:
    """Replay `text` and keep the details (`replay_text` returns only the public result).

    With `on_step`, each step is handed to it as soon as it ran and nothing is kept per command
    (`steps`, `result.commands` and `transcript` stay empty; `counts` has the verdicts): how
    `solace-shell replay` reports a transcript of any length in bounded memory."""
    return _run_text(text, name, lab_factory, base_dir, on_step, None)


def _run_text(text: str, name: str, lab_factory: LabFactory | None, base_dir: Path | None,
              on_step: StepSink | None, on_result: ResultSink | None, passes: bool = True) -> ReplayRun:
    """`run_text`; with `on_result`, only each `CommandResult` is made and handed over: all
    `replay_text` needs, without the two frozen records (`Step`, `StepRun`) per command that
    `accept` and the CLI's diffs need (and with `passes` False, a command that passed is only
    counted)."""
    factory = lab_factory or default_lab_factory
    try:
        header = parse_header(text, name)
    except TranscriptError as exc:
        problems = list(exc.problems)
        try:
            scan_transcript(text, name, hosts=None)
        except TranscriptError as more:
            problems += [p for p in more.problems if p not in problems]
        return ReplayRun(TranscriptResult(name, error=str(TranscriptError(name, problems))))

    scenario: Path | None = None
    base = base_dir if base_dir is not None else Path(name).parent
    if header.scenario is not None:
        from .scenario_path import ScenarioRefused, transcript_scenario
        try:
            scenario = transcript_scenario(header.scenario, base)
        except ScenarioRefused as refused:
            problem = Problem(header.lines.get("scenario", 0), str(refused))
            return ReplayRun(TranscriptResult(name, error=str(TranscriptError(name, [problem]))))

    with paced_collection(), reading_for_transcript(base):  # its `lab>` lines read files in its tree only
        return _replay(text, name, header, scenario, factory, on_step, on_result, passes)


def _replay(text: str, name: str, header: Header, scenario: Path | None, factory: LabFactory,
            on_step: StepSink | None, on_result: ResultSink | None, passes: bool) -> ReplayRun:
    try:
        lab = factory(scenario, header.settings())
    except Exception as exc:  # noqa: BLE001 - any failure to build the lab quarantines the file
        return ReplayRun(TranscriptResult(name, error=f"{name}:0: cannot build the lab: "
                                                      f"{type(exc).__name__}: {exc}"))
    try:
        try:
            scanned = scan_transcript(text, name, hosts=lab.targets())
        except TranscriptError as exc:
            return ReplayRun(TranscriptResult(name, error=str(exc)))
        run = ReplayRun(TranscriptResult(name), header=scanned.header)
        counts = run.counts
        strict = scanned.header.strict_blank_lines
        if on_result is not None:
            for line, prompt, raw, _ in scanned.blocks():
                result, actual_prompt = _check_raw(lab, name, strict, line, prompt.host, prompt.prompt,
                                                   prompt.command, raw, passes)
                if result is None:   # passed, and no one asked for the result of a pass
                    counts["pass"] += 1
                    continue
                counts[result.verdict] += 1
                on_result(result, actual_prompt, strict)
            return run
        if on_step is not None:
            for step in scanned.steps():
                step_run = _run_step(lab, name, strict, step)
                counts[step_run.result.verdict] += 1
                on_step(step_run)
            return run
        steps: list[Step] = []
        for step in scanned.steps():
            step_run = _run_step(lab, name, strict, step)
            counts[step_run.result.verdict] += 1
            steps.append(step)
            run.steps.append(step_run)
            run.result.commands.append(step_run.result)
        run.transcript = Transcript(name, scanned.header, tuple(steps), tuple(split_raw(text)))
        return run
    finally:
        lab.close()


# The cyclic collector's thresholds while transcripts replay (generation 0, generation 1).
_PACE = (5000, 100)
_pacing_lock = threading.Lock()
_pacing_depth = 0            # how many `paced_collection` blocks are open (in any thread)
_paced_from: tuple[int, ...] = ()  # the thresholds before the outermost one, to go back to


@contextmanager
def paced_collection() -> Iterator[None]:
    """Collect cyclic garbage less often while transcripts replay, then as before.

    Why: a replay allocates a great many short-lived objects, and at the default thresholds (700,
    10) the collector runs every few commands and moves the lab's records, which live for the
    whole transcript, through every generation: measured on generated drills, a fifth of the
    replay time went to collections. Fewer, larger collections find the same garbage, so memory
    stays bounded; only the thresholds change, never whether the collector runs. (A closed lab
    is no longer garbage for the collector, `Lab.close`, which took most of what was left.)

    Every replay paces itself; a batch (the replay command, a Spark partition) also wraps its
    whole loop, so the thresholds go back once per batch rather than once per transcript: going
    back starts a collection at once (the count is far past the default threshold by then),
    which cost about 1% of the instructions of a drill replay and more of its time. Blocks nest,
    in any threads: only the outermost one changes and restores the thresholds.

    The first block in a process also raises the C allocator's thresholds, for good (`allocator`)."""
    global _pacing_depth, _paced_from
    with _pacing_lock:
        if _pacing_depth == 0:
            raise_thresholds()
            before = gc.get_threshold()
            if before[0] == 0:  # automatic collection is off (threshold 0): leave it so
                _paced_from = ()
            else:
                _paced_from = before
                gc.set_threshold(max(before[0], _PACE[0]), max(before[1], _PACE[1]), *before[2:])
        _pacing_depth += 1
    try:
        yield
    finally:
        with _pacing_lock:
            _pacing_depth -= 1
            if _pacing_depth == 0 and _paced_from:
                gc.set_threshold(*_paced_from)


_COMPILED_BLOCK = 32  # expected blocks of at most this many lines are compiled once per process


# An expected block compiled: its matchers, whether one is a regular expression, the block as text.
Compiled = tuple[tuple[LineMatcher, ...], bool, str]


def _compile_block(expected: tuple[str, ...]) -> Compiled:
    """The matchers of an expected block, whether one is a regular expression, and the block as
    text: drills expect the same short blocks over and over (`Tx local started`, the same
    status tables), so each is compiled and joined once."""
    matchers = tuple(map(compile_line, expected))
    return matchers, any(m.kind == "regex" for m in matchers), "\n".join(expected)


_compiled_block = lru_cache(maxsize=4096)(_compile_block)


def _block(expected: tuple[str, ...]) -> Compiled:
    if len(expected) <= _COMPILED_BLOCK:
        return _compiled_block(expected)
    return _compile_block(expected)  # a long block: not kept


# An expected block as `_check` needs it: its lines, whether one is a regular expression, the
# block as text (`CommandResult.expected`). Its matchers are compiled only when a comparison needs
# them: most commands print their block exactly and have no regular expression.
Expected = tuple[tuple[str, ...], bool, str]


def _read_raw_block(raw: str, strict: bool) -> Expected:
    """The `Expected` of a raw block (`read_block`)."""
    expected = read_block(raw, strict)[0]
    return expected, any(map(is_regex_line, expected)), "\n".join(expected)


# `replay_text`'s one lookup per command: keyed by the block as written, it saves reading the
# block into lines for every block a drill repeats (four in five commands).
_raw_block_cached = lru_cache(maxsize=4096)(_read_raw_block)
_CACHED_RAW_BLOCK = 1024  # characters; the longest block of the generated drills has about 850


def _raw_block(raw: str, strict: bool) -> Expected:
    if len(raw) <= _CACHED_RAW_BLOCK:
        return _raw_block_cached(raw, strict)
    return _read_raw_block(raw, strict)  # a long block: not kept


def _run_step(lab: LabLike, name: str, strict: bool, step: Step) -> StepRun:
    matchers, has_regex, expected_text = _block(step.expected)
    result, actual_prompt, actual, prompt_ok, output_ok = _check(
        lab, name, strict, step.line, step.host, step.prompt, step.command,
        (step.expected, has_regex, expected_text))
    return StepRun(step, result, actual_prompt, matchers, actual, prompt_ok, output_ok, strict)


# What `_check` finds: the result, the session's prompt, the actual lines as compared, and whether
# the prompt and the output matched (with the matchers, the rest of a `StepRun`).
Checked = tuple[CommandResult, str, tuple[str, ...], bool, bool]


def _verbatim(raw: str, text: str, strict: bool) -> str | None:
    """The expected block's text when the raw block `raw` is the output `text` as written, each
    line ending in "\\n", with nothing `read_block` would take away but blank edges (no comment,
    no trailing blank) and no ` (re)` line: then the output matches it, so `replay_text` needs
    neither to read the block nor to look it up (most commands of a drill). None otherwise."""
    if not text:
        return "" if not raw else None
    n = len(text)
    # (one-character needles are found at memchr speed: any tab, carriage return or "|" (of a
    # `#|` comment) takes the long way, as a line may end in " " or hold " (re)")
    if (len(raw) == n + 1 and raw[n] == "\n" and raw.startswith(text)
            and "\t" not in raw and "\r" not in raw and "|" not in raw and " \n" not in raw and "(re)" not in raw):
        return text if strict else text.strip("\n")  # (blank lines here are empty: no trailing blanks)
    return None


def _run_command(lab: LabLike, name: str, strict: bool, line: int, host: str, prompt: str, command: str,
                 block: Expected | str) -> tuple[str, OutcomeLike, float] | CommandResult:
    """Run one command: the session's prompt before it, its outcome and its duration in ms; or,
    when it could not be run, its result (verdict error, the block read for its text)."""
    started = time.perf_counter()
    try:
        actual_prompt = lab.prompt(host)
        outcome = lab.execute(host, command)
    except Exception as exc:  # noqa: BLE001 - the command could not be run: verdict error
        elapsed = (time.perf_counter() - started) * 1000.0
        expected_text = (_raw_block(block, strict) if isinstance(block, str) else block)[2]
        return CommandResult(transcript=name, line=line, router=host, prompt=prompt, command=command,
                             expected=expected_text, node="", verdict="error",
                             actual=f"{type(exc).__name__}: {exc}", signature=exception_signature(exc),
                             duration_ms=elapsed)
    return actual_prompt, outcome, (time.perf_counter() - started) * 1000.0


def _check_raw(lab: LabLike, name: str, strict: bool, line: int, host: str, prompt: str, command: str,
               raw: str, passes: bool = True) -> tuple[CommandResult | None, str]:
    """The streamed replay's step (`replay_text`, `stream_file`), which keeps the result and the
    session's prompt alone: the raw block as written is read only when the output is not that
    block verbatim (`_verbatim`, most commands of a drill). Without `passes`, such a command whose
    prompt matched too gives no result (None): a report of failures makes none for a pass."""
    ran = _run_command(lab, name, strict, line, host, prompt, command, raw)
    if isinstance(ran, CommandResult):
        return ran, ""
    actual_prompt, outcome, elapsed = ran
    verbatim = _verbatim(raw, outcome.text, strict)
    if verbatim is None:
        return _compare(name, strict, line, host, prompt, command, _raw_block(raw, strict),
                        actual_prompt, outcome, elapsed)[0], actual_prompt
    prompt_ok = actual_prompt == prompt
    if prompt_ok and not passes:
        return None, actual_prompt
    return CommandResult(name, line, host, prompt, command, outcome.node or "", "pass" if prompt_ok else "fail",
                         verbatim, outcome.text, "" if prompt_ok else PROMPT_MISMATCH, elapsed), actual_prompt


def _check(lab: LabLike, name: str, strict: bool, line: int, host: str, prompt: str, command: str,
           block: Expected) -> Checked:
    """Run one command and compare what it printed with the expected block."""
    ran = _run_command(lab, name, strict, line, host, prompt, command, block)
    if isinstance(ran, CommandResult):
        return ran, "", (), False, False
    return _compare(name, strict, line, host, prompt, command, block, *ran)


def _compare(name: str, strict: bool, line: int, host: str, prompt: str, command: str, block: Expected,
             actual_prompt: str, outcome: OutcomeLike, elapsed: float) -> Checked:
    """A command's result from its outcome and the expected block."""
    text = outcome.text
    expected, has_regex, expected_text = block
    actual: tuple[str, ...]
    if text == expected_text and text:
        # the output is the expected block as written: its lines are the expected lines (already
        # without trailing blanks, and without blank edges unless strict), so nothing is split
        actual = expected
    else:
        # normalise(output_lines(text), strict), for lines that hold no "\n"
        if not text:
            actual = ()
        elif "\n" not in text:
            actual = (text.rstrip(" \t\r"),)
        else:
            actual = tuple([line.rstrip(" \t\r") for line in text.split("\n")])
        if not strict and actual and (actual[0] == "" or actual[-1] == ""):
            actual = tuple(strip_blank_edges(actual))
    # `match_entries`, answered at once when the lines are the expected ones and none of them is
    # a regular expression (a literal, `...` or `[..]` line matches itself; a ` (re)` line may not)
    matchers: tuple[LineMatcher, ...] = ()
    if (actual is expected or actual == expected) and not has_regex:
        output_ok = True
    else:
        matchers = _block(expected)[0]
        output_ok = match_entries(matchers, actual)
    prompt_ok = actual_prompt == prompt
    if not prompt_ok:
        signature = PROMPT_MISMATCH
    elif output_ok:
        signature = ""
    elif not outcome.ok:
        signature = error_signature(outcome.error_kind)
    else:
        signature = output_signature(matchers, actual)  # compiled above: the output did not match
    # positional, in the field order (transcript, line, router, prompt, command, node, verdict,
    # expected, actual, signature, duration_ms): a result per command, and keywords cost more
    result = CommandResult(name, line, host, prompt, command, outcome.node or "",
                           "pass" if prompt_ok and output_ok else "fail", expected_text, text,
                           signature, elapsed)
    return result, actual_prompt, actual, prompt_ok, output_ok


def run_file(path: Path | str, *, lab_factory: LabFactory | None = None,
             on_step: StepSink | None = None) -> ReplayRun:
    path = Path(path)
    try:
        text = read_transcript(path)
    except FileRefused as refused:
        return ReplayRun(TranscriptResult(str(path), error=f"{refused.shown}: cannot read: {refused.problem}"))
    return run_text(text, str(path), lab_factory=lab_factory, base_dir=path.parent, on_step=on_step)


def replay_text(text: str, name: str, *, lab_factory: LabFactory | None = None,
                base_dir: Path | None = None) -> TranscriptResult:
    """Replay transcript text against a fresh lab (scenario paths resolve against `base_dir`,
    default: the directory part of `name`)."""
    result = TranscriptResult(name)
    append = result.commands.append
    run = _run_text(text, name, lab_factory, base_dir, None, lambda command, _prompt, _strict: append(command))
    return run.result if run.result.error is not None else result


def stream_text(text: str, name: str, on_result: ResultSink, *, lab_factory: LabFactory | None = None,
                base_dir: Path | None = None, passes: bool = True) -> ReplayRun:
    """Replay transcript text as `replay_text` does (the path the benchmarks and the Spark jobs
    measure), handing each command's result, the session's prompt before it and the transcript's
    strict-blank-lines to `on_result` as it comes; nothing is kept per command (`counts` has the
    verdicts, `result.error` a problem with the text). What `solace-shell replay` and grading
    run: a failure's diff needs no more than the result and that prompt. With `passes` False,
    only the commands that did not pass reach `on_result` (a pass is counted, and no result is
    made for it: the text report of `solace-shell replay` shows failures alone)."""
    return _run_text(text, name, lab_factory, base_dir, None, on_result, passes)


def stream_file(path: Path | str, on_result: ResultSink, *, lab_factory: LabFactory | None = None,
                passes: bool = True) -> ReplayRun:
    """`stream_text` over one file; its scenario path is relative to the file."""
    path = Path(path)
    try:
        text = read_transcript(path)
    except OSError as exc:
        return ReplayRun(TranscriptResult(str(path), error=f"{path}: cannot read: {exc.strerror or exc}"))
    return stream_text(text, str(path), on_result, lab_factory=lab_factory, base_dir=path.parent, passes=passes)


def replay_file(path: Path | str, *, lab_factory: LabFactory | None = None) -> TranscriptResult:
    """Replay one transcript file; its scenario path is relative to the file."""
    path = Path(path)
    try:
        text = read_transcript(path)
    except FileRefused as refused:
        return TranscriptResult(str(path), error=f"{refused.shown}: cannot read: {refused.problem}")
    return replay_text(text, str(path), lab_factory=lab_factory, base_dir=path.parent)
