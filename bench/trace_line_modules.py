"""The project modules one line of each CLI enters, traced with `sys.settrace`.

    python bench/trace_line_modules.py [--full]

Each CLI's line runs once untraced on a fresh in-memory lab of its scenario (so imports, caches and
the CLI itself are made), then once more with a tracer that notes the module of every Python
function called (`grammar`, `state_store` and `solace_shell` only). Prints, per CLI, the number of
modules, of calls, of store commands begun (with an observer on the lab, as a class has one) and of
readings of the line (the grammar's parse, gfsh's parser, the Qpid tools' option parsing), then
(with `--full`) the modules in the order first entered. The last lines are lines a grader watches
(a step of a bundled runbook, replayed through `grading.observed.GradedLab`). Run it with
`PYTHONPATH` at the tree to look at; it measures no time.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Callable
from types import FrameType
from typing import Any

from solace_shell.grading import load_runbook
from solace_shell.grading.grader import Grader
from solace_shell.grading.observed import GradedLab
from solace_shell.lab import Lab
from state_store.scenario_files import ROOT_DIR

PACKAGES = ("grammar", "state_store", "solace_shell")
SWIFTMQ_UP = (("lab", "ha start ha1.A"), ("lab", "ha start ha1.B"), ("lab", "advance 5s"), ("swiftmq", "sr ha1"))
# (CLI, scenario file or None for the default lab, target or None for the first router, (target,
# line) to run before, the traced line)
LINES: list[tuple[str, str | None, str | None, tuple[tuple[str | None, str], ...], str]] = [
    ("router CLI", None, None, ((None, "enable"),), "show message-vpn Trading_VPN"),
    ("lab console", None, "lab", (), "advance 1s"),
    ("gfsh", "geode-ha.yaml", "geode", (), "list members"),
    ("qpid-ha", "qpid-ha.yaml", "qpid", (), "qpid-ha status --all"),
    ("SwiftMQ CLI", "swiftmq-ha.yaml", "swiftmq", SWIFTMQ_UP, "lc"),
]
# (CLI, scenario file, target, runbook, a line of the runbook's steps): a line a grader watches
GRADED: list[tuple[str, str, str, str, str]] = [
    ("gfsh, graded", "geode-ha.yaml", "geode", "geode-durable-queue-server-restart", "list members"),
    ("qpid-ha, graded", "qpid-ha.yaml", "qpid", "qpid-primary-failover", "qpid-ha status --all"),
]
BEGIN = ("state_store.lab_store", "_begin")   # where every store command (run or transaction) starts
# where a CLI reads a line: the shared grammar, gfsh's parser, the Qpid tools' option parsing
QPID_TOOLS = "solace_shell.personalities.qpid.tools"
READERS = {("grammar.parser", "parse"), ("solace_shell.personalities.geode.gfsh_parser", "read"),
           (QPID_TOOLS, "read_ha"), (QPID_TOOLS, "read_config")}


def traced(run: Callable[[], Any]) -> tuple[list[str], int, int, int]:
    """The project modules `run` enters, in order, the number of calls into them, of store
    commands it began and of readings of a line (`READERS`)."""
    seen: dict[str, None] = {}
    calls = begun = reads = 0

    def tracer(frame: FrameType, event: str, arg: object) -> None:
        nonlocal calls, begun, reads
        if event == "call":
            name = str(frame.f_globals.get("__name__", ""))
            if name.split(".")[0] in PACKAGES:
                seen.setdefault(name)
                calls += 1
                where = (name, frame.f_code.co_name)
                begun += where == BEGIN
                reads += where in READERS

    sys.settrace(tracer)
    try:
        run()
    finally:
        sys.settrace(None)
    return list(seen), calls, begun, reads


def report(cli: str, line: str, found: tuple[list[str], int, int, int], full: bool) -> None:
    modules, calls, begun, reads = found
    print(f"{cli}: `{line}`: {len(modules)} modules, {calls} calls, {begun} store command(s), {reads} reading(s)")
    if full:
        for name in modules:
            print(f"    {name}")


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--full", action="store_true", help="list the modules, not only their count")
    args = ap.parse_args()
    for cli, scenario, target, before, line in LINES:
        lab = Lab.fresh(None if scenario is None else ROOT_DIR / scenario)
        try:
            where = target or lab.routers()[0]
            for at, earlier in before:
                lab.execute(at or where, earlier)
            lab.execute(where, line)     # once untraced: imports, caches, the CLI made
            lab.observe(lambda event: None)
            found = traced(lambda: lab.execute(where, line))   # noqa: B023 - run at once
        finally:
            lab.close()
        report(cli, line, found, args.full)
    for cli, scenario, target, runbook, line in GRADED:
        graded = GradedLab(Lab.fresh(ROOT_DIR / scenario), Grader(load_runbook(runbook)), "traced")
        try:
            graded.execute(target, line)     # once untraced
            found = traced(lambda: graded.execute(target, line))   # noqa: B023 - run at once
        finally:
            graded.lab.close()
        report(cli, line, found, args.full)
    return 0


if __name__ == "__main__":
    sys.exit(main())
