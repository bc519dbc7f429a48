"""`accept`: make a transcript agree with the emulator by rewriting only what failed.

Only blocks of commands with verdict `fail` change. Within such a block the expected lines are
aligned with the new output (see align.py): a line (literal or matcher) that still matches its
part of the output is kept byte for byte, the rest is replaced by the actual lines (escaped with
`literal_line` when they would read as syntax). Comments stay next to the line they preceded, blank
separator lines at the edges of a block stay, and a wrong prompt is replaced by the session's
prompt. Header, comments and passing blocks are untouched, so `accept` diffs review well.
Commands with verdict `error` are never accepted: an exception is not an expectation.
"""

from __future__ import annotations

import os
import stat
import tempfile
from dataclasses import dataclass, field
from pathlib import Path

from solace_shell.transcript.align import align
from solace_shell.transcript.format import COMMENT_PREFIX, clean, literal_line, match_prompt
from solace_shell.transcript.lab_api import LabFactory
from solace_shell.transcript.replay import StepRun, run_text
from solace_shell.transcript.results import TranscriptResult
from state_store.user_files import TRANSCRIPT_MAX_BYTES, FileRefused, read_bytes

_BOM = b"\xef\xbb\xbf"


@dataclass
class AcceptReport:
    transcript: str
    before: TranscriptResult                       # the replay that was accepted
    rewritten: list[int] = field(default_factory=list)  # input lines whose block or prompt changed

    @property
    def changed(self) -> bool:
        return bool(self.rewritten)


def accept_text(text: str, name: str, *, lab_factory: LabFactory | None = None,
                base_dir: Path | None = None) -> tuple[str, AcceptReport]:
    """Replay `text` and return (new text, report); the pure core of `accept`."""
    run = run_text(text, name, lab_factory=lab_factory, base_dir=base_dir)
    report = AcceptReport(name, run.result)
    if run.transcript is None:
        return text, report
    raw = list(run.transcript.raw_lines)
    nl = "\r\n" if sum(r.endswith("\r\n") for r in raw) * 2 > len(raw) else "\n"
    # Rewrite from the end so earlier raw indexes stay valid.
    for step_run in reversed(run.steps):
        if step_run.result.verdict != "fail":
            continue
        step = step_run.step
        changed = False
        if not step_run.output_ok:
            raw[step.start:step.end] = _rewrite_block(raw, step_run, nl)
            changed = True
        if not step_run.prompt_ok:
            parsed = match_prompt(step_run.actual_prompt)
            if parsed is not None and parsed.prompt == step_run.actual_prompt and parsed.host == step.host:
                old = raw[step.line - 1]
                raw[step.line - 1] = step_run.actual_prompt + old[len(step.prompt):]
                changed = True
        if changed:
            report.rewritten.append(step.line)
    report.rewritten.reverse()
    for i in range(len(raw) - 1):  # a kept last line without "\n" may no longer be last
        if not raw[i].endswith("\n"):
            raw[i] += nl
    return "".join(raw), report


def _rewrite_block(raw: list[str], step_run: StepRun, nl: str) -> list[str]:
    step = step_run.step
    entry_idx = [n - 1 for n in step.expected_lines]
    if not entry_idx:  # nothing expected: new output goes right after the input line
        leading, middle_end, trailing_start = [], step.start, step.start
    else:
        leading = raw[step.start:entry_idx[0]]
        middle_end, trailing_start = entry_idx[-1] + 1, entry_idx[-1] + 1
    trailing = raw[trailing_start:step.end]

    # comments inside the middle travel with the expected line they precede
    before: dict[int, list[str]] = {}
    pending: list[str] = []
    k = 0
    for i in range(entry_idx[0] if entry_idx else step.start, middle_end):
        if k < len(entry_idx) and i == entry_idx[k]:
            before[k] = pending
            pending = []
            k += 1
        elif clean(raw[i]).startswith(COMMENT_PREFIX):
            pending.append(raw[i])

    actual = step_run.actual_lines
    middle: list[str] = []
    for op in align(step_run.matchers, actual):
        if op.entry is not None:
            middle.extend(before.get(op.entry, []))
        if op.kind == "keep":
            middle.append(raw[entry_idx[op.entry]])  # type: ignore[index]
        elif op.kind in ("replace", "insert"):
            middle.append(literal_line(actual[op.lo]) + nl)
    return [*leading, *middle, *trailing]


def accept(path: Path | str, *, lab_factory: LabFactory | None = None) -> AcceptReport:
    """Replay the file and rewrite, in place, the expected output (and prompt) of failing commands.

    The file is written only when something changed; a byte-order mark and undecodable bytes
    elsewhere survive (a file that does not parse is never rewritten).
    """
    path = Path(path)
    try:
        data = read_bytes(path, TRANSCRIPT_MAX_BYTES)
    except FileRefused as refused:  # the replay after it reports the file; nothing is rewritten
        return AcceptReport(str(path), TranscriptResult(str(path), error=str(refused)))
    text = data.decode("utf-8", errors="surrogateescape").removeprefix("\ufeff")  # as `read_transcript`
    new_text, report = accept_text(text, str(path), lab_factory=lab_factory, base_dir=path.parent)
    if report.changed and new_text != text:
        out = new_text.encode("utf-8", errors="surrogateescape")
        _rewrite(path, _BOM + out if data.startswith(_BOM) else out)
    return report


def _rewrite(path: Path, data: bytes) -> None:
    """Replace a file's bytes all at once, through a symbolic link and keeping its permissions.

    Why not write in place: a golden transcript cut short (Ctrl-C, a full disk, a crash mid-write)
    would lose the user's expectations; here the file is either the old one or the new one."""
    target = path.resolve()
    mode = stat.S_IMODE(target.stat().st_mode)
    fd, staged = tempfile.mkstemp(prefix=f".{target.name}.", suffix=".accepting", dir=target.parent)
    try:
        with os.fdopen(fd, "wb") as fh:
            fh.write(data)
            fh.flush()
            os.fsync(fh.fileno())
        os.chmod(staged, mode)
        os.replace(staged, target)
    except BaseException:
        Path(staged).unlink(missing_ok=True)
        raise
