"""One-shot SwiftMQ admin CLI writes racing one-shot lab writes on one lab file.

Two loops side by side on one lab file of the bundled `swiftmq-ha` scenario (instances paired): one
runs N one-shot `solace-shell --router swiftmq -c "sr ha1" -c "cc sys$hacontroller" -c "set
negotiation-timeout ..."` in turn, the other N one-shot `solace-shell --router lab -c "jms publish c1
q1"`; counts the error lines they print (a write conflict must never reach the user).

Usage: PYTHONPATH=$PWD python bench/bench_swiftmq_race.py [--n 30]
"""

from __future__ import annotations

import argparse
import subprocess
import sys
import tempfile
import threading
from pathlib import Path

from solace_shell.lab import Lab
from state_store.scenario_files import ROOT_DIR


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--n", type=int, default=30)
    args = ap.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp, "lab.db")
        lab = Lab.open(path, scenario=ROOT_DIR / "swiftmq-ha.yaml")
        for line in ("ha start ha1.A", "ha start ha1.B", "advance 5s"):
            assert lab.execute("lab", line).ok
        lab.close()
        shell = [sys.executable, "-m", "solace_shell.cli", "--db", str(path)]
        commands = {
            "swiftmq": [[*shell, "--router", "swiftmq", "-c", "sr ha1", "-c", "cc sys$hacontroller",
                         "-c", f"set negotiation-timeout {120000 + i}"] for i in range(args.n)],
            "lab": [[*shell, "--router", "lab", "-c", "jms publish c1 q1"] for _ in range(args.n)],
        }
        outputs: list[str] = []

        def loop(cmds: list[list[str]]) -> None:
            for cmd in cmds:
                outputs.append(subprocess.run(cmd, capture_output=True, text=True).stdout)

        loops = [threading.Thread(target=loop, args=(cmds,)) for cmds in commands.values()]
        for t in loops:
            t.start()
        for t in loops:
            t.join()
    errors = [line for out in outputs for line in out.splitlines() if "ERROR" in line or "Traceback" in line]
    print(f"{len(outputs)} one-shot shells ({args.n} SwiftMQ CLI writes, {args.n} lab writes) on one lab file: "
          f"{len(errors)} error line(s)")
    for line in sorted(set(errors))[:5]:
        print(f"  {line} (x{errors.count(line)})")
    return 0


if __name__ == "__main__":
    sys.exit(main())
