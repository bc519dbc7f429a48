"""The SwiftMQ HA lab's shell part: the SwiftMQ admin CLI (cli.py), the lab console's `ha ...` and
`jms ...` verbs (lab_handlers.py, lab_renderers.py), the CLI's commands (cli_handlers.py,
cli_renderers.py), its refusal texts (messages.py); its grammar is grammar/data/systems/swiftmq."""

from __future__ import annotations

from ..plugin import SystemShell, personality_from

# The SwiftMQ admin CLI prints no banner of its own that a capture shows, so the lab says where
# the operator is (non-authoritative).
BANNER = ("solace-shell lab: SwiftMQ HA routers (SwiftMQ admin CLI; ? for help, Tab to complete, "
          "F2 for the lab console)\n")

SHELL = SystemShell("swiftmq", personality_from(f"{__name__}.cli", "SwiftMqCli"), BANNER,
                    ("lab_handlers", "cli_handlers", "lab_renderers", "cli_renderers"))
