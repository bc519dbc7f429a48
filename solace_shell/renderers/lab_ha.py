"""The lab console's shared HA failure verbs print what the system's operation returned, with
the system's own renderer (its view's)."""

from __future__ import annotations

from ..handlers.lab_ha import FailureApplied
from . import render, renderer


@renderer(FailureApplied)
def failure_applied(r: FailureApplied) -> str:
    return render(r.view)
