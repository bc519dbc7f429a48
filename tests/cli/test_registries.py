"""Start-up registry checks: error texts, renderers, completion sources; every problem at once."""

from __future__ import annotations

import ast
import re
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

import pytest

from grammar import DATA_DIR, GrammarError
from grammar.loader import load_grammar_from
from solace_shell.handlers import HANDLERS, Args, HandlerContext
from solace_shell.lab import shell_grammar
from solace_shell.live_names import COMPLETION_SOURCES, ENGINE_SOURCES
from solace_shell.loader import load_all
from solace_shell.messages import ENGINE_ERRORS
from solace_shell.registries import (
    RegistryError,
    message_problems,
    registry_problems,
    renderer_problems,
    template_fields,
)
from solace_shell.renderers import RENDERERS
from solace_shell.results import Lines
from state_store.loader import error_codes

ERROR_CODES = error_codes()
load_all()   # every system's handlers, renderers and texts: the whole installation is checked here

ROOT = Path(__file__).resolve().parents[2]


def test_the_shipped_registries_fit_together() -> None:
    assert registry_problems() == []
    grammar = shell_grammar()   # the grammar against the handler and completion-source registries
    load_all()  # every HA system registered, each checked as it is (no RegistryError)
    assert [cmd.node for cmd in grammar.commands if cmd.handler not in HANDLERS] == []


def test_a_system_is_checked_when_it_is_registered() -> None:
    from solace_shell.registries import system_problems

    def unrendered(ctx: HandlerContext, args: Args) -> Unrendered:
        return Unrendered(1)

    problems = system_problems("swiftmq", {"x.unrendered": unrendered})
    assert problems == ["handler x.unrendered returns Unrendered, which has no renderer in solace_shell/renderers"]


def test_a_lab_that_holds_no_ha_system_never_imports_one(tmp_path: Path) -> None:
    """Building the default lab and running commands on it registers no HA system's handlers or
    renderers and reads no system's scenario section (so imports no system's model): the loader
    registers only the systems a lab holds, when it opens."""
    code = (
        "import sys\n"
        "from solace_shell.lab import Lab\n"
        f"lab = Lab.open({str(tmp_path / 'lab.db')!r})\n"
        "assert lab.execute('NY_Appliance1', 'show hostname').ok\n"
        "assert lab.execute('lab', 'advance 1s').ok\n"
        "from state_store import systems\n"
        "loaded = [m for m in sys.modules for s in systems.names()\n"
        "          if m == f'state_store.{s}' or m.startswith((f'state_store.{s}.', "
        "f'solace_shell.personalities.{s}.lab_', f'solace_shell.personalities.{s}.cli'))]\n"
        "print(sorted(loaded))\n"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=ROOT)
    assert (done.returncode, done.stdout, done.stderr) == (0, "[]\n", "")


def test_a_lab_registers_exactly_the_systems_it_holds_when_it_opens() -> None:
    """Opening a Geode lab registers Geode's handlers, renderers and texts at once, before any of
    its commands runs, and imports nothing of the other systems."""
    code = (
        "import sys\n"
        "from solace_shell.handlers import HANDLERS\n"
        "from solace_shell.lab import Lab\n"
        "from solace_shell.messages import SYSTEM_TEXTS\n"
        "lab = Lab.fresh('state_store/scenarios/geode-ha.yaml')\n"
        "prefixes = sorted({h.split('.')[0] for h in HANDLERS if h.startswith(('gf', 'geode'))})\n"
        "others = sorted(m for m in sys.modules if m.startswith(('state_store.qpid', 'state_store.swiftmq',\n"
        "                'solace_shell.personalities.qpid', 'solace_shell.personalities.swiftmq')))\n"
        "print(lab.systems(), bool(prefixes), sorted(SYSTEM_TEXTS), others)\n"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=ROOT)
    assert (done.returncode, done.stdout, done.stderr) == (0, "['geode'] True ['geode'] []\n", "")


# -- every error code has its text ----------------------------------------------------------------------

def raised_codes() -> dict[str, set[str]]:
    """Every literal code in `EngineError("code", param=...)` in the engine and the shell, with its params."""
    found: dict[str, set[str]] = {}
    for package in ("state_store", "solace_shell"):
        for path in (ROOT / package).rglob("*.py"):
            for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
                if (isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id == "EngineError"
                        and node.args and isinstance(node.args[0], ast.Constant)):
                    found.setdefault(node.args[0].value, set()).update(k.arg for k in node.keywords if k.arg)
    return found


def test_every_code_raised_is_declared_with_its_parameters() -> None:
    raised = raised_codes()
    assert len(raised) > 30
    for code, params in raised.items():
        assert code in ERROR_CODES, f"EngineError({code!r}) is raised but not in state_store/errors.py ERROR_CODES"
        assert params <= set(ERROR_CODES[code]), (code, params)


def test_every_declared_code_has_a_text_using_only_its_parameters() -> None:
    for code, params in ERROR_CODES.items():
        assert code in ENGINE_ERRORS, code
        assert template_fields(ENGINE_ERRORS[code]) <= set(params), code


def test_missing_unknown_and_mismatched_texts_are_all_reported() -> None:
    codes = {"a_not_found": ("a",), "b_down": ("b",), "c_busy": ()}
    texts = {"a_not_found": "ERROR: '{a}' not found.", "b_down": "ERROR: '{router}' is down.", "zz": "ERROR"}
    assert message_problems(codes, texts) == [
        "the text of engine error 'b_down' names router, which the engine does not send (it sends: b)",
        "engine error 'c_busy' has no text in solace_shell/messages.py ENGINE_ERRORS",
        "ENGINE_ERRORS has a text for 'zz', which is not an engine error code (state_store/errors.py ERROR_CODES, "
        "or an HA system's MODEL.error_codes)",
    ]


# -- every handler result type has a renderer -----------------------------------------------------------

@dataclass(frozen=True)
class Unrendered:
    n: int


def returns_unrendered(ctx: HandlerContext, args: Args) -> Unrendered | Lines | None:
    return None


def unannotated(ctx, args):  # type: ignore[no-untyped-def]
    return None


def test_every_handler_result_type_has_a_renderer() -> None:
    assert renderer_problems(HANDLERS, RENDERERS) == []


def test_a_result_without_a_renderer_and_an_unannotated_handler_are_reported() -> None:
    problems = renderer_problems({"x.one": returns_unrendered, "x.two": unannotated}, RENDERERS)
    assert problems == [
        "handler x.one returns Unrendered, which has no renderer in solace_shell/renderers",
        f"handler x.two ({__name__}.unannotated) has no usable return annotation",
    ]


# -- one list of completion sources ---------------------------------------------------------------------

def test_the_grammar_uses_only_the_live_name_sources_and_each_of_them() -> None:
    grammar = shell_grammar()
    used = {p.complete for p in grammar.params.values() if p.complete}
    assert used == COMPLETION_SOURCES, "every source the grammar names exists, and every source is used"
    assert set(ENGINE_SOURCES) <= COMPLETION_SOURCES


def test_an_unknown_completion_source_is_reported_with_its_line(tmp_path: Path) -> None:
    import shutil

    data = tmp_path / "data"
    shutil.copytree(DATA_DIR, data)
    params = data / "params.yaml"
    params.write_text(params.read_text(encoding="utf-8")
                      + "  colour-name: {type: object-name, help: A colour, complete: colour}\n", encoding="utf-8")
    with pytest.raises(GrammarError) as info:
        load_grammar_from(data, handlers=set(HANDLERS), completion_sources=COMPLETION_SOURCES)
    [problem] = [p for p in info.value.problems if "colour" in p]
    assert re.search(r"params\.yaml:\d+: parameter <colour-name>: unknown completion source 'colour' "
                     r"\(known: acl-profile, client, client-profile, client-username, ha-instance, ha-network, "
                     r"ha-node, ha-queue, ha-router, jms-client, queue, rdp, router, scenario, site, "
                     r"telemetry-profile, topic, user, vpn, xid\)$", problem), problem


def test_start_up_reports_grammar_and_registry_problems_together(monkeypatch: pytest.MonkeyPatch) -> None:
    import solace_shell.lab as lab_module

    monkeypatch.setattr(lab_module, "COMPLETION_SOURCES", COMPLETION_SOURCES - {"vpn"})
    monkeypatch.setattr(lab_module, "_CHECKED", False)
    monkeypatch.setitem(ENGINE_ERRORS, "zz_not_a_code", "ERROR: zz")
    with pytest.raises(RegistryError) as info:
        shell_grammar()
    problems = info.value.problems
    assert any("unknown completion source 'vpn'" in p for p in problems)
    assert any("'zz_not_a_code', which is not an engine error code" in p for p in problems)
