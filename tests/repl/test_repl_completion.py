"""Tab completion: grammar keywords with their help as meta, live names for parameters (real lab)."""

from __future__ import annotations

import pytest
from prompt_toolkit.completion import CompleteEvent
from prompt_toolkit.document import Document

from solace_shell.completer import ShellCompleter, scope_from_line
from solace_shell.lab import Lab
from solace_shell.live_names import LiveNames, scenario_files
from state_store.engine import Engine
from state_store.errors import EngineError
from tests.support.repl_driver import drive

VPN_HELP = "The name of the Message VPN"
QUEUE_HELP = "The name of the queue"


def completions(lab: Lab, target: str, text: str) -> list[tuple[str, str, str]]:
    session = lab.target(target)
    completer = ShellCompleter(lab.parser, lambda: session, LiveNames(lab), lambda: "NY_Appliance1")
    found = completer.get_completions(Document(text), CompleteEvent(completion_requested=True))
    return [(c.text, c.display_text, c.display_meta_text) for c in found]


def run(lab: Lab, target: str, *lines: str) -> None:
    for line in lines:
        outcome = lab.execute(target, line)
        assert outcome.ok, (line, outcome.text)


def in_spool(lab: Lab, router: str = "NY_Appliance1") -> None:
    """Go to `configure/message-spool` of Trading_VPN (the level carries the VPN)."""
    run(lab, router, "enable", "configure", "message-spool message-vpn Trading_VPN")


def test_keywords_of_a_prefix_with_help_as_meta(lab: Lab) -> None:
    assert completions(lab, "NY_Appliance1", "e") == [
        ("enable ", "enable", "Enter the Privileged EXEC level"),
        ("exit ", "exit", "Leave the current level"),
    ]


def test_every_next_keyword_after_a_space(lab: Lab) -> None:
    lab.execute("NY_Appliance1", "enable")
    assert [c[1] for c in completions(lab, "NY_Appliance1", "configure ")] == [
        "acl-profile", "client-profile", "client-username", "config-sync", "create", "message-spool", "message-vpn",
        "no", "replication",
    ]


def test_live_vpn_names_for_a_vpn_parameter(lab: Lab) -> None:
    run(lab, "NY_Appliance1", "enable", "configure")
    assert completions(lab, "NY_Appliance1", "message-vpn ") == [
        ("#config-sync ", "#config-sync", VPN_HELP),
        ("Trading_VPN ", "Trading_VPN", VPN_HELP),
        ("default ", "default", VPN_HELP),
    ]
    assert [c[0] for c in completions(lab, "NY_Appliance1", "message-vpn Tra")] == ["Trading_VPN "]


def test_live_names_are_the_routers_own(lab: Lab) -> None:
    live = LiveNames(lab)
    assert live.names("client", "NY_Appliance1") == ["settlement", "trader"]
    assert live.names("client", "NJ_Appliance1") == []      # both clients are connected to NY
    in_spool(lab)
    run(lab, "NY_Appliance1", "create queue trades", "exit")
    assert [c[1] for c in completions(lab, "NY_Appliance1", "queue ")] == [
        "#MSGVPN_REPLICATION_DATA_QUEUE", "orders", "trades"]


def test_names_with_spaces_are_quoted(lab: Lab) -> None:
    in_spool(lab)
    run(lab, "NY_Appliance1", 'create queue "My Queue"', "exit")
    assert ('"My Queue" ', "My Queue") in [c[:2] for c in completions(lab, "NY_Appliance1", "queue ")]
    assert [c[0] for c in completions(lab, "NY_Appliance1", 'queue "My')] == ['"My Queue" ']


def test_engine_failure_offers_no_names_and_never_raises(lab: Lab, monkeypatch: pytest.MonkeyPatch) -> None:
    def down(self: Engine, router: str) -> list[str]:
        raise EngineError("router_down", router=router)

    monkeypatch.setattr(Engine, "vpn_names", down)
    run(lab, "NY_Appliance1", "enable", "configure")
    assert completions(lab, "NY_Appliance1", "message-vpn ") == []


def test_nothing_after_an_invalid_word(lab: Lab) -> None:
    assert completions(lab, "NY_Appliance1", "zz e") == []


def test_tab_completes_a_unique_keyword_prefix(lab: Lab, executed: list[tuple[str, str]]) -> None:
    drive(lab, "en\t\rconf\t\r\x04")
    assert executed == [("NY_Appliance1", "enable "), ("NY_Appliance1", "configure ")]
    assert lab.target("NY_Appliance1").prompt == "NY_Appliance1(configure)#"


def test_tab_completes_a_live_vpn_name(lab: Lab, executed: list[tuple[str, str]]) -> None:
    drive(lab, "enable\rconfigure\rmessage-vpn Tra\t\r\x04")
    assert executed[-1] == ("NY_Appliance1", "message-vpn Trading_VPN ")
    assert lab.target("NY_Appliance1").prompt == "NY_Appliance1(configure/message-vpn)#"


def test_tab_inserts_the_common_part_of_several(lab: Lab, executed: list[tuple[str, str]]) -> None:
    in_spool(lab)
    run(lab, "NY_Appliance1", "create queue order-archive", "exit")
    del executed[:]
    drive(lab, "queue o\t\r\x04")
    assert executed[-1] == ("NY_Appliance1", "queue order")


def test_live_names_are_cached_per_burst_and_invalidated(lab: Lab, monkeypatch: pytest.MonkeyPatch) -> None:
    asked: list[str] = []
    real_vpn_names = Engine.vpn_names

    def vpn_names(self: Engine, router: str) -> list[str]:
        asked.append(router)
        return real_vpn_names(self, router)

    monkeypatch.setattr(Engine, "vpn_names", vpn_names)
    now = [0.0]
    live = LiveNames(lab, ttl=2.0, clock=lambda: now[0])
    assert live.names("vpn", "NY_Appliance1") == ["#config-sync", "Trading_VPN", "default"]
    assert live.names("vpn", "NY_Appliance1") and asked == ["NY_Appliance1"]     # same burst: cached
    now[0] = 3.0
    live.names("vpn", "NY_Appliance1")
    assert len(asked) == 2                                                     # burst over: asked again
    live.invalidate()
    live.names("vpn", "NY_Appliance1")
    assert len(asked) == 3                                                     # a command ran: asked again


def test_live_names_per_vpn(lab: Lab) -> None:
    live = LiveNames(lab)
    assert live.names("queue", "NY_Appliance1", "Trading_VPN") == ["#MSGVPN_REPLICATION_DATA_QUEUE", "orders"]
    assert live.names("queue", "NY_Appliance1", None) == []          # no VPN known: nothing to offer
    assert live.names("xid", "NY_Appliance1", "Trading_VPN") == []   # no transaction prepared yet
    assert live.names("topic", "NY_Appliance1", "Trading_VPN") == ["trading/>"]
    assert live.names("router", None) == ["NJ_Appliance1", "NY_Appliance1"]
    assert live.names("nonsense", None) == []


def test_live_names_of_users_clients_and_sites(lab: Lab) -> None:
    live = LiveNames(lab)
    assert live.names("user", None) == ["admin", "meshmgr", "monitor", "operator", "trading_admin"]
    assert live.names("client", "NY_Appliance1") == ["settlement", "trader"]
    assert live.names("site", None) == ["NY", "NJ"]


def test_queue_names_scoped_by_the_vpn_the_level_carries(lab: Lab) -> None:
    in_spool(lab)
    assert lab.target("NY_Appliance1").context == {"vpn": "Trading_VPN"}
    assert completions(lab, "NY_Appliance1", "queue ord") == [("orders ", "orders", QUEUE_HELP)]


def test_scope_from_line_finds_a_vpn_value(lab: Lab) -> None:
    from grammar.tokens import split_words

    line = "message-vpn Trading_VPN "
    assert scope_from_line(lab.parser, "configure", line, split_words(line)) == {"vpn": "Trading_VPN"}
    line = "message-vpn Tr* "
    assert scope_from_line(lab.parser, "configure", line, split_words(line)) == {}


def test_scenario_files(tmp_path) -> None:
    (tmp_path / "a.yaml").write_text("x: 1\n")
    (tmp_path / "b.txt").write_text("")
    assert scenario_files([tmp_path]) == [str(tmp_path / "a.yaml")]


def test_live_names_at_the_console_cover_every_router(lab: Lab) -> None:
    in_spool(lab)
    run(lab, "NY_Appliance1", "create queue trades", "exit")
    assert LiveNames(lab).names("vpn", None) == ["#config-sync", "Trading_VPN", "default"]
    assert LiveNames(lab).names("queue", None, "Trading_VPN") == ["#MSGVPN_REPLICATION_DATA_QUEUE", "orders",
                                                                  "trades"]
