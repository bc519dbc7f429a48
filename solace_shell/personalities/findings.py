"""How every HA system's `audit` prints the kernel's audit: a line of totals, then each finding: its
text with the count and whether the product allows it, then the origin keys of its messages as
ranges.

Why one module: the kernel gives every system the same totals and findings
(`state_store.kernel.AuditTotals`, `Finding`); only the words are the system's (what it calls a
message that entered the ledger, its last column, the sentence per (outcome, reason)), so the
lines around them are written once.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Literal

from state_store.kernel import AuditTotals, Finding, Span
from state_store.kernel.audit import SPANS_KEPT

MAX_ID_RANGES = SPANS_KEPT - 1   # ranges listed before `,...` (a finding keeps one more: there are more)


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


def totals_line(t: AuditTotals, entered: str = "published",
                last: Literal["discarded", "stranded"] = "discarded") -> str:
    """The totals: ``entered`` is the system's word for the messages counted in (`published`,
    `queued`), ``last`` the column that ends the line."""
    return (f"{entered} {t.published} delivered {t.delivered} duplicated {t.duplicated} lost {t.lost} "
            f"stored {t.stored} {last} {t.discarded if last == 'discarded' else t.stranded}")


def audit_text(totals: AuditTotals, findings: tuple[Finding, ...], texts: Mapping[tuple[str, str], str],
               last: Literal["discarded", "stranded"] = "discarded") -> str:
    """The totals line, then one line per finding (``texts`` as for `finding_line`)."""
    return "\n".join([totals_line(totals, last=last), *(finding_line(f, texts) for f in findings)])
