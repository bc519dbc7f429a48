"""How much of a publish the spool quotas let in: a pure decision, no state, no text.

Why its own module: the quota rules are the broker's and stay the same however the messages
are stored, so the decision takes plain numbers (rooms in bytes, flags) and returns a plan that
the messaging service then carries out. It is unit-tested on its own (tests/model/test_quotas.py).

The rules (issue 15 item 3), for ``count`` identical messages of ``size`` bytes published in order:

- the limits are checked in the broker's order: the router's message spool (`show
  message-spool` Maximum Spool Usage), then the Message VPN's spool quota (`message-spool
  message-vpn <vpn>` max-spool-usage), then each queue (Solace docs, "Message Spooling": the
  broker-wide quota, then the Message VPN's, then each endpoint's). A message whose copies would
  take the router's or the VPN's usage over its quota is refused to the publisher;
- a queue keeps the leading messages that fit its max-spool-usage. A message it cannot take is
  discarded there; when the queue has reject-msg-to-sender-on-discard on, the message is instead
  refused to the publisher and stored on NO destination. Source: Solace blog "PubSub+ Message
  Handling Features: Reject Message to Sender on Discard" (the message is rejected from every
  queue sharing the subscription, "all or nothing"; a queue with the option off does not stop
  the others) and the SEMP v2 reference of rejectMsgToSenderOnDiscardBehavior ("NACKs prevent the
  message from being delivered to any destination"). With the option off the message is still
  acknowledged and stored on the other queues;
- a matching queue whose ingress is shut down takes nothing; with reject-msg-to-sender-on-discard
  including-when-shutdown (SEMP v2 "always") the message is refused to the publisher;
- the replication queue: a message past its room is refused when its reject-msg-to-sender-on-
  discard is on; off, the message is accepted but never replicated;
- a refused message takes no room and no ID, so every later message of the publish meets the
  same state and is refused as well: the accepted messages are a prefix of the publish, and the
  plan is the smallest of the limits (the first in the broker's order names the reason).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from .frozen import statically_frozen

SPOOL_FULL = "publish_rejected_spool_full"
VPN_SPOOL_FULL = "publish_rejected_vpn_spool_full"
QUEUE_SHUTDOWN = "publish_rejected_queue_shutdown"
QUEUE_FULL = "publish_rejected_queue_full"
REPL_QUEUE_FULL = "publish_rejected_repl_queue_full"


@statically_frozen
@dataclass(frozen=True)
class Room:
    """A destination's room under its quota, in bytes, and whether a discard there is refused
    to the publisher (reject-msg-to-sender-on-discard)."""

    bytes: int
    reject: bool


@statically_frozen
@dataclass(frozen=True)
class QuotaPlan:
    """What a publish does: the first ``accepted`` messages go in, the rest are refused with
    ``reason``; queue i stores the first ``kept[i]`` of them, the replication stream the first
    ``replicated``. ``fits[i]`` is how many queue i had room for (accepted or not)."""

    accepted: int
    kept: tuple[int, ...]
    replicated: int
    reason: str | None
    fits: tuple[int, ...]


def _fit(room: int, size: int, count: int) -> int:
    return min(count, max(0, room) // size)


def spool_cap(takes: Sequence[int], room: int, size: int) -> int | None:
    """How many leading messages of ``size`` bytes fit in ``room`` bytes of spool when
    destination d stores messages j < takes[d] (one copy each); None when all of them fit
    (messages past the last destination's share take no room)."""
    done = 0
    for n in sorted({t for t in takes if t > 0}):
        per = size * sum(1 for t in takes if t >= n)  # copies of each message done .. n-1
        fits = room // per
        if fits < n - done:
            return done + fits
        room -= per * (n - done)
        done = n
    return None


def plan_publish(count: int, size: int, *, router_room: int, vpn_room: int, queues: Sequence[Room],
                 repl: Room | None, shut_rejecting: int = 0) -> QuotaPlan:
    """The plan for ``count`` messages of ``size`` bytes (both >= 1).

    ``queues``: the matching queues that take messages (ingress up), in the order the caller
    stores them; ``repl``: the replication queue when the messages are to be replicated, else
    None; ``shut_rejecting``: how many matching queues are shut for ingress with
    reject-msg-to-sender-on-discard including-when-shutdown."""
    if count < 1 or size < 1:
        raise ValueError("count and size must be >= 1")
    # (_fit inline and a list, not a generator: every publish plans)
    fits = tuple([min(count, room // size) if (room := q.bytes) > 0 else 0 for q in queues])
    fit = _fit(repl.bytes, size, count) if repl is not None else 0
    if not shut_rejecting and (repl is None or fit == count) and fits.count(count) == len(fits):
        # the common case, every rule below letting all in: each destination takes every
        # message and both spools have room for all the copies
        need = size * count * (len(fits) + (1 if fit else 0))
        if need <= router_room and need <= vpn_room:
            return QuotaPlan(accepted=count, kept=fits, replicated=fit, reason=None, fits=fits)
    takes = [*fits, fit]
    # (cap, reason) in the broker's order; a cap is how many leading messages that rule lets in
    limits: list[tuple[int | None, str]] = [
        (spool_cap(takes, max(0, router_room), size), SPOOL_FULL),  # a room below 0: usage over a lowered quota
        (spool_cap(takes, max(0, vpn_room), size), VPN_SPOOL_FULL),
        (0 if shut_rejecting else None, QUEUE_SHUTDOWN),
        (min((n for n, q in zip(fits, queues, strict=True) if q.reject), default=None), QUEUE_FULL),
        (fit if repl is not None and repl.reject else None, REPL_QUEUE_FULL),
    ]
    accepted, reason = count, None
    for cap, why in limits:
        if cap is not None and cap < accepted:
            accepted, reason = cap, why
    return QuotaPlan(accepted=accepted, kept=tuple(min(n, accepted) for n in fits),
                     replicated=min(fit, accepted), reason=reason, fits=fits)
