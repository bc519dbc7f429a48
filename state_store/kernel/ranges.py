"""Id ranges: a set of message ids as sorted, disjoint, half-open ``(first, end)`` pairs.

Why: the kernel's ledger keeps a million messages as a handful of runs, so every question about
"which messages" (held by a node, delivered, dropped) is answered on ranges, never by expanding
ids. Lists stay short (one pair per run or per cut), so plain sorting and merging suffice.
"""

from __future__ import annotations

from bisect import bisect_right
from collections.abc import Iterable

Range = tuple[int, int]   # [first, end): ids first .. end - 1


def normalize(ranges: Iterable[Range]) -> list[Range]:
    """Sorted, merged, empty ranges dropped."""
    out: list[Range] = []
    for a, b in sorted(r for r in ranges if r[0] < r[1]):
        if out and a <= out[-1][1]:
            if b > out[-1][1]:
                out[-1] = (out[-1][0], b)
        else:
            out.append((a, b))
    return out


def intersect(xs: Iterable[Range], ys: Iterable[Range]) -> list[Range]:
    """The ids in both (each argument normalized first)."""
    a, b = normalize(xs), normalize(ys)
    out: list[Range] = []
    i = j = 0
    while i < len(a) and j < len(b):
        lo, hi = max(a[i][0], b[j][0]), min(a[i][1], b[j][1])
        if lo < hi:
            out.append((lo, hi))
        if a[i][1] < b[j][1]:
            i += 1
        else:
            j += 1
    return out


def subtract(xs: Iterable[Range], ys: Iterable[Range]) -> list[Range]:
    """The ids of ``xs`` not in ``ys``, in the order of ``xs`` (which need not be sorted: a queue's
    copies are in arrival order). Each range of ``xs`` finds its first hole by bisection, so the
    cost follows the ranges of ``xs`` and the holes that cut them, not ``len(xs) * len(ys)``."""
    cut = normalize(ys)
    if not cut:
        return [r for r in xs if r[0] < r[1]]
    ends = [d for _, d in cut]
    out: list[Range] = []
    for a, b in xs:
        k = bisect_right(ends, a)
        while k < len(cut):
            c, d = cut[k]
            if c >= b:
                break
            if c > a:
                out.append((a, c))
            a = max(a, d)
            if a >= b:
                break
            k += 1
        if a < b:
            out.append((a, b))
    return out


def subtract_sorted(ranges: list[Range], holes: list[Range]) -> list[Range]:
    """``subtract`` for normalized ``ranges`` and ``holes`` (sorted, disjoint), in one pass over
    both: for the long lists of a system's hot paths."""
    out: list[Range] = []
    j = 0
    for a, b in ranges:
        while j < len(holes) and holes[j][1] <= a:
            j += 1
        k = j
        pos = a
        while k < len(holes) and holes[k][0] < b:
            ha, hb = holes[k]
            if ha > pos:
                out.append((pos, ha))
            pos = max(pos, hb)
            k += 1
        if pos < b:
            out.append((pos, b))
    return out


def size(ranges: Iterable[Range]) -> int:
    return sum(b - a for a, b in ranges)


def take(ranges: list[Range], count: int) -> tuple[list[Range], list[Range]]:
    """The first ``count`` ids of ordered ``ranges`` and what is left, each as ranges."""
    head: list[Range] = []
    left = count
    for i, (a, b) in enumerate(ranges):
        if left <= 0:
            return head, ranges[i:]
        if b - a <= left:
            head.append((a, b))
            left -= b - a
        else:
            head.append((a, a + left))
            return head, [(a + left, b), *ranges[i + 1:]]
    return head, []


def append(ranges: list[Range], add: Range) -> None:
    """Append in order, joining the last range when ``add`` continues it."""
    if add[0] >= add[1]:
        return
    if ranges and ranges[-1][1] == add[0]:
        ranges[-1] = (ranges[-1][0], add[1])
    else:
        ranges.append(add)
