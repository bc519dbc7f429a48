"""Scale: a replication queue holding 1,000,000 messages must still answer shows interactively.

Run: python bench/bench_engine_scale.py [--messages N]
Measures, in one run on a lab file (WAL, as users have it): publishing N messages in one command,
then `show queue #MSGVPN_REPLICATION_DATA_QUEUE message-vpn Trading_VPN` and
`show message-vpn * replication` through the shell, each beside the same show on the empty lab, so
the reported ratio says how much the spool's size costs a show.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import tempfile
import time
from pathlib import Path

from solace_shell.lab import Lab
from state_store.lab_store import LabStore
from state_store.systems import ROUTER_CLI

SHOWS = (
    "show queue #MSGVPN_REPLICATION_DATA_QUEUE message-vpn Trading_VPN",
    "show message-vpn * replication",
    "show queue * message-vpn Trading_VPN",
)


def time_shows(lab: Lab, repeats: int) -> dict[str, float]:
    out = {}
    for line in SHOWS:
        samples = []
        for _ in range(repeats):
            start = time.perf_counter()
            outcome = lab.execute("NY_Appliance1", line)
            samples.append(time.perf_counter() - start)
            assert outcome.ok, outcome.text
        out[line] = statistics.median(samples)
    return out


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--messages", type=int, default=1_000_000)
    parser.add_argument("--repeats", type=int, default=9)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        lab = Lab.open(Path(tmp) / "scale.sqlite")
        empty = time_shows(lab, args.repeats)
        start = time.perf_counter()
        with lab.store.transaction() as engine:
            result = engine.system_view(ROUTER_CLI.name).publish("trader", "trading/orders/new", count=args.messages)
        publish_s = time.perf_counter() - start
        assert result.accepted == args.messages, result
        full = time_shows(lab, args.repeats)
        with lab.store.transaction() as engine:
            depth = engine.system_view(ROUTER_CLI.name).queue_detail(
                "NY_Appliance1", "Trading_VPN", "#MSGVPN_REPLICATION_DATA_QUEUE").messages_spooled
        lab.close()
    LabStore.in_memory().close()  # the template is built once per process
    copies = []
    for _ in range(200):
        start = time.perf_counter()
        LabStore.in_memory().close()
        copies.append(time.perf_counter() - start)
    print(f"fresh in-memory default lab (template copy): median {statistics.median(copies) * 1000:.3f} ms")
    print(f"publish {args.messages:,} messages in one command: {publish_s:.2f} s "
          f"({args.messages / publish_s:,.0f} msg/s); replication queue depth {depth:,}")
    for line in SHOWS:
        print(f"{line:70s} empty {empty[line] * 1000:7.2f} ms  full {full[line] * 1000:7.2f} ms  "
              f"ratio {full[line] / empty[line]:5.2f}x")
    return 0


if __name__ == "__main__":
    sys.exit(main())
