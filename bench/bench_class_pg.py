"""A class over one PostgreSQL database: what a trainee's command costs there, what several hosts
serve, how soon a killed host's trainees are back.

Run: python bench/bench_class_pg.py [--quick] [--commands 300] [--trainees 6] [--per-trainee 40]

A throwaway PostgreSQL cluster is started for the run (tests/support/postgres.py: initdb into a
temporary directory, a free loopback port; the server binaries must be installed) and removed at
the end. Figures are CPU time or ratios measured in the same run:

- command: one trainee's lab (the class's `trainee_lab`, what every door runs) executing the same
  lines (`publish ... count 1`, `show queue ...`, `advance 1s`, in turn) over SQLite files and over
  PostgreSQL, in alternating turns of `--commands`/10 each (so that the machine's load, which
  other work changes during a run, weighs on both). CPU per command = this process's CPU plus,
  for PostgreSQL, the CPU of every process of the cluster (its backends and writers), read from
  /proc. Target: PostgreSQL <= 2x SQLite.
- hosts: `--trainees` trainees, each in their own lab through an SSH shell, publishing
  `--per-trainee` times as fast as answered, served by 1 `class serve` process, then by 3 over the
  same database (trainees spread over them). Commands per second of wall time, and CPU seconds
  per 1000 commands of every server process and the cluster. On a 2-core machine the clients
  and the servers share the cores: 3 processes can only show that sharing the database costs
  little, not a 3x throughput.
- recovery: those trainees logged in on host A, host A killed with SIGKILL, each trainee then
  logging in on host B until at their lab prompt: the seconds from the kill to the last one back
  (target: within 5 s).
"""

from __future__ import annotations

import argparse
import asyncio
import os
import signal
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from tests.support.postgres import Cluster, require_server  # noqa: E402
from tests.support.ssh_clients import AsyncShell  # noqa: E402

F2 = "\x1bOQ"
LINES = (("lab", "publish trader trading/orders/new count 1"),
         ("NY_Appliance1", "show queue * message-vpn Trading_VPN"),
         ("lab", "advance 1s"))


def class_yaml(trainees: int) -> str:
    rows = "\n".join(f"  - {{name: t{i:02d}, password: t{i:02d}-pw}}" for i in range(trainees))
    return ("scenario: default\nrunbook: controlled-failover\ntrainers:\n  - {name: trainer, password: trainer-pw}\n"
            f"trainees:\n{rows}\n")


def cluster_cpu(cluster: Cluster) -> float:
    """CPU seconds of every process of the cluster so far (the postmaster and its children)."""
    pid_file = cluster.data / "postmaster.pid"
    master = int(pid_file.read_text().split()[0])
    tick = os.sysconf("SC_CLK_TCK")
    total = 0.0
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            fields = Path(f"/proc/{entry}/stat").read_text().rsplit(")", 1)[1].split()
        except OSError:
            continue
        if int(entry) == master or int(fields[1]) == master:
            total += (int(fields[11]) + int(fields[12])) / tick
    return total


def process_cpu(pids: list[int]) -> float:
    tick = os.sysconf("SC_CLK_TCK")
    total = 0.0
    for pid in pids:
        try:
            fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
        except OSError:
            continue
        total += (int(fields[11]) + int(fields[12])) / tick
    return total


# ------------------------------------------------------------------ a trainee's command
def per_command(cluster: Cluster, work: Path, commands: int, rounds: int = 10) -> None:
    """Both labs open at once, their commands run in `rounds` alternating turns (SQLite's turn,
    then PostgreSQL's): a change in the machine's load during the run weighs on both alike."""
    from solace_shell.classroom.class_file import load_class_file
    from solace_shell.classroom.room import ClassRoom

    path = work / "command.yaml"
    path.write_text(class_yaml(1))
    class_file = load_class_file(path)
    member = class_file.trainee("t00")
    assert member is not None
    rooms = {name: ClassRoom(class_file, work / f"command-{name}", url)
             for name, url in (("sqlite", None), ("postgresql", cluster.database()))}
    own = dict.fromkeys(rooms, 0.0)
    server = 0.0
    done = dict.fromkeys(rooms, 0)
    try:
        labs = {name: room.trainee_lab(member, "shell") for name, room in rooms.items()}
        for lab in labs.values():
            for target, line in LINES:  # warm: the lab opened, the parser's caches
                lab.execute(target, line)
        per_turn = max(1, commands // rounds)
        for _ in range(rounds):
            for name, lab in labs.items():
                server0 = cluster_cpu(cluster) if name == "postgresql" else 0.0
                cpu0 = time.process_time()
                for _ in range(per_turn):
                    target, line = LINES[done[name] % len(LINES)]
                    assert lab.execute(target, line).ok
                    done[name] += 1
                own[name] += time.process_time() - cpu0
                if name == "postgresql":
                    server += cluster_cpu(cluster) - server0
    finally:
        for room in rooms.values():
            room.close()
    results: dict[str, float] = {}
    for name in rooms:
        db = server if name == "postgresql" else 0.0
        results[name] = (own[name] + db) / done[name]
        print(f"command {name}: {results[name] * 1000:.2f} ms CPU per command (server process "
              f"{own[name] / done[name] * 1000:.2f}, database {db / done[name] * 1000:.2f}; {done[name]} commands)")
    ratio = results["postgresql"] / results["sqlite"]
    print(f"command ratio postgresql/sqlite: {ratio:.2f}x (target <= 2x; {rounds} alternating turns)")


# ------------------------------------------------------------------ hosts
class Host:
    def __init__(self, class_path: Path, url: str) -> None:
        self.proc = subprocess.Popen([sys.executable, "-m", "solace_shell.cli", "class", "serve", str(class_path),
                                      "--db", url, "--port", "0"], stdout=subprocess.PIPE,
                                     stderr=subprocess.DEVNULL, text=True, env=dict(os.environ, PYTHONPATH=str(ROOT)))
        assert self.proc.stdout is not None
        line = self.proc.stdout.readline()
        if not line:
            raise SystemExit("class serve did not start")
        self.port = int(line.split()[3])

    def stop(self) -> None:
        if self.proc.poll() is None:
            self.proc.send_signal(signal.SIGTERM)
        self.proc.wait(60)


async def at_lab_prompt(port: int, user: str) -> AsyncShell:
    shell = await AsyncShell.open(port, user, f"{user}-pw")
    shell.send(F2)
    await shell.until("lab>")
    return shell


async def drive(ports: list[int], trainees: int, per_trainee: int, mark: Callable[[], None]) -> float:
    """Every trainee publishing `per_trainee` times; the wall seconds of the commands (`mark` is
    called after the logins, before the first command)."""
    shells = await asyncio.gather(*(at_lab_prompt(ports[i % len(ports)], f"t{i:02d}") for i in range(trainees)))
    mark()

    async def one(shell: AsyncShell) -> None:
        for _ in range(per_trainee):
            out = await shell.command("publish trader trading/orders/new count 1")
            assert "published 1 " in out, out

    started = time.perf_counter()
    await asyncio.gather(*(one(shell) for shell in shells))
    wall = time.perf_counter() - started
    await asyncio.gather(*(shell.close() for shell in shells))
    return wall


def hosts(cluster: Cluster, work: Path, trainees: int, per_trainee: int) -> None:
    path = work / "hosts.yaml"
    path.write_text(class_yaml(trainees))
    for count in (1, 3):
        url = cluster.database()
        started = [Host(path, url) for _ in range(count)]
        try:
            pids = [h.proc.pid for h in started]
            before = [0.0]

            def mark() -> None:
                before[0] = cluster_cpu(cluster) + process_cpu(pids)  # noqa: B023 - called before the loop moves on

            wall = asyncio.run(drive([h.port for h in started], trainees, per_trainee, mark))
            cpu = process_cpu(pids) + cluster_cpu(cluster) - before[0]
        finally:
            for host in started:
                host.stop()
        done = trainees * per_trainee
        print(f"hosts {count}: {done / wall:.0f} commands/s, {cpu / done * 1000:.2f} s CPU per 1000 commands "
              f"(servers + database; {trainees} trainees x {per_trainee})")


async def recover(a: Host, b: Host, trainees: int) -> float:
    shells = await asyncio.gather(*(at_lab_prompt(a.port, f"t{i:02d}") for i in range(trainees)))
    for shell in shells:  # a line each, acknowledged, before the kill
        assert "published 1 " in await shell.command("publish trader trading/orders/new count 1")
    killed = time.perf_counter()
    a.proc.kill()

    async def back(user: str) -> float:
        for _ in range(100):
            try:
                shell = await at_lab_prompt(b.port, user)
            except (OSError, EOFError, asyncio.TimeoutError):
                await asyncio.sleep(0.05)
                continue
            at = time.perf_counter()
            await shell.close()
            return at
        raise SystemExit(f"{user} could not log in again")

    times = await asyncio.gather(*(back(f"t{i:02d}") for i in range(trainees)))
    return max(times) - killed


def recovery(cluster: Cluster, work: Path, trainees: int) -> None:
    path = work / "recovery.yaml"
    path.write_text(class_yaml(trainees))
    url = cluster.database()
    a = Host(path, url)
    b = Host(path, url)
    try:
        seconds = asyncio.run(recover(a, b, trainees))
    finally:
        a.stop()
        b.stop()
    print(f"recovery: {trainees} trainees of a killed host back at their lab prompt on another "
          f"{seconds:.2f} s after the kill (target <= 5 s)")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="fewer commands and trainees (a smoke run)")
    parser.add_argument("--commands", type=int, default=300)
    parser.add_argument("--trainees", type=int, default=6)
    parser.add_argument("--per-trainee", type=int, default=40)
    args = parser.parse_args()
    if args.quick:
        args.commands, args.trainees, args.per_trainee = 60, 3, 10
    bin_dir = require_server_or_exit()
    cluster = Cluster(bin_dir)
    try:
        with tempfile.TemporaryDirectory() as tmp:
            work = Path(tmp)
            per_command(cluster, work, args.commands)
            hosts(cluster, work, args.trainees, args.per_trainee)
            recovery(cluster, work, args.trainees)
    finally:
        cluster.stop()


def require_server_or_exit() -> Path:
    try:
        return require_server()
    except BaseException as exc:  # pytest's skip outside pytest: say why and stop
        raise SystemExit(f"bench_class_pg: {exc}") from None


if __name__ == "__main__":
    main()
