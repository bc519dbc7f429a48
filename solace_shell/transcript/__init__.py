"""Golden transcripts: parse, match, replay, accept, diff and record CLI sessions.

docs/transcripts.md describes the file format; results.py is the record contract with spark_jobs.
The names below are imported from their modules when first asked for (PEP 562): replaying
imports neither `accept` (temporary files, alignment) nor `record`, which it does not use.
"""

from __future__ import annotations

from importlib import import_module
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from solace_shell.transcript.accept import AcceptReport, accept, accept_text
    from solace_shell.transcript.diff import command_diff
    from solace_shell.transcript.format import (
        Header,
        Problem,
        Step,
        Transcript,
        TranscriptError,
        literal_line,
        parse_header,
        parse_transcript,
    )
    from solace_shell.transcript.match import match_block
    from solace_shell.transcript.record import Recorder, redact
    from solace_shell.transcript.replay import ReplayRun, StepRun, replay_file, replay_text, run_file, run_text
    from solace_shell.transcript.results import CommandResult, TranscriptResult
    from solace_shell.transcript.runner import run_replay_command

_HOMES = {
    "accept": ("AcceptReport", "accept", "accept_text"),
    "diff": ("command_diff",),
    "format": ("Header", "Problem", "Step", "Transcript", "TranscriptError", "literal_line", "parse_header",
               "parse_transcript"),
    "match": ("match_block",),
    "record": ("Recorder", "redact"),
    "replay": ("ReplayRun", "StepRun", "replay_file", "replay_text", "run_file", "run_text"),
    "results": ("CommandResult", "TranscriptResult"),
    "runner": ("run_replay_command",),
}
_HOME = {name: module for module, names in _HOMES.items() for name in names}

__all__ = [
    "AcceptReport", "CommandResult", "Header", "Problem", "Recorder", "ReplayRun", "Step", "StepRun",
    "Transcript", "TranscriptError", "TranscriptResult", "accept", "accept_text", "command_diff",
    "literal_line", "match_block", "parse_header", "parse_transcript", "redact", "replay_file",
    "replay_text", "run_file", "run_replay_command", "run_text",
]


def __getattr__(name: str) -> Any:
    module = _HOME.get(name)
    if module is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    value = getattr(import_module(f"{__name__}.{module}"), name)
    globals()[name] = value
    return value
