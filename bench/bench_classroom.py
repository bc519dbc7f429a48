"""A classroom over SSH: trainees typing at human speed against one `solace-shell serve`.

Run: python bench/bench_classroom.py [--trainees 100] [--keys-per-second 5] [--seconds 30]
         [--idle 200] [--logins 50] [--guessers 32] [--burst 50] [--only typing,idle,...]
         [--workers 2] [--server-tree DIR ...]

Each part starts `solace-shell --db <temp lab> serve --port 0` in a child process (from this tree,
or from each `--server-tree` in turn, e.g. an export of another branch, so that two versions are
measured in one run on the same machine state) and drives it with asyncssh clients in this process,
on the same cores. All traffic is to 127.0.0.1; every loop is bounded in count and time.

- typing: N trainees (both routers, admin and operator), each typing the default lab's shows a key
  every 1/K s for T seconds, a second's pause after each command. Keystroke echo: from a key sent to
  the first output after it (prompt_toolkit echoes and redraws the line). Command: from Enter to
  the next prompt. p50/p99/max, and the server's RSS (the server and its children) at the end.
- idle: N trainees logged in and idle; the server's RSS per session over the RSS before them.
- logins: N password logins at once (connect to prompt); p50/p99/max.
- guessing: an admin runs `show hostname` every 50 ms for T/2 seconds alone, then as long again
  while G connections guess passwords as fast as the server answers; the change of its p99.
- refusals: a wrong password for a known user and for an unknown one, 40 each, alternately (the
  guard's delays and lock-outs off); the medians and their difference.
- burst: bench_ssh.py's load (50 sessions firing 20 commands each at once).
"""

from __future__ import annotations

import argparse
import asyncio
import multiprocessing
import os
import random
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

import asyncssh

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from bench.bench_ssh import over_ssh  # noqa: E402 - after the sys.path line above
from tests.support.ssh_clients import PROMPT_OFF, PROMPT_ON, AsyncShell  # noqa: E402

ROUTERS = ("NY_Appliance1", "NJ_Appliance1")
USERS = (("admin", "admin"), ("operator", "operator"))
COMMANDS = ("show hostname", "show message-vpn * replication", "show queue * message-vpn Trading_VPN",
            "show client *", "show message-vpn Trading_VPN", "show config-sync")
LOGIN_TIMEOUT = 120.0
READ_TIMEOUT = 60.0


def quantile(samples: list[float], q: int) -> float:
    if len(samples) < 2:
        return samples[0] if samples else float("nan")
    return statistics.quantiles(samples, n=100, method="inclusive")[q - 1]


def summary(name: str, samples: list[float]) -> str:
    if not samples:
        return f"{name}: no samples"
    return (f"{name}: n={len(samples)} p50 {quantile(samples, 50) * 1000:.1f} ms  "
            f"p99 {quantile(samples, 99) * 1000:.1f} ms  max {max(samples) * 1000:.1f} ms")


# ------------------------------------------------------------------ the server under test
class Server:
    """`solace-shell serve` from `tree` on a fresh lab, any free ports."""

    def __init__(self, tree: Path, lab: Path, workers: int, scenario: Path | None = None) -> None:
        env = dict(os.environ, PYTHONPATH=str(tree))
        self.proc = subprocess.Popen(
            [sys.executable, "-m", "solace_shell.cli", "--db", str(lab),
             *(["--scenario", str(scenario)] if scenario else []), "serve", "--port", "0",
             *(["--workers", str(workers)] if workers > 1 else [])],
            stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True, env=env,
            cwd=str(tree))
        assert self.proc.stdout is not None
        lines = [self.proc.stdout.readline() for _ in ROUTERS]
        self.ports = {line.split()[0]: int(line.split()[3]) for line in lines}

    def rss_mb(self) -> float:
        """Resident memory of the server and every process under it, in MB."""
        total = 0
        pids = [self.proc.pid]
        while pids:
            pid = pids.pop()
            try:
                with open(f"/proc/{pid}/status") as fh:
                    total += next(int(line.split()[1]) for line in fh if line.startswith("VmRSS:"))
                with open(f"/proc/{pid}/task/{pid}/children") as fh:
                    pids += [int(child) for child in fh.read().split()]
            except (OSError, StopIteration):
                continue
        return total / 1024

    def cpu_seconds(self) -> float:
        """CPU time (user + system) used so far by the server and every process under it."""
        total = 0
        pids = [self.proc.pid]
        while pids:
            pid = pids.pop()
            try:
                with open(f"/proc/{pid}/stat") as fh:
                    stat = fh.read().rsplit(")", 1)[1].split()
                total += int(stat[11]) + int(stat[12])  # utime, stime (fields 14 and 15)
                with open(f"/proc/{pid}/task/{pid}/children") as fh:
                    pids += [int(child) for child in fh.read().split()]
            except (OSError, IndexError, ValueError):
                continue
        return total / os.sysconf("SC_CLK_TCK")

    def stop(self) -> None:
        self.proc.terminate()
        try:
            self.proc.wait(timeout=60)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait()


async def open_shell(server: Server, index: int) -> AsyncShell:
    user, password = USERS[index % 2]
    return await asyncio.wait_for(AsyncShell.open(server.ports[ROUTERS[index % 2]], user, password, height=200),
                                  LOGIN_TIMEOUT)


# ------------------------------------------------------------------ typing
class Typist:
    """One trainee's connection, read continuously: when each key's echo and each prompt arrive."""

    def __init__(self, shell: AsyncShell) -> None:
        self.shell = shell
        self.arrived = asyncio.Event()
        self.prompts = 0
        self.prompt_seen = asyncio.Event()
        self.buffer = ""
        self.reader = asyncio.create_task(self._read())

    async def _read(self) -> None:
        stdout = self.shell.proc.stdout
        while True:
            data = await stdout.read(65536)
            if not data:
                return
            self.arrived.set()
            self.buffer = (self.buffer + data)[-4096:]
            if PROMPT_ON in self.buffer and PROMPT_OFF in self.buffer and \
                    self.buffer.rfind(PROMPT_ON) > self.buffer.find(PROMPT_OFF):
                self.buffer = ""
                self.prompt_seen.set()

    async def key(self, char: str) -> float:
        self.arrived.clear()
        sent = time.perf_counter()
        self.shell.send(char)
        await asyncio.wait_for(self.arrived.wait(), READ_TIMEOUT)
        return time.perf_counter() - sent

    async def enter(self) -> float:
        self.prompt_seen.clear()
        self.buffer = ""
        sent = time.perf_counter()
        self.shell.send("\r")
        await asyncio.wait_for(self.prompt_seen.wait(), READ_TIMEOUT)
        return time.perf_counter() - sent

    async def close(self) -> None:
        self.reader.cancel()
        await self.shell.close()


async def typing(server: Server, trainees: int, keys_per_second: float, seconds: float) -> dict[str, object]:
    shells: list[AsyncShell] = []
    for start in range(0, trainees, 25):  # a class logs in over a while: groups of 25 at once
        shells += await asyncio.gather(*(open_shell(server, i) for i in range(start, min(trainees, start + 25))))
    typists = [Typist(shell) for shell in shells]
    echoes: list[float] = []
    commands: list[float] = []
    gap = 1 / keys_per_second
    server_cpu, generator_cpu, started = server.cpu_seconds(), time.process_time(), time.perf_counter()
    end = started + seconds

    async def trainee(index: int, typist: Typist) -> None:
        rng = random.Random(index)
        await asyncio.sleep(rng.random() * gap)
        next_key = time.perf_counter()
        while time.perf_counter() < end:
            line = rng.choice(COMMANDS)
            for char in line:
                next_key += gap
                await asyncio.sleep(max(0.0, next_key - time.perf_counter()))
                echoes.append(await typist.key(char))
            next_key += gap
            await asyncio.sleep(max(0.0, next_key - time.perf_counter()))
            commands.append(await typist.enter())
            next_key = time.perf_counter() + 1.0  # reading the output

    await asyncio.gather(*(trainee(i, t) for i, t in enumerate(typists)))
    cpu = {"server_cpu": server.cpu_seconds() - server_cpu, "generator_cpu": time.process_time() - generator_cpu,
           "wall": time.perf_counter() - started}
    rss = server.rss_mb()
    await asyncio.gather(*(t.close() for t in typists))
    return {"echo": echoes, "command": commands, "rss_mb": rss, **cpu}


# ------------------------------------------------------------------ idle, logins, guessing
async def idle(server: Server, trainees: int) -> dict[str, object]:
    await asyncio.sleep(1)
    before = server.rss_mb()
    shells: list[AsyncShell] = []
    for start in range(0, trainees, 25):  # in groups: this measures memory, not logins
        shells += await asyncio.gather(*(open_shell(server, i) for i in range(start, min(trainees, start + 25))))
    await asyncio.sleep(3)
    after = server.rss_mb()
    await asyncio.gather(*(shell.close() for shell in shells))
    return {"rss_before_mb": before, "rss_after_mb": after, "per_session_mb": (after - before) / trainees}


async def logins(server: Server, count: int) -> dict[str, object]:
    times: list[float] = []
    server_cpu, generator_cpu = server.cpu_seconds(), time.process_time()

    async def one(index: int) -> AsyncShell:
        start = time.perf_counter()
        shell = await open_shell(server, index)
        times.append(time.perf_counter() - start)
        return shell

    shells = await asyncio.gather(*(one(i) for i in range(count)))
    cpu = {"server_cpu": server.cpu_seconds() - server_cpu, "generator_cpu": time.process_time() - generator_cpu}
    await asyncio.gather(*(shell.close() for shell in shells))
    return {"login": times, **cpu}


async def guessing(server: Server, guessers: int, seconds: float) -> dict[str, object]:
    admin = await open_shell(server, 0)

    async def probe(duration: float) -> list[float]:
        samples: list[float] = []
        end = time.perf_counter() + duration
        while time.perf_counter() < end:
            start = time.perf_counter()
            await admin.command("show hostname")
            samples.append(time.perf_counter() - start)
            await asyncio.sleep(0.05)
        return samples

    alone = await probe(seconds)
    # The guessers run in a process of their own: in this one, their connections would delay the
    # admin's client, which is not what is measured.
    context = multiprocessing.get_context("spawn")
    tries = context.Value("i", 0)
    guessing_process = context.Process(target=guess, args=(server.ports, guessers, seconds, tries))
    guessing_process.start()
    await asyncio.sleep(0.5)  # the guessers' process starting up
    under_attack = await probe(seconds)
    await asyncio.to_thread(guessing_process.join, seconds + 60)
    await admin.close()
    return {"alone": alone, "guessing": under_attack, "connections": tries.value}


async def refusals(server: Server, rounds: int) -> dict[str, object]:
    """A wrong password for a user of the lab and for an unknown user, alternately, one connection
    each (the lab's delays and lock-outs off: this measures the check itself)."""
    times: dict[str, list[float]] = {"admin": [], "nobody": []}
    for index in range(rounds * 2):
        user = ("admin", "nobody")[index % 2]
        start = time.perf_counter()
        try:
            conn = await asyncssh.connect("127.0.0.1", server.ports[ROUTERS[0]], username=user,
                                          password="not-the-password", known_hosts=None, client_keys=None,
                                          agent_path=None, login_timeout=30)
            conn.close()
            raise SystemExit(f"{user} logged in with a wrong password")
        except asyncssh.PermissionDenied:
            times[user].append(time.perf_counter() - start)
    return {"known": times["admin"], "unknown": times["nobody"]}


def unguarded_scenario(tree: Path, directory: Path) -> Path | None:
    """The default scenario with the guard's delays and lock-outs off (trees that have the guard),
    and its per-source penalties (trees that have them)."""
    if not (tree / "solace_shell" / "ssh" / "guard.py").exists():
        return None
    text = (tree / "state_store" / "scenarios" / "default.yaml").read_text()
    path = directory / "unguarded.yaml"
    off = "  ssh_auth_delay_ms: 0\n  ssh_auth_delay_max_ms: 0\n  ssh_lockout_failures: 1000000\n"
    if (tree / "solace_shell" / "ssh" / "limits.py").exists():
        off += "  ssh_penalty_max_seconds: 0\n"
    path.write_text(text.replace("settings:\n", "settings:\n" + off, 1))
    return path


def guess(ports: dict[str, int], guessers: int, seconds: float, tries: Any) -> None:
    """`guessers` connections at a time guessing passwords for `seconds` (a process of its own)."""
    stop = time.perf_counter() + seconds

    async def guesser(index: int) -> None:
        while time.perf_counter() < stop:
            with tries.get_lock():
                tries.value += 1
            try:
                conn = await asyncio.wait_for(asyncssh.connect(
                    "127.0.0.1", ports[ROUTERS[index % 2]], username=("admin", "nobody")[index % 2],
                    password=f"guess-{index}-{tries.value}", known_hosts=None, client_keys=None, agent_path=None,
                    login_timeout=30), 30)
                conn.close()
            except (asyncssh.Error, OSError, asyncio.TimeoutError):
                pass

    async def everyone() -> None:
        await asyncio.gather(*(guesser(i) for i in range(guessers)))

    asyncio.run(everyone())


async def burst(server: Server, sessions: int) -> dict[str, object]:
    login_times, latencies, wall = await over_ssh(server.ports, sessions, 20)
    return {"login": login_times, "command": latencies, "wall": wall}


# ------------------------------------------------------------------ report
def cpu_line(result: dict[str, object], keys: int) -> str:
    """Where the cores went while typing: the server's CPU and the load generator's (this
    process), each per key sent (Enter included) and as a share of one core."""
    wall, server_cpu, generator_cpu = result["wall"], result["server_cpu"], result["generator_cpu"]
    assert isinstance(wall, float) and isinstance(server_cpu, float) and isinstance(generator_cpu, float)
    per_key = max(keys, 1)
    return (f"CPU over {wall:.1f} s: server {server_cpu:.1f} s ({server_cpu / per_key * 1000:.2f} ms/key, "
            f"{server_cpu / wall * 100:.0f}% of a core), load generator {generator_cpu:.1f} s "
            f"({generator_cpu / per_key * 1000:.2f} ms/key, {generator_cpu / wall * 100:.0f}% of a core)")


def report(part: str, result: dict[str, object], args: argparse.Namespace) -> list[str]:
    if part == "typing":
        echo, command = result["echo"], result["command"]
        assert isinstance(echo, list) and isinstance(command, list)
        return [f"typing {args.trainees} trainees x {args.keys_per_second:g} keys/s x {args.seconds:g} s:",
                "  " + summary("echo", echo), "  " + summary("command", command),
                f"  server RSS {result['rss_mb']:.0f} MB", "  " + cpu_line(result, len(echo) + len(command))]
    if part == "idle":
        return [f"idle {args.idle} trainees: RSS {result['rss_before_mb']:.0f} -> {result['rss_after_mb']:.0f} MB, "
                f"{result['per_session_mb']:.2f} MB per session"]
    if part == "logins":
        times = result["login"]
        assert isinstance(times, list)
        server_cpu, generator_cpu = result["server_cpu"], result["generator_cpu"]
        assert isinstance(server_cpu, float) and isinstance(generator_cpu, float)
        return [f"{args.logins} logins at once: " + summary("login", times),
                f"  CPU per login: server {server_cpu / len(times) * 1000:.1f} ms, "
                f"load generator {generator_cpu / len(times) * 1000:.1f} ms"]
    if part == "refusals":
        known, unknown = result["known"], result["unknown"]
        assert isinstance(known, list) and isinstance(unknown, list)
        k, u = statistics.median(known), statistics.median(unknown)
        return [f"refusals, {len(known)} each: wrong password p50 {k * 1000:.1f} ms, unknown user p50 "
                f"{u * 1000:.1f} ms ({(u - k) / k * 100:+.1f}%)"]
    if part == "guessing":
        alone, attacked = result["alone"], result["guessing"]
        assert isinstance(alone, list) and isinstance(attacked, list)
        change = (quantile(attacked, 99) - quantile(alone, 99)) * 1000
        return [f"admin `show hostname` every 50 ms, {args.guessers} guessers "
                f"({result['connections']} guessing connections):",
                "  " + summary("alone", alone), "  " + summary("guessing", attacked),
                f"  p99 change {change:+.1f} ms"]
    login_times, command = result["login"], result["command"]
    assert isinstance(login_times, list) and isinstance(command, list)
    return [f"burst {args.burst} sessions x 20 commands: " + summary("command", command),
            "  " + summary("login", login_times) + f"  total {result['wall']:.2f} s"]


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--trainees", type=int, default=100)
    parser.add_argument("--keys-per-second", type=float, default=5.0)
    parser.add_argument("--seconds", type=float, default=30.0)
    parser.add_argument("--idle", type=int, default=200)
    parser.add_argument("--logins", type=int, default=50)
    parser.add_argument("--guessers", type=int, default=32)
    parser.add_argument("--burst", type=int, default=50)
    parser.add_argument("--only", default="typing,idle,logins,guessing,refusals,burst")
    parser.add_argument("--workers", type=int, default=1, help="`serve --workers` (1: the option is not given)")
    parser.add_argument("--server-tree", action="append", type=Path, default=[],
                        help="serve from this source tree (repeat: each in turn); default: this one")
    args = parser.parse_args()
    trees = args.server_tree or [ROOT]
    parts: dict[str, Callable[[Server], Awaitable[dict[str, object]]]] = {
        "typing": lambda s: typing(s, args.trainees, args.keys_per_second, args.seconds),
        "idle": lambda s: idle(s, args.idle),
        "logins": lambda s: logins(s, args.logins),
        "guessing": lambda s: guessing(s, args.guessers, args.seconds / 2),
        "refusals": lambda s: refusals(s, 40),
        "burst": lambda s: burst(s, args.burst),
    }
    cpus = len(os.sched_getaffinity(0))
    print(f"{cpus} CPUs; load generator in this process, on the same cores; server workers {args.workers}")
    for part in args.only.split(","):
        for tree in trees:
            with tempfile.TemporaryDirectory() as tmp:
                scenario = unguarded_scenario(tree, Path(tmp)) if part == "refusals" else None
                server = Server(tree, Path(tmp) / "classroom.lab", args.workers, scenario)
                try:
                    result = asyncio.run(parts[part](server))
                except (OSError, asyncssh.Error, asyncio.TimeoutError) as exc:
                    print(f"[{tree}] {part}: failed: {type(exc).__name__}: {exc}")
                    continue
                finally:
                    server.stop()
            for line in report(part, result, args):
                print(f"[{tree.resolve().name}] {line}")
            sys.stdout.flush()
    return 0


if __name__ == "__main__":
    sys.exit(main())
