"""Run a real broker's current-config dump through the Lab and count the lines that fail.

A dump's levels are its indentation: when a line that enters a level fails, the lines of that
level cannot run (the level does not exist) and count as failing without being run, so one
missing level does not turn every later line into a failure. The dump runs on the default lab
after the objects a `show current-config message-vpn default remove` dump names are made
(`SETUP`); a dump of other objects needs them made first.

    PYTHONPATH=$PWD python -m tests.support.real_dump FILE [-v]

prints `<failing> of <lines> lines fail` (and each failing line with -v).
"""

from __future__ import annotations

import sys
from pathlib import Path

from solace_shell.lab import Lab

NY = "NY_Appliance1"
# the objects of the real 10.26 dump (a queue, a REST delivery point with a consumer and a binding,
# the JNDI connection factory a software broker's `default` VPN comes with)
SETUP = ("enable", "configure", "message-spool message-vpn default", "create queue test-rdp", "end", "configure",
         "message-vpn default", "rest", "create rest-delivery-point test", "create rest-consumer test-rc", "exit",
         "create queue-binding test-rdp", "end", "configure", "jndi message-vpn default",
         "create connection-factory /jms/cf/default", "end")


def failing_lines(lab: Lab, script: str) -> tuple[list[str], int]:
    """(the failing lines, the number of lines run or skipped); `!` lines and blank ones are not lines."""
    lines = [line for line in script.splitlines() if line.strip() and not line.strip().startswith("!")]
    failed: list[str] = []
    skip_below: int | None = None
    for i, line in enumerate(lines):
        depth = len(line) - len(line.lstrip())
        if skip_below is not None and depth > skip_below:
            failed.append(line)
            continue
        skip_below = None
        if not lab.execute(NY, line.strip()).ok:
            failed.append(line)
            following = lines[i + 1] if i + 1 < len(lines) else ""
            if len(following) - len(following.lstrip()) > depth:
                skip_below = depth
    return failed, len(lines)


def prepared_lab() -> Lab:
    """The default lab with SETUP run (a line the lab refuses is left out: the dump's lines about
    that object then fail and are counted)."""
    lab = Lab.fresh()
    for line in SETUP:
        lab.execute(NY, line)
    return lab


def main(argv: list[str]) -> int:
    failed, total = failing_lines(prepared_lab(), Path(argv[0]).read_text(encoding="utf-8"))
    if "-v" in argv:
        print("\n".join(failed))
    print(f"{len(failed)} of {total} lines fail")
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
