"""`show hostname` and `show version`.

`show version`'s full layout was not captured (reference 5.5); the three lines kept here are the
ones known to start it.
"""

from __future__ import annotations

from ....durations import dhms
from ....renderers import renderer
from ..handlers.system import Hostname, Version


@renderer(Hostname)
def hostname(result: Hostname) -> str:
    return f"Hostname: {result.name}"


@renderer(Version)
def version(result: Version) -> str:
    return "\n".join([
        f"{result.product} Version {result.version}",
        "",
        f"Current load is: soltr_{result.version}",
        f"System uptime: {dhms(result.uptime_ms // 1000)}",
    ])
