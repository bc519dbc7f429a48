"""Memory over one long transcript: resident memory every 10,000 commands, growth per command.

    python bench/bench_memory.py                       # 100,000 commands (the issue-12 size)
    python bench/bench_memory.py --commands 20000 --every 2000   # a try-out
    python bench/bench_memory.py --commands 10000 --every 1000 --where   # what grows, by source line

The transcript is a drill-like cycle repeated (`--cycle traffic`, the default: publish, consume, a
local transaction, `advance`, `show queue`, `show message-vpn ... replication`, `status`; `--cycle
quiet`: the same without publishing or consuming, configuration toggles instead), recorded from the
engine itself with the transcript Recorder, so it replays as pass. Each measurement runs in a fresh
child process, so nothing of the recording or of another measurement is in its memory:
1. engine      `Lab.execute` line after line on a fresh lab (the recording run itself): the engine and
               the sessions, nothing kept per command by the caller;
2. replay      `solace_shell.transcript.replay.stream_text` over the recorded file with each result
               handed to a callback as it ran, what `solace-shell replay` does in-process (it prints a
               failure or a JSON line at once and keeps nothing per command);
3. e2e         the installed `solace-shell replay FILE`: wall time and the child's peak RSS (`os.wait4`).
In 1 and 2 the resident set (VmRSS, not the peak) is read every `--every` commands, with the lab's
record counts; growth per command = (last sample - first sample) / commands between them, the first
sample (after `--every` commands) counting as warm. The audit ledger keeps runs of messages and
deliveries only while their fate can still change: settled ones (delivered once, no copy, entry or
transaction left) are folded into per-VPN totals (state_store/solace/settle.py) and refusals of one kind
share one record, so the record counts show whether anything still grows with traffic.
`--where` runs only the engine, under tracemalloc from the first sample on, and prints the source
lines whose allocations still held at the end grew the most, in bytes per command (RSS is not
sampled: tracing costs memory of its own).
Target (issue 12): no growth per command once warm (flat within noise).
"""

from __future__ import annotations

import argparse
import json
import os
import re
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import TYPE_CHECKING, Any

from _corpus import ROOT, child_env, rss_kb, shell_executable, table, write_json

if TYPE_CHECKING:
    from solace_shell.lab import Lab

NY, NJ, LAB = "NY_Appliance1", "NJ_Appliance1", "lab"
SETUP_NJ = ["enable", "configure", "message-vpn Trading_VPN", "replication"]
CYCLES: dict[str, list[tuple[str, str]]] = {
    "traffic": [
        (LAB, "publish trader trading/orders/new count 5"),
        (LAB, "consume settlement orders count 5"),
        (LAB, "advance 1s"),
        (NY, "show queue orders"),
        (NJ, "show queue orders"),
        (NY, "show message-vpn Trading_VPN replication"),
        (LAB, "transaction local start trader"),
        (LAB, "publish trader trading/orders/tx count 2"),
        (LAB, "transaction local commit trader"),
        (LAB, "consume settlement orders count 2"),
        (LAB, "advance 1s"),
        (LAB, "status"),
    ],
    "quiet": [
        (NJ, "reject-msg-when-sync-ineligible"),
        (LAB, "advance 1s"),
        (NY, "show queue orders"),
        (NJ, "show message-vpn Trading_VPN replication"),
        (NY, "show message-vpn Trading_VPN replication"),
        (NJ, "no reject-msg-when-sync-ineligible"),
        (LAB, "advance 1s"),
        (LAB, "status"),
    ],
}
COUNTED = ("messages", "deliveries", "rejections", "spooled", "repl_entries", "txns", "txn_ops")


def steps(cycle: str, commands: int) -> list[tuple[str, str]]:
    """The NJ session's way down to the replication level, then the cycle until `commands` lines."""
    out = [(NJ, line) for line in SETUP_NJ]
    body = CYCLES[cycle]
    while len(out) < commands:
        out.append(body[(len(out) - len(SETUP_NJ)) % len(body)])
    return out[:commands]


def record_counts(lab: Lab) -> dict[str, int]:
    st = lab.store.state
    return {kind: len(st.records(kind)) for kind in COUNTED}


class _Sampler:
    """Resident memory and the lab's record counts every `every` commands."""

    def __init__(self, every: int) -> None:
        self.every = every
        self.commands = 0
        self.started = time.perf_counter()
        self.samples: list[dict[str, Any]] = []

    def tick(self, lab: Lab) -> None:
        self.commands += 1
        if self.commands % self.every == 0:
            self.samples.append({"commands": self.commands, "rss_kb": rss_kb(),
                                 "seconds": time.perf_counter() - self.started, **record_counts(lab)})


# ---------------------------------------------------------------- children (one fresh process each)
def child_record(path: Path, cycle: str, commands: int, every: int) -> dict[str, Any]:
    from solace_shell.lab import Lab
    from solace_shell.transcript.record import Recorder

    lab = Lab.fresh()
    sampler = _Sampler(every)
    failed = 0
    try:
        with Recorder.open(path) as rec:
            for target, line in steps(cycle, commands):
                prompt = lab.prompt(target)
                outcome = lab.execute(target, line)
                failed += not outcome.ok
                rec.record(prompt, line, outcome.text)
                sampler.tick(lab)
    finally:
        lab.close()
    return {"samples": sampler.samples, "commands": sampler.commands, "not_ok": failed,
            "seconds": time.perf_counter() - sampler.started}


def child_where(cycle: str, commands: int, every: int) -> dict[str, Any]:
    """The engine's run under tracemalloc from command `every` on: the source lines whose
    allocations grew most by the end, in bytes per command."""
    import gc
    import tracemalloc

    from solace_shell.lab import Lab

    lab = Lab.fresh()
    plan = steps(cycle, commands)
    try:
        for target, line in plan[:every]:
            lab.execute(target, line)
        gc.collect()
        tracemalloc.start(1)
        first = tracemalloc.take_snapshot()
        for target, line in plan[every:]:
            lab.execute(target, line)
        gc.collect()
        diff = tracemalloc.take_snapshot().compare_to(first, "lineno")
    finally:
        tracemalloc.stop()
        lab.close()
    span = commands - every
    rel = str(ROOT) + os.sep
    return {"commands": span, "total_per_command": sum(d.size_diff for d in diff) / span,
            "lines": [[str(d.traceback[0]).replace(rel, ""), d.size_diff / span, d.count_diff]
                      for d in diff[:8]]}


def child_replay(path: Path, every: int) -> dict[str, Any]:
    from solace_shell.lab import Lab
    from solace_shell.transcript.lab_api import OutcomeLike
    from solace_shell.transcript.replay import stream_text
    from solace_shell.transcript.results import CommandResult

    sampler = _Sampler(every)

    class Watched:
        """The real fresh lab, counted: replay sees exactly the Lab API it always uses."""

        def __init__(self, lab: Lab) -> None:
            self.lab = lab

        def targets(self) -> list[str]:
            return self.lab.targets()

        def prompt(self, target: str) -> str:
            return self.lab.prompt(target)

        def execute(self, target: str, line: str) -> OutcomeLike:
            outcome = self.lab.execute(target, line)
            sampler.tick(self.lab)
            return outcome

        def close(self) -> None:
            self.lab.close()

    def factory(scenario: Path | None, settings: dict[str, str]) -> Watched:
        return Watched(Lab.fresh(scenario=scenario, settings=settings))

    def report(result: CommandResult, _prompt: str, _strict: bool) -> None:
        """What `solace-shell replay` does with a result (text mode): a failure is printed, then
        nothing of it is kept."""
        if result.verdict != "pass":
            print(f"FAIL {result.transcript}:{result.line}: {result.command}", file=sys.stderr)

    text = path.read_text(encoding="utf-8")
    sampler.started = time.perf_counter()
    run = stream_text(text, str(path), report, lab_factory=factory)
    seconds = time.perf_counter() - sampler.started
    return {"samples": sampler.samples, "commands": sum(run.counts.values()), "passed": run.counts["pass"],
            "error": run.result.error, "seconds": seconds}


def in_child(*args: str) -> dict[str, Any]:
    """This script in a new process (`--child ...`); its JSON answer."""
    with tempfile.NamedTemporaryFile(suffix=".json") as out:
        subprocess.run([sys.executable, __file__, "--child", *args, "--child-out", out.name], check=True,
                       env=child_env(), cwd=ROOT)
        answer: dict[str, Any] = json.loads(Path(out.name).read_text())
        return answer


PROMPT_LINE = re.compile(rb"^[A-Za-z0-9_./()-]+[>#] ", re.MULTILINE)


def e2e_part(path: Path) -> tuple[Path, int]:
    """The recorded transcript as `solace-shell replay` takes it: whole when it is within the
    replay's file limit (`TRANSCRIPT_MAX_BYTES`), else cut before the first command line that
    would pass the limit, written beside it. The file and how many commands it holds."""
    from state_store.user_files import TRANSCRIPT_MAX_BYTES

    data = path.read_bytes()
    if len(data) <= TRANSCRIPT_MAX_BYTES:
        return path, len(PROMPT_LINE.findall(data))
    starts = [m.start() for m in PROMPT_LINE.finditer(data, 0, TRANSCRIPT_MAX_BYTES + 1)]
    cut = starts[-1] if starts else 0
    part = path.with_name(f"part-{path.name}")
    part.write_bytes(data[:cut])
    return part, len(starts) - 1


def run_e2e(path: Path) -> dict[str, Any]:
    path, commands = e2e_part(path)
    shell = shell_executable()
    started = time.perf_counter()
    with tempfile.TemporaryFile("w+") as out:
        proc = subprocess.Popen([shell, "replay", str(path)], stdout=out, stderr=subprocess.STDOUT, env=child_env())
        _, status, usage = os.wait4(proc.pid, 0)
        seconds = time.perf_counter() - started
        proc.returncode = os.waitstatus_to_exitcode(status)
        out.seek(0)
        tail = out.read().strip().splitlines()[-1:]
    return {"shell": shell, "seconds": seconds, "exit_code": proc.returncode, "max_rss_mb": usage.ru_maxrss / 1024,
            "summary": tail[0] if tail else "", "commands": commands}


def growth(run: dict[str, Any]) -> dict[str, float]:
    """Bytes of RSS and records per command from the first sample to the last."""
    s = run["samples"]
    if len(s) < 2:
        return {}
    span = s[-1]["commands"] - s[0]["commands"]
    out = {"rss_bytes_per_command": (s[-1]["rss_kb"] - s[0]["rss_kb"]) * 1024 / span,
           "rss_first_mb": s[0]["rss_kb"] / 1024, "rss_last_mb": s[-1]["rss_kb"] / 1024,
           "records_per_command": sum(s[-1][k] - s[0][k] for k in COUNTED) / span}
    records = sum(s[-1][k] - s[0][k] for k in COUNTED)
    if records > 0:
        out["rss_bytes_per_added_record"] = (s[-1]["rss_kb"] - s[0]["rss_kb"]) * 1024 / records
    return out


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--commands", type=int, default=100_000, help="commands in the transcript (default 100,000)")
    ap.add_argument("--every", type=int, default=10_000, help="sample every N commands (default 10,000)")
    ap.add_argument("--cycle", choices=sorted(CYCLES), default="traffic")
    ap.add_argument("--keep", type=Path, default=None, help="write the transcript here (default: a temporary file)")
    ap.add_argument("--skip-e2e", action="store_true", help="do not run `solace-shell replay FILE`")
    ap.add_argument("--json", type=Path, default=None, help="also write the numbers here")
    ap.add_argument("--where", action="store_true", help="what grows in the engine, by source line (tracemalloc)")
    ap.add_argument("--child", nargs="+", default=None, help=argparse.SUPPRESS)
    ap.add_argument("--child-out", type=Path, default=None, help=argparse.SUPPRESS)
    args = ap.parse_args()
    if args.child:
        kind, *rest = args.child
        if kind == "record":
            answer = child_record(Path(rest[0]), rest[1], int(rest[2]), int(rest[3]))
        elif kind == "where":
            answer = child_where(rest[0], int(rest[1]), int(rest[2]))
        else:
            answer = child_replay(Path(rest[0]), int(rest[1]))
        write_json(args.child_out, answer)
        return 0
    if args.commands < 2 * args.every:
        ap.error("--commands must be at least twice --every (two samples)")
    if args.where:
        where = in_child("where", args.cycle, str(args.commands), str(args.every))
        write_json(args.json, where)
        print(f"engine, commands {args.every:,} to {args.commands:,} ({args.cycle} cycle) under tracemalloc: "
              f"{where['total_per_command']:+.1f} bytes/command held in all; the most:")
        print(table(["source line", "bytes/command", "blocks"],
                    [[f, f"{b:+.1f}", f"{n:+,}"] for f, b, n in where["lines"]]))
        return 0

    with tempfile.TemporaryDirectory(prefix="bench-memory-") as tmp:
        path = args.keep or Path(tmp) / f"long-{args.cycle}.cli.txt"
        print(f"recording {args.commands:,} commands ({args.cycle} cycle) into {path} ...", flush=True)
        engine = in_child("record", str(path), args.cycle, str(args.commands), str(args.every))
        print(f"replaying {path} in-process (results streamed as solace-shell replay does) ...", flush=True)
        replay = in_child("replay", str(path), str(args.every))
        e2e = None
        if not args.skip_e2e:
            print(f"running solace-shell replay {path} ...", flush=True)
            e2e = run_e2e(path)

    runs = {"engine": engine, "replay": replay}
    result = {"commands": args.commands, "every": args.every, "cycle": args.cycle, "runs": runs, "e2e": e2e,
              "growth": {name: growth(run) for name, run in runs.items()}}
    write_json(args.json, result)

    print()
    headers = ["commands", "engine RSS MB", "replay RSS MB", *COUNTED]
    rows = []
    for a, b in zip(engine["samples"], replay["samples"], strict=False):
        rows.append([f"{a['commands']:,}", f"{a['rss_kb'] / 1024:.1f}", f"{b['rss_kb'] / 1024:.1f}",
                     *[a[k] for k in COUNTED]])
    print(table(headers, rows))
    print()
    for name, run in runs.items():
        g = result["growth"][name]
        rate = run["commands"] / run["seconds"] if run["seconds"] else 0.0
        extra = (f", {g['rss_bytes_per_added_record']:.0f} bytes per record added"
                 if "rss_bytes_per_added_record" in g else "")
        print(f"{name:<7} {run['commands']:,} commands in {run['seconds']:.1f} s ({rate:,.0f}/s); RSS "
              f"{g['rss_first_mb']:.1f} -> {g['rss_last_mb']:.1f} MB from command {run['samples'][0]['commands']:,} "
              f"to {run['samples'][-1]['commands']:,}: {g['rss_bytes_per_command']:+.1f} bytes/command; "
              f"{g['records_per_command']:.3f} lab records/command{extra}")
    kept = result["growth"]["replay"]["rss_bytes_per_command"] - result["growth"]["engine"]["rss_bytes_per_command"]
    print(f"replay - engine: {kept:+.1f} bytes/command (what the replay harness keeps per command)")
    if not_ok := engine.get("not_ok"):
        print(f"note: {not_ok} recorded commands answered an error (recorded as such; replay expects it)")
    ok = replay["passed"] == replay["commands"] == args.commands and not replay["error"]
    if e2e is not None:
        print(f"e2e     solace-shell replay FILE ({e2e['commands']:,} commands: the file within replay's limit): "
              f"{e2e['seconds']:.1f} s ({e2e['commands'] / e2e['seconds']:,.0f} "
              f"commands/s), max RSS {e2e['max_rss_mb']:.1f} MB, exit {e2e['exit_code']}: {e2e['summary']}")
        ok = ok and e2e["exit_code"] == 0
    if not ok:
        print(f"WARNING: the replay did not pass every command ({replay['passed']}/{replay['commands']}"
              f"{', ' + replay['error'] if replay['error'] else ''})")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
