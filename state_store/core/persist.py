"""Keeping the HA core in the lab file: one JSON snapshot row, read lazily, written only if changed.

Why: the Solace engine still lives in SQLite tables while the HA core is plain objects. Storing the
core as one document in table `ha_core`, inside the same SQLite transaction as every other change,
keeps a lab command atomic (a refused command rolls back both) and keeps this glue small enough to
replace when the Solace engine moves onto the core. The table has its own metadata, created on
demand, so lab files made before it existed still open.
"""

from __future__ import annotations

import json

from sqlalchemy import Column, Integer, MetaData, Table, Text, select
from sqlalchemy.engine import Connection
from sqlalchemy.orm import Session

from .hacore import HaCore

CORE_METADATA = MetaData()
HA_CORE = Table("ha_core", CORE_METADATA,
                Column("id", Integer, primary_key=True),
                Column("snapshot", Text, nullable=False))
_ROW = 1


def ensure_table(conn: Connection) -> None:
    CORE_METADATA.create_all(conn, checkfirst=True)


def clear(conn: Connection) -> None:
    """Drop the stored core (a lab reset builds a new one)."""
    ensure_table(conn)
    conn.execute(HA_CORE.delete())


def encode(core: HaCore) -> str:
    return json.dumps(core.snapshot(), sort_keys=True, separators=(",", ":"))


def load(conn: Connection) -> tuple[HaCore, str]:
    """The stored core and its stored text ("" when the lab has none: an empty core)."""
    ensure_table(conn)
    text = conn.execute(select(HA_CORE.c.snapshot).where(HA_CORE.c.id == _ROW)).scalar()
    if not text:
        return HaCore(), ""
    return HaCore.restore(json.loads(text)), str(text)


def store(conn: Connection, core: HaCore, previous: str | None = None) -> None:
    """Write the core unless it is unchanged (`previous` is the text it was loaded from)."""
    text = encode(core) if core.groups else ""
    if text == previous:
        return
    ensure_table(conn)
    conn.execute(HA_CORE.delete())
    if text:
        conn.execute(HA_CORE.insert().values(id=_ROW, snapshot=text))


class HaCoreMixin:
    """The Engine's access to the HA core of its transaction (loaded on first use)."""

    s: Session
    _ha_core: HaCore | None = None
    _ha_core_text: str = ""

    def ha_core(self) -> HaCore:
        if self._ha_core is None:
            self._ha_core, self._ha_core_text = load(self.s.connection())
        return self._ha_core

    def save_ha_core(self) -> None:
        """Called by the store when the transaction is about to commit."""
        if self._ha_core is not None:
            store(self.s.connection(), self._ha_core, self._ha_core_text)
            self._ha_core_text = encode(self._ha_core) if self._ha_core.groups else ""

    # completion sources (never raise)
    def ha_instance_names(self) -> list[str]:
        return list(self.ha_core().nodes)

    def ha_router_names(self) -> list[str]:
        return list(self.ha_core().groups)

    def jms_client_names(self) -> list[str]:
        return sorted(self.ha_core().clients)

    def ha_queue_names(self) -> list[str]:
        out: list[str] = []
        for group in self.ha_core().groups.values():
            out += [q for q in group.data.get("queues", {}) if q not in out]
        return out

    def advance_ha_core(self, to_ms: int) -> list[str]:
        """Run the HA timers up to the lab clock; returns the clients that (re)connected."""
        core = self.ha_core()
        if not core.groups:
            return []
        return core.advance_to(to_ms)

