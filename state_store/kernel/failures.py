"""The one failure vocabulary every HA system honours.

Why one: a trainer drills the same failures on every product (a process dies, hangs, comes back;
the network between nodes is cut and healed; a node is replaced by a blank one), and the lab's
verbs and drills name them alike. The kernel applies the neutral part (process and link state)
and lets the group's policy react; a system that has no meaning for one refuses it with an
`EngineError` before anything changes.
- ``kill``: the process dies (its peers see the connection drop);
- ``hang``: the process stops answering but holds its connections (half-open sockets);
- ``restart``: a process that is down starts again (reading what it persisted);
- ``partition`` / ``heal``: the network between the nodes of a group is cut / restored;
- ``replace``: a stopped node's disk is lost: it comes back blank (no persisted files, no copies).
"""

from __future__ import annotations

from typing import Literal

Failure = Literal["kill", "hang", "restart", "partition", "heal", "replace"]
NODE_FAILURES: tuple[Failure, ...] = ("kill", "hang", "restart", "replace")
LINK_FAILURES: tuple[Failure, ...] = ("partition", "heal")
FAILURES: tuple[Failure, ...] = NODE_FAILURES + LINK_FAILURES
# a node failure as the process change the kernel applies
PROCESS_CHANGE: dict[str, str] = {"kill": "kill", "hang": "hang", "restart": "start"}
REPLACED = "node-replaced"   # the ledger's reason for copies lost with a replaced node's disk
