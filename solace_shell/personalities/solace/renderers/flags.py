"""The one-letter flags of the broker's tables, made from the engine's data.

Why a module of its own: the table renderers print them, the detail renderers print the words the
same states stand for, and tests compare whole flag strings (`U A - U U - N A`) as the captures
show them; one place maps each state to its letter. ``None`` (not applicable) is `-` everywhere.
"""

from __future__ import annotations

from state_store.solace.views import BridgeInfo, QueueRow, TransactionInfo, VpnReplicationRow

NA = "-"
BRIDGE_LETTERS = {"up": "U", "queue-unbound": "Q", "down": "D"}


def up_down(flag: bool | None) -> str:
    """U / D, `-` when not applicable."""
    return NA if flag is None else ("U" if flag else "D")


def yes_no_letter(flag: bool | None) -> str:
    """Y / N, `-` when not applicable."""
    return NA if flag is None else ("Y" if flag else "N")


def vpn_replication_letters(row: VpnReplicationRow) -> tuple[str, ...]:
    """The flags A C B R Q S M T of `show message-vpn <p> replication` (reference 3.5)."""
    if row.internal:
        return (NA,) * 8
    return (
        up_down(row.admin_enabled),
        "A" if row.role == "active" else "S",
        NA if row.local_bridge is None else BRIDGE_LETTERS[row.local_bridge],
        up_down(row.remote_bridge_up),
        up_down(row.queue_bound),
        yes_no_letter(row.sync_eligible),
        yes_no_letter(row.reject_sync_ineligible),
        "S" if row.trm == "sync" else "A",
    )


def vpn_replication_flags(row: VpnReplicationRow) -> str:
    """`U A - U U - N A`: the flag columns of one row."""
    return " ".join(vpn_replication_letters(row))


def queue_flags(row: QueueRow) -> str:
    """The flags I E A S R D P of `show queue` (reference 5.1): the emulator has no selectors,
    backup queues or priority queues, so S, R and P are always N, P and N."""
    return " ".join((
        up_down(row.ingress_up), up_down(row.egress_up), "E" if row.access_type == "exclusive" else "N",
        "N", "P", "D" if row.durable else "N", "N"))


def bridge_flags(b: BridgeInfo) -> str:
    """The flags A B I O Q R of `show bridge`: the outbound side of a replication bridge is
    never used (N/A)."""
    return " ".join((
        up_down(b.admin_enabled), "L" if b.establisher == "local" else "R",
        up_down(b.local_bridge == "up"), NA, up_down(b.queue_bound), b.redundancy[0].upper()))


def transaction_flags(t: TransactionInfo) -> str:
    """The flags T S R of `show transaction` (reference 4.1)."""
    return " ".join(("X" if t.kind == "xa" else "L", t.state[0].upper(), yes_no_letter(t.mirrored)))
