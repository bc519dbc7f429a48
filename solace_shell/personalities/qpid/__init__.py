"""The Qpid HA lab's shell part: a shell on each broker host with the tools `qpid-ha` and
`qpid-config` and the broker's log (cli.py, tools.py), the lab console's `qpid ...` and `amqp ...`
verbs (lab_handlers.py, lab_renderers.py), its refusal texts (messages.py); its grammar is
grammar/data/systems/qpid."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from ..plugin import SystemShell

if TYPE_CHECKING:
    from ...access import UserAccess
    from ...lab import Lab


def _cli(lab: Lab, user: UserAccess) -> Any:
    from .cli import QpidShell

    return QpidShell(lab, user)


# The lab says where the operator is (non-authoritative).
BANNER = ("solace-shell lab: Qpid C++ HA cluster (a shell on a broker host with qpid-ha and qpid-config; "
          "F2 for the lab console)\n")

SHELL = SystemShell("qpid", _cli, BANNER, ("lab_handlers", "lab_renderers"))
