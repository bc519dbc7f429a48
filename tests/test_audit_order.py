"""The audit lists its problems by (VPN, replication-group message ID) without sorting every
flagged message: grouped by VPN in ledger order, a group sorted only when its IDs are out of order.
Checked against the plain sort, limits included (a negative limit lists them all)."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from state_store.audit import _first_in_order
from state_store.records import Message


def message(i: int, vpn: str, rgmid: int) -> Message:
    return Message(group_id=1, vpn_name=vpn, rgmid=rgmid, topic="t", size=1, client_name="c",
                   router_name="r", published_ms=0, id=i)


@given(st.lists(st.tuples(st.sampled_from(["A", "B", "#x"]), st.integers(1, 30)), max_size=40),
       st.integers(-1, 45), st.booleans())
def test_first_in_order_is_the_sorted_prefix(rows: list[tuple[str, int]], limit: int, ordered: bool) -> None:
    if ordered:  # the usual ledger: IDs grow with the message ids within a VPN
        rows = sorted(rows, key=lambda r: r[1])
    msgs = [message(i + 1, vpn, rg) for i, (vpn, rg) in enumerate(rows)]
    expected = sorted(msgs, key=lambda m: (m.vpn_name, m.rgmid, m.id))
    assert _first_in_order(msgs, limit) == (expected if limit < 0 else expected[:limit])
