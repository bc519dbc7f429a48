"""Driving the REPL in-process with a pipe input and DummyOutput (the real lab behind it)."""

from __future__ import annotations

import io
from typing import Any

from prompt_toolkit.input import create_pipe_input
from prompt_toolkit.output import DummyOutput

from solace_shell.lab import Lab


class ListRecorder:
    def __init__(self) -> None:
        self.records: list[tuple[str, str, str]] = []

    def record(self, prompt: str, command: str, output: str) -> None:
        self.records.append((prompt, command, output))


def drive(lab: Lab, keys: str, start: str = "NY_Appliance1", **kwargs: Any) -> tuple[int, str]:
    """Run the REPL on `keys` (closing the input at the end = Ctrl-D); returns (exit code, stdout)."""
    from solace_shell.repl import run_repl

    out = io.StringIO()
    with create_pipe_input() as pipe:
        pipe.send_text(keys)
        pipe.close()
        kwargs.setdefault("history_path", None)
        code = run_repl(lab, start, input=pipe, output=DummyOutput(), stdout=out, **kwargs)
    return code, out.getvalue()
