"""The trainer's class view under a class: the class page's time to serve, the CPU the live updates
cost while every trainee types, and how long a trainee's line takes to reach the trainer's page.

Run: python bench/bench_class_web.py [--trainees 100] [--seconds 20] [--line-every 5] [--history 0] [--profile]
     [--quick]

One process: `ClassServer` with `--web-port 0` on its event loop thread (as `class serve` runs it),
the trainees' lines run through their own labs (`ClassLab.execute`, what every SSH door calls) from
a thread pool, the trainer's page read with httpx over 127.0.0.1.

- history: with --history N, each lab has N lines recorded before anything is measured (a class
  some minutes in: what a lab's grade after its next line must not cost more for).
- page: GET / (a tile per trainee, every lab opened and graded) 30 times after one warm-up;
  p50/p99 wall time. Target: p99 <= 100 ms.
- live CPU: the same typing load (each trainee a line every --line-every seconds) for --seconds,
  once with no class page open and once with two open (two SSE streams, each read by a child
  process); this process's CPU seconds per wall second of each, and the difference as a share of
  one core. Target: <= 5 %.
- profile: with --profile, the live tiles' building (the feed's render, in its worker thread) is
  profiled in the second run and its top functions printed (the profiler's own cost then counts
  in that run's CPU figure).
- latency: in the second run, each line carries a mark; from the line's return (recorded) to its
  tile arriving on an event stream; p50/p99/max. Target: p99 <= 1 s.
"""

from __future__ import annotations

import argparse
import cProfile
import pstats
import random
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import httpx

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from solace_shell.classroom.class_file import load_class_file  # noqa: E402
from solace_shell.classroom.class_lab import ClassLab  # noqa: E402
from solace_shell.classroom.web.events import ClassFeed  # noqa: E402
from solace_shell.classroom.web.serve import WebOptions  # noqa: E402
from tests.classroom.class_server import ClassServerThread  # noqa: E402

LINES = ("show message-vpn Trading_VPN replication", "show queue * message-vpn Trading_VPN", "show client *")


def class_yaml(trainees: int) -> str:
    rows = "\n".join(f"  - {{name: t{i:03d}, password: pw-{i:03d}}}" for i in range(trainees))
    return ("scenario: default\nrunbook: controlled-failover\ntrainers:\n  - {name: trainer, password: trainer-pw}\n"
            f"trainees:\n{rows}\n")


def quantile(samples: list[float], q: int) -> float:
    if len(samples) < 2:
        return samples[0] if samples else float("nan")
    return statistics.quantiles(samples, n=100, method="inclusive")[q - 1]


def logged_in(url: str) -> httpx.Client:
    client = httpx.Client(base_url=url, timeout=60)
    answer = client.post("/login", data={"username": "trainer", "password": "trainer-pw"})
    assert answer.status_code == 303, answer.text
    return client


def typing(labs: list[ClassLab], seconds: float, every: float, sent: dict[str, float]) -> int:
    """Each lab a line every `every` seconds (random phase) for `seconds`; the lines run."""
    stop = time.monotonic() + seconds
    count = 0
    lock = threading.Lock()

    def one(lab: ClassLab, n: int) -> None:
        mark = f"m{lab.lab_name}x{n}"
        lab.execute("NY_Appliance1", f"show queue {mark}")
        with lock:
            sent[mark] = time.monotonic()

    with ThreadPoolExecutor(8) as pool:
        due = [(time.monotonic() + random.uniform(0, every), i) for i in range(len(labs))]
        n = 0
        while time.monotonic() < stop:
            due.sort()
            at, i = due[0]
            time.sleep(max(0.0, at - time.monotonic()))
            pool.submit(one, labs[i], n)
            n += 1
            count += 1
            due[0] = (at + every, i)
    return count


FOLLOWER = """
import json, sys, time, httpx
url, cookie = sys.argv[1], sys.argv[2]
seen = set()
with httpx.Client(base_url=url, cookies={"solace_class": cookie}, timeout=None) as client, \\
        client.stream("GET", "/events") as stream:
    print("ready", flush=True)
    for line in stream.iter_lines():
        if line.startswith("data: "):
            now = time.monotonic()
            html = json.loads(line[6:])["html"]
            for word in html.replace("<", " ").replace(">", " ").split():
                if word.startswith("mt") and word not in seen:
                    seen.add(word)
                    print(word, now, flush=True)
"""


def follower(url: str, cookie: str) -> subprocess.Popen[str]:
    """A trainer's page in another process (its parsing is not the server's CPU): prints each
    mark it sees with the monotonic time (one clock for every process of the machine)."""
    child = subprocess.Popen([sys.executable, "-c", FOLLOWER, url, cookie], stdout=subprocess.PIPE, text=True)
    assert child.stdout is not None
    assert child.stdout.readline().strip() == "ready"
    return child


def collect(child: subprocess.Popen[str], seen: dict[str, float]) -> None:
    child.terminate()
    out, _ = child.communicate(timeout=30)
    for line in out.splitlines():
        mark, _, at = line.partition(" ")
        if at:
            seen[mark] = min(float(at), seen.get(mark, float("inf")))


def cpu_share(labs: list[ClassLab], seconds: float, every: float, sent: dict[str, float]) -> tuple[float, int]:
    cpu, wall = time.process_time(), time.monotonic()
    count = typing(labs, seconds, every, sent)
    return (time.process_time() - cpu) / (time.monotonic() - wall), count


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--trainees", type=int, default=100)
    parser.add_argument("--seconds", type=float, default=20.0)
    parser.add_argument("--line-every", type=float, default=5.0)
    parser.add_argument("--history", type=int, default=0, help="lines each lab has recorded before measuring")
    parser.add_argument("--profile", action="store_true", help="profile the live tiles' building")
    parser.add_argument("--quick", action="store_true", help="20 trainees, 6 seconds per run")
    args = parser.parse_args()
    if args.quick:
        args.trainees, args.seconds = 20, 6.0
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "course.yaml"
        path.write_text(class_yaml(args.trainees))
        class_file = load_class_file(path)
        server = ClassServerThread(class_file, Path(tmp) / "course.class", web=WebOptions(0))
        try:
            assert server.server.web is not None
            url = server.server.web.url
            labs = [server.room.trainee_lab(m, "shell") for m in class_file.trainees]
            for lab in labs:
                lab.execute("NY_Appliance1", "show message-vpn Trading_VPN replication")
                for n in range(args.history):
                    lab.execute("NY_Appliance1", LINES[n % len(LINES)])
            client = logged_in(url)
            client.get("/")
            times = []
            for _ in range(30):
                start = time.perf_counter()
                answer = client.get("/")
                times.append(time.perf_counter() - start)
                assert answer.status_code == 200
            print(f"page: GET / with {args.trainees} tiles: p50 {1000 * quantile(times, 50):.1f} ms, "
                  f"p99 {1000 * quantile(times, 99):.1f} ms (target p99 <= 100 ms)")

            quiet, count0 = cpu_share(labs, args.seconds, args.line_every, {})
            sent: dict[str, float] = {}
            seen: dict[str, float] = {}
            cookie = client.cookies.get("solace_class")
            assert cookie is not None
            followers = [follower(url, cookie) for _ in range(2)]
            profile = profiled(server.server.web.feed) if args.profile else None
            time.sleep(1.0)
            live, count1 = cpu_share(labs, args.seconds, args.line_every, sent)
            time.sleep(1.5)
            for child in followers:
                collect(child, seen)
            print(f"live CPU: {count0} lines without a page open: {100 * quiet:.1f}% of a core; {count1} lines "
                  f"with two pages following: {100 * live:.1f}%; the live updates: {100 * (live - quiet):+.1f}% "
                  "of a core (target <= 5%)")
            delays = [seen[mark] - at for mark, at in sent.items() if mark in seen]
            missing = len(sent) - len(delays)
            print(f"latency: line recorded -> its tile on the page: p50 {1000 * quantile(delays, 50):.0f} ms, "
                  f"p99 {1000 * quantile(delays, 99):.0f} ms, max {1000 * max(delays, default=0):.0f} ms over "
                  f"{len(delays)} lines ({missing} superseded before shown) (target p99 <= 1 s)")
            client.close()
            if profile is not None:
                pstats.Stats(profile).sort_stats("cumulative").print_stats(30)
        finally:
            server.close()
    return 0


def profiled(feed: ClassFeed) -> cProfile.Profile:
    """Profile every call of the feed's render from now on (one call at a time: the feed's task
    awaits each)."""
    profile = cProfile.Profile()
    render = feed.render

    def render_profiled(labs: list[str]) -> list[tuple[str, str]]:
        profile.enable()
        try:
            return render(labs)
        finally:
            profile.disable()

    feed.render = render_profiled
    return profile


if __name__ == "__main__":
    sys.exit(main())
