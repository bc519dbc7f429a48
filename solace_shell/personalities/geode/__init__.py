"""The Geode lab's shell part: gfsh (cli.py, cli_handlers.py, cli_renderers.py), the lab console's
`geode ...` verbs (lab_handlers.py, lab_renderers.py) and its refusal texts (messages.py); its
grammar is grammar/data/systems/geode."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from ..plugin import SystemShell

if TYPE_CHECKING:
    from ...access import UserAccess
    from ...lab import Lab


def _cli(lab: Lab, user: UserAccess) -> Any:
    from .cli import Gfsh

    return Gfsh(lab, user)


# gfsh's own banner (its ASCII art and version lines) is not reproduced: the lab says where the
# operator is (non-authoritative).
BANNER = ("solace-shell lab: Apache Geode cluster (gfsh; help for the commands, F2 for the lab console)\n")

SHELL = SystemShell("geode", _cli, BANNER, ("lab_handlers", "cli_handlers", "lab_renderers", "cli_renderers"))
