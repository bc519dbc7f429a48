"""A child process that drives a lab file, for the crash and concurrency tests.

Usage: python -m tests.support.lab_child <lab-file> <role> <count>
Prints `ready`, then `done <i>` after each command has committed (flushing every line), so the
parent knows exactly which commands a user would have seen complete.
"""

from __future__ import annotations

import sys

from solace_shell.lab import Lab

PUBLISH_BATCH = 7


def command(role: str, i: int) -> tuple[str, str]:
    """The i-th command of a role: (target, line). Roles touch disjoint state, so they commute."""
    if role == "ny":
        return "lab", f"publish trader trading/orders/{i % 5} count {PUBLISH_BATCH}"
    if role == "nj":
        if i % 3 == 2:
            return "NJ_Appliance1", "show message-vpn Trading_VPN replication"
        on = "no " if i % 2 else ""
        return "NJ_Appliance1", f"{on}reject-msg-when-sync-ineligible"
    if role == "jms":   # a SwiftMQ lab (state_store.kernel): JMS publishes on the HA router
        return "lab", f"jms publish c1 q1 count {PUBLISH_BATCH}"
    raise SystemExit(f"unknown role {role}")


def main() -> int:
    path, role, count = sys.argv[1], sys.argv[2], int(sys.argv[3])
    start = int(sys.argv[4]) if len(sys.argv) > 4 else 0
    lab = Lab.open(path)
    if role == "nj":
        for line in ("enable", "configure", "message-vpn Trading_VPN", "replication"):
            assert lab.execute("NJ_Appliance1", line).ok, line
    # A lab's first change imports SQLAlchemy (a shell that only reads never does); import it
    # before `ready`, so the parent's kill windows fall on commands rather than on that import.
    import sqlalchemy.engine  # noqa: F401

    print("ready", flush=True)
    for i in range(start, start + count):
        target, line = command(role, i)
        outcome = lab.execute(target, line)
        if not outcome.ok:
            print(f"failed {i} {line!r}: {outcome.text}", flush=True)
            return 1
        print(f"done {i}", flush=True)
    lab.close()
    return 0


if __name__ == "__main__":
    sys.exit(main())
