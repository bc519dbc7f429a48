"""Every way the shell writes a duration or a point of simulated time, in one place.

Why one module: the engine hands out milliseconds and seconds only; the words around them differ
by where they appear (CLI tables, CLI detail fields, the lab console, the toolbar), and keeping the
formats side by side keeps them from drifting apart.
"""

from __future__ import annotations


def dhms(seconds: int) -> str:
    """`0d 0h 0m 0s`: CLI detail fields (reference 4.1 `Last State Change`, uptimes)."""
    seconds = max(0, int(seconds))
    days, seconds = divmod(seconds, 86400)
    hours, seconds = divmod(seconds, 3600)
    minutes, seconds = divmod(seconds, 60)
    return f"{days}d {hours}h {minutes}m {seconds}s"


def ago(seconds: int) -> str:
    """A compact age for CLI table cells: `1s`, `2m 5s`, `1h 0m 3s`, `2d 1h 0m 0s` [INFER; the
    reference only shows `1s`]."""
    full = dhms(seconds).split(" ")
    while len(full) > 1 and full[0][:-1] == "0":
        full.pop(0)
    return " ".join(full)


def clock_text(ms: int) -> str:
    """The lab console's clock, `00:00:05.000` (hours keep counting past 24)."""
    seconds, millis = divmod(ms, 1000)
    minutes, seconds = divmod(seconds, 60)
    hours, minutes = divmod(minutes, 60)
    return f"{hours:02d}:{minutes:02d}:{seconds:02d}.{millis:03d}"


def step_text(ms: int) -> str:
    """A step of the lab clock in the largest unit that divides it exactly: 1h, 2m, 5s, 250ms."""
    for unit, size in (("h", 3_600_000), ("m", 60_000), ("s", 1000)):
        if ms and ms % size == 0:
            return f"{ms // size}{unit}"
    return f"{ms}ms"


def elapsed_text(ms: int) -> str:
    """The toolbar's simulated time since the lab started: `T+0s`, `T+2m05s`, `T+3d01h02m05s`."""
    s, rem = divmod(max(0, int(ms)), 1000)
    d, s = divmod(s, 86400)
    h, s = divmod(s, 3600)
    m, s = divmod(s, 60)
    frac = f".{rem:03d}" if rem else ""
    if d:
        return f"T+{d}d{h:02d}h{m:02d}m{s:02d}{frac}s"
    if h:
        return f"T+{h}h{m:02d}m{s:02d}{frac}s"
    if m:
        return f"T+{m}m{s:02d}{frac}s"
    return f"T+{s}{frac}s"
