"""The one place the Spark jobs touch the replay engine.

`solace_shell.transcript.replay.replay_text(text, name) -> TranscriptResult` is the contract. The
jobs never import it directly: they carry a *replay spec* (`"module:callable"`) to the executors and
resolve it there, once per partition. That keeps the executor code picklable by reference, lets tests
inject a fake lab (`solace_shell.transcript.fake_lab:FakeLab`) through the same path the real one takes,
and gives one obvious switch (`--replay` / `SOLACE_CONFORMANCE_REPLAY`) should the engine move.

A spec may name either
- a function `(text: str, name: str[, *, base_dir]) -> TranscriptResult` (when it takes `base_dir`,
  the directory of a local input file is passed, so `#: scenario:` paths resolve next to the file
  whatever the transcript's display name is), or
- a factory marked with `factory = True` attribute (or a class) that, called with no arguments,
  returns such a function; the factory is called once per partition ("one emulator per partition"),
  the function once per transcript ("a fresh lab per transcript" is the replay's own promise).
"""

from __future__ import annotations

import importlib
import inspect
import os
from pathlib import Path
from typing import Callable

from solace_shell.transcript.results import TranscriptResult

ReplayFn = Callable[[str, str], TranscriptResult]

REAL_SPEC = "solace_shell.transcript.replay:replay_text"
FAKE_SPEC = "spark_jobs.testing:replay_with_fake_lab"
ENV_VAR = "SOLACE_CONFORMANCE_REPLAY"

# Factories the real module may grow; the first one present wins (per partition), else replay_text.
_FACTORY_NAMES = ("make_replayer", "Replayer")


class ReplayUnavailable(RuntimeError):
    """The requested replay engine cannot be imported (e.g. it has not landed yet)."""


def default_spec() -> str:
    return os.environ.get(ENV_VAR) or REAL_SPEC


def real_replay_available() -> bool:
    try:
        load_replayer(REAL_SPEC)
    except ReplayUnavailable:
        return False
    return True


def _resolve(spec: str) -> object:
    module_name, _, attr = spec.partition(":")
    if not module_name or not attr:
        raise ValueError(f"replay spec must look like 'package.module:function', got {spec!r}")
    try:
        module = importlib.import_module(module_name)
    except ImportError as exc:
        raise ReplayUnavailable(f"cannot import {module_name}: {exc}") from exc
    if spec == REAL_SPEC:
        for name in _FACTORY_NAMES:
            factory = getattr(module, name, None)
            if callable(factory):
                return _Factory(factory)
    try:
        return getattr(module, attr)
    except AttributeError as exc:
        raise ReplayUnavailable(f"{module_name} has no {attr}") from exc


class _Factory:
    def __init__(self, make: Callable[[], object]) -> None:
        self.make = make


class Replayer:
    """A resolved engine: `replayer(text, name, base_dir=None) -> TranscriptResult`."""

    def __init__(self, fn: ReplayFn) -> None:
        self.fn = fn
        try:
            params = inspect.signature(fn).parameters
            self.takes_base_dir = "base_dir" in params or any(
                p.kind is inspect.Parameter.VAR_KEYWORD for p in params.values())
        except (TypeError, ValueError):
            self.takes_base_dir = False

    def __call__(self, text: str, name: str, base_dir: str | None = None) -> TranscriptResult:
        if base_dir is not None and self.takes_base_dir:
            return self.fn(text, name, base_dir=Path(base_dir))  # type: ignore[call-arg]
        return self.fn(text, name)


def load_replayer(spec: str | None = None) -> Replayer:
    """Resolve a spec into a ready replay engine (call once per partition)."""
    target = _resolve(spec or default_spec())
    if isinstance(target, _Factory):
        made = target.make()
        fn = getattr(made, "replay_text", made)
    elif isinstance(target, type) or getattr(target, "factory", False):
        made = target()  # type: ignore[operator]
        fn = getattr(made, "replay_text", made)
    else:
        fn = target
    if not callable(fn):
        raise ReplayUnavailable(f"{spec} does not resolve to a callable")
    return Replayer(fn)  # type: ignore[arg-type]
