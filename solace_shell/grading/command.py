"""`solace-shell grade`: grade transcripts against a runbook, as text or JSON lines."""

from __future__ import annotations

import json
from pathlib import Path
from typing import TextIO

from .loader import RunbookError, load_runbook
from .report import grade_json, grade_lines
from .results import GradeError
from .transcript import grade_transcript

EXIT_PASSED, EXIT_FAILED, EXIT_ERROR = 0, 1, 2


def run_grade_command(runbook_name: str, paths: list[Path], json_out: bool, out: TextIO, err: TextIO) -> int:
    """Grade every transcript; 0 when all pass, 1 when one fails its runbook, 2 when the runbook
    or a transcript cannot be used (each problem one line on `err`; the others are still graded)."""
    try:
        runbook = load_runbook(runbook_name)
    except RunbookError as exc:
        for problem in exc.problems:
            err.write(f"solace-shell: {problem}\n")
        return EXIT_ERROR
    code = EXIT_PASSED
    for path in paths:
        try:
            grade = grade_transcript(runbook, path)
        except GradeError as exc:
            err.write(f"solace-shell: {exc}\n")
            if json_out:
                out.write(json.dumps(exc.as_json(), sort_keys=True) + "\n")
            code = EXIT_ERROR
            continue
        if json_out:
            out.write(grade_json(grade) + "\n")
        else:
            out.write("\n".join(grade_lines(grade)) + "\n")
        if not grade.passed and code == EXIT_PASSED:
            code = EXIT_FAILED
    out.flush()
    return code
