"""A start that does only what its command needs.

The lab's own handler and renderer modules are imported as their keys are first asked for, from
an index an earlier start kept (solace_shell/registry_index.py, solace_shell/lazy_registry.py):
the same output as importing them all, only the modules a command uses, and an index that no
longer describes the source (a stamp changed, a damaged file, a module it should not name) is not
used. The collector is paused while a start builds what lives as long as the process
(solace_shell/collector.py), and left as it was."""

from __future__ import annotations

import gc
import json
import marshal
import os
import subprocess
import sys
from pathlib import Path

import pytest

from solace_shell import collector
from solace_shell.lazy_registry import LazyRegistry

ROOT = Path(__file__).resolve().parents[2]
OWN = ("solace_shell.handlers.", "solace_shell.renderers.", "solace_shell.personalities.solace.handlers.",
       "solace_shell.personalities.solace.renderers.")

# Opens a lab with the index kept at argv[1] and runs a few commands of different modules; prints
# their output, the own handler and renderer modules imported, and whether the index was used.
PROBE = f"""
OWN = {OWN!r}
import json, sys
from pathlib import Path
from solace_shell import registry_index
registry_index._FILE = Path(sys.argv[1])
from solace_shell.lab import Lab
lab = Lab.open(sys.argv[2])
texts = [lab.execute("NY_Appliance1", line).text
         for line in ("show hostname", "show queue *", "enable", "show nonsense", "show message-spool")]
texts.append(lab.execute("lab", "status").text)
own = sorted(m for m in sys.modules if m.startswith(OWN))
print(json.dumps([texts, own, registry_index.kept() is not None]))
"""


def _probe(index: Path, lab: Path) -> tuple[list[str], list[str], bool]:
    env = dict(os.environ, PYTHONPATH=str(ROOT))
    done = subprocess.run([sys.executable, "-c", PROBE, str(index), str(lab)], env=env, capture_output=True,
                          text=True, timeout=120, cwd=ROOT)
    assert done.returncode == 0, done.stderr
    texts, own, used = json.loads(done.stdout)
    return texts, own, used


@pytest.fixture
def first(tmp_path: Path) -> tuple[Path, list[str], list[str]]:
    """A start without an index: every own module imported, then the index kept."""
    index = tmp_path / "own-registries.marshal"
    texts, own, used = _probe(index, tmp_path / "lab.sqlite")
    assert not used and index.is_file()
    return index, texts, own


def test_a_kept_index_imports_only_the_modules_the_commands_use(first: tuple[Path, list[str], list[str]],
                                                                 tmp_path: Path) -> None:
    index, texts, everything = first
    again, own, used = _probe(index, tmp_path / "lab.sqlite")
    assert used and again == texts
    assert "Hostname: NY_Appliance1" in texts[0] and "Invalid command input" in texts[3]
    assert set(own) < set(everything) and len(own) < len(everything) / 2
    assert "solace_shell.personalities.solace.handlers.config_objects" in everything
    assert "solace_shell.personalities.solace.handlers.config_objects" not in own


def _rewrite(index: Path, change: object) -> None:
    form, version, stamps, handlers, renderers = marshal.loads(index.read_bytes())
    if change == "stamp":
        path, mtime, size = stamps[-1]
        stamps = (*stamps[:-1], (path, mtime + 1, size))
    elif change == "directory":   # a module added to a scanned directory changes its stamp
        path, mtime, size = stamps[0]
        stamps = ((path, mtime - 1, size), *stamps[1:])
    elif change == "module":      # a module outside the lab's own part is never imported from it
        key = next(iter(handlers))
        handlers = {**handlers, key: ("os", *handlers[key][1:])}
    elif change == "python":
        version = "2.7"
    index.write_bytes(marshal.dumps((form, version, stamps, handlers, renderers)))


@pytest.mark.parametrize("change", ["stamp", "directory", "module", "python", b"", b"junk", b"\x00" * 40])
def test_an_index_that_does_not_describe_the_source_is_not_used(first: tuple[Path, list[str], list[str]],
                                                                tmp_path: Path, change: object) -> None:
    index, texts, everything = first
    if isinstance(change, bytes):
        index.write_bytes(change)
    else:
        _rewrite(index, change)
    again, own, used = _probe(index, tmp_path / "lab.sqlite")
    assert (again, own, used) == (texts, everything, False)
    assert _probe(index, tmp_path / "lab.sqlite")[2]   # kept again by that start


def test_a_lazy_registry_imports_the_module_of_a_key_when_it_is_asked_for(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    (tmp_path / "lazy_probe_registry.py").write_text(
        "from solace_shell.lazy_registry import LazyRegistry\nR = LazyRegistry()\n", encoding="utf-8")
    (tmp_path / "lazy_probe_part.py").write_text(
        "from lazy_probe_registry import R\nR['a'] = 1\nR['b'] = 2\n", encoding="utf-8")
    monkeypatch.syspath_prepend(str(tmp_path))
    for name in ("lazy_probe_registry", "lazy_probe_part"):
        monkeypatch.delitem(sys.modules, name, raising=False)
    from lazy_probe_registry import R

    R.locate = {"a": "lazy_probe_part", "b": "lazy_probe_part"}.get
    assert "a" in R and "z" not in R and list(R) == [] and not R.registered("a")
    assert "lazy_probe_part" not in sys.modules           # `in` imports nothing
    assert R.get("z", 5) == 5 and R.get("a") == 1 and "lazy_probe_part" in sys.modules
    assert R.registered("b") and R["b"] == 2 and dict(R) == {"a": 1, "b": 2}
    with pytest.raises(KeyError):
        R["z"]


def test_a_registry_without_locate_is_a_dict() -> None:
    plain: LazyRegistry[str, int] = LazyRegistry()
    plain["x"] = 1
    assert plain.get("x") == 1 and plain.get("y") is None and plain.get("y", 3) == 3
    assert "x" in plain and "y" not in plain and plain == {"x": 1}
    with pytest.raises(KeyError):
        plain["y"]


def test_the_collector_is_paused_inside_the_block_and_as_it_was_after() -> None:
    assert gc.isenabled()
    with collector.paused():
        assert not gc.isenabled()
    assert gc.isenabled()
    with pytest.raises(RuntimeError), collector.paused():
        raise RuntimeError("inside")
    assert gc.isenabled()
    gc.disable()
    try:
        with collector.paused():
            pass
        assert not gc.isenabled()
    finally:
        gc.enable()


def test_what_a_paused_block_built_is_frozen_until_thawed_and_never_after_an_exception() -> None:
    assert gc.get_freeze_count() == 0
    with pytest.raises(RuntimeError), collector.paused(freeze=True):
        raise RuntimeError("the start failed")
    assert gc.get_freeze_count() == 0 and gc.isenabled()
    try:
        with collector.paused(freeze=True):
            built = [[n] for n in range(100)]
        assert gc.get_freeze_count() >= len(built) and gc.isenabled()
    finally:
        collector.thawed()
    assert gc.get_freeze_count() == 0
