"""A child process that runs one personality's writes on a shared lab file, for the concurrency
tests of every CLI personality.

Usage: python -m tests.support.personality_child <lab-file> <target> <count> <line-template> [setup-line ...]
Runs the setup lines, prints `ready`, waits for a line on stdin (so two children start together),
then runs `<line-template>.format(i=i)` for i in range(count), printing `ok <i>` or
`failed <i> <output>` per command.
"""

from __future__ import annotations

import sys

from solace_shell.lab import Lab


def main() -> int:
    path, target, count, template, *setup = sys.argv[1:]
    lab = Lab.open(path)
    for line in setup:
        outcome = lab.execute(target, line)
        assert outcome.ok, (line, outcome.text)
    import sqlalchemy.engine  # noqa: F401  (a lab's first write imports it: not inside the race)

    print("ready", flush=True)
    sys.stdin.readline()
    for i in range(int(count)):
        outcome = lab.execute(target, template.format(i=i))
        if outcome.ok:
            print(f"ok {i}", flush=True)
        else:
            print(f"failed {i} {outcome.text!r}", flush=True)
    lab.close()
    return 0


if __name__ == "__main__":
    sys.exit(main())
