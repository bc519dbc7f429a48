"""The grammar loads strictly: every problem, with file and line, reported together."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from grammar import DATA_DIR, GrammarError, load_grammar
from grammar.loader import load_grammar_from


@pytest.fixture
def data_copy(tmp_path: Path) -> Path:
    target = tmp_path / "data"
    shutil.copytree(DATA_DIR, target)
    return target


def test_project_grammar_loads_and_every_handler_exists() -> None:
    from solace_shell.lab import shell_grammar

    grammar = shell_grammar()
    assert "exec" in grammar.modes and "lab" in grammar.modes
    assert any(c.syntax == "message-vpn <vpn-name>" for c in grammar.by_mode["configure"])


def test_all_problems_are_reported_at_once_with_lines(data_copy: Path) -> None:
    bad = data_copy / "commands" / "zz_bad.yaml"
    bad.write_text(
        "commands:\n"
        "  - syntax: frobnicate <no-such-param>\n"      # line 2: unknown parameter
        "    modes: [exec]\n"
        "    help: x\n"
        "    words: {frobnicate: Frobnicate}\n"
        "    handler: nav.enter\n"
        "    access: none\n"
        "  - syntax: enable\n"                          # line 8: duplicate of navigation.yaml's enable
        "    modes: [exec]\n"
        "    help: again\n"
        "    handler: no.such.handler\n"
        "    access: global/superuser\n"
        "    colour: blue\n"                            # line 13: unknown key
        "  - syntax: wibble\n"                          # line 14: keyword without help
        "    modes: [nowhere]\n"
        "    help: x\n"
        "    handler: nav.enter\n"
        "    access: none\n",
        encoding="utf-8",
    )
    with pytest.raises(GrammarError) as info:
        from solace_shell.handlers import HANDLERS
        from solace_shell.loader import load_all

        load_all()
        load_grammar_from(data_copy, handlers=set(HANDLERS))
    problems = "\n".join(info.value.problems)
    assert "zz_bad.yaml:2: syntax 'frobnicate <no-such-param>': unknown parameter <no-such-param>" in problems
    assert "zz_bad.yaml:8: handler 'no.such.handler' does not exist" in problems
    assert "zz_bad.yaml:8: access 'global/superuser'" in problems
    assert "zz_bad.yaml:13: unknown key 'colour' in command" in problems
    assert "zz_bad.yaml:14: unknown mode or group 'nowhere'" in problems
    assert "zz_bad.yaml:14: syntax 'wibble': keyword 'wibble' has no help" in problems
    assert "duplicate command 'enable' in mode exec" in problems


def test_parameter_without_type_and_yaml_errors_are_reported(data_copy: Path) -> None:
    params = data_copy / "params.yaml"
    params.write_text(params.read_text() + "  orphan: {help: no type here}\n", encoding="utf-8")
    (data_copy / "keywords.yaml").write_text("keywords:\n  a: [unclosed\n", encoding="utf-8")
    with pytest.raises(GrammarError) as info:
        load_grammar_from(data_copy)
    problems = info.value.problems
    assert any("params.yaml" in p and "parameter <orphan> has no type" in p for p in problems)
    assert any(p.startswith(str(data_copy / "keywords.yaml")) and "YAML" in p for p in problems)


def test_grammar_load_is_cached() -> None:
    assert load_grammar() is load_grammar()


def test_a_commands_options_are_declared_in_its_entry_and_checked(data_copy: Path) -> None:
    """A tool's `--name value` options are grammar: gfsh's parser reads the entry's declarations,
    and a bad declaration is reported with its line like any other problem of an entry."""
    from grammar.model import CommandOption

    grammar = load_grammar()
    by_handler = {c.handler: c for c in grammar.commands if c.system == "geode"}
    assert by_handler["geode.describe_client"].options == (CommandOption(("clientID",), mandatory=True),)
    assert by_handler["geode.list_clients"].options is None          # its method takes no parameters
    start = by_handler["geode.start_server"].options or ()
    assert CommandOption(("server-port",), "Integer", unspecified_default="40404") in start
    assert CommandOption(("force",), emulated=False) in start         # refused-options: after the declared
    assert all(c.options is None for c in grammar.commands if c.system != "geode")

    bad = data_copy / "commands" / "zz_options.yaml"
    bad.write_text(
        "commands:\n"
        "  - syntax: frobnicate\n"
        "    modes: [exec]\n"
        "    help: x\n"
        "    words: {frobnicate: Frobnicate}\n"
        "    handler: nav.enter\n"
        "    access: none\n"
        "    options:\n"
        "      - {keys: [size], type: Long}\n"                   # line 9: unknown type
        "      - {keys: [], mandatory: true}\n"                  # line 10: no keys
        "      - {keys: [x], colour: blue}\n"                    # line 11: unknown key
        "      - {keys: [x], mandatory: maybe}\n"                # line 12: not a boolean
        "    refused-options: [x, x]\n",                         # x declared twice (entry's line 2)
        encoding="utf-8",
    )
    with pytest.raises(GrammarError) as info:
        load_grammar_from(data_copy)
    problems = "\n".join(info.value.problems)
    assert "zz_options.yaml:9: option type 'Long' is not one of String, String[], Integer, Boolean, boolean" in problems
    assert "zz_options.yaml:10: an option's keys must be a non-empty list of names" in problems
    assert "zz_options.yaml:11: unknown key 'colour' in option" in problems
    assert "zz_options.yaml:12: an option's mandatory and emulated are true or false" in problems
    assert "zz_options.yaml:2: option key 'x' is declared twice" in problems
