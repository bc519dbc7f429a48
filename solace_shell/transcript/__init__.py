"""Golden transcripts: parse, match, replay, accept, diff and record CLI sessions.

docs/transcripts.md describes the file format; results.py is the record contract with spark_jobs.
"""

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

__all__ = [
    "AcceptReport", "CommandResult", "Header", "Problem", "Recorder", "ReplayRun", "Step", "StepRun",
    "Transcript", "TranscriptError", "TranscriptResult", "accept", "accept_text", "command_diff",
    "literal_line", "match_block", "parse_header", "parse_transcript", "redact", "replay_file",
    "replay_text", "run_file", "run_replay_command", "run_text",
]
