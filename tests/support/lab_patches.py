"""Two lines no real command can produce, patched into the real `Lab.execute` for tests only:
`echo TEXT` prints TEXT (`\\n` starts a new line: output that looks like transcript syntax), and
`boom` raises (an internal crash). Every other line runs on the real lab."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager

import pytest

from solace_shell.lab import Lab
from solace_shell.results import Outcome


@contextmanager
def echo_and_boom() -> Iterator[None]:
    real_execute = Lab.execute

    def execute(self: Lab, target: str, line: str) -> Outcome:
        if line == "boom":
            raise RuntimeError("the lab exploded")
        if line == "echo" or line.startswith("echo "):
            return Outcome(line[5:].replace("\\n", "\n"), True, "echo")
        return real_execute(self, target, line)

    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(Lab, "execute", execute)
        yield
