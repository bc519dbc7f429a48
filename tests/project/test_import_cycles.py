"""No import circle across packages.

Every import counts (module level, inside a function, under ``TYPE_CHECKING``): a circle Python
tolerates because one import is lazy is still two packages that cannot stand alone. A circle
inside one package (one system's own packages included) is not listed
(``tests/support/import_graph.py``). ``python -m tests.support.import_graph`` prints any there is.
"""

from __future__ import annotations

from pathlib import Path

from tests.support import import_graph


def test_no_import_circle_across_packages() -> None:
    found = import_graph.circle_edges()
    assert found == [], "imports that close a circle across packages:\n" + "\n".join(f"{a} -> {b}" for a, b in found)
    assert import_graph.circles() == []


def test_every_kind_of_import_is_walked(tmp_path: Path) -> None:
    """Type-only, function-level and relative imports close a circle as a module-level one does."""
    for package in import_graph.PACKAGES:
        (tmp_path / package).mkdir()
        (tmp_path / package / "__init__.py").write_text("")
    (tmp_path / "state_store" / "kernel").mkdir()
    (tmp_path / "state_store" / "kernel" / "__init__.py").write_text("")
    (tmp_path / "state_store" / "kernel" / "ops.py").write_text(
        "def find():\n    from .. import registry\n")
    (tmp_path / "state_store" / "registry.py").write_text(
        "from typing import TYPE_CHECKING\nif TYPE_CHECKING:\n    from state_store.kernel.ops import find\n")
    (tmp_path / "state_store" / "geode").mkdir()
    (tmp_path / "state_store" / "geode" / "__init__.py").write_text("from . import policy\n")
    (tmp_path / "state_store" / "geode" / "policy.py").write_text("import state_store.geode\n")
    assert import_graph.circles(tmp_path) == [("state_store.kernel.ops", "state_store.registry")]
    assert sorted(import_graph.circle_edges(tmp_path)) == [
        ("state_store.kernel.ops", "state_store.registry"), ("state_store.registry", "state_store.kernel.ops")]
