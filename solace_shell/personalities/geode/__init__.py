"""The Geode lab's shell part: gfsh (cli.py, cli_handlers.py, cli_renderers.py), the lab console's
`geode ...` verbs (lab_handlers.py, lab_renderers.py) and its refusal texts (messages.py); its
grammar is grammar/data/systems/geode."""

from __future__ import annotations

from ..plugin import SystemShell, function_from, personality_from

# gfsh's own banner (its ASCII art and version lines) is not reproduced: the lab says where the
# operator is (non-authoritative).
BANNER = ("solace-shell lab: Apache Geode cluster (gfsh; help for the commands, F2 for the lab console)\n")

SHELL = SystemShell("geode", personality_from(f"{__name__}.cli", "Gfsh"), BANNER,
                    ("lab_handlers", "cli_handlers", "lab_renderers", "cli_renderers"),
                    function_from(f"{__name__}.cli", "parse_command"))
