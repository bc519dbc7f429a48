"""The compiled-code cache of the data classes' methods (solace_shell/dataclass_code.py): a class
made through it behaves as one made without it, the cache survives a process, and a damaged or
foreign file only means compiling again."""

from __future__ import annotations

import dataclasses
import os
import subprocess
import sys
from pathlib import Path

import pytest

from solace_shell import dataclass_code

ROOT = Path(__file__).resolve().parents[2]


def _make() -> type:
    @dataclasses.dataclass(frozen=True, order=True)
    class Point:
        x: int
        y: int = 2
        tags: tuple[str, ...] = dataclasses.field(default_factory=tuple)

    return Point


@pytest.fixture
def cache(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    path = tmp_path / "dataclass-code.marshal"
    monkeypatch.setattr(dataclass_code, "_FILE", path)
    monkeypatch.setattr(dataclass_code, "_codes", {})
    monkeypatch.setattr(dataclass_code, "_used", set())
    monkeypatch.setattr(dataclass_code, "_added", 0)
    monkeypatch.setattr(sys, "dont_write_bytecode", False)
    monkeypatch.setattr(dataclasses, "exec", dataclass_code._exec, raising=False)
    return path


def test_a_class_made_through_the_cache_behaves_as_without_it(cache: Path) -> None:
    made = _make()
    assert dataclass_code._added > 0        # its methods went through the cache
    with pytest.MonkeyPatch.context() as plain:
        plain.delattr(dataclasses, "exec")
        reference = _make()
    for cls in (made, reference):
        p = cls(1)
        assert repr(p).endswith("Point(x=1, y=2, tags=())")
        assert p == cls(1, 2, ()) and p < cls(2) and hash(p) == hash(cls(1))
        with pytest.raises(dataclasses.FrozenInstanceError):
            p.x = 3
    assert vars(made)["__init__"].__annotations__ == vars(reference)["__init__"].__annotations__


def test_the_code_is_kept_and_found_again(cache: Path) -> None:
    _make()
    assert dataclass_code._added > 0
    dataclass_code._save()
    assert cache.is_file()
    dataclass_code._codes.clear()
    dataclass_code._added = 0
    dataclass_code._load()
    _make()
    assert dataclass_code._added == 0       # every method found, none compiled


@pytest.mark.parametrize("content", [b"", b"not marshal", b"\x00" * 64, b"{"])
def test_a_damaged_file_means_compiling_again(cache: Path, content: bytes) -> None:
    cache.write_bytes(content)
    dataclass_code._load()
    assert dataclass_code._codes == {}
    assert _make()(1).y == 2


def test_nothing_is_written_when_python_writes_no_byte_code(cache: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(sys, "dont_write_bytecode", True)
    _make()
    dataclass_code._save()
    assert not cache.exists()


def test_a_one_shot_command_prints_the_same_with_and_without_the_cache(tmp_path: Path) -> None:
    env = dict(os.environ, PYTHONPATH=str(ROOT), SOLACE_SHELL_DB=str(tmp_path / "lab.sqlite"))
    env.pop("PYTHONDONTWRITEBYTECODE", None)
    cmd = [sys.executable, "-m", "solace_shell.cli", "-c", "show message-vpn * replication", "-c", "show hostname"]
    outputs = [subprocess.run(cmd, env=env, capture_output=True, text=True, timeout=120, check=True).stdout
               for _ in range(3)]           # the first writes the cache (when it can), the others read it
    assert outputs[0] == outputs[1] == outputs[2] and "Hostname: NY_Appliance1" in outputs[0]
