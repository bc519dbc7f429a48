"""The Qpid HA lab's shell part: a shell on each broker host with the tools `qpid-ha` and
`qpid-config` (cli.py; their reading, tools.py; their commands, ha_handlers.py and
config_handlers.py; their output, tool_views.py and tool_renderers.py) and the broker's log
(shell_handlers.py, shell_renderers.py), the lab console's `qpid ...` and `amqp ...` verbs
(lab_handlers.py, lab_renderers.py), its refusal texts (messages.py); its grammar is
grammar/data/systems/qpid."""

from __future__ import annotations

from ..plugin import SystemShell, function_from, personality_from

# The lab says where the operator is (non-authoritative).
BANNER = ("solace-shell lab: Qpid C++ HA cluster (a shell on a broker host with qpid-ha and qpid-config; "
          "F2 for the lab console)\n")

MODULES = ("lab_handlers", "lab_renderers", "shell_handlers", "shell_renderers", "ha_handlers", "config_handlers",
           "tool_renderers")
SHELL = SystemShell("qpid", personality_from(f"{__name__}.cli", "QpidShell"), BANNER, MODULES,
                    function_from(f"{__name__}.tools", "parse_command"))
