"""Two shells on one lab file: interleaved commands, and a huge publish next to a shell at work.

    python bench/bench_two_shells.py                    # both parts at the issue-12 sizes
    python bench/bench_two_shells.py --commands 1000 --messages 200000   # a try-out

Every shell is its own process with its own `solace_shell.lab.Lab` opened on the file (what
`solace-shell --db FILE` runs for each line), so catching up, appending and lock waits are real.
(a) interleave  two shells, `--commands` in all, half each, started together: shell NY publishes and
                consumes (`lab> publish trader trading/orders/<k> count 7`, `lab> consume settlement
                orders count 5`), shell NJ configures and shows at the replication level of
                Trading_VPN on NJ_Appliance1 (`[no] reject-msg-when-sync-ineligible`, `show
                message-vpn Trading_VPN replication`, `show queue orders`). Reported: lock errors
                (`The lab is busy` answers, "locked" anywhere in the output; target 0), commands that
                failed, per-command latency, and whether the file's final `LabStore.dump()` equals a
                serial replay of the same commands, one shell, in the order they completed (each
                child stamps a command with the system-wide monotonic clock when it returns).
(b) big publish shell A publishes `--messages` messages in one command (`lab> publish trader
                trading/orders/new count N`); shell B, every `--interval` s (100 ms), runs a read
                (`show message-vpn * replication` on NY_Appliance1) and a write (`[no]
                reject-msg-when-sync-ineligible` on NJ_Appliance1), from 1 s before A starts until
                `--after-ticks` rounds after A's command returned. Reported per phase (before: answered
                before A began; during: overlapping A's command; after: begun once A had its answer):
                the slowest read and write (seconds from the command's start to its answer; target
                <= 1 s) and the `lab is busy` answers, plus B's slowest commands on A's timeline.
                B's first command after A's commit catches up with it (replays the publish), which
                may fall in "during" (A commits just before it answers). The default lab's quotas
                apply (issue 15): the output says how many messages were accepted. The parent watches
                the machine's available memory and stops both shells when it falls under
                `--min-free-gb` (each shell holds the whole lab in memory, about 1.4 KB a message).
Prints a table per part and, with --json FILE, writes the numbers.
"""

from __future__ import annotations

import argparse
import json
import os
import select
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path
from typing import IO, TYPE_CHECKING, Any

from _corpus import ROOT, child_env, mem_available_kb, table, write_json

if TYPE_CHECKING:
    from solace_shell.lab import Lab

NY, NJ, LAB = "NY_Appliance1", "NJ_Appliance1", "lab"
SETUP_NJ = ["enable", "configure", "message-vpn Trading_VPN", "replication"]
READ = (NY, "show message-vpn * replication")


def command(role: str, i: int) -> tuple[str, str]:
    """The i-th command of a shell of part (a). The two roles touch disjoint state (NY's spool,
    NJ's VPN settings), as in tests/store/test_crash_and_concurrency.py."""
    if role == "ny":
        return (LAB, f"publish trader trading/orders/{i % 5} count 7") if i % 2 == 0 else \
            (LAB, "consume settlement orders count 5")
    k = i % 4
    if k == 1:
        return NJ, "show message-vpn Trading_VPN replication"
    if k == 3:
        return NJ, "show queue orders"
    return NJ, "reject-msg-when-sync-ineligible" if k == 0 else "no reject-msg-when-sync-ineligible"


def write_toggle(i: int) -> tuple[str, str]:
    return NJ, "no reject-msg-when-sync-ineligible" if i % 2 else "reject-msg-when-sync-ineligible"


# ------------------------------------------------------------------ children
def _open(path: str, with_nj: bool) -> Lab:
    """The lab file opened as a shell opens it, NJ's session at the replication level. A shell's
    first change imports SQLAlchemy Core (a shell that only reads never does): done here, before
    `ready`, so no measured command pays a one-off import."""
    from solace_shell.lab import Lab
    from state_store.lab_tables import tables

    lab = Lab.open(path)
    if with_nj:
        for line in SETUP_NJ:
            assert lab.execute(NJ, line).ok, line
    import sqlalchemy.pool  # noqa: F401
    tables()
    return lab


def _say(*words: object) -> None:
    sys.stdout.write(" ".join(map(str, words)) + "\n")
    sys.stdout.flush()


def _wait_for(word: str) -> None:
    while sys.stdin.readline().strip() != word:
        pass


def child_interleave(path: str, role: str, count: int) -> int:
    lab = _open(path, role == "nj")
    _say("ready")
    _wait_for("go")
    for i in range(count):
        target, line = command(role, i)
        t0 = time.monotonic_ns()
        out = lab.execute(target, line)
        t1 = time.monotonic_ns()
        _say("done", i, t0, t1, int(out.ok), out.error_kind or "-", json.dumps(out.text if not out.ok else ""))
    lab.close()
    return 0


def child_publisher(path: str, messages: int, size: int | None) -> int:
    lab = _open(path, False)
    _say("ready")
    _wait_for("go")
    line = f"publish trader trading/orders/new count {messages}" + (f" size {size}" if size else "")
    _say("start", time.monotonic_ns())
    out = lab.execute(LAB, line)
    _say("done", time.monotonic_ns(), int(out.ok), out.error_kind or "-", json.dumps(out.text))
    os._exit(0)  # a lab of millions of records: the process ends without freeing them one by one


def child_ticker(path: str, interval: float, writes: bool) -> int:
    lab = _open(path, True)
    _say("ready")
    _wait_for("go")
    due = time.monotonic()
    i = 0
    while True:
        sched = time.monotonic_ns()
        r0 = time.monotonic_ns()
        r = lab.execute(*READ)
        r1 = time.monotonic_ns()
        w = lab.execute(*write_toggle(i)) if writes else r
        w1 = time.monotonic_ns() if writes else r1
        _say("tick", i, sched, r0, r1, int(r.ok), r.error_kind or "-", r1, w1, int(w.ok), w.error_kind or "-")
        i += 1
        due = max(due + interval, time.monotonic())
        ready, _, _ = select.select([sys.stdin], [], [], max(0.0, due - time.monotonic()))
        if ready and sys.stdin.readline().strip() == "stop":
            break
    _say("bye")
    os._exit(0)


# ------------------------------------------------------------------ the parent
class Child:
    """A shell process of this script (`--child ...`), its lines collected by a thread."""

    def __init__(self, *args: str) -> None:
        self.proc = subprocess.Popen([sys.executable, __file__, "--child", *args], cwd=ROOT, env=child_env(),
                                     stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                                     text=True, bufsize=1)
        self.lines: list[str] = []
        self.err: list[str] = []
        self._threads = [threading.Thread(target=self._read, args=(self.proc.stdout, self.lines), daemon=True),
                         threading.Thread(target=self._read, args=(self.proc.stderr, self.err), daemon=True)]
        for t in self._threads:
            t.start()

    @staticmethod
    def _read(stream: IO[str] | None, into: list[str]) -> None:
        assert stream is not None
        for line in stream:
            into.append(line.rstrip("\n"))

    def send(self, word: str) -> None:
        assert self.proc.stdin is not None
        self.proc.stdin.write(word + "\n")
        self.proc.stdin.flush()

    def wait_line(self, prefix: str, timeout: float) -> str:
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            for line in self.lines:
                if line.startswith(prefix):
                    return line
            if self.proc.poll() is not None and not any(line.startswith(prefix) for line in self.lines):
                time.sleep(0.2)  # let the reader threads drain the pipes
                break
            time.sleep(0.01)
        raise RuntimeError(f"no {prefix!r} line from the child (exit {self.proc.poll()}): "
                           + " | ".join(self.err[-5:]))

    def finish(self, timeout: float = 60.0) -> int:
        code = self.proc.wait(timeout=timeout)
        for t in self._threads:
            t.join(timeout=5)
        return code


def part_a(commands: int, tmp: Path) -> dict[str, Any]:
    from solace_shell.lab import Lab
    from state_store.lab_store import LabStore

    per_shell = commands // 2
    shared = tmp / "shared.sqlite"
    Lab.open(shared).close()
    shells = {role: Child("interleave", str(shared), role, str(per_shell)) for role in ("ny", "nj")}
    for c in shells.values():
        c.wait_line("ready", 120)
    started = time.perf_counter()
    for c in shells.values():
        c.send("go")
    codes = {role: c.finish(timeout=3600) for role, c in shells.items()}
    wall = time.perf_counter() - started

    events: list[tuple[int, str, int]] = []  # (completed at, role, i)
    latencies: dict[str, list[float]] = {}
    failed: list[str] = []
    locks = 0
    for role, c in shells.items():
        locks += sum("locked" in line for line in c.lines + c.err)
        for line in c.lines:
            if not line.startswith("done "):
                continue
            _, n, t0, t1, ok, kind, text = line.split(" ", 6)
            events.append((int(t1), role, int(n)))
            latencies.setdefault(role, []).append((int(t1) - int(t0)) / 1e9)
            locks += kind == "busy"
            if ok != "1":
                failed.append(f"{role} {command(role, int(n))[1]!r}: {json.loads(text)}")
    events.sort()

    serial_path = tmp / "serial.sqlite"
    serial = Lab.open(serial_path)
    for line in SETUP_NJ:
        assert serial.execute(NJ, line).ok, line
    t = time.perf_counter()
    for _, role, i in events:
        serial.execute(*command(role, i))
    serial_seconds = time.perf_counter() - t
    serial.close()
    a, b = LabStore.open(shared), LabStore.open(serial_path)
    try:
        dump_a, dump_b = a.dump(), b.dump()
    finally:
        a.close()
        b.close()
    done = len(events)
    return {"commands": done, "per_shell": per_shell, "exit_codes": codes, "seconds": wall,
            "commands_per_second": done / wall, "lock_errors": locks, "failed": len(failed),
            "failed_examples": failed[:5], "equal_to_serial_replay": dump_a == dump_b,
            "serial_replay_seconds": serial_seconds, "dump_lines": dump_a.count("\n"),
            "latency": {role: {"p50_ms": statistics.median(v) * 1000, "max_ms": max(v) * 1000}
                        for role, v in latencies.items()}}


def _commands(ticks: list[list[str]]) -> list[tuple[str, int, int, int, bool, str]]:
    """Shell B's commands from its tick lines: (read|write, start, end, scheduled, ok, error kind)."""
    out = []
    for f in ticks:
        _, _, sched, r0, r1, rok, rkind, w0, w1, wok, wkind = f
        out.append(("read", int(r0), int(r1), int(sched), rok == "1", rkind))
        out.append(("write", int(w0), int(w1), int(sched), wok == "1", wkind))
    return out


def _phases(cmds: list[tuple[str, int, int, int, bool, str]], pub_start: int,
            pub_done: int | None) -> dict[str, dict[str, Any]]:
    """Shell B's commands grouped by when they ran relative to A's publish: before (answered before
    it started), during (overlapping it), after (started once A had its answer)."""
    out: dict[str, dict[str, Any]] = {}
    for kind, a, b, sched, ok, why in cmds:
        phase = "before" if b < pub_start else "after" if pub_done is not None and a > pub_done else "during"
        p = out.setdefault(phase, {"rounds": 0, "read_max_s": 0.0, "write_max_s": 0.0, "read_late_max_s": 0.0,
                                   "write_late_max_s": 0.0, "busy": 0, "not_ok": 0, "reads": [], "writes": []})
        p[f"{kind}_max_s"] = max(p[f"{kind}_max_s"], (b - a) / 1e9)
        p[f"{kind}_late_max_s"] = max(p[f"{kind}_late_max_s"], (b - sched) / 1e9)
        p[f"{kind}s"].append((b - a) / 1e9)
        p["busy"] += why == "busy"
        p["not_ok"] += not ok
        p["rounds"] += kind == "read"
    for p in out.values():
        reads, writes = p.pop("reads"), p.pop("writes")
        p["read_median_s"] = statistics.median(reads) if reads else 0.0
        p["write_median_s"] = statistics.median(writes) if writes else 0.0
    return out


def _slowest(cmds: list[tuple[str, int, int, int, bool, str]], pub_start: int, n: int = 3) -> list[str]:
    """The n slowest commands of shell B, placed on A's timeline (+seconds since A's command began)."""
    worst = sorted(cmds, key=lambda c: c[1] - c[2])[:n]
    return [f"{kind} at {(a - pub_start) / 1e9:+.2f} s took {(b - a) / 1e9:.3f} s"
            + ("" if ok else f" ({why})") for kind, a, b, _, ok, why in worst]


def part_b(messages: int, size: int | None, interval: float, after_ticks: int, min_free_gb: float,
           timeout: float, writes: bool, tmp: Path) -> dict[str, Any]:
    from solace_shell.lab import Lab

    path = tmp / "big.sqlite"
    Lab.open(path).close()
    free_gb = mem_available_kb() / 2**20
    print(f"  memory: the publish is one run of records whatever its count; {free_gb:.1f} GB available now "
          f"(both shells are stopped under {min_free_gb:.1f} GB)", flush=True)
    ticker = Child("ticker", str(path), str(interval), "1" if writes else "0")
    publisher = Child("publisher", str(path), str(messages), str(size or 0))
    children = (ticker, publisher)
    aborted = None
    try:
        for c in children:
            c.wait_line("ready", 120)
        ticker.send("go")
        time.sleep(1.0)  # the baseline: B alone
        publisher.send("go")
        pub_start = int(publisher.wait_line("start", 60).split()[1])
        min_free = mem_available_kb()
        pub_done: int | None = None
        deadline = time.monotonic() + timeout
        while True:
            if time.monotonic() > deadline:
                aborted = f"not done after {timeout:.0f} s"
                break
            min_free = min(min_free, mem_available_kb())
            if min_free < min_free_gb * 2**20:
                aborted = f"available memory fell under {min_free_gb:.1f} GB"
                break
            if pub_done is None:
                done = [line for line in publisher.lines if line.startswith("done ")]
                if done:
                    pub_done = int(done[0].split()[1])
                elif publisher.proc.poll() is not None:
                    aborted = f"shell A ended without an answer (exit {publisher.proc.returncode})"
                    break
            if pub_done is not None:
                later = [line for line in ticker.lines if line.startswith("tick ") and int(line.split()[3]) > pub_done]
                if len(later) >= after_ticks:
                    break
            if ticker.proc.poll() is not None:
                aborted = f"shell B ended (exit {ticker.proc.returncode}): " + " | ".join(ticker.err[-3:])
                break
            time.sleep(0.1)
        if ticker.proc.poll() is None:
            ticker.send("stop")
            ticker.wait_line("bye", 120 if aborted is None else 5)
    except RuntimeError as exc:
        aborted = aborted or str(exc)
    finally:
        for c in children:
            if c.proc.poll() is None:
                c.proc.kill()
            c.finish()
    done_lines = [line for line in publisher.lines if line.startswith("done ")]
    published = ""
    pub_seconds = None
    if done_lines:
        _, t_done, ok, kind, text = done_lines[0].split(" ", 4)
        published = json.loads(text).split("\n")[0] + ("" if ok == "1" else f" (not ok: {kind})")
        pub_seconds = (int(t_done) - pub_start) / 1e9
    cmds = _commands([line.split() for line in ticker.lines if line.startswith("tick ")])
    return {"messages": messages, "size": size, "interval_s": interval, "publish_answer": published,
            "publish_seconds": pub_seconds, "phases": _phases(cmds, pub_start, pub_done if done_lines else None),
            "slowest": _slowest(cmds, pub_start), "aborted": aborted, "min_available_gb": min_free / 2**20}


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--part", choices=["a", "b", "both"], default="both")
    ap.add_argument("--commands", type=int, default=10_000, help="(a) commands in all, half per shell")
    ap.add_argument("--messages", type=int, default=10_000_000, help="(b) messages of the one publish")
    ap.add_argument("--size", type=int, default=None, help="(b) message size in bytes (default: the lab's)")
    ap.add_argument("--interval", type=float, default=0.1, help="(b) seconds between shell B's rounds")
    ap.add_argument("--after-ticks", type=int, default=2, help="(b) rounds of shell B after the publish returned")
    ap.add_argument("--min-free-gb", type=float, default=2.0, help="(b) stop both shells under this much free memory")
    ap.add_argument("--reads-only", action="store_true",
                    help="(b) shell B only reads (its write column repeats the read): does A's publish commit, and "
                         "what does B's catch-up cost")
    ap.add_argument("--timeout", type=float, default=1800.0, help="(b) give up after this many seconds")
    ap.add_argument("--json", type=Path, default=None, help="also write the numbers here")
    ap.add_argument("--child", nargs="+", default=None, help=argparse.SUPPRESS)
    args = ap.parse_args()
    if args.child:
        kind, path, *rest = args.child
        if kind == "interleave":
            return child_interleave(path, rest[0], int(rest[1]))
        if kind == "publisher":
            return child_publisher(path, int(rest[0]), int(rest[1]) or None)
        return child_ticker(path, float(rest[0]), rest[1] == "1")

    results: dict[str, Any] = {}
    with tempfile.TemporaryDirectory(prefix="bench-two-shells-") as tmp:
        if args.part in ("a", "both"):
            print(f"(a) two shells, {args.commands:,} interleaved commands ...", flush=True)
            results["a"] = part_a(args.commands, Path(tmp))
        if args.part in ("b", "both"):
            print(f"(b) one shell publishes {args.messages:,} messages in one command, the other "
                  f"{'reads' if args.reads_only else 'reads and writes'} every {args.interval * 1000:.0f} ms ...",
                  flush=True)
            results["b"] = part_b(args.messages, args.size, args.interval, args.after_ticks, args.min_free_gb,
                                  args.timeout, not args.reads_only, Path(tmp))
    write_json(args.json, results)

    ok = True
    if "a" in results:
        a = results["a"]
        print()
        print(table(["(a) interleave", "value"], [
            ["commands completed", f"{a['commands']:,} ({a['per_shell']:,} per shell)"],
            ["wall seconds, commands/s", f"{a['seconds']:.1f} s, {a['commands_per_second']:,.0f}/s"],
            ["lock errors (target 0)", a["lock_errors"]],
            ["failed commands", a["failed"]],
            ["final dump == serial replay", "yes" if a["equal_to_serial_replay"] else "NO"],
            *[[f"latency {role} p50 / max", f"{v['p50_ms']:.1f} / {v['max_ms']:.1f} ms"]
              for role, v in a["latency"].items()],
        ]))
        for example in a["failed_examples"]:
            print(f"  failed: {example}")
        ok = ok and a["lock_errors"] == 0 and a["failed"] == 0 and a["equal_to_serial_replay"]
    if "b" in results:
        b = results["b"]
        print()
        print(f"(b) shell A: {b['publish_answer'] or '(no answer)'}"
              + (f" in {b['publish_seconds']:.1f} s" if b["publish_seconds"] is not None else ""))
        print(table(["phase of shell B", "rounds", "read max s", "write max s", "read median s", "write median s",
                     "busy", "not ok"],
                    [[name, p["rounds"], f"{p['read_max_s']:.3f}", f"{p['write_max_s']:.3f}",
                      f"{p['read_median_s']:.3f}", f"{p['write_median_s']:.3f}", p["busy"], p["not_ok"]]
                     for name in ("before", "during", "after") if (p := b["phases"].get(name))]))
        print("slowest commands of shell B (A's command began at +0, answered at "
              + (f"+{b['publish_seconds']:.2f} s): " if b["publish_seconds"] is not None else "-): ")
              + "; ".join(b["slowest"]))
        worst = max([p[k] for name in ("during", "after") if (p := b["phases"].get(name))
                     for k in ("read_max_s", "write_max_s")] or [0.0])
        print(f"target: another shell's command delayed <= 1 s by the publish (during and after it): "
              f"{'met' if worst <= 1 else 'NOT met'} (slowest {worst:.3f} s); "
              f"min available memory {b['min_available_gb']:.1f} GB")
        if b["aborted"]:
            print(f"ABORTED: {b['aborted']}")
            ok = False
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
