"""RootState: the whole lab in memory, the part every lab holds and one section per system.

Why a root apart from any system: the lab's clock, settings, bookkeeping, id counters, the work
log of the current command and its CLI users are the lab's, whatever systems it runs; a lab that
runs only Geode holds them and nothing of another system. A system that keeps records of its own
(``state_store.lab_section``) gets a section on this state, made by its model, which may keep
references to the kernel, the settings, the bookkeeping values, the id counters and the work log
(they are these very objects: the root never replaces them once a section is on it). The root
serves only its own attributes: a system's records are read on its section (``sections[name]``,
the name from the registry, ``state_store.systems``) or through its engine.
"""

from __future__ import annotations

from typing import Any

from ..journal import WorkLog
from ..kernel import Kernel
from .users import LabUser

# record class -> the root's attribute holding all records of that kind
KINDS: dict[type, str] = {LabUser: "users"}


class RootState:
    """The lab's own state and its sections by system name, in the order they were added."""

    def __init__(self, kernel: Kernel | None = None) -> None:
        self.kernel = kernel if kernel is not None else Kernel()  # the HA groups and the lab's one clock
        self.settings: dict[str, str] = {}  # only values set in the lab; defaults are the engine's
        self.meta: dict[str, str] = {}      # bookkeeping keys of the systems
        self.next_ids: dict[str, int] = {}  # record kind -> the next id (one counter per kind)
        self.work = WorkLog()
        self.users: dict[int, LabUser] = {}
        self.user_by_name: dict[str, LabUser] = {}
        self.sections: dict[str, Any] = {}
        self._kinds: dict[str, Any] = {"users": None}  # record kind -> the section holding it (None: the root)

    @property
    def now_ms(self) -> int:
        """The lab's one simulated clock: the kernel's."""
        return self.kernel.now_ms

    @now_ms.setter
    def now_ms(self, value: int) -> None:
        self.kernel.now_ms = value

    def add_section(self, name: str, section: Any, kinds: list[str]) -> None:
        """Hold ``section`` (a system's state on this root) for system ``name``, owning ``kinds``."""
        if name in self.sections:
            raise ValueError(f"the lab holds a {name} section already")
        taken = [k for k in kinds if k in self._kinds]
        if taken:
            raise ValueError(f"record kind {taken[0]!r} belongs to another section")
        self.sections[name] = section
        for kind in kinds:
            self._kinds[kind] = section

    def add_user(self, user: LabUser, rec_id: int = 0) -> LabUser:
        """File ``user`` (id 0: the next one) by id and by name (the first of a name wins)."""
        nxt = self.next_ids.get("users", 1)
        user.id = user.id or rec_id or nxt
        if user.id + 1 > nxt:
            self.next_ids["users"] = user.id + 1
        self.users[user.id] = user
        self.user_by_name.setdefault(user.name, user)
        return user

    def add(self, rec: LabUser) -> LabUser:
        """File a record of the root's own kinds (the codec's entry point, as a section's ``add``)."""
        return self.add_user(rec)

    def records(self, kind: str) -> dict[int, Any]:
        """All records of ``kind`` (a root or section kind), by id."""
        if kind == "users":
            return self.users
        owner = self._kinds.get(kind)
        if owner is None:
            return {}
        found: dict[int, Any] = owner.records(kind)
        return found
