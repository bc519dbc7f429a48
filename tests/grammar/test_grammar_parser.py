"""Parsing straight from the grammar: abbreviation, errors with columns, crossing levels, `?`."""

from __future__ import annotations

import pytest

from grammar import Parsed, ParseError, Parser, load_grammar


@pytest.fixture(scope="module")
def parser() -> Parser:
    return Parser(load_grammar())


def nodes(result: Parsed) -> list[str]:
    return [step.command.syntax for step in result.steps]


def test_unique_prefix_abbreviates_every_keyword(parser: Parser) -> None:
    assert nodes(parser.parse("privileged", "config")) == ["configure"]
    assert nodes(parser.parse("privileged", "sh hostn")) == ["show", "hostname"]
    assert nodes(parser.parse("exec", "en")) == ["enable"]


def test_ambiguous_prefix_lists_candidates_at_its_column(parser: Parser) -> None:
    error = parser.parse("configure", "mess Trading_VPN")
    assert error == ParseError("ambiguous", 0, "mess", ("message-spool", "message-vpn"))


def test_a_hidden_command_is_accepted_only_in_full_and_never_offered(parser: Parser) -> None:
    """C17: at `>` the broker takes `end` (and stays), yet `en` still means `enable`."""
    for mode in ("exec", "privileged"):
        assert nodes(parser.parse(mode, "end")) == ["end"]
        assert "end" not in [c.text for c in parser.candidates(mode, "")]
        assert "end" not in [c.text for c in parser.candidates(mode, "e")]
    assert nodes(parser.parse("exec", "en")) == ["enable"]
    # below Privileged EXEC, where it does something, `end` abbreviates and is offered as before
    assert nodes(parser.parse("configure", "en")) == ["end"]
    assert "end" in [c.text for c in parser.candidates("configure", "e")]


def test_invalid_word_is_located(parser: Parser) -> None:
    error = parser.parse("privileged", "show version extra")
    assert isinstance(error, ParseError) and error.kind == "invalid"
    assert (error.column, error.word) == (13, "extra")


def test_incomplete_command_lists_what_may_follow(parser: Parser) -> None:
    error = parser.parse("configure", "message-vpn")
    assert isinstance(error, ParseError)
    assert (error.kind, error.column, error.candidates) == ("incomplete", 11, ("<vpn-name>",))
    # `show` alone at User EXEC is only a prefix there
    assert parser.parse("exec", "show").kind == "incomplete"


def test_typed_values_are_checked(parser: Parser) -> None:
    error = parser.parse("configure", "message-vpn bad;name")
    assert isinstance(error, ParseError)
    assert (error.kind, error.column, error.param) == ("invalid-value", 12, "vpn-name")
    assert "';'" in error.reason


def test_quoted_values_keep_spaces(parser: Parser) -> None:
    result = parser.parse("configure", 'message-vpn "A VPN WITH SPACES"')
    assert result.steps[0].args["vpn-name"] == "A VPN WITH SPACES"
    assert parser.parse("configure", 'message-vpn "x').reason == "unterminated quote"


def test_a_quoted_word_spells_a_keyword_in_full_where_no_value_fits(parser: Parser) -> None:
    # T16: `access-type "exclusive"`, `permission all "delete"`; seed 000: `state standby` quoted
    assert isinstance(parser.parse("configure/message-spool/queue", 'access-type "exclusive"'), Parsed)
    assert parser.parse("configure/message-spool/queue", 'permission all "DELETE"').leaf.args.get("delete") is True
    assert nodes(parser.parse("configure/message-vpn", 'replication state "standby"'))[-1] == "state {active | standby}"
    # never an abbreviation
    error = parser.parse("configure/message-vpn", 'replication state "stand"')
    assert isinstance(error, ParseError) and (error.kind, error.column) == ("invalid", 18)
    # a value first: the quoted word names the queue, the bare one is the keyword
    result = parser.parse("configure/message-spool", 'create queue "primary" primary')
    assert result.leaf.args["queue-name"] == "primary" and result.leaf.args.get("primary") is True


def test_control_characters_are_refused_where_they_stand(parser: Parser) -> None:
    for char in ("\x0c", "\x0b", "\x85", "\u2028", "\u2029", "\x1c", "\x00"):
        error = parser.parse("privileged", f"show{char}hostname")
        assert isinstance(error, ParseError), repr(char)
        assert (error.kind, error.column, error.reason) == ("invalid", 4, "control character")
    assert isinstance(parser.parse("privileged", "show\thostname"), Parsed)
    assert isinstance(parser.candidates("privileged", "show\x0c"), ParseError)


def test_a_line_can_cross_levels(parser: Parser) -> None:
    result = parser.parse("configure", "message-vpn Trading_VPN replication queue")
    assert nodes(result) == ["message-vpn <vpn-name>", "replication", "queue"]
    assert result.steps[0].args["vpn-name"] == "Trading_VPN"
    assert result.leaf.command.enters == "configure/message-vpn/replication/queue"


def test_a_no_line_crosses_levels_as_the_broker_writes_it(parser: Parser) -> None:
    """`no` first, then the words entering the levels below, then the `no` form's own words."""
    result = parser.parse("configure/message-vpn", "no service rest incoming listen-port")
    assert nodes(result) == ["service rest", "incoming", "no listen-port"]
    assert "no" not in result.steps[0].args and result.leaf.args["no"] is True
    result = parser.parse("configure/message-vpn", "no repl br ssl")
    assert nodes(result) == ["replication", "bridge", "no ssl"] and result.leaf.command.negated
    result = parser.parse("configure/message-vpn", "no replication ack-propagation interval messages")
    assert nodes(result) == ["replication", "ack-propagation", "no interval messages"]
    # the rest of a line that crossed to a level reads a `no` there as at that level
    result = parser.parse("configure/message-vpn", "replication no ack-propagation shutdown")
    assert nodes(result) == ["replication", "ack-propagation", "no shutdown"]
    # the line never enters anything: it ends on a `no` form
    assert parser.parse("configure/message-vpn", "no replication").kind == "incomplete"
    # only levels below are crossed, never to make something, and only towards a `no` form
    assert parser.parse("configure/message-vpn/replication", "no rest").kind == "invalid"
    assert parser.parse("configure/message-vpn", "no create replication replicated-topic t").kind == "invalid"
    assert parser.parse("configure/message-vpn/replication", "no replicated-topic t x").kind == "invalid"
    # the level's own `no` forms are unchanged
    assert nodes(parser.parse("configure/message-vpn/replication", "no shutdown")) == [
        "no shutdown [force-use-existing-queue | force-recreate-queue]"]


def test_a_no_line_offers_and_locates_like_any_line(parser: Parser) -> None:
    offered = [c.text for c in parser.candidates("configure/message-vpn", "no replication ")]
    assert {"bridge", "ack-propagation", "queue", "shutdown"} <= set(offered)
    assert "state" not in offered and "<cr>" not in offered
    assert [c.text for c in parser.candidates("configure/message-vpn", "no replication bridge s")] == ["ssl"]
    error = parser.parse("configure/message-vpn", "no replication bridge sssl")
    assert error == ParseError("invalid", 22, "sssl")


def test_navigation_words_are_not_reachable_after_crossing(parser: Parser) -> None:
    assert parser.parse("configure/message-vpn", "replication exit").kind == "invalid"


def test_no_form_is_generated(parser: Parser) -> None:
    result = parser.parse("exec", "no pag")
    assert result.leaf.command.negated and result.leaf.command.syntax == "no paging"


def test_help_after_space_lists_next_words_and_cr(parser: Parser) -> None:
    texts = [c.text for c in parser.candidates("configure/message-vpn", "replication ")]
    assert texts == ["ack-propagation", "bridge", "create", "no", "queue", "reject-msg-when-sync-ineligible",
                     "replicated-topic", "shutdown", "state", "transaction-replication-mode", "<cr>"]


def test_help_inside_a_word_lists_its_completions(parser: Parser) -> None:
    assert [c.text for c in parser.candidates("configure", "mes")] == ["message-spool", "message-vpn"]
    assert [c.text for c in parser.candidates("configure", "message-vpn ")] == ["<vpn-name>"]


def test_help_reports_an_error_before_the_cursor(parser: Parser) -> None:
    error = parser.candidates("configure", "bogus ")
    assert isinstance(error, ParseError) and error.kind == "invalid"


def test_empty_line_parses_to_nothing(parser: Parser) -> None:
    assert parser.parse("exec", "   ") is None
