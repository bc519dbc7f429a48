"""Aligning expected lines (matchers) with actual lines: the shared core of `accept` and signatures.

An alignment is a minimal-cost edit script: an expected line is kept when it matches its actual
line, a `...` is kept covering a run of actual lines, and everything else is replaced, deleted or
inserted. Keeping a matcher costs nothing, so `accept` keeps every matcher that still matches the
part of the new output it lines up with; `...` swallowing a line costs a little, so it never hides
lines a literal line could have taken.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Literal

from solace_shell.transcript.match import LineMatcher

OpKind = Literal["keep", "replace", "delete", "insert"]

_EDIT = 1000     # replace, delete or insert one line
_SWALLOW = 1     # one actual line covered by `...`
_MAX_CELLS = 2_000_000


@dataclass(frozen=True)
class Op:
    kind: OpKind
    entry: int | None        # index of the expected line (None for insert)
    lo: int                  # actual lines [lo, hi) this op covers
    hi: int


def align(expected: Sequence[LineMatcher], actual: Sequence[str]) -> list[Op]:
    """A minimal edit script turning `expected` into a block that matches `actual`.

    Keeping every kept entry and writing every replaced/inserted actual line literally yields a
    block that matches `actual` by construction.
    """
    n, m = len(expected), len(actual)
    head = 0
    while head < n and head < m and expected[head].kind != "any" and expected[head].matches(actual[head]):
        head += 1
    tail = 0
    while (tail < n - head and tail < m - head and expected[n - 1 - tail].kind != "any"
           and expected[n - 1 - tail].matches(actual[m - 1 - tail])):
        tail += 1
    ops = [Op("keep", i, i, i + 1) for i in range(head)]
    mid_e, mid_a = expected[head:n - tail], actual[head:m - tail]
    if (len(mid_e) + 1) * (len(mid_a) + 1) <= _MAX_CELLS:
        middle = _align_dp(mid_e, mid_a)
    else:
        middle = _align_greedy(mid_e, mid_a)
    for op in middle:
        entry = None if op.entry is None else op.entry + head
        ops.append(Op(op.kind, entry, op.lo + head, op.hi + head))
    ops.extend(Op("keep", n - tail + k, m - tail + k, m - tail + k + 1) for k in range(tail))
    return ops


def _align_dp(expected: Sequence[LineMatcher], actual: Sequence[str]) -> list[Op]:
    n, m = len(expected), len(actual)
    cost = [[0] * (m + 1) for _ in range(n + 1)]
    for j in range(m - 1, -1, -1):
        cost[n][j] = cost[n][j + 1] + _EDIT
    for i in range(n - 1, -1, -1):
        e = expected[i]
        row, nxt = cost[i], cost[i + 1]
        if e.kind == "any":
            row[m] = nxt[m]
            for j in range(m - 1, -1, -1):
                row[j] = min(nxt[j], _SWALLOW + row[j + 1])
        else:
            row[m] = _EDIT + nxt[m]
            for j in range(m - 1, -1, -1):
                diag = nxt[j + 1] + (0 if e.matches(actual[j]) else _EDIT)
                row[j] = min(diag, _EDIT + nxt[j], _EDIT + row[j + 1])
    ops: list[Op] = []
    i = j = 0
    while i < n or j < m:
        if i == n:
            ops.append(Op("insert", None, j, j + 1))
            j += 1
            continue
        e = expected[i]
        if e.kind == "any":
            start = j
            while j < m and cost[i][j] == _SWALLOW + cost[i][j + 1] and cost[i][j] != cost[i + 1][j]:
                j += 1
            ops.append(Op("keep", i, start, j))
            i += 1
            continue
        if j < m and e.matches(actual[j]) and cost[i][j] == cost[i + 1][j + 1]:
            ops.append(Op("keep", i, j, j + 1))
            i, j = i + 1, j + 1
        elif j < m and cost[i][j] == _EDIT + cost[i + 1][j + 1]:
            ops.append(Op("replace", i, j, j + 1))
            i, j = i + 1, j + 1
        elif cost[i][j] == _EDIT + cost[i + 1][j]:
            ops.append(Op("delete", i, j, j))
            i += 1
        else:
            ops.append(Op("insert", None, j, j + 1))
            j += 1
    return ops


def _align_greedy(expected: Sequence[LineMatcher], actual: Sequence[str]) -> list[Op]:
    """Fallback for huge blocks: keep `...` (covering nothing), pair the rest in order."""
    ops: list[Op] = []
    j = 0
    for i, e in enumerate(expected):
        if e.kind == "any":
            ops.append(Op("keep", i, j, j))
        elif j < len(actual):
            ops.append(Op("keep" if e.matches(actual[j]) else "replace", i, j, j + 1))
            j += 1
        else:
            ops.append(Op("delete", i, j, j))
    ops.extend(Op("insert", None, k, k + 1) for k in range(j, len(actual)))
    return ops
