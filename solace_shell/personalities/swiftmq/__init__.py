"""The SwiftMQ HA lab's shell part: the SwiftMQ admin CLI (cli.py), the lab console's `ha ...` and
`jms ...` verbs (lab_handlers.py, lab_renderers.py), the CLI's commands (cli_handlers.py,
cli_renderers.py), its refusal texts (messages.py); its grammar is grammar/data/systems/swiftmq."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from ..plugin import SystemShell

if TYPE_CHECKING:
    from ...access import UserAccess
    from ...lab import Lab


def _cli(lab: Lab, user: UserAccess) -> Any:
    from .cli import SwiftMqCli

    return SwiftMqCli(lab, user)


# The SwiftMQ admin CLI prints no banner of its own that a capture shows, so the lab says where
# the operator is (non-authoritative).
BANNER = ("solace-shell lab: SwiftMQ HA routers (SwiftMQ admin CLI; ? for help, Tab to complete, "
          "F2 for the lab console)\n")

SHELL = SystemShell("swiftmq", _cli, BANNER, ("lab_handlers", "cli_handlers", "lab_renderers", "cli_renderers"))
