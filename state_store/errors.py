"""Engine errors carry a code and parameters, never display text.

The shell owns every user-facing sentence (solace_shell/messages.py); the engine only says *what*
went wrong, so the same failure can be rendered as CLI text, JSON or a transcript diff.
"""

from __future__ import annotations


class EngineError(Exception):
    """A broker operation was refused; the enclosing transaction is rolled back."""

    def __init__(self, code: str, **params: object) -> None:
        super().__init__(code, params)
        self.code = code
        self.params = params

    def __repr__(self) -> str:
        return f"EngineError({self.code!r}, {self.params!r})"


class LabFileError(Exception):
    """A lab database or scenario file cannot be used (corrupt, foreign, wrong schema version)."""

    def __init__(self, path: str, problem: str) -> None:
        super().__init__(f"{path}: {problem}")
        self.path = path
        self.problem = problem
