"""Two shells on one lab file while one of them publishes a large batch.

Run: python bench/bench_lock.py [--messages N]
Shell A (a child process) publishes N messages in one command; meanwhile shell B (this process)
runs a read (`show message-vpn * replication`) and a write (`lab> advance 1s`) in turn. Reported:
how long A's command took, and B's slowest read and write while it ran (a write that cannot get
the lock within the shell's bounded wait ends with one `The lab is busy` line).

What to expect (state_store/lab_store.py): commands run in memory and append one row each, so B's
writes make A lose the race to append; A then runs again holding the write lock (at least two runs
of the publish), and B's writes wait for it; a write of B that follows A's also replays A's publish
to catch up. B's reads never wait for the lock.
"""

from __future__ import annotations

import argparse
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from solace_shell.lab import Lab

PUBLISHER = """
import sys, time
from solace_shell.lab import Lab
lab = Lab.open(sys.argv[1])
print("ready", flush=True)
start = time.perf_counter()
out = lab.execute("lab", f"publish trader trading/orders/new count {sys.argv[2]}")
print(f"done {time.perf_counter() - start:.3f} {out.ok}", flush=True)
lab.close()
"""


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--messages", type=int, default=1_000_000)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "lab.sqlite"
        Lab.open(path).close()
        child = subprocess.Popen([sys.executable, "-c", PUBLISHER, str(path), str(args.messages)],
                                 stdout=subprocess.PIPE, text=True)
        assert child.stdout is not None
        assert child.stdout.readline().strip() == "ready"
        lab = Lab.open(path)
        reads: list[float] = []
        writes: list[float] = []
        busy = 0
        while child.poll() is None:
            start = time.perf_counter()
            assert lab.execute("NY_Appliance1", "show message-vpn * replication").ok
            reads.append(time.perf_counter() - start)
            start = time.perf_counter()
            out = lab.execute("lab", "advance 1s")
            writes.append(time.perf_counter() - start)
            busy += out.error_kind == "busy"
        done = child.stdout.read().split()
        lab.close()
    print(f"shell A: publish {args.messages:,} messages in one command took {float(done[1]):.2f} s (ok={done[2]})")
    print(f"shell B meanwhile: {len(reads)} reads, slowest {max(reads) * 1000:.1f} ms; "
          f"{len(writes)} writes, slowest {max(writes) * 1000:.1f} ms, {busy} answered 'lab is busy'")
    return 0


if __name__ == "__main__":
    sys.exit(main())
