"""Prompt truncation follows every real example; the command reference is never stale."""

from __future__ import annotations

import pytest

from grammar.prompts import prompt_text
from grammar.reference import REFERENCE_PATH, generate


@pytest.mark.parametrize("host,path,expected", [
    ("solbroker", "configure/message-vpn/telemetry-profile/trace",
     "solbroker(...e/message-vpn/telemetry-profile/trace)#"),
    ("solbroker", "configure/message-vpn/telemetry-profile/trace/filter",
     "solbroker(...ge-vpn/telemetry-profile/trace/filter)#"),
    ("solace", "configure/message-vpn/replication/ack-propagation",
     "solace(...ssage-vpn/replication/ack-propagation)#"),
    ("9ed090c64c68", "configure/ssl/domain-certificate-authority",
     "9ed090c64c68(...gure/ssl/domain-certificate-authority)#"),
    ("solace", "configure/message-vpn/replication/queue", "solace(configure/message-vpn/replication/queue)#"),
    ("NY_Appliance1", "", "NY_Appliance1#"),
])
def test_prompt_truncation(host: str, path: str, expected: str) -> None:
    assert prompt_text(host, path, "#") == expected


def test_command_reference_is_up_to_date() -> None:
    assert REFERENCE_PATH.read_text(encoding="utf-8") == generate(), (
        "docs/commands.md is stale: run `python -m grammar.reference --write`")
