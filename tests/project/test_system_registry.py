"""HA systems are plugins: one registry names them (state_store/systems.py), scenarios, the lab
console and the shell take every system-specific part from it. The registry also names the lab's
root model, which the lab's shared machinery (store, images, journal, lab file checks) takes from
it too."""

from __future__ import annotations

import ast
import os
import re
import sys
from pathlib import Path
from types import FrameType

import pytest

from solace_shell.handlers.lab_console import HA_FAILURE_VERBS, SOLACE_VERBS
from solace_shell.lab import Lab
from state_store import loader, systems
from state_store.errors import ScenarioError
from state_store.scenario_files import ROOT_DIR
from state_store.solace.scenario_schema import load_scenario

REPO = Path(__file__).resolve().parents[2]
PACKAGES = ("grammar", "solace_shell", "state_store", "spark_jobs")
# The router CLI's system: a section on the lab's neutral root (state_store.lab_root), whose shell
# part the shell registers once per process; not (yet) one of the plugins of systems.SYSTEMS.
ROUTER = systems.ROUTER_CLI
SHELL = "solace_shell"
REGISTRY = Path("state_store/systems.py")


def _names_in_code(path: Path, word: re.Pattern[str]) -> bool:
    """Whether identifiers, imports or string literals (docstrings not counted) name the word."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    docstrings = {id(node.body[0].value) for node in ast.walk(tree)
                  if isinstance(node, (ast.Module, ast.ClassDef, ast.FunctionDef, ast.AsyncFunctionDef))
                  and node.body and isinstance(node.body[0], ast.Expr)
                  and isinstance(node.body[0].value, ast.Constant) and isinstance(node.body[0].value.value, str)}
    for node in ast.walk(tree):
        text = None
        if isinstance(node, ast.Name):
            text = node.id
        elif isinstance(node, ast.Attribute):
            text = node.attr
        elif isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            text = node.name
        elif isinstance(node, ast.alias):
            text = node.name + " " + (node.asname or "")
        elif isinstance(node, ast.ImportFrom):
            text = node.module or ""
        elif isinstance(node, ast.Constant) and isinstance(node.value, str) and id(node) not in docstrings:
            text = node.value
        if text and word.search(text):
            return True
    return False


@pytest.mark.parametrize("system", systems.names())
def test_only_the_registry_names_a_system_outside_its_own_modules(system: str) -> None:
    word = re.compile(rf"(?i)(?<![a-z]){re.escape(system)}(?![a-z])")
    naming = []
    for pkg in PACKAGES:
        for path in sorted((REPO / pkg).rglob("*.py")):
            rel = path.relative_to(REPO)
            if any(system in part.lower() for part in rel.parts):
                continue   # the system's own modules
            if _names_in_code(path, word):
                naming.append(rel)
    assert naming == [REGISTRY]


def _root_model_imports(path: Path, package: str, root: Path) -> list[str]:
    """The modules of ``package`` (and below) that a file imports, relative imports resolved."""
    rel = path.relative_to(root)
    here = list(rel.parts[:-1])   # the package the file is in (an __init__.py: its own)
    found = []
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            modules = [alias.name for alias in node.names]
        elif isinstance(node, ast.ImportFrom):
            base = ".".join([*here[:len(here) - node.level + 1], *(node.module or "").split(".")]).strip(".") \
                if node.level else node.module or ""
            inside = base == package or base.startswith(package + ".")
            modules = [base] if inside else [f"{base}.{alias.name}" for alias in node.names]
        else:
            continue
        found += [m for m in modules if m == package or m.startswith(package + ".")]
    return found


def _root_personality() -> Path:
    """The root model's own CLI personality: part of its shell, beside the other systems' ones."""
    return Path(SHELL, "personalities", ROUTER.name)


def files_importing_the_root_model(root: Path) -> list[str]:
    """Files outside the root model's package, its shell and the registry that import the root
    model's package: the other systems' shells (``solace_shell/personalities``), the grammar, the
    Spark jobs and the lab's shared machinery in ``state_store`` must reach it through the registry."""
    package = ROUTER.model
    own = Path(*package.split("."))
    checked = [root / "grammar", root / "state_store", root / "spark_jobs",
               root / SHELL / "personalities"]
    naming = []
    for top in checked:
        for path in sorted(top.rglob("*.py")):
            rel = path.relative_to(root)
            if rel == REGISTRY or rel.is_relative_to(own) or rel.is_relative_to(_root_personality()):
                continue
            naming += [f"{rel}: {m}" for m in _root_model_imports(path, package, root)]
    return naming


def test_only_the_registry_imports_the_labs_root_model() -> None:
    assert files_importing_the_root_model(REPO) == []


def test_only_the_registry_names_the_labs_root_model_outside_its_own_modules() -> None:
    """The root model's name, not counting the product's own names (the package ``solace_shell``,
    the program ``solace-shell``), which only share its first word."""
    name = re.escape(ROUTER.name)
    word = re.compile(rf"(?i)(?<![a-z]){name}(?![a-z])(?![_-](shell|conformance))")
    own = Path(*ROUTER.model.split("."))
    naming = []
    for top in ("grammar", "state_store", "spark_jobs", f"{SHELL}/personalities"):
        for path in sorted((REPO / top).rglob("*.py")):
            rel = path.relative_to(REPO)
            if not rel.is_relative_to(own) and not rel.is_relative_to(_root_personality()) \
                    and _names_in_code(path, word):
                naming.append(rel)
    assert naming == [REGISTRY]


def test_the_router_clis_model_is_a_section_not_the_root() -> None:
    """The lab's root is neutral (``state_store.lab_root``, no registry entry); the router CLI's
    model is registered as a section on it (``systems.SECTIONS``), apart from the plugins'
    scenario sections, lab console targets and drills (``systems.names()``)."""
    root = ROUTER.name
    assert root not in systems.names()
    assert root in systems.section_names()
    assert not hasattr(systems, "ROOT")
    assert (systems.entry(root), loader.load_model(root)) == (None, None)
    lab = Lab.fresh(ROOT_DIR / "swiftmq-ha.yaml")
    try:
        assert root not in lab.targets()
        assert lab.systems() == ["swiftmq"]
    finally:
        lab.close()


def test_a_section_of_an_unknown_system_is_one_problem_naming_the_registered_ones(tmp_path: Path) -> None:
    text = (ROOT_DIR / "swiftmq-ha.yaml").read_text(encoding="utf-8") + "\nkafka:\n  pools: []\n"
    path = tmp_path / "lab.yaml"
    path.write_text(text, encoding="utf-8")
    line = text.count("\n", 0, text.index("kafka:")) + 1
    with pytest.raises(ScenarioError) as err:
        load_scenario(path)
    assert err.value.problems == [f"{path}:{line}: top level: unknown key 'kafka': neither a key of the lab nor "
                                  f"a registered HA system (registered systems: {', '.join(systems.names())})"]


@pytest.mark.parametrize(("scenario", "held"), [(None, []), (ROOT_DIR / "swiftmq-ha.yaml", ["swiftmq"]),
                                               (ROOT_DIR / "qpid-ha.yaml", ["qpid"]),
                                               (ROOT_DIR / "geode-ha.yaml", ["geode"])])
def test_the_lab_console_help_lists_the_verbs_of_the_systems_the_lab_holds(scenario: Path | None,
                                                                          held: list[str]) -> None:
    lab = Lab.fresh(scenario)
    try:
        assert lab.systems() == held
        shown = {line.split()[0] for line in lab.execute("lab", "help").text.splitlines()}
        solace = bool(lab.routers())   # the Solace traffic and failure verbs only in a lab with routers
        own = {c.syntax.split()[0] for c in lab.grammar.by_mode["lab"]
               if not c.system and (solace or c.handler not in SOLACE_VERBS)
               and (held or solace or not c.handler.startswith(HA_FAILURE_VERBS))}
        mine = {c.syntax.split()[0] for c in lab.grammar.by_mode["lab"] if c.system in held} - own
        others = {c.syntax.split()[0] for c in lab.grammar.by_mode["lab"] if c.system and c.system not in held}
        assert own <= shown
        assert mine <= shown
        assert (others - own - mine) & shown == set()
        assert [t for t in lab.targets() if t in systems.names()] == held
    finally:
        lab.close()


def test_the_failure_verbs_are_the_kernels_and_a_system_without_one_refuses_it(
        monkeypatch: pytest.MonkeyPatch) -> None:
    """`ha kill|hang|start|replace|partition|heal` are the lab's, not a system's: each runs the
    operation `<system>.<failure>`; a system that has none for a failure refuses it in one line."""
    from state_store.kernel import ops

    lab = Lab.fresh(ROOT_DIR / "swiftmq-ha.yaml")
    try:
        assert all(not c.system for c in lab.grammar.by_mode["lab"]
                   if c.syntax.split()[:2] in (["ha", w] for w in ("start", "kill", "hang", "replace", "partition",
                                                                      "heal")))
        assert lab.execute("lab", "ha start ha1.A").text.startswith("instance ha1.A started")
        monkeypatch.delitem(ops._OPS, "swiftmq.replace")
        monkeypatch.setattr(ops, "find", lambda name: ops._OPS.get(name))   # no reloading of the system
        before = lab.store.dump()
        out = lab.execute("lab", "ha replace ha1.B")
        assert (out.ok, out.text) == (False, "ERROR: The HA system 'swiftmq' of this lab does not simulate 'replace'.")
        assert lab.store.dump() == before
        assert lab.execute("lab", "ha kill ha9.A").text == ("ERROR: HA instance 'ha9.A' not found (write "
                                                            "<router>.<instance>, e.g. ha1.A).")
    finally:
        lab.close()


@pytest.mark.parametrize("system", systems.names())
def test_a_scenario_of_one_system_names_only_that_system(system: str, tmp_path: Path) -> None:
    """The bundled scenario of an HA system has its name, its section and its users, nothing of the
    lab's root model; an older file that writes the root model's `sites: []` still loads, to the
    same lab."""
    path = ROOT_DIR / f"{system}-ha.yaml"
    text = path.read_text(encoding="utf-8")
    assert {line.split(":")[0] for line in text.splitlines() if line[:1].isalpha()} == {"scenario", system, "users"}
    old = tmp_path / "old.yaml"
    old.write_text(text.replace(f"\n{system}:", f"\nsites: []\n{system}:", 1), encoding="utf-8")
    seen = []
    for scenario in (path, old):
        lab = Lab.fresh(scenario)
        try:
            seen.append((lab.systems(), lab.routers(), lab.targets()))
        finally:
            lab.close()
    assert seen == [([system], [], [system, "lab"])] * 2
    assert "sites" in old.read_text(encoding="utf-8")


# one changing line of each HA system's CLI: (the lines before it, a line of the CLI run first so
# that what it imports on first use is imported, the line traced)
_LINES = {
    "geode": ((), "stop server --name=s2", "start server --name=s2"),
    "qpid": ((), "qpid-ha status --all", "qpid-ha --cluster-manager promote -b b1"),
    "swiftmq": ((("lab", "ha start ha1.A"), ("lab", "ha start ha1.B"), ("lab", "advance 5s"),
                 ("swiftmq", "sr ha1"), ("swiftmq", "cc sys$hacontroller")),
                "lc", "set negotiation-timeout 60000"),
}


def _root_model_code_run(lab: Lab, target: str, line: str) -> set[str]:
    """The functions of the root model's package that one ``Lab.execute`` runs, the store's
    bookkeeping of its rollback image (``state_store/images.py``, which counts the state's records)
    aside."""
    own = str(REPO / Path(*ROUTER.model.split("."))) + os.sep
    images = str(REPO / "state_store" / "images.py")
    found: set[str] = set()

    def watch(frame: FrameType, event: str, arg: object) -> None:
        if event != "call" or not frame.f_code.co_filename.startswith(own):
            return
        caller: FrameType | None = frame
        while caller is not None:
            if caller.f_code.co_filename == images:
                return
            caller = caller.f_back
        found.add(f"{Path(frame.f_code.co_filename).name}:{frame.f_code.co_name}")

    sys.setprofile(watch)
    try:
        assert lab.execute(target, line).ok, line
    finally:
        sys.setprofile(None)
    return found


@pytest.mark.parametrize("system", systems.names())
def test_a_line_of_an_ha_systems_cli_runs_no_code_of_the_labs_root_model(system: str) -> None:
    """A gfsh, qpid-ha or SwiftMQ command reads and changes only its own groups on the kernel,
    through the lab's neutral root engine (``state_store.lab_root.engine.RootEngine``)."""
    before, first, line = _LINES[system]
    lab = Lab.fresh(ROOT_DIR / f"{system}-ha.yaml")
    try:
        for target, earlier in (*before, (system, first)):
            assert lab.execute(target, earlier).ok, earlier
        assert _root_model_code_run(lab, system, line) == set()
    finally:
        lab.close()
