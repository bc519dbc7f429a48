"""`Lab.observe`: every line of every door reaches the observers, masked, with the clock."""

from __future__ import annotations

import io

from solace_shell.lab import LAB_TARGET, Lab
from solace_shell.line_event import LineEvent
from solace_shell.script import run_commands, run_script


def _observed(lab: Lab) -> list[LineEvent]:
    seen: list[LineEvent] = []
    lab.observe(seen.append)
    return seen


def test_execute_tells_observers_the_line_outcome_and_clock() -> None:
    lab = Lab.fresh()
    seen = _observed(lab)
    lab.execute(LAB_TARGET, "advance 5s")
    lab.execute("NY_Appliance1", "show nonsense")
    assert [(e.target, e.line, e.outcome.ok) for e in seen] == [
        (LAB_TARGET, "advance 5s", True), ("NY_Appliance1", "show nonsense", False)]
    assert seen[0].clock_ms == 5000 and seen[1].clock_ms == 5000
    assert seen[1].outcome.error_kind == "invalid"


def test_passwords_never_reach_observers() -> None:
    lab = Lab.fresh()
    seen = _observed(lab)
    for line in ("enable", "configure", "create username bob password s3cretpw", "username bob password s3cretpw"):
        lab.execute("NY_Appliance1", line)
    assert seen and all("s3cretpw" not in e.line for e in seen)


def test_commands_and_scripts_go_through_the_observed_door() -> None:
    lab = Lab.fresh()
    seen = _observed(lab)
    run_commands(lab, "NY_Appliance1", ["show hostname"], io.StringIO())
    run_script(lab, "NY_Appliance1", ["enable", "show hostname"], io.StringIO())
    assert [e.line for e in seen] == ["show hostname", "enable", "show hostname"]


def test_a_lab_without_observers_reads_no_clock() -> None:
    lab = Lab.fresh()
    assert lab.execute("NY_Appliance1", "show hostname").ok
