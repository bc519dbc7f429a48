"""Human-readable diffs of failing commands, located by file and line.

The diff shows the input line on both sides, so a prompt mismatch (wrong mode) is visible as a
changed first line; expected lines are shown as written (matchers included), actual lines as printed.
"""

from __future__ import annotations

import difflib

from solace_shell.transcript.format import format_input_line
from solace_shell.transcript.match import normalise, output_lines
from solace_shell.transcript.results import CommandResult
from solace_shell.transcript.shown import capped, short_command


def command_diff(result: CommandResult, actual_prompt: str | None = None, *, strict_blank: bool = False) -> str:
    """A unified diff (labels `FILE:LINE expected` / `FILE:LINE actual`) of one command's
    expected vs actual output; "" when it passed. `actual_prompt` is the session's prompt when
    it differed from the written one (replay keeps it on `StepRun`). Actual lines are normalised
    as they were compared (trailing blanks, and blank edges unless `strict_blank`). A long command
    is shown by its start (`shown.short_command`), each output capped (`shown.capped`)."""
    if result.verdict == "pass":
        return ""
    command = short_command(result.command)  # shown whole (capped) on the FAIL line above the diff
    expected = [format_input_line(result.prompt, command), *output_lines(capped(result.expected))]
    actual_input = format_input_line(actual_prompt or result.prompt, command)
    actual = [actual_input, *normalise(output_lines(capped(result.actual)), strict_blank)]
    where = f"{result.transcript}:{result.line}"
    lines = difflib.unified_diff(expected, actual, fromfile=f"{where} expected", tofile=f"{where} actual",
                                 lineterm="")
    return "\n".join(lines)
