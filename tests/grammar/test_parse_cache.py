"""The parsed grammar is kept between processes like byte-code, and never trusted blindly.

Each test runs a fresh interpreter on a private copy of the grammar package (so its
`__pycache__` is the test's own) and counts how often the data is really parsed.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

import grammar
from grammar.parse_cache import DISABLE_VARIABLE

PROBE = """
import grammar.leaves as leaves_module
import grammar.loader as loader
parses = []
leaf_reads = []
parse, read_leaves = loader._parse, leaves_module.read_leaves
loader._parse = lambda *args: parses.append(1) or parse(*args)
leaves_module.read_leaves = lambda *args: leaf_reads.append(1) or read_leaves(*args)
import grammar
found = grammar.load_grammar()
leaves_module.leaves()
leaves_module.levels()
print(len(parses), len(leaf_reads), len(found.commands))
"""


@pytest.fixture
def package(tmp_path: Path) -> Path:
    source = Path(grammar.__file__).parent
    shutil.copytree(source, tmp_path / "grammar", ignore=shutil.ignore_patterns("__pycache__"))
    return tmp_path / "grammar"


def _run(package: Path, code: str = PROBE, **env: str) -> subprocess.CompletedProcess[str]:
    environ = {k: v for k, v in os.environ.items() if k != DISABLE_VARIABLE}
    environ.update(env, PYTHONPATH=str(package.parent), PYTHONDONTWRITEBYTECODE="1")
    return subprocess.run([sys.executable, "-c", code], env=environ, capture_output=True, text=True, cwd=package.parent,
                          timeout=120, check=False)


def _counts(package: Path, **env: str) -> tuple[int, int, int]:
    result = _run(package, **env)
    assert result.returncode == 0 and result.stderr == "", result.stderr
    parses, leaf_reads, commands = (int(word) for word in result.stdout.split())
    return parses, leaf_reads, commands


def _pickle(package: Path, name: str) -> Path:
    [found] = (package / "__pycache__").glob(f"{name}.*.pickle")
    return found


def test_a_second_load_uses_the_cache(package: Path) -> None:
    first = _counts(package)
    assert first[:2] == (1, 1)
    assert _counts(package) == (0, 0, first[2])


def test_a_changed_data_file_invalidates_it(package: Path) -> None:
    _counts(package)
    command_file = sorted((package / "data" / "commands").glob("*.yaml"))[0]
    command_file.write_text(command_file.read_text(encoding="utf-8") + "\n# changed\n", encoding="utf-8")
    assert _counts(package)[:2] == (1, 0)
    leaves_file = package / "data" / "leaves.yaml"
    leaves_file.write_text(leaves_file.read_text(encoding="utf-8") + "\n# changed\n", encoding="utf-8")
    assert _counts(package)[:2] == (1, 1)
    assert _counts(package)[:2] == (0, 0)


def test_a_changed_source_file_invalidates_it(package: Path) -> None:
    _counts(package)
    model = package / "model.py"
    model.write_text(model.read_text(encoding="utf-8") + "\n# changed\n", encoding="utf-8")
    assert _counts(package)[:2] == (1, 1)


@pytest.mark.parametrize("damage", [b"", b"not a pickle at all", None])
def test_a_corrupt_cache_file_falls_back_to_parsing_and_is_rewritten(package: Path, damage: bytes | None) -> None:
    expected = _counts(package)
    cache = _pickle(package, "grammar")
    good = cache.read_bytes()
    key = good.split(b"\n", 1)[0] + b"\n"
    damaged = key + good[len(key):len(key) + 100] if damage is None else key + damage
    cache.write_bytes(damaged)
    assert _counts(package) == (1, 0, expected[2])
    assert cache.read_bytes() != damaged
    assert _counts(package)[:2] == (0, 0)


def test_a_cache_file_others_may_write_is_not_used(package: Path) -> None:
    _counts(package)
    cache = _pickle(package, "grammar")
    for mode in (0o664, 0o646):
        cache.chmod(mode)
        assert _counts(package)[:2] == (1, 0)
        assert not cache.stat().st_mode & 0o022
        assert _counts(package)[:2] == (0, 0)


def test_a_symlinked_cache_file_is_not_used(package: Path, tmp_path: Path) -> None:
    _counts(package)
    cache = _pickle(package, "grammar")
    elsewhere = tmp_path / "elsewhere.pickle"
    cache.rename(elsewhere)
    cache.symlink_to(elsewhere)
    assert _counts(package)[:2] == (1, 0)
    assert not cache.is_symlink()


def test_a_package_without_a_writable_cache_directory_just_parses(package: Path) -> None:
    # Root may write anywhere, so the directory is made impossible to create rather than read-only.
    (package / "__pycache__").write_text("", encoding="utf-8")
    package.chmod(0o555)
    try:
        first = _counts(package)
        assert first[:2] == (1, 1)
        assert _counts(package) == first
    finally:
        package.chmod(0o755)


def test_the_variable_turns_it_off(package: Path) -> None:
    _counts(package)
    assert _counts(package, **{DISABLE_VARIABLE: "1"})[:2] == (1, 1)


def test_shell_dependent_checks_still_run_and_report_exactly_as_without_cache(package: Path) -> None:
    code = """
import grammar
try:
    grammar.load_grammar(handlers={"no-such-handler"}, completion_sources={"vpn"})
except grammar.GrammarError as exc:
    print(exc)
"""
    _counts(package)
    cached_run = _run(package, code)
    plain_run = _run(package, code, **{DISABLE_VARIABLE: "1"})
    assert cached_run.returncode == plain_run.returncode == 0
    assert "does not exist" in cached_run.stdout and "unknown completion source" in cached_run.stdout
    assert cached_run.stdout == plain_run.stdout


def test_other_data_directories_are_never_cached(package: Path, tmp_path: Path) -> None:
    shutil.copytree(package / "data", tmp_path / "other")
    code = f"""
import grammar.loader as loader
parses = []
parse = loader._parse
loader._parse = lambda *args: parses.append(1) or parse(*args)
from pathlib import Path
loader.load_grammar_from(Path({str(tmp_path / "other")!r}))
loader.load_grammar_from(Path({str(tmp_path / "other")!r}))
print(len(parses))
"""
    result = _run(package, code)
    assert result.stdout.split() == ["2"], result.stderr
    assert not (package / "__pycache__").exists() or not list((package / "__pycache__").glob("grammar.*"))


def test_what_comes_back_from_the_cache_equals_a_fresh_parse(package: Path) -> None:
    code = """
import grammar.leaves as leaves_module
import grammar.loader as loader
same = (loader.load_grammar_from(loader.DATA_DIR) == loader._parse(loader.DATA_DIR, None, None),
        leaves_module.leaves() == leaves_module.read_leaves(), leaves_module.levels() == leaves_module.read_levels())
print(same)
"""
    _counts(package)
    result = _run(package, code)
    assert result.stdout.strip() == "(True, True, True)", result.stderr
