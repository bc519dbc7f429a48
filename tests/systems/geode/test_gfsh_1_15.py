"""gfsh 1.15's layout and parser rules where the drills cannot reach them (a result wider than the
screen, Java's HashSet order, the parser's prefix and tokenizer rules), and every refusal
changing nothing, through the lab."""

from __future__ import annotations

import pytest

from solace_shell.lab import Lab, shell_grammar
from solace_shell.personalities.geode.cli import gfsh_parser
from solace_shell.personalities.geode.gfsh_layout import (
    Data,
    GfshResult,
    Info,
    Table,
    fit_to_screen,
    java_hash_set_order,
    render_result,
)
from solace_shell.personalities.geode.gfsh_parser import GfshRefusal, is_match, split_user_input, tokenize
from state_store.solace.scenario import ROOT_DIR


def test_sections_each_end_in_a_blank_line_and_the_last_column_is_never_padded() -> None:
    table = Table(("Name", "Id"), (("a", "x"), ("bbbbbb", "y")))
    text = render_result(GfshResult((Info(("Member Count : 2",)), table)))
    assert text.split("\n") == ["Member Count : 2", "", " Name  | Id", "------ | --", "a      | x", "bbbbbb | y", ""]
    data = render_result(GfshResult((Data((("k", "v"), ("long key", "")), header="Head"),)))
    assert data.split("\n") == ["Head", "k        : v", "long key : ", ""]


def test_a_table_wider_than_the_screen_is_cut_to_fit_with_two_dots() -> None:
    assert fit_to_screen([10, 20], 3, 100) == [10, 20]
    assert fit_to_screen([10, 120], 3, 100) == [10, 87]
    text = render_result(GfshResult((Table(("A", "B"), (("x" * 10, "y" * 120),)),)))
    assert text.split("\n")[2] == "x" * 10 + " | " + "y" * 85 + ".."


def test_java_hash_set_order_is_by_string_hash_buckets() -> None:
    # "Aa" and "BB" share String.hashCode 2112; a and b hash 97 and 98 (buckets 1 and 2 of 16)
    assert java_hash_set_order(["b", "a"]) == ["a", "b"]
    assert java_hash_set_order(["BB", "Aa"]) == ["BB", "Aa"]


def test_the_parser_splits_prefixes_and_tokens_as_gfsh() -> None:
    assert split_user_input("describe client --clientID=a=b --x='q r'") == \
        ["describe", "client", "--clientID", "a=b", "--x", "'q r'"]
    assert is_match("list mem", "list members") == ""
    assert is_match("list m", "list members") == ""
    assert is_match("list", "list members") is None
    assert is_match("list members --group g", "list members") == "--group g"
    assert is_match("list mem --group g", "list members") is None
    assert tokenize("--a 1 --b --c 'x y'") == {"a": "1", "b": "", "c": "x y"}
    parser = gfsh_parser(shell_grammar())
    assert parser.read("list m") is not None and parser.read("ex") is not None
    for line, first in (("h", "Ambigious command 'h'"), ("li", "Command 'li' not found"),
                        ("start server --name=s1 --J=-Xmx1g", "Option 'J' of 'start server' is not emulated"),
                        ("start server --name=s1 --jay=1", "Option 'jay' is not available")):
        with pytest.raises(GfshRefusal) as refused:
            parser.read(line)
        assert refused.value.lines[0].startswith(first), refused.value.lines


@pytest.mark.parametrize("line", [
    "describe client --clientId=x", "describe client --clientID=x --clientID=y", "list mem --group=g",
    "alter runtime --message-sync-interval=abc", "alter runtime --message-sync-interval=0",
    "alter runtime --members=s9 --message-sync-interval=2", "alter runtime --log-level=loud",
    "alter runtime --member=s1 --group=g --message-sync-interval=2", "show metrics --port=1",
    "show metrics --member=s1 --port=1", "show metrics --member=s1 --categories=x,cacheserver",
    "show subscription-queue-size --durable-client-id=zz", "version", "describe c", "start server --name=s1",
    "stop server", "describe client --clientID=\"x", "show metrics --file=a.txt"])
def test_every_refusal_changes_nothing(line: str) -> None:
    lab = Lab.fresh(ROOT_DIR / "geode-ha.yaml")
    try:
        before = lab.store.dump()
        out = lab.execute("geode", line)
        assert not out.ok and out.text.strip() and "Traceback" not in out.text, (line, out)
        assert lab.store.dump() == before, line
    finally:
        lab.close()
