"""SwiftMQ spool swap during the synchronisation (a store image larger than the spool's memory
cache swaps to disk and the sync lasts longer; the CLI's Usage shows the spool while it drains),
and the HA Controller Swiftlet's settings through the admin CLI (replication channel, spool, the
"Threadpool Freezes" list with `new`/`delete`), each taking effect in the state machine."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from solace_shell.lab import Lab
from state_store.solace.scenario import ROOT_DIR
from state_store.swiftmq.params import HaParams, freeze_entries, freeze_text

SCENARIO = ROOT_DIR / "swiftmq-ha.yaml"


@pytest.fixture()
def lab() -> Iterator[Lab]:
    lab = Lab.fresh(SCENARIO)
    yield lab
    lab.close()


def run(lab: Lab, target: str, line: str) -> str:
    out = lab.execute(target, line)
    return out.text


def lab_ok(lab: Lab, *lines: str) -> None:
    for line in lines:
        out = lab.execute("lab", line)
        assert out.ok, (line, out.text)


def b_alone_with(lab: Lab, messages: int) -> None:
    """A and B pair up, A dies, B (STANDALONE, serving) takes `messages`; A starts again (B wins)."""
    lab_ok(lab, "ha start ha1.A", "ha start ha1.B", "advance 5s", "ha kill ha1.A",
           f"jms publish c1 q1 count {messages}", "ha start ha1.A")


def usage(lab: Lab) -> dict[str, str]:
    lines = run(lab, "swiftmq", "lc /sys$hacontroller/usage").split("\n")
    return {line[:40].strip().removesuffix(" (R/O)"): line[40:] for line in lines if line.startswith("spool-")}


def states(lab: Lab) -> dict[str, str]:
    rows = run(lab, "lab", "ha state ha1").split("\n")[3:]
    return {row.split()[0]: row.split()[2] for row in rows if row.strip()}


def log_lines(lab: Lab, instance: str, word: str) -> list[str]:
    return [line.strip() for line in run(lab, "lab", f"ha log {instance}").split("\n") if word in line]


def test_the_part_of_the_image_beyond_the_cache_swaps_and_costs_time() -> None:
    p = HaParams()
    assert p.spool_swap(5120) == (0, 0, 0)
    assert p.spool_swap(5121) == (1, 1, 2)
    assert p.spool_swap(100_000) == (94_880, 94_880, 742 * 2)
    assert HaParams(spool_max_cache_size_kb=102_400).spool_swap(100_000) == (0, 0, 0)
    assert HaParams(message_size_kb=4).spool_swap(5128) == (8, 2, 2)


def test_a_store_beyond_the_cache_swaps_and_the_usage_shows_the_spool_draining(lab: Lab) -> None:
    b_alone_with(lab, 100_000)
    lab_ok(lab, "advance 1s")                           # ACTIVE-SYNC since +750 ms
    run(lab, "swiftmq", "sr ha1")
    first = usage(lab)
    assert first["spool-cache-size"] == "5120" and 0 < int(first["spool-swap-size"]) < 94_880
    assert first["spool-swapped-messages"] == first["spool-swap-size"]   # 1 KB per message
    lab_ok(lab, "advance 4s")
    later = usage(lab)
    assert int(later["spool-swap-size"]) < int(first["spool-swap-size"])
    assert log_lines(lab, "ha1.B", "Spool cache") == [
        "+++ Spool cache full (5120 KB): 94880 KB (94880 messages) swapped to disk in ./ (1484 ms)"]
    lab_ok(lab, "advance 5300ms")                       # 0.75 + 0.25 + 7.82 + 1.484 s: synced at 10.304 s
    assert states(lab)["B"] == "ACTIVE-SYNC"
    lab_ok(lab, "advance 4ms")
    assert states(lab) == {"A": "STANDBY", "B": "ACTIVE"}
    assert usage(lab) == {"spool-cache-size": "0", "spool-swap-size": "0", "spool-swapped-messages": "0"}


def test_a_cache_large_enough_avoids_the_swap_and_shortens_the_sync(lab: Lab) -> None:
    lab_ok(lab, "ha start ha1.A", "ha start ha1.B", "advance 5s")
    run(lab, "swiftmq", "sr ha1")
    assert run(lab, "swiftmq", "cc /sys$hacontroller/spool") == ""
    assert run(lab, "swiftmq", "set max-cache-size 102400") == ""
    lab_ok(lab, "ha kill ha1.A", "jms publish c1 q1 count 100000", "ha start ha1.A", "advance 8800ms")
    assert states(lab)["B"] == "ACTIVE-SYNC"
    lab_ok(lab, "advance 20ms")                         # 0.75 + 0.25 + 7.82 s: no swap
    assert states(lab) == {"A": "STANDBY", "B": "ACTIVE"}
    assert log_lines(lab, "ha1.B", "Spool cache") == []


def test_the_replication_channel_settings_are_shown_set_and_used(lab: Lab) -> None:
    lab_ok(lab, "ha start ha1.A", "ha start ha1.B", "advance 4s")
    run(lab, "swiftmq", "sr ha1")
    run(lab, "swiftmq", "cc /sys$hacontroller/replication-channel")
    shown = run(lab, "swiftmq", "lc").split("\n")
    assert "heartbeat-interval                      2000" in shown
    assert "heartbeat-missing-threshold             10" in shown
    assert "max-packet-size                         128" in shown
    before = lab.store.dump()
    for bad in ("0", "-5", "abc", "1.5", ""):
        text = run(lab, "swiftmq", f"set heartbeat-interval {bad}".strip())
        assert text == f"Invalid value '{bad}' for property 'heartbeat-interval'", text
    assert lab.store.dump() == before
    assert run(lab, "swiftmq", "set heartbeat-interval 1000") == ""
    assert run(lab, "swiftmq", "set heartbeat-missing-threshold 5") == ""
    lab_ok(lab, "ha hang ha1.A", "advance 4s")          # last beat at 4 s: 1000 ms x 5 -> 9 s
    assert states(lab)["B"] == "STANDBY"
    lab_ok(lab, "advance 1s")
    assert states(lab)["B"] == "STANDALONE"


def test_the_freeze_list_is_an_entity_list_whose_entries_order_the_freeze(lab: Lab) -> None:
    lab_ok(lab, "ha start ha1.A", "ha start ha1.B", "advance 5s")
    run(lab, "swiftmq", "sr ha1")
    run(lab, "swiftmq", "cc /sys$hacontroller/threadpool-freezes")
    listed = run(lab, "swiftmq", "lc").split("\n")
    assert listed[:5] == ["", "Entity List: Threadpool Freezes", "Description: Threadpools to freeze during Init", "",
                          "Number of Entities in this List: 5"]
    assert listed[6:] == ["01", "02", "03", "04", "05"]
    before = lab.store.dump()
    assert run(lab, "swiftmq", "new 01 poolname x") == "Entity '01' is already defined."
    assert run(lab, "swiftmq", "new 07") == "Mandatory Property 'poolname' must be set."
    assert run(lab, "swiftmq", "new 07 size 3") == "Unknown Property: size"
    assert run(lab, "swiftmq", "new 07 poolname") == "Invalid command, please try 'new <name> [<prop> <value> ...]'"
    assert run(lab, "swiftmq", "new 0:7 poolname x") == "Invalid value '0:7' for property 'name'"
    assert run(lab, "swiftmq", "new .. poolname x") == "Invalid value '..' for property 'name'"
    assert run(lab, "swiftmq", "delete 99") == "Unknown Entity: 99"
    assert run(lab, "swiftmq", "delete") == "Invalid command, please try 'delete <entity>'"
    assert run(lab, "swiftmq", "cc 01") == ""
    assert run(lab, "swiftmq", "set poolname a,b") == "Invalid value 'a,b' for property 'poolname'"
    assert run(lab, "swiftmq", "cc /sys$hacontroller/spool") == ""
    assert run(lab, "swiftmq", "new 07 poolname x") == "Invalid command, please try 'help'"
    assert lab.store.dump() == before
    run(lab, "swiftmq", "cc /sys$hacontroller/threadpool-freezes")
    assert run(lab, "swiftmq", "new 00 poolname timer.tasks") == ""
    assert run(lab, "swiftmq", "delete 03") == ""
    assert run(lab, "swiftmq", "cc 05") == ""
    assert run(lab, "swiftmq", "set poolname routing.service") == ""
    lab_ok(lab, "ha kill ha1.A", "ha start ha1.A", "advance 2s")
    frozen = [line.split()[3] for line in log_lines(lab, "ha1.B", " frozen") if line.endswith(" frozen")]
    assert frozen == ["timer.tasks", "jms.connection", "jms.session", "routing", "routing.service"]


def test_changing_the_list_while_frozen_unfreezes_what_froze(lab: Lab) -> None:
    lab_ok(lab, "ha start ha1.A", "ha start ha1.B", "advance 5s", "ha kill ha1.A", "ha start ha1.A", "advance 600ms")
    assert states(lab)["B"] == "ACTIVE-SYNC-PREPARE"
    run(lab, "swiftmq", "sr ha1")
    run(lab, "swiftmq", "cc /sys$hacontroller/threadpool-freezes")
    assert run(lab, "swiftmq", "delete 01") == ""
    lab_ok(lab, "advance 2s")
    unfrozen = [line.split()[3] for line in log_lines(lab, "ha1.B", "unfrozen")]
    assert unfrozen[-5:] == list(HaParams().freeze_order)


def test_the_list_text_round_trips_and_bare_pools_are_named_by_position() -> None:
    assert freeze_entries("store.log, routing") == (("01", "store.log"), ("02", "routing"))
    assert freeze_entries("b:x,a:y") == (("a", "y"), ("b", "x"))
    entries = freeze_entries(HaParams().threadpool_freezes)
    assert freeze_entries(freeze_text(entries)) == entries
