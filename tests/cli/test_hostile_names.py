"""Names that look like SQL or shell are refused by the broker's name rules, or kept literally."""

from __future__ import annotations

import pytest

from tests.support.cli_steps import go, refused
from tests.support.router_engine import router_engine

SQL = "Trading_VPN'; DROP TABLE queue;--"
SHELL = "$(reboot)"


@pytest.mark.parametrize("name", [SQL, SHELL, "`id`", "a|b", "x>y"])
def test_object_names_with_forbidden_characters_are_refused_as_the_cli_would(lab, ny, name) -> None:
    go(ny, "enable", "configure", "message-spool message-vpn Trading_VPN")
    outcome = refused(lab, ny, f'create queue "{name}"', kind="invalid-value")
    assert "Invalid value" in outcome.text and "<queue-name>" in outcome.text


def test_vpn_names_with_forbidden_characters_are_refused(lab, ny) -> None:
    go(ny, "enable", "configure")
    refused(lab, ny, f'message-vpn "{SQL}"', kind="invalid-value")
    refused(lab, ny, f'message-vpn "{SHELL}"', kind="invalid-value")


def test_topics_may_hold_such_text_and_it_is_stored_and_shown_literally(lab, ny) -> None:
    topic = f"trading/{SHELL}/';DROP_TABLE_message;--"
    go(ny, "enable", "configure", "message-vpn Trading_VPN", f'replication create replicated-topic "{topic}"')
    config = lab.execute("NY_Appliance1", "show current-config message-vpn Trading_VPN").text
    assert f'"{topic}"' in config
    published = lab.console.execute(f'publish trader "{topic}" count 2')
    assert published.ok, published.text
    with lab.store.transaction() as engine:
        assert topic in [t.topic for t in router_engine(engine).replicated_topics("NY_Appliance1", "Trading_VPN")]
        assert router_engine(engine).audit().totals.published == 2          # the message table is still there
        assert {q.name for q in router_engine(engine).queues("NY_Appliance1")} >= {"orders"}
