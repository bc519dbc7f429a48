"""The audit lists its problems by (VPN, replication-group message ID) without sorting every
flagged message: segments of ledger runs grouped by VPN in ledger order, a group expanded and
sorted only when its IDs are out of order, a sorted group's segments listed whole (a segment's
messages share their outcome), as far as the limit of entries. Checked against the plain sort of
the expanded messages, limits included (a negative limit lists them all)."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from state_store.audit import _first_in_order
from state_store.records import Message


@given(st.lists(st.tuples(st.sampled_from(["A", "B", "#x"]), st.integers(1, 30), st.integers(1, 4)), max_size=40),
       st.integers(-1, 45), st.booleans())
def test_first_in_order_is_the_sorted_prefix(rows: list[tuple[str, int, int]], limit: int, ordered: bool) -> None:
    if ordered:  # the usual ledger: IDs grow with the message ids within a VPN
        rows = sorted(rows, key=lambda r: r[1])
    segments = []
    mid = 1
    for vpn, rgmid, n in rows:
        run = Message(group_id=1, vpn_name=vpn, rgmid=rgmid, topic="t", size=1, client_name="c",
                      router_name="r", published_ms=0, id=mid, count=n)
        segments.append((run, mid, n))
        mid += n
    expanded = [(i, m) for m, a, n in segments for i in range(a, a + n)]
    expected = sorted(expanded, key=lambda t: (t[1].vpn_name, t[1].rgmid + t[0] - t[1].id, t[0]))
    listed = _first_in_order(segments, limit)
    flat = [(i, m) for a, m, n in listed for i in range(a, a + n)]
    assert flat == expected[:len(flat)]  # the sorted prefix, whole segments or single messages
    assert flat == expected if limit < 0 or len(listed) < limit else len(listed) == limit
