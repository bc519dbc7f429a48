"""How much of one command line or one command's output a report shows.

Why a cap: a transcript comes from anyone, and one line of it can be megabytes long. Every report
made from a replay (`solace-shell replay`'s diffs, the Spark job's tables, summary and HTML report)
keeps at most MAX_SHOWN_CHARS characters of each command and each output, and says how many it
left out, so a report stays proportionate to the number of commands rather than to their length.
"""

from __future__ import annotations

MAX_SHOWN_CHARS = 65_536
"""Characters of one command line, or of one command's output, that a report keeps: far more than any
real CLI line or `show` table, small enough that a report of thousands of commands stays readable."""

SHORT_COMMAND_CHARS = 120
"""Characters of a command shown again where it was already shown in full (a diff's input lines)."""


def capped(text: str, limit: int = MAX_SHOWN_CHARS) -> str:
    """`text` if it fits in `limit` characters, else its first `limit` and how many more there were."""
    if len(text) <= limit:
        return text
    return text[:limit] + f" [... {len(text) - limit:,} more characters not shown]"


def short_command(command: str) -> str:
    """A command as a line that repeats it shows it: whole when short, else its start and its length."""
    if len(command) <= SHORT_COMMAND_CHARS:
        return command
    return command[:SHORT_COMMAND_CHARS] + f" [... {len(command):,} characters in all]"
