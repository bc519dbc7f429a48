"""The interactive shell under random keys in a pseudo-terminal (tests/support/repl_fuzz.py): control keys,
Ctrl-V sequences, escape sequences, window resizes, bytes that are not UTF-8 and a paste of 1 MB.
No traceback, no "Unhandled exception", no hang, the lab's state as it was. One fixed seed here
(about ten seconds); bench/bench_repl_fuzz.py runs as many as asked."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.support.repl_fuzz import fuzz_once

PASTE = 1 << 20


@pytest.mark.parametrize(("seed", "keys", "paste"), [(7, 150, PASTE)])
def test_random_keys_leave_a_working_shell_and_an_intact_lab(tmp_path: Path, seed: int, keys: int,
                                                             paste: int) -> None:
    result = fuzz_once(seed, tmp_path, keys=keys, paste_bytes=paste)
    assert result.clean, "\n".join(result.problems)
