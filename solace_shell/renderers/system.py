"""`show hostname` and `show version`.

`show version`'s full layout was not captured (reference 5.5); the three lines kept here are the
ones known to start it.
"""

from __future__ import annotations

from ..handlers.system import Hostname, Version
from . import renderer


@renderer(Hostname)
def hostname(result: Hostname) -> str:
    return f"Hostname: {result.name}"


def uptime_text(ms: int) -> str:
    seconds = ms // 1000
    days, seconds = divmod(seconds, 86400)
    hours, seconds = divmod(seconds, 3600)
    minutes, seconds = divmod(seconds, 60)
    return f"{days}d {hours}h {minutes}m {seconds}s"


@renderer(Version)
def version(result: Version) -> str:
    return "\n".join([
        f"{result.product} Version {result.version}",
        "",
        f"Current load is: soltr_{result.version}",
        f"System uptime: {uptime_text(result.uptime_ms)}",
    ])
