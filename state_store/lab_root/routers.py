"""LabRouter: what the lab's root says of a router, whichever section runs it.

Why a Protocol: the root names no system; a section whose engine runs routers (the router CLI's)
answers ``routers()`` with its own records, and the root's neutral readers (the SSH server's
listeners, the classroom's targets, grading's node names) need only these four fields of each.
"""

from __future__ import annotations

from typing import Protocol


class LabRouter(Protocol):
    @property
    def name(self) -> str: ...
    @property
    def site(self) -> str: ...
    @property
    def up(self) -> bool: ...
    @property
    def ssh_port(self) -> int: ...  # from the scenario; 0: none (the SSH server gives it one)
