"""Where scenario files are: the bundled ones, and a name as the user types it.

Why its own module: opening an existing lab, or naming a scenario on the command line, needs only
these paths; loading and checking a scenario (scenario_schema) and building a lab from it
(scenario) cost tens of milliseconds of imports that a `solace-shell -c` start does not pay.
"""

from __future__ import annotations

from pathlib import Path

ROOT_DIR = Path(__file__).parent / "scenarios"
DEFAULT_SCENARIO = ROOT_DIR / "default.yaml"


def resolve_scenario(name: str) -> Path | None:
    """A scenario as typed: a file path, or the name of a bundled scenario (`default`,
    `bare`, `swiftmq-ha`); None when neither exists. A path that exists but is no regular file
    (a FIFO, a device) is returned as it is, for the reader (`user_files`) to refuse by name."""
    if len(name.encode("utf-8", "surrogatepass")) > 4096:
        return None
    given = Path(name)
    try:
        if given.exists() and not given.is_dir() and not given.is_file():
            return given
    except (OSError, ValueError):
        pass
    for candidate in (given, ROOT_DIR / name, ROOT_DIR / f"{name}.yaml"):
        try:  # a name the file system cannot even look up (too long, a NUL byte) is not found
            if candidate.is_file():
                return candidate
        except (OSError, ValueError):
            continue
    return None
