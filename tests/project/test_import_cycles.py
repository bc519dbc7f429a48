"""Import circles across packages: what remains is listed here, and the list may only shrink.

Every import counts (module level, inside a function, under ``TYPE_CHECKING``): a circle Python
tolerates because one import is lazy is still two packages that cannot stand alone. A circle
inside one package (one system's own packages included) is not listed
(``tests/support/import_graph.py``). ``python -m tests.support.import_graph`` prints today's.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.support import import_graph

# The imports across packages that still close a circle. An import that no longer closes one
# must leave this list (the second test says which), so progress shows in the diff.
KNOWN_CIRCLE_EDGES = {
    ("solace_shell.banner", "solace_shell.personalities.plugin"),
    ("solace_shell.handlers", "solace_shell.personalities.plugin"),
    ("solace_shell.handlers", "solace_shell.registries"),
    ("solace_shell.handlers", "solace_shell.session"),
    ("solace_shell.lab", "solace_shell.personalities.base"),
    ("solace_shell.lab", "solace_shell.personalities.plugin"),
    ("solace_shell.lab", "solace_shell.renderers"),
    ("solace_shell.messages", "solace_shell.personalities.plugin"),
    ("solace_shell.personalities.base", "solace_shell.lab"),
    ("solace_shell.personalities.base", "solace_shell.messages"),
    ("solace_shell.personalities.plugin", "solace_shell.handlers"),
    ("solace_shell.personalities.plugin", "solace_shell.lab"),
    ("solace_shell.personalities.plugin", "solace_shell.registries"),
    ("solace_shell.registries", "solace_shell.handlers"),
    ("solace_shell.registries", "solace_shell.renderers"),
    ("solace_shell.renderers", "solace_shell.personalities.plugin"),
    ("solace_shell.session", "solace_shell.handlers"),
    ("solace_shell.session", "solace_shell.personalities.base"),
    ("solace_shell.session", "solace_shell.renderers"),
}


def test_no_new_import_closes_a_circle() -> None:
    new = sorted(set(import_graph.circle_edges()) - KNOWN_CIRCLE_EDGES)
    assert new == [], "imports that close a circle across packages:\n" + "\n".join(f"{a} -> {b}" for a, b in new)


def test_the_list_of_known_circles_is_not_stale() -> None:
    gone = sorted(KNOWN_CIRCLE_EDGES - set(import_graph.circle_edges()))
    assert gone == [], ("no longer in a circle, take them out of KNOWN_CIRCLE_EDGES:\n"
                        + "\n".join(f"{a} -> {b}" for a, b in gone))


@pytest.mark.xfail(reason="the circles of KNOWN_CIRCLE_EDGES remain", strict=True)
def test_no_import_circle_across_packages() -> None:
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
