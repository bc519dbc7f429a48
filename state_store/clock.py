"""The simulated clock: milliseconds stored in the ``meta`` table.

Why: output must be deterministic and replayable, so nothing reads the wall clock. Time moves only
through ``Engine.advance(ms)``; every timestamp in the lab (spooled time, deliveries, state changes)
comes from here.
"""

from __future__ import annotations

from sqlalchemy.orm import Session

from .models import Meta

NOW_KEY = "now_ms"


def now_ms(session: Session) -> int:
    row = session.get(Meta, NOW_KEY)
    return int(row.value) if row else 0


def set_now_ms(session: Session, value: int) -> None:
    row = session.get(Meta, NOW_KEY)
    if row is None:
        session.add(Meta(key=NOW_KEY, value=str(value)))
    else:
        row.value = str(value)


