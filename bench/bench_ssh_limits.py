"""The trainer's latency while one client attacks `solace-shell serve`, against the quiet server, in
the same run.

Run: python bench/bench_ssh_limits.py [--quick] [--logins 20] [--commands 100] [--only execs ...]

Starts `solace-shell --db <temp lab> serve --port 0` (the default lab, default limits) in a child
process. The trainer (admin) keeps an interactive session open and, from its own loopback address
(127.0.0.3), logs in again and again: each sample is a login plus one exec (`show hostname`) over a
new connection, and one command in the open session. Each attack comes from a loopback address of
its own (so one attack's penalties do not meet the next) and runs while the trainer's samples are
taken:

- flood:    128 connections that send their version line and nothing more, reopened when closed
- guessing: wrong passwords for admin, 5 per connection, one connection after another
- channels: 300 session channels (pty and shell) opened on one connection as monitor
- execs:    24 execs of 6,000 commands each on one connection as monitor, each started again
            when it ends

Printed: for the quiet server and each attack, the trainer's login+command and in-session command
p50 and p99 (with few samples, p99 is about the largest), and the p99 ratio to the quiet one.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import os
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import AsyncIterator, Awaitable, Callable
from pathlib import Path

import asyncssh

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from state_store.lab_store import LabStore  # noqa: E402 - after the sys.path line above
from tests.support.ssh_clients import AsyncShell  # noqa: E402

ROUTER = "NY_Appliance1"
TRAINER = "127.0.0.3"
TIMEOUT = 120.0
LONG_EXEC = "\n".join(["show message-vpn * replication"] * 6000)


def serve(lab_path: Path) -> tuple[subprocess.Popen[str], int]:
    env = dict(os.environ, PYTHONPATH=str(ROOT))
    proc = subprocess.Popen([sys.executable, "-m", "solace_shell.cli", "--db", str(lab_path), "serve", "--port", "0"],
                            stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True, env=env)
    assert proc.stdout is not None
    while True:
        line = proc.stdout.readline()
        if not line:
            raise SystemExit("the server did not start")
        if line.split()[0] == ROUTER:
            return proc, int(line.split()[3])


async def connect(port: int, source: str, user: str, password: str) -> asyncssh.SSHClientConnection:
    return await asyncssh.connect("127.0.0.1", port, local_addr=(source, 0), username=user, password=password,
                                  known_hosts=None, client_keys=None, agent_path=None, login_timeout=TIMEOUT)


async def trainer_samples(port: int, shell: AsyncShell, logins: int, commands: int) -> tuple[list[float], list[float]]:
    """`logins` login+exec samples and `commands` in-session command samples, interleaved."""
    login_times: list[float] = []
    command_times: list[float] = []
    per_login = max(1, commands // logins)
    for _ in range(logins):
        start = time.perf_counter()
        conn = await connect(port, TRAINER, "admin", "admin")
        result = await asyncio.wait_for(conn.run("show hostname"), TIMEOUT)
        conn.close()
        login_times.append(time.perf_counter() - start)
        if "Hostname" not in str(result.stdout):
            raise SystemExit(f"the trainer's command failed: {result.stdout!r}")
        for _ in range(per_login):
            start = time.perf_counter()
            out = await asyncio.wait_for(shell.command("show hostname"), TIMEOUT)
            command_times.append(time.perf_counter() - start)
            if "Hostname" not in out:
                raise SystemExit(f"the trainer's command failed: {out!r}")
    return login_times, command_times


async def forever(attempt: Callable[[], Awaitable[None]], pause: float = 0.0) -> None:
    """Run `attempt` again and again (its failures are the attack's own) until cancelled."""
    while True:
        with contextlib.suppress(asyncssh.Error, OSError, asyncio.TimeoutError):
            await attempt()
        await asyncio.sleep(pause)


async def flood(port: int) -> None:
    async def one() -> None:
        reader, writer = await asyncio.open_connection("127.0.0.1", port, local_addr=("127.0.0.2", 0))
        try:
            writer.write(b"SSH-2.0-flood\r\n")
            while await reader.read(4096):
                pass
        finally:
            writer.close()

    await asyncio.gather(*(forever(one, 0.05) for _ in range(128)))


async def guessing(port: int) -> None:
    class Guesser(asyncssh.SSHClient):
        asked = 0

        def password_auth_requested(self) -> str | None:
            self.asked += 1
            return f"guess{self.asked}" if self.asked <= 5 else None

    async def one() -> None:
        conn = await asyncssh.connect("127.0.0.1", port, local_addr=("127.0.0.4", 0), username="admin",
                                      known_hosts=None, client_keys=None, agent_path=None, client_factory=Guesser,
                                      kbdint_auth=False, preferred_auth="password", login_timeout=TIMEOUT)
        conn.close()

    await forever(one)


async def channels(port: int) -> None:
    conn = await connect(port, "127.0.0.5", "monitor", "monitor")
    opened = []
    for _ in range(300):
        with contextlib.suppress(asyncssh.ChannelOpenError):
            opened.append(await conn.create_process(term_type="xterm", term_size=(80, 24)))
    try:
        await asyncio.Event().wait()
    finally:
        conn.close()


async def execs(port: int) -> None:
    conn = await connect(port, "127.0.0.6", "monitor", "monitor")

    async def one() -> None:
        result = await conn.run(LONG_EXEC)
        if result.exit_status:
            await asyncio.sleep(0.05)  # refused at once: ask again a little later

    try:
        await asyncio.gather(*(forever(one) for _ in range(24)))
    finally:
        conn.close()


ATTACKS: dict[str, Callable[[int], Awaitable[None]]] = {
    "flood": flood, "guessing": guessing, "channels": channels, "execs": execs}


@contextlib.asynccontextmanager
async def attacking(attack: Callable[[int], Awaitable[None]] | None, port: int, warm_up: float) -> AsyncIterator[None]:
    if attack is None:
        yield
        return
    task = asyncio.ensure_future(attack(port))
    await asyncio.sleep(warm_up)
    try:
        yield
    finally:
        task.cancel()
        with contextlib.suppress(asyncio.CancelledError, asyncssh.Error, OSError):
            await task
        await asyncio.sleep(warm_up)  # what the attack left (held connections, execs) ends


def p99(samples: list[float]) -> float:
    return statistics.quantiles(samples, n=100)[98] if len(samples) > 1 else samples[0]


def ms(seconds: float) -> str:
    return f"{seconds * 1000:8.1f} ms"


async def run(port: int, logins: int, commands: int, warm_up: float,
              only: list[str]) -> list[tuple[str, list[float], list[float]]]:
    shell = await AsyncShell.open(port, "admin", "admin")
    try:
        rows = []
        for name, attack in [("quiet", None), *((name, ATTACKS[name]) for name in only)]:
            async with attacking(attack, port, warm_up):
                login_times, command_times = await trainer_samples(port, shell, logins, commands)
            rows.append((name, login_times, command_times))
            print(f"  {name}: done", file=sys.stderr)
        return rows
    finally:
        await shell.close()


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--quick", action="store_true", help="5 logins and 20 commands per row")
    parser.add_argument("--logins", type=int, default=20)
    parser.add_argument("--commands", type=int, default=100)
    parser.add_argument("--only", nargs="+", choices=list(ATTACKS), default=list(ATTACKS), metavar="ATTACK",
                        help=f"these attacks only (of {', '.join(ATTACKS)})")
    args = parser.parse_args()
    logins, commands, warm_up = (5, 20, 2.0) if args.quick else (args.logins, args.commands, 3.0)
    with tempfile.TemporaryDirectory() as tmp:
        lab_path = Path(tmp) / "limits.lab"
        LabStore.open(lab_path).close()
        proc, port = serve(lab_path)
        try:
            rows = asyncio.run(run(port, logins, commands, warm_up, args.only))
        finally:
            proc.terminate()
            proc.wait(timeout=60)
    cpus = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count()
    print(f"the trainer's latency, {logins} logins and {commands} commands per row, {cpus} CPUs")
    print(f"{'':10}{'login+command p50':>20}{'p99':>12}{'in-session p50':>18}{'p99':>12}"
          f"{'login p99 / quiet':>20}{'command p99 / quiet':>22}")
    quiet_login, quiet_command = p99(rows[0][1]), p99(rows[0][2])
    for name, login_times, command_times in rows:
        print(f"{name:10}{ms(statistics.median(login_times)):>20}{ms(p99(login_times)):>12}"
              f"{ms(statistics.median(command_times)):>18}{ms(p99(command_times)):>12}"
              f"{p99(login_times) / quiet_login:>19.1f}x{p99(command_times) / quiet_command:>21.1f}x")
    return 0


if __name__ == "__main__":
    sys.exit(main())
