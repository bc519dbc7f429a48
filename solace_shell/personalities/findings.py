"""How every HA system's `audit` prints a kernel finding: its text with the count and whether the
product allows it, then the origin keys of its messages as ranges.

Why one module: the kernel gives every system the same findings (`state_store.kernel.Finding`);
only the sentence per (outcome, reason) is the system's, so the line around it is written once.
"""

from __future__ import annotations

from collections.abc import Mapping

from state_store.kernel import Finding, Span

MAX_ID_RANGES = 5   # ranges listed before `,...`


def id_ranges(spans: tuple[Span, ...]) -> str:
    """Origin keys of consecutive messages as ranges (`ID:c1-1..ID:c1-10,ID:c2-4`), `-` for none."""
    ranges = [s.first_key if s.first == s.last else f"{s.first_key}..{s.last_key}" for s in spans]
    more = len(ranges) > MAX_ID_RANGES
    return ",".join(ranges[:MAX_ID_RANGES]) + (",..." if more else "") if ranges else "-"


def finding_line(f: Finding, texts: Mapping[tuple[str, str], str]) -> str:
    """`f` in the system's words (`texts`: a format with `{n}` and `{verdict}` per (outcome, reason);
    a generic sentence for any other), then its ranges."""
    verdict = "(allowed)" if f.allowed else "(violation)"
    text = texts.get((f.outcome, f.reason), f"{f.outcome} {{n}} {{verdict}}: {f.reason}").format(
        n=f.count, verdict=verdict)
    return f"{text} ({id_ranges(f.spans)})"
