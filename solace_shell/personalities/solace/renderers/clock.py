"""The lab clock as the broker prints wall-clock times.

The lab clock counts milliseconds from the lab's start; the broker prints dates. The start is
pinned to one instant (``LAB_EPOCH``) so the same lab always prints the same dates and golden
transcripts stay reproducible.
"""

from __future__ import annotations

from datetime import datetime, timedelta, timezone

LAB_EPOCH = datetime(2026, 1, 1, tzinfo=timezone.utc)


def lab_datetime(ms: int) -> datetime:
    return LAB_EPOCH + timedelta(milliseconds=ms)


def broker_time(ms: int) -> str:
    """`Jan 30 2020 09:27:20 UTC`, as the detail shows print an event's time."""
    return lab_datetime(ms).strftime("%b %d %Y %H:%M:%S UTC")


def iso_time(ms: int) -> str:
    """`2026-09-11T03:09:46.683Z`, as the current-config header prints its date."""
    moment = lab_datetime(ms)
    return moment.strftime("%Y-%m-%dT%H:%M:%S.") + f"{moment.microsecond // 1000:03d}Z"
