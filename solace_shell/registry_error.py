"""The error of an installation whose registries do not fit together.

Why its own module: the handler registry raises it for a command whose handler does not exist,
and the checks (``solace_shell.registries``) and the loader raise it with every problem found;
the registry sits below both, so the error sits below it and imports nothing.
"""

from __future__ import annotations


class RegistryError(Exception):
    """Every problem found between the grammar, handlers, renderers and the message table."""

    def __init__(self, problems: list[str]) -> None:
        super().__init__("\n".join(problems))
        self.problems = problems
