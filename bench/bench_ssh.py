"""Training labs over SSH: many trainees at once against one `solace-shell serve`.

Run: python bench/bench_ssh.py [--sessions 50] [--commands 20]

Starts `solace-shell --db <temp lab> serve --port 0` in a child process, opens N interactive SSH
sessions at once (asyncssh clients with a pseudo-terminal, spread over the lab's two routers), and
has each run the same 20-command drill (shows, levels, a queue of its own). A command's latency is
from sending its line to the next prompt being drawn. The same drills then run in one local process
through `Lab.execute` (one `Lab` per trainee over one store, interleaved round-robin as the trainees
would be), and the ratios are taken in the same run. Logins are timed apart from commands.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from solace_shell.lab import Lab  # noqa: E402 - after the sys.path line above
from state_store.lab_store import LabStore  # noqa: E402
from tests.support.ssh_clients import AsyncShell  # noqa: E402

ROUTERS = ("NY_Appliance1", "NJ_Appliance1")
USERS = (("admin", "admin"), ("operator", "operator"))


def drill(index: int, count: int) -> list[str]:
    """`count` commands (20 by default) a trainee types: shows, then a queue of its own, then shows."""
    queue = f"trainee_{index}"
    base = [
        "show hostname",
        "show message-vpn * replication",
        "show queue * message-vpn Trading_VPN",
        "show client *",
        "enable",
        "configure",
        "message-spool message-vpn Trading_VPN",
        f"create queue {queue}",
        "exit",
        "exit",
        "end",
        f"show queue {queue} message-vpn Trading_VPN",
        "show message-vpn * replication",
        "show queue * message-vpn Trading_VPN",
        "configure",
        "message-spool message-vpn Trading_VPN",
        "end",
        "show message-vpn * replication detail",
        "show hostname",
        f"show queue {queue} message-vpn Trading_VPN detail",
    ]
    return (base * (count // len(base) + 1))[:count]


def p99(samples: list[float]) -> float:
    return statistics.quantiles(samples, n=100)[98]


async def over_ssh(ports: dict[str, int], sessions: int, count: int) -> tuple[list[float], list[float], float]:
    logins: list[float] = []
    latencies: list[float] = []
    failures: list[str] = []

    async def trainee(index: int) -> None:
        user, password = USERS[index % 2]
        start = time.perf_counter()
        shell = await AsyncShell.open(ports[ROUTERS[index % 2]], user, password, height=200)
        logins.append(time.perf_counter() - start)
        try:
            for line in drill(index, count):
                sent = time.perf_counter()
                out = await shell.command(line)
                latencies.append(time.perf_counter() - sent)
                if "ERROR" in out or "Invalid" in out:
                    failures.append(f"{line}: {out[:200]}")
        finally:
            await shell.close()

    start = time.perf_counter()
    await asyncio.gather(*(trainee(i) for i in range(sessions)))
    wall = time.perf_counter() - start
    if failures:
        raise SystemExit("commands failed over SSH:\n" + "\n".join(failures[:10]))
    return logins, latencies, wall


def local(lab_path: Path, sessions: int, count: int) -> tuple[list[float], float]:
    store = LabStore.open(lab_path)
    labs = [Lab(store, USERS[i % 2][0]) for i in range(sessions)]
    drills = [drill(i, count) for i in range(sessions)]
    latencies: list[float] = []
    start = time.perf_counter()
    for step in range(count):
        for index, lab in enumerate(labs):
            sent = time.perf_counter()
            outcome = lab.execute(ROUTERS[index % 2], drills[index][step])
            latencies.append(time.perf_counter() - sent)
            if not outcome.ok:
                raise SystemExit(f"local command failed: {drills[index][step]}: {outcome.text[:200]}")
    wall = time.perf_counter() - start
    store.close()
    return latencies, wall


def serve(lab_path: Path) -> tuple[subprocess.Popen[str], dict[str, int]]:
    env = dict(os.environ, PYTHONPATH=str(ROOT))
    proc = subprocess.Popen([sys.executable, "-m", "solace_shell.cli", "--db", str(lab_path), "serve", "--port", "0"],
                            stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True, env=env)
    assert proc.stdout is not None
    lines = [proc.stdout.readline() for _ in ROUTERS]
    return proc, {line.split()[0]: int(line.split()[3]) for line in lines}


def ms(seconds: float) -> str:
    return f"{seconds * 1000:.1f} ms"


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--sessions", type=int, default=50)
    parser.add_argument("--commands", type=int, default=20)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        ssh_lab, local_lab = Path(tmp) / "ssh.lab", Path(tmp) / "local.lab"
        proc, ports = serve(ssh_lab)
        try:
            logins, ssh_lat, ssh_wall = asyncio.run(over_ssh(ports, args.sessions, args.commands))
        finally:
            proc.terminate()
            proc.wait(timeout=60)
        LabStore.open(local_lab).close()
        local_lat, local_wall = local(local_lab, args.sessions, args.commands)
    total = args.sessions * args.commands
    cpus = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count()
    print(f"{args.sessions} sessions x {args.commands} commands = {total} commands, {cpus} CPUs")
    print(f"SSH:   p50 {ms(statistics.median(ssh_lat))}  p99 {ms(p99(ssh_lat))}  "
          f"total {ssh_wall:.2f} s (logins p50 {ms(statistics.median(logins))}, max {ms(max(logins))})")
    print(f"local: p50 {ms(statistics.median(local_lat))}  p99 {ms(p99(local_lat))}  "
          f"total {local_wall:.2f} s (Lab.execute, one process)")
    print(f"ratio SSH/local: p50 {statistics.median(ssh_lat) / statistics.median(local_lat):.1f}x  "
          f"total {ssh_wall / local_wall:.1f}x")
    return 0


if __name__ == "__main__":
    sys.exit(main())
