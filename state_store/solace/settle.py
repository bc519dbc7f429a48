"""Settled messages: folding the ledger's finished past into per-VPN totals.

Why: the audit (``state_store.solace.audit``) reports what every message ever published became, so the
ledger kept one ``Message`` run per publish and one ``Delivery`` run per consumption forever, and a
long lab grew with every command. Most messages end in the one outcome the audit never lists:
delivered exactly once, with nothing left anywhere that could deliver or name them again. Such a
message only counts in the audit's totals (published, delivered, delivered once, and not
replicated when it was not), so it is folded into ``SettledMessages`` of its VPN name and its
ledger run and delivery leave the state.

Settled, for good (each condition closes a way back):
- delivered exactly once (none: lost or still spooled; more: duplicated, listed);
- no spooled copy of it on any queue of any router, up or failed (a standby taking over, a
  restored site or a rolled-back transaction delivers what is still spooled);
- no replication-stream entry about it, of any kind and in any stream (a 'msg' entry drains to a
  new copy on the standby; an 'ack' waits to remove one), and no acknowledgement waiting for its
  batch (meta ``ack-pending:``);
- no transaction operation naming it, live or mirrored, nor one inside a 'tx' stream entry (its
  rgmid is shown by `show transaction ... detail`; committing a mirror consumes the mate's copies);
- no record of a first XA commit naming it (meta ``xa-commit:``: committing the branch on the mate
  spools those messages again there);
- no ledger note (split brain, deleted by admin, spool over quota, queue deleted, site replaced,
  replication queue recreated ...): the audit lists notes with a problem, so a noted message stays
  whole, whatever happens to it.
A message meeting them all can get no new copy (copies come only from its publish, a stream entry
or a shared XA commit) and so no new delivery, note or listing: folding it changes no answer.

When: a sweep over the ledger, the copies, the streams, the transactions and the deliveries costs
their size, so it runs once the ledger and deliveries together reach a mark (meta
``ledger-fold-at``, part of the state so every shell replaying the journal folds at the same
calls), then the mark is set to twice what is left plus ``FOLD_MIN``: the cost per command stays
constant and the state holds at most about twice what is not settled. It runs at the end of a
publish and of a consumption, never halfway through one. The same sweep drops the XA bookkeeping
of branches gone for good (``finished_branch_keys``).
"""

from __future__ import annotations

import json
from typing import Any

from ..kernel.ranges import normalize
from .broker_state import BrokerState

FOLD_MIN = 512  # ledger + delivery runs the lab may hold beyond twice what the last sweep kept
FOLD_AT = "ledger-fold-at"  # meta key: the size (ledger + delivery runs) at which the next sweep runs


def _ranges_in(value: Any) -> list[tuple[int, int]] | None:
    """The message-id ranges a JSON bookkeeping value names (None: not understood)."""
    if type(value) is not list:
        return None
    out: list[tuple[int, int]] = []
    for item in value:
        if type(item) is int:
            out.append((item, item + 1))
        elif type(item) is list and len(item) == 2 and all(type(x) is int for x in item):
            out.append((item[0], item[1]))
        else:
            return None
    return out


def _named_by_meta(st: BrokerState) -> list[tuple[int, int]] | None:
    """Message ids named by waiting acks and first XA commits (None: a value not understood)."""
    out: list[tuple[int, int]] = []
    for key, raw in st.meta.items():
        if not (key.startswith("ack-pending:") or key.startswith("xa-commit:")):
            continue
        try:
            value = json.loads(raw)
        except ValueError:
            return None
        if type(value) is not list:
            return None
        if key.startswith("ack-pending:"):  # [message_id, msg_id, queue, queued_ms(, count)] each
            for item in value:
                if type(item) is not list or len(item) < 4 or type(item[0]) is not int:
                    return None
                count = item[4] if len(item) > 4 and type(item[4]) is int else 1
                out.append((item[0], item[0] + count))
        else:  # per publish operation, its message ids as [first, end) ranges (or one by one)
            for op in value:
                got = _ranges_in(op)
                if got is None:
                    return None
                out.extend(got)
    return out


def _named_by_tx_entries(st: BrokerState) -> list[tuple[int, int]] | None:
    """Message ids named by the operations inside 'tx' stream entries (None: a payload not understood)."""
    out: list[tuple[int, int]] = []
    for e in st.repl_entries.values():
        if e.kind != "tx" or not e.payload:
            continue
        try:
            pl = json.loads(e.payload)
        except ValueError:
            return None
        ops = pl.get("ops", []) if type(pl) is dict else None
        if type(ops) is not list:
            return None
        for op in ops:
            if type(op) is not dict:
                return None
            mid, count = op.get("message_id"), op.get("count", 1)
            if mid is not None:
                if type(mid) is not int or type(count) is not int:
                    return None
                out.append((mid, mid + count))
    return out


def settled_ranges(st: BrokerState) -> list[tuple[int, int]]:
    """The ids of the ledger's settled messages (module docstring) as sorted, merged ranges.
    Nothing when a bookkeeping value cannot be read: folding then waits rather than guess."""
    named_meta = _named_by_meta(st)
    named_tx = _named_by_tx_entries(st)
    if named_meta is None or named_tx is None:
        return []
    # (message id, blocking delta, delivery delta), swept with the ledger runs in id order
    events: list[tuple[int, int, int]] = []
    add = events.append
    for c in st.spooled.values():
        add((c.message_id, 1, 0))
        add((c.message_id + c.count, -1, 0))
    for e in st.repl_entries.values():
        if e.message_id is not None:
            add((e.message_id, 1, 0))
            add((e.message_id + e.count, -1, 0))
    for op in st.txn_ops.values():
        if op.message_id is not None:
            add((op.message_id, 1, 0))
            add((op.message_id + op.count, -1, 0))
    for a, b in (*named_meta, *named_tx):
        if b > a:
            add((a, 1, 0))
            add((b, -1, 0))
    for d in st.deliveries.values():
        add((d.message_id, 0, 1))
        add((d.message_id + d.count, 0, -1))
    events.sort(key=lambda ev: ev[0])
    never = 1 << 62
    out: list[tuple[int, int]] = []
    blocked = delivered = 0
    ei, n_events = 0, len(events)
    for m in st.ledger:
        a, end = m.id, m.id + m.count
        clean = m.note is None
        while a < end:
            while ei < n_events and events[ei][0] <= a:
                blocked += events[ei][1]
                delivered += events[ei][2]
                ei += 1
            b = min(end, events[ei][0] if ei < n_events else never)
            if clean and not blocked and delivered == 1:
                if out and out[-1][1] == a:
                    out[-1] = (out[-1][0], b)
                else:
                    out.append((a, b))
            a = b
    return normalize(out)


def _clean_log(raw: str) -> bool:
    """True when an XA log (``xa-log:`` meta, transactions.py) gives the audit no issue: no
    heuristic action on the wrong site, none after a failback, one outcome everywhere."""
    try:
        log = json.loads(raw)
    except ValueError:
        return False
    if type(log) is not list or not all(type(e) is dict for e in log):
        return False
    return (not any(e.get("wrong_site") or e.get("after_failback") for e in log)
            and len({str(e.get("outcome")) for e in log}) <= 1)


def finished_branch_keys(st: BrokerState) -> list[str]:
    """The XA bookkeeping of branches gone for good: ``xa-commit:`` and clean ``xa-log:`` meta keys
    (``<group>:<xid>``) of XIDs that no transaction of their group holds, live, mirrored or
    heuristically completed, and no 'tx' stream entry names. Nothing can read them again: only a
    branch of that XID commits, ends or is listed with them, and a new one clears both when it
    starts. (Why: one of each per XID would stay forever with steady XA traffic.)"""
    held: set[tuple[int, str]] = set()
    for t in st.txns.values():
        v = st.vpns.get(t.vpn_id)
        if t.kind == "xa" and t.xid is not None and v is not None:
            held.add((v.group_id, t.xid))
    for e in st.repl_entries.values():
        if e.kind != "tx":
            continue
        v = st.vpns.get(e.vpn_id)
        try:
            pl = json.loads(e.payload or "{}")
        except ValueError:
            return []
        if type(pl) is not dict or v is None:
            return []
        held.add((v.group_id, str(pl.get("xid"))))
    out = []
    for key, raw in st.meta.items():
        kind, _, rest = key.partition(":")
        if kind not in ("xa-commit", "xa-log"):
            continue
        group, _, xid = rest.partition(":")
        if not (group.isascii() and group.isdigit()) or (int(group), xid) in held:
            continue
        if kind == "xa-commit" or _clean_log(raw):
            out.append(key)
    return out


def fold_settled(st: BrokerState) -> int:
    """Drop the bookkeeping of finished XA branches, then fold every settled message; returns how
    many messages were folded."""
    for key in finished_branch_keys(st):
        del st.meta[key]
    return st.fold(settled_ranges(st))


def _size(st: BrokerState) -> int:
    return len(st.ledger) + len(st.deliveries)


def next_mark(size: int) -> int:
    """The size at which the next sweep runs, after one left ``size`` runs."""
    return 2 * size + FOLD_MIN


def fold_if_due(st: BrokerState) -> None:
    """Sweep when the ledger and deliveries have grown to the mark (module docstring)."""
    raw = st.meta.get(FOLD_AT)
    mark = int(raw) if raw is not None and raw.isascii() and raw.isdigit() else FOLD_MIN
    if _size(st) < mark:
        return
    fold_settled(st)
    st.meta[FOLD_AT] = str(next_mark(_size(st)))
