"""A class over SSH: N trainees, each in their own lab, against one `solace-shell class serve`.

Run: python bench/bench_class_load.py [--trainees 100] [--quick] [--workers 2] [--seconds 30]
         [--keys-per-second 5] [--server-tree DIR ...]

For each server tree in turn (this one by default; `--server-tree` again for each other, e.g. an
export of another branch: one run measures them on the same machine state), on a fresh class
directory: `class serve CLASS.yaml --port 0 --workers W` with a generated class file of N trainees
(scenario `default`, one lab each), driven by asyncssh clients in this process (bounded, 127.0.0.1,
sharing the cores with the server). bench_classroom.py's load generator (its `Typist`, `Server`
CPU and RSS readings) does the typing. In order:

1. login storm: the N trainees log in at once, each lab built at its first login: login p99, and
   the server's CPU time per login (first build included).
2. typing: every trainee types the default lab's show commands at K keys/s, a second's pause
   after each command, for T seconds: echo p99 (a key to the first output after it), command p99
   (Enter to the next prompt), failed sessions, and the server's CPU time per key sent (its
   processes' CPU over the phase / keys, Enter included). RSS per connected trainee: the server's
   RSS (all its processes) with the N logged in, less its RSS before the storm, over N.
3. contention: trainee 0 runs `show message-vpn * replication` every 200 ms for T/3 s with the
   others idle, then as long again while the other N-1 run commands back to back: the p99 ratio.
4. re-login: all log out, then log in again at once (labs built): server CPU per login.

Prints one table: each target, the measurement, met or not.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import random
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from bench.bench_classroom import COMMANDS, Server, Typist, quantile  # noqa: E402 - after sys.path
from tests.support.ssh_clients import AsyncShell  # noqa: E402

LOGIN_TIMEOUT = 120.0
CONTENTION_COMMAND = "show message-vpn * replication"


def class_file(directory: Path, trainees: int) -> Path:
    """A class of `trainees` (one lab each) and one trainer, on the default scenario."""
    lines = ["scenario: default", "runbook: controlled-failover",
             "trainers:", "  - {name: trainer, password: trainer-secret-1}", "trainees:"]
    lines += [f"  - {{name: t{i:03d}, password: pw-t{i:03d}-secret}}" for i in range(trainees)]
    lines.append("console: [publish, consume, advance, fail, restore, audit, status, check, hint]")
    path = directory / "course.yaml"
    path.write_text("\n".join(lines) + "\n")
    return path


class ClassServer(Server):
    """`class serve` from `tree`, any free ports, `workers` processes."""

    def __init__(self, tree: Path, directory: Path, trainees: int, workers: int) -> None:
        env = dict(os.environ, PYTHONPATH=str(tree))
        self.proc = subprocess.Popen(
            [sys.executable, "-m", "solace_shell.cli", "class", "serve", str(class_file(directory, trainees)),
             "--db", str(directory / "course.class"), "--port", "0", "--workers", str(workers)],
            stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True, env=env,
            cwd=str(tree))
        assert self.proc.stdout is not None
        self.ports = {}
        for _ in range(2):
            words = self.proc.stdout.readline().split()
            if not words:
                raise SystemExit(f"class serve from {tree} printed no port")
            self.ports[words[0]] = int(words[words.index("-p") + 1])
        self.port = self.ports["NY_Appliance1"]


async def login(server: ClassServer, index: int) -> AsyncShell:
    return await asyncio.wait_for(
        AsyncShell.open(server.port, f"t{index:03d}", f"pw-t{index:03d}-secret", height=200), LOGIN_TIMEOUT)


@dataclass
class Result:
    logins: list[float] = field(default_factory=list)
    login_cpu: float = 0.0
    relogin_cpu: float = 0.0
    echo: list[float] = field(default_factory=list)
    command: list[float] = field(default_factory=list)
    failed: int = 0
    key_cpu: float = 0.0
    rss_per_trainee: float = 0.0
    alone: list[float] = field(default_factory=list)
    contended: list[float] = field(default_factory=list)
    generator_cpu_per_key: float = 0.0


async def storm(server: ClassServer, trainees: int, result: Result) -> list[AsyncShell | None]:
    cpu = server.cpu_seconds()

    async def one(index: int) -> AsyncShell | None:
        start = time.perf_counter()
        try:
            shell = await login(server, index)
        except (OSError, asyncio.TimeoutError, EOFError, Exception):  # noqa: BLE001 - counted, not raised
            result.failed += 1
            return None
        result.logins.append(time.perf_counter() - start)
        return shell

    shells = await asyncio.gather(*(one(i) for i in range(trainees)))
    result.login_cpu = (server.cpu_seconds() - cpu) / max(1, len(result.logins))
    return list(shells)


async def typing(server: ClassServer, typists: list[Typist | None], seconds: float, keys_per_second: float,
                 result: Result) -> None:
    gap = 1 / keys_per_second
    sent = 0
    cpu, generator, end = server.cpu_seconds(), time.process_time(), time.perf_counter() + seconds

    async def trainee(index: int, typist: Typist) -> None:
        nonlocal sent
        rng = random.Random(index)
        await asyncio.sleep(rng.random() * gap)
        next_key = time.perf_counter()
        try:
            while time.perf_counter() < end:
                for char in rng.choice(COMMANDS):
                    next_key += gap
                    await asyncio.sleep(max(0.0, next_key - time.perf_counter()))
                    sent += 1
                    result.echo.append(await typist.key(char))
                next_key += gap
                await asyncio.sleep(max(0.0, next_key - time.perf_counter()))
                sent += 1
                result.command.append(await typist.enter())
                next_key = time.perf_counter() + 1.0  # reading the output
        except (OSError, asyncio.TimeoutError, EOFError):
            result.failed += 1

    await asyncio.gather(*(trainee(i, t) for i, t in enumerate(typists) if t is not None))
    result.key_cpu = (server.cpu_seconds() - cpu) / max(1, sent)
    result.generator_cpu_per_key = (time.process_time() - generator) / max(1, sent)


async def contention(typists: list[Typist | None], seconds: float, result: Result) -> None:
    probe, others = typists[0], [t for t in typists[1:] if t is not None]
    if probe is None:
        return

    async def sample(into: list[float], duration: float) -> None:
        end = time.perf_counter() + duration
        while time.perf_counter() < end:
            for char in CONTENTION_COMMAND:
                await probe.key(char)
            into.append(await probe.enter())
            await asyncio.sleep(0.2)

    await sample(result.alone, seconds)
    stop = asyncio.Event()

    async def busy(typist: Typist) -> None:
        try:
            while not stop.is_set():
                for char in random.choice(COMMANDS):
                    await typist.key(char)
                await typist.enter()
        except (OSError, asyncio.TimeoutError, EOFError):
            result.failed += 1

    tasks = [asyncio.create_task(busy(t)) for t in others]
    await asyncio.sleep(1.0)  # the others under way
    await sample(result.contended, seconds)
    stop.set()
    await asyncio.gather(*tasks)


async def measure(server: ClassServer, args: argparse.Namespace) -> Result:
    result = Result()
    await asyncio.sleep(1.0)
    rss_before = server.rss_mb()
    shells = await storm(server, args.trainees, result)
    typists = [Typist(shell) if shell is not None else None for shell in shells]
    await asyncio.sleep(1.0)
    result.rss_per_trainee = (server.rss_mb() - rss_before) / max(1, len(result.logins))
    await typing(server, typists, args.seconds, args.keys_per_second, result)
    await asyncio.sleep(2.0)  # the last commands' output
    await contention(typists, args.seconds / 3, result)
    await asyncio.gather(*(t.close() for t in typists if t is not None))
    await asyncio.sleep(2.0)
    again = Result()
    shells = await storm(server, args.trainees, again)
    result.relogin_cpu = again.login_cpu
    result.failed += again.failed
    await asyncio.gather(*(shell.close() for shell in shells if shell is not None))
    return result


def table(result: Result) -> list[str]:
    ms = 1000.0
    echo99, command99 = quantile(result.echo, 99) * ms, quantile(result.command, 99) * ms
    login99 = quantile(result.logins, 99) * ms
    alone99, contended99 = quantile(result.alone, 99), quantile(result.contended, 99)
    ratio = contended99 / alone99 if alone99 else float("nan")
    rows = [
        ("echo p99 <= 50 ms", f"{echo99:.1f} ms (n={len(result.echo)})", echo99 <= 50),
        ("command p99 <= 150 ms", f"{command99:.1f} ms (n={len(result.command)})", command99 <= 150),
        ("0 sessions failed", str(result.failed), result.failed == 0),
        ("server CPU per key <= 0.5 ms", f"{result.key_cpu * ms:.2f} ms", result.key_cpu * ms <= 0.5),
        ("server CPU per login <= 25 ms + first build", f"{result.relogin_cpu * ms:.1f} ms "
         f"(first, with build: {result.login_cpu * ms:.1f} ms)", result.relogin_cpu * ms <= 25),
        ("login storm p99 <= 2 s", f"{login99:.0f} ms", login99 <= 2000),
        ("command p99 with others / alone <= 1.5", f"{ratio:.2f} ({contended99 * ms:.0f} / {alone99 * ms:.0f} ms)",
         ratio <= 1.5),
        ("RSS per trainee <= 5 MB", f"{result.rss_per_trainee:.2f} MB", result.rss_per_trainee <= 5),
    ]
    width = max(len(name) for name, _, _ in rows)
    lines = [f"  {name:<{width}}  {value:<40} {'met' if ok else 'not met'}" for name, value, ok in rows]
    lines.append(f"  (load generator CPU per key {result.generator_cpu_per_key * ms:.2f} ms)")
    return lines


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--trainees", type=int, default=100)
    parser.add_argument("--quick", action="store_true", help="10 trainees, 10 s of typing")
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--seconds", type=float, default=30.0)
    parser.add_argument("--keys-per-second", type=float, default=5.0)
    parser.add_argument("--server-tree", action="append", type=Path, default=[],
                        help="serve from this source tree (repeat: each in turn); default: this one")
    args = parser.parse_args()
    if args.quick:
        args.trainees, args.seconds = 10, 10.0
    print(f"{len(os.sched_getaffinity(0))} CPUs, load {os.getloadavg()[0]:.2f}; {args.trainees} trainees, "
          f"--workers {args.workers}, {args.keys_per_second:g} keys/s for {args.seconds:g} s; "
          "load generator in this process, on the same cores")
    for tree in args.server_tree or [ROOT]:
        with tempfile.TemporaryDirectory() as tmp:
            server = ClassServer(tree, Path(tmp), args.trainees, args.workers)
            try:
                result = asyncio.run(measure(server, args))
            finally:
                server.stop()
        print(f"[{tree.resolve().name}] (load now {os.getloadavg()[0]:.2f})")
        for line in table(result):
            print(line)
        sys.stdout.flush()
    return 0


if __name__ == "__main__":
    sys.exit(main())
