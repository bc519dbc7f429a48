"""End-to-end replay: `solace-shell replay DIR` over generated drills, start-up included, and its memory.

    python bench/bench_replay_e2e.py                 # 1,000 drills, seed 20240601 (the issue-12 size)
    python bench/bench_replay_e2e.py --count 50      # a try-out

The corpus is `solace-conformance generate --count N --seed S` (recorded from the engine itself, so
every command passes), kept in --corpus (default: a temporary directory) and reused when its index
matches. Measured in one run:
1. e2e         the installed `solace-shell replay DIR` console script as a child process, from exec to
               exit (interpreter start-up, imports, grammar and template lab included); commands are
               counted from the corpus index, the peak resident memory is the child's own rusage
               (`os.wait4`), not this process's;
2. start-up    the same entry point replaying only the first drill (start-up plus one transcript);
3. in-process  `solace_shell.transcript.replay.replay_text` over the same files in this process (warm:
               imports, grammar and template already loaded), for the ratio e2e / in-process.
Targets (issue 12): e2e >= 10,000 commands/s, e2e max RSS <= 300 MB.
"""

from __future__ import annotations

import argparse
import os
import re
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

from _corpus import child_env, corpus, corpus_commands, shell_executable, table, write_json

TARGET_RATE = 10_000.0
TARGET_RSS_MB = 300.0
SUMMARY = re.compile(r"(\d+) transcript\(s\), (\d+) command\(s\): (\d+) passed, (\d+) failed, (\d+) error")


def run_entry_point(shell: str, paths: list[Path]) -> dict[str, Any]:
    """`solace-shell replay PATHS` in a child: wall seconds, exit code, its own peak RSS, summary."""
    with tempfile.TemporaryFile("w+") as out:
        started = time.perf_counter()
        proc = subprocess.Popen([shell, "replay", *map(str, paths)], stdout=out, stderr=subprocess.STDOUT,
                                env=child_env())
        _, status, usage = os.wait4(proc.pid, 0)
        wall = time.perf_counter() - started
        proc.returncode = os.waitstatus_to_exitcode(status)
        out.seek(0)
        text = out.read()
    found = SUMMARY.findall(text)
    transcripts, commands, passed, failed, errors = map(int, found[-1]) if found else (0, 0, 0, 0, 0)
    return {"seconds": wall, "exit_code": proc.returncode, "max_rss_mb": usage.ru_maxrss / 1024,
            "cpu_seconds": usage.ru_utime + usage.ru_stime, "reported_transcripts": transcripts,
            "reported_commands": commands, "passed": passed, "failed": failed, "errors": errors,
            "tail": text.strip().splitlines()[-3:]}


def run_in_process(files: list[Path]) -> dict[str, Any]:
    from solace_shell.lab import Lab
    from solace_shell.transcript.replay import paced_collection, replay_text

    texts = [(str(f), f.read_text(encoding="utf-8")) for f in files]
    Lab.fresh().close()  # warm the grammar and the template lab, as the entry point's start-up does
    commands = passed = 0
    started = time.perf_counter()
    with paced_collection():  # as the replay command does with its batch
        for name, text in texts:
            result = replay_text(text, name)
            commands += len(result.commands)
            passed += sum(1 for c in result.commands if c.verdict == "pass")
    wall = time.perf_counter() - started
    return {"seconds": wall, "commands": commands, "passed": passed, "commands_per_second": commands / wall}


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--count", type=int, default=1000, help="drills in the corpus (default 1,000)")
    ap.add_argument("--seed", type=int, default=20240601)
    ap.add_argument("--corpus", type=Path, default=None, help="keep/reuse the corpus here")
    ap.add_argument("--jobs", type=int, default=None, help="processes for generating the corpus")
    ap.add_argument("--shell", default=None, help="the solace-shell executable (default: the installed one)")
    ap.add_argument("--json", type=Path, default=None, help="also write the numbers here")
    args = ap.parse_args()
    shell = args.shell or shell_executable()

    with tempfile.TemporaryDirectory(prefix="bench-e2e-") as tmp:
        path = args.corpus or Path(tmp) / "corpus"
        files, gen_seconds = corpus(path, args.count, args.seed, args.jobs)
        commands = corpus_commands(path)
        print(f"corpus: {len(files)} drills, {commands} commands in {path}"
              + (f" (generated in {gen_seconds:.1f} s)" if gen_seconds is not None else " (reused)"), flush=True)
        print(f"running {shell} replay {path} ...", flush=True)
        e2e = run_entry_point(shell, [path])
        print(f"running {shell} replay <first drill> (start-up) ...", flush=True)
        startup = run_entry_point(shell, files[:1])
        print("running in-process replay_text ...", flush=True)
        inproc = run_in_process(files)

    e2e["commands"] = commands
    e2e["commands_per_second"] = commands / e2e["seconds"]
    ratio = e2e["commands_per_second"] / inproc["commands_per_second"]
    # The 1-drill run is start-up plus one transcript: what is left is the replay of the others.
    rest = e2e["seconds"] - startup["seconds"]
    beyond = (commands - startup["reported_commands"]) / rest if rest > 0 else 0.0
    ok_rate = e2e["commands_per_second"] >= TARGET_RATE
    ok_rss = e2e["max_rss_mb"] <= TARGET_RSS_MB
    all_passed = e2e["exit_code"] == 0 and e2e["reported_commands"] == commands == e2e["passed"]
    write_json(args.json, {"count": args.count, "seed": args.seed, "shell": shell, "e2e": e2e, "startup": startup,
                           "in_process": inproc, "ratio_e2e_to_in_process": ratio,
                           "e2e_beyond_startup_commands_per_second": beyond,
                           "targets": {"commands_per_second": TARGET_RATE, "max_rss_mb": TARGET_RSS_MB},
                           "met": {"commands_per_second": ok_rate, "max_rss_mb": ok_rss}})
    print()
    print(table(["run", "drills", "commands", "seconds", "cmd/s", "max RSS MB", "passed"], [
        ["e2e: solace-shell replay DIR", len(files), commands, f"{e2e['seconds']:.2f}",
         f"{e2e['commands_per_second']:.0f}", f"{e2e['max_rss_mb']:.1f}",
         f"{e2e['passed']}/{e2e['reported_commands']}"],
        ["start-up: replay of 1 drill", 1, startup["reported_commands"], f"{startup['seconds']:.2f}", "",
         f"{startup['max_rss_mb']:.1f}", f"{startup['passed']}/{startup['reported_commands']}"],
        ["in-process replay_text", len(files), inproc["commands"], f"{inproc['seconds']:.2f}",
         f"{inproc['commands_per_second']:.0f}", "", f"{inproc['passed']}/{inproc['commands']}"],
    ]))
    print()
    print(f"e2e / in-process: {ratio:.2f}x")
    print(f"target e2e >= {TARGET_RATE:,.0f} commands/s: {'met' if ok_rate else 'NOT met'} "
          f"({e2e['commands_per_second']:,.0f})")
    print(f"e2e beyond start-up (e2e minus the 1-drill run): {beyond:,.0f} commands/s")
    print(f"target e2e max RSS <= {TARGET_RSS_MB:.0f} MB: {'met' if ok_rss else 'NOT met'} "
          f"({e2e['max_rss_mb']:.1f} MB)")
    if not all_passed:
        print(f"WARNING: the replay did not pass every command (exit {e2e['exit_code']}): "
              + " | ".join(e2e["tail"]))
    return 0 if all_passed else 1


if __name__ == "__main__":
    sys.exit(main())
