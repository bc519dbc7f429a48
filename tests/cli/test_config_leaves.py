"""Configuration leaves declared once (grammar/data/leaves.yaml): a leaf with words gets its
command, its parameter's range, the engine's check, a generic handler and its current-config
line from the one declaration. Through the real Lab; the random round trip of every generic leaf
is in tests/cli/test_current_config_roundtrip.py."""

from __future__ import annotations

from pathlib import Path

import pytest

from grammar.leaves import LeafError, read_leaves
from solace_shell.lab import Lab

NY = "NY_Appliance1"


def run(lab: Lab, *lines: str) -> list[str]:
    """Each line's output; every line must succeed."""
    out = []
    for line in lines:
        outcome = lab.execute(NY, line)
        assert outcome.ok, (line, outcome.text)
        out.append(outcome.text)
    return out


def config(lab: Lab, *words: str) -> list[str]:
    return lab.execute(NY, " ".join(["show current-config message-vpn default", *words])).text.splitlines()


def test_a_generic_bool_leaf_sets_prints_and_resets() -> None:
    lab = Lab.fresh()
    run(lab, "enable", "configure", "client-profile default message-vpn default", "allow-bridge-connections", "end")
    lines = config(lab)
    at = lines.index('client-profile "default" message-vpn "default"')
    assert lines[at + 1:at + 4] == ["  allow-bridge-connections",
                                    "  no message-spool reject-msg-to-sender-on-no-subscription-match", "  exit"]
    removal = config(lab, "remove")
    assert "  no allow-bridge-connections" in removal
    run(lab, "configure", "client-profile default message-vpn default", "no allow-bridge-connections", "end")
    assert not any("allow-bridge-connections" in line for line in config(lab))


def test_allow_shared_subscriptions_as_the_real_dump_resets_it() -> None:
    lab = Lab.fresh()
    run(lab, "enable", "configure", "create client-profile cp message-vpn default", "allow-shared-subscriptions",
        "end")
    assert '  allow-shared-subscriptions' in config(lab)
    run(lab, "configure", "client-profile cp message-vpn default", "no allow-shared-subscriptions", "end")
    assert '  allow-shared-subscriptions' not in config(lab)


def test_a_queue_leaf_is_kept_in_the_lab_file_and_replays(tmp_path: Path) -> None:
    db = tmp_path / "lab.db"
    lab = Lab.open(db)
    run(lab, "enable", "configure", "message-spool message-vpn default", "create queue q", "max-ttl 60",
        "redelivery-delay multiplier 3.00", "no redelivery", "end")
    again = Lab.open(db)
    lines = config(again)
    at = lines.index('  create queue "q"')
    assert lines[at + 7:at + 11] == ['    max-ttl 60', '    no redelivery', '    redelivery-delay multiplier "3.00"',
                                     '    shutdown']
    removal = config(again, "remove")   # the dump resets every setting of the queue, these among them
    block = removal[removal.index('  queue "q"'):removal.index('  no queue "q"')]
    assert {"    no max-ttl", "    redelivery", '    redelivery-delay multiplier "2.00"'} <= set(block)
    # the other router of the VPN's group has the queue with the same settings (config-sync)
    assert '    max-ttl 60' in again.execute("NJ_Appliance1", "show current-config message-vpn default").text


def test_a_value_out_of_the_leafs_range_is_one_line_and_changes_nothing() -> None:
    lab = Lab.fresh()
    run(lab, "enable", "configure", "client-profile default message-vpn default")
    before = lab.store.dump()
    outcome = lab.execute(NY, "tcp keepalive count 9")
    assert not outcome.ok
    assert outcome.text.splitlines()[-1] == ("   -> Invalid value '9' for <client-profile-tcp-keepalive-count>: "
                                             "out of range 2-5")
    assert lab.store.dump() == before


def test_an_event_threshold_by_percent_or_value() -> None:
    lab = Lab.fresh()
    run(lab, "enable", "configure", "client-profile default message-vpn default",
        "event subscriptions thresholds clear-percent 40 set-percent 90", "end", "configure",
        "message-vpn default", "event egress-message-rate thresholds clear-value 10 set-value 20", "end")
    lines = config(lab)
    assert "  event subscriptions thresholds clear-percent 40 set-percent 90" in lines
    assert "  event egress-message-rate thresholds clear-value 10 set-value 20" in lines
    run(lab, "configure", "client-profile default message-vpn default")
    refused = lab.execute(NY, "event transactions thresholds clear-value 5 set-value 3")
    assert refused.text == "ERROR: Value 5 for event-transactions is out of range (0 to 3)."


def test_jndi_connection_factories_print_and_tear_down_as_the_real_dump() -> None:
    lab = Lab.fresh()
    run(lab, "enable", "configure", "jndi message-vpn default", "create connection-factory /jms/cf/default", "exit",
        "no shutdown", "end")
    lines = config(lab)
    at = lines.index('jndi message-vpn "default"')
    assert lines[at - 2:at + 6] == ["", '! Configure JNDI: ""', 'jndi message-vpn "default"',
                                    "! pragma:interpreter:ignore-already-exists",
                                    '  create connection-factory "/jms/cf/default"',
                                    "! pragma:interpreter:no-ignore-already-exists", "    exit", "  no shutdown"]
    removal = config(lab, "remove")
    at = removal.index('! Remove JNDI: ""')
    assert removal[at:at + 5] == ['! Remove JNDI: ""', 'jndi message-vpn "default"', "  shutdown",
                                  '  no connection-factory "/jms/cf/default"', "  exit"]


def test_a_malformed_declaration_is_reported_with_its_line(tmp_path: Path) -> None:
    bad = tmp_path / "leaves.yaml"
    bad.write_text("objects:\n  queue:\n    x: {type: float}\n    y: {type: int, default: 1}\n"
                   "    z: {type: bool, cli: 'z <value>'}\n")
    with pytest.raises(LeafError) as caught:
        read_leaves(bad)
    assert caught.value.problems == [
        "leaves.yaml:3: leaf queue/x: type must be one of bool, int, enum, str, secret, threshold",
        "leaves.yaml:4: leaf queue/y: an int needs min and max",
        "leaves.yaml:5: leaf queue/z: a leaf with cli words needs 'mode'",
        "leaves.yaml:5: leaf queue/z: a leaf with cli words needs 'access'",
        "leaves.yaml:5: leaf queue/z: a leaf with cli words needs 'help'",
        "leaves.yaml:5: leaf queue/z: cli words hold <value> exactly when the leaf is not a bool or threshold",
    ]
