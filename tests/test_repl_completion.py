"""Tab completion: grammar keywords with their help as meta, live names for parameters."""

from __future__ import annotations

from prompt_toolkit.completion import CompleteEvent
from prompt_toolkit.document import Document

from solace_shell.completer import ShellCompleter, scope_from_line
from solace_shell.live_names import LiveNames, scenario_files

from .test_repl_fakes import FakeLab, drive, fake_lab  # noqa: F401 - fixture


def completions(lab: FakeLab, target: str, text: str) -> list[tuple[str, str, str]]:
    session = lab.target(target)
    completer = ShellCompleter(lab.parser, lambda: session, LiveNames(lab), lambda: "NY_Appliance1")
    found = completer.get_completions(Document(text), CompleteEvent(completion_requested=True))
    return [(c.text, c.display_text, c.display_meta_text) for c in found]


def test_keywords_of_a_prefix_with_help_as_meta(fake_lab: FakeLab) -> None:
    assert completions(fake_lab, "NY_Appliance1", "e") == [
        ("enable ", "enable", "Enter the Privileged EXEC level"),
        ("exit ", "exit", "Leave the current level"),
    ]


def test_every_next_keyword_after_a_space(fake_lab: FakeLab) -> None:
    fake_lab.execute("NY_Appliance1", "enable")
    assert [c[1] for c in completions(fake_lab, "NY_Appliance1", "configure ")] == [
        "acl-profile", "client-profile", "client-username", "config-sync", "create", "message-spool", "message-vpn",
        "no", "replication",
    ]


def test_live_vpn_names_for_a_vpn_parameter(fake_lab: FakeLab) -> None:
    for line in ("enable", "configure"):
        fake_lab.execute("NY_Appliance1", line)
    assert completions(fake_lab, "NY_Appliance1", "message-vpn ") == [
        ("Trading_VPN ", "Trading_VPN", "The name of the Message VPN"),
        ("Treasury_VPN ", "Treasury_VPN", "The name of the Message VPN"),
        ("default ", "default", "The name of the Message VPN"),
    ]
    assert [c[0] for c in completions(fake_lab, "NY_Appliance1", "message-vpn Tre")] == ["Treasury_VPN "]
    # The names are the router's own: NJ has no Treasury_VPN.
    for line in ("enable", "configure"):
        fake_lab.execute("NJ_Appliance1", line)
    assert [c[1] for c in completions(fake_lab, "NJ_Appliance1", "message-vpn ")] == ["Trading_VPN", "default"]


def test_names_with_spaces_are_quoted(fake_lab: FakeLab) -> None:
    fake_lab.store.engine.vpns["NY_Appliance1"].append("My VPN")
    for line in ("enable", "configure"):
        fake_lab.execute("NY_Appliance1", line)
    assert ('"My VPN" ', "My VPN") in [c[:2] for c in completions(fake_lab, "NY_Appliance1", "message-vpn ")]
    assert [c[0] for c in completions(fake_lab, "NY_Appliance1", 'message-vpn "My')] == ['"My VPN" ']


def test_engine_failure_offers_no_names_and_never_raises(fake_lab: FakeLab) -> None:
    fake_lab.store.engine.fail = True
    for line in ("enable", "configure"):
        fake_lab.execute("NY_Appliance1", line)
    assert completions(fake_lab, "NY_Appliance1", "message-vpn ") == []


def test_nothing_after_an_invalid_word(fake_lab: FakeLab) -> None:
    assert completions(fake_lab, "NY_Appliance1", "zz e") == []


def test_tab_completes_a_unique_keyword_prefix(fake_lab: FakeLab) -> None:
    drive(fake_lab, "en\t\rconf\t\r\x04")
    assert fake_lab.executed == [("NY_Appliance1", "enable "), ("NY_Appliance1", "configure ")]
    assert fake_lab.target("NY_Appliance1").prompt == "NY_Appliance1(configure)#"


def test_tab_completes_a_live_vpn_name(fake_lab: FakeLab) -> None:
    drive(fake_lab, "enable\rconfigure\rmessage-vpn Tra\t\r\x04")
    assert fake_lab.executed[-1] == ("NY_Appliance1", "message-vpn Trading_VPN ")
    assert fake_lab.target("NY_Appliance1").prompt == "NY_Appliance1(configure/message-vpn)#"


def test_tab_inserts_the_common_part_of_several(fake_lab: FakeLab) -> None:
    drive(fake_lab, "enable\rconfigure\rmessage-vpn T\t\r\x04")
    assert fake_lab.executed[-1] == ("NY_Appliance1", "message-vpn Tr")


def test_live_names_are_cached_per_burst_and_invalidated(fake_lab: FakeLab) -> None:
    now = [0.0]
    live = LiveNames(fake_lab, ttl=2.0, clock=lambda: now[0])
    assert live.names("vpn", "NY_Appliance1") == ["Trading_VPN", "Treasury_VPN", "default"]
    fake_lab.store.engine.vpns["NY_Appliance1"].append("New_VPN")
    before = fake_lab.store.transactions
    assert "New_VPN" not in live.names("vpn", "NY_Appliance1")      # same burst: cached
    assert fake_lab.store.transactions == before
    now[0] = 3.0
    assert "New_VPN" in live.names("vpn", "NY_Appliance1")          # burst over: asked again
    fake_lab.store.engine.vpns["NY_Appliance1"].remove("New_VPN")
    live.invalidate()
    assert "New_VPN" not in live.names("vpn", "NY_Appliance1")      # a command ran: asked again


def test_live_names_per_vpn_and_without_engine_methods(fake_lab: FakeLab) -> None:
    live = LiveNames(fake_lab)
    assert live.names("queue", "NY_Appliance1", "Trading_VPN") == ["orders", "orders-dlq", "trades"]
    assert live.names("queue", "NY_Appliance1", None) == []          # no VPN known: nothing to offer
    assert live.names("xid", "NY_Appliance1", "Trading_VPN") == []   # the engine has no such method
    assert live.names("router", None) == ["NJ_Appliance1", "NY_Appliance1"]
    assert live.names("nonsense", None) == []


def test_live_names_accept_views_with_a_name(fake_lab: FakeLab) -> None:
    from dataclasses import dataclass

    @dataclass(frozen=True)
    class View:
        name: str

    fake_lab.store.engine.users = lambda: [View("admin"), View("trainee")]  # type: ignore[attr-defined]
    assert LiveNames(fake_lab).names("user", None) == ["admin", "trainee"]


def test_queue_names_scoped_by_the_vpn_the_level_carries(fake_lab: FakeLab) -> None:
    from grammar import Candidate

    queue = fake_lab.grammar.params["queue-name"]

    class QueueParser:  # a level whose next word is <queue-name> (queue commands are not in the grammar yet)
        def candidates(self, mode: str, before: str) -> list[Candidate]:
            return [Candidate("<queue-name>", queue.help, queue)]

    class InVpn:
        mode = "configure/message-spool"
        router = "NY_Appliance1"
        context = {"vpn": "Trading_VPN"}

    completer = ShellCompleter(QueueParser(), InVpn, LiveNames(fake_lab))
    found = completer.get_completions(Document("queue ord"), CompleteEvent(completion_requested=True))
    assert [(c.text, c.display_meta_text) for c in found] == [
        ("orders ", "The name of the queue"), ("orders-dlq ", "The name of the queue"),
    ]


def test_scope_from_line_finds_a_vpn_value(fake_lab: FakeLab) -> None:
    from grammar.tokens import split_words

    line = "message-vpn Trading_VPN "
    assert scope_from_line(fake_lab.parser, "configure", line, split_words(line)) == {"vpn": "Trading_VPN"}
    line = "message-vpn Tr* "
    assert scope_from_line(fake_lab.parser, "configure", line, split_words(line)) == {}


def test_scenario_files(tmp_path) -> None:
    (tmp_path / "a.yaml").write_text("x: 1\n")
    (tmp_path / "b.txt").write_text("")
    assert scenario_files([tmp_path]) == [str(tmp_path / "a.yaml")]


def test_live_names_at_the_console_cover_every_router(fake_lab: FakeLab) -> None:
    assert LiveNames(fake_lab).names("vpn", None) == ["Trading_VPN", "Treasury_VPN", "default"]


def test_sites_from_the_lab_status(fake_lab: FakeLab) -> None:
    from types import SimpleNamespace

    fake_lab.store.engine.status = lambda: SimpleNamespace(  # type: ignore[attr-defined]
        sites=(SimpleNamespace(name="NY"), SimpleNamespace(name="NJ")))
    assert LiveNames(fake_lab).names("site", None) == ["NY", "NJ"]
