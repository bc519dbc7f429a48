"""The one loader of the lab's models: it imports what the registry (``state_store.systems``)
names, and only what a lab holds.

Why one loader: the kernel, the error table and the registry sit below every system, so none of
them may import one; a system's model registers its policies and operations with the kernel when
this loader imports it (``state_store.kernel.policy.register``, ``state_store.kernel.operation``),
and the kernel finds them there or not at all. Every state a lab store holds goes through
``hold`` first (built from a scenario, read from a snapshot, copied from a template), so a lab's
systems are loaded before any of its commands or journaled calls runs, and a lab that holds one
system never imports the others.
"""

from __future__ import annotations

import functools
import importlib
from types import ModuleType
from typing import TYPE_CHECKING

from . import systems
from .errors import ERROR_CODES

if TYPE_CHECKING:
    from .lab_model import LabEngine, LabModel, LabState
    from .lab_section import SectionModel


@functools.cache
def lab_model() -> LabModel[LabState, LabEngine]:
    """The lab's root model (``state_store.lab_root``: imported on the first call, then the same
    record). The root names no system; it asks ``section_models`` for the sections."""
    model: LabModel[LabState, LabEngine] = importlib.import_module(f"{__package__}.lab_root.model").LAB
    return model


@functools.cache
def section_model(name: str) -> SectionModel | None:
    """The section model of a registered system that keeps one (its package's ``SECTION``), else None."""
    found = systems.section_entry(name)
    if found is None:
        return None
    model: SectionModel = importlib.import_module(found.model).SECTION
    return model


def section_models() -> list[SectionModel]:
    """Every registered section model, in the registry's order (importing each once)."""
    out = []
    for name in systems.section_names():
        model = section_model(name)
        assert model is not None
        out.append(model)
    return out


def load_model(name: str) -> ModuleType | None:
    """The model package of a registered system (imported once: importing it registers its
    policies and operations with the kernel); None for a name the registry does not hold."""
    found = systems.entry(name)
    return None if found is None else importlib.import_module(found.model)


def held(state: LabState) -> list[str]:
    """The registered systems ``state`` holds (groups on its kernel), in the registry's order."""
    present = {group.system for group in state.kernel.groups.values()}
    return [name for name in systems.names() if name in present]


def held_sections(state: LabState) -> list[str]:
    """The systems whose section ``state`` holds, in the order it holds them."""
    return list(getattr(state, "sections", ()))


def hold(state: LabState) -> None:
    """Load the model of every system ``state`` holds, before anything runs on it."""
    for name in held(state):
        load_model(name)


def error_codes() -> dict[str, tuple[str, ...]]:
    """The lab's own error codes (``state_store.errors.ERROR_CODES``) with every registered
    system's (its ``MODEL.error_codes``): what the installation's checks compare the message
    table with. Loads every system."""
    out = dict(ERROR_CODES)
    for name in systems.names():
        model = load_model(name)
        assert model is not None
        out.update(model.MODEL.error_codes)
    return out
