"""The registry of HA systems: the one module that names them.

Why one place: every HA system of the lab is a plugin on the kernel (``state_store.kernel``) with
two halves, its model under ``state_store`` (policy, journaled operations, scenario section and
schema, views) and its shell part under ``solace_shell`` (CLI personality, lab console verbs,
handlers, renderers, messages, banner, audit rendering). Nothing else in the code names a
system: the scenario loader, the journal, the lab, the REPL and the grammar ask here. Adding a
system is a new entry and its two packages (docs/adding-a-system.md).

A model package exposes ``MODEL`` (``state_store.kernel.plugin.SystemModel``); a shell package
exposes ``SHELL`` (``solace_shell.personalities.plugin.SystemShell``). This module is data only and
imports nothing of either: the loaders import them (``state_store.loader`` the models a lab holds,
``solace_shell.loader.load_systems`` their shell parts), so the kernel and the error table,
which every system imports, never reach up here.

The registry also names the lab's root model (``ROOT``): the model whose state holds the kernel
and whose engine is the lab's engine, its ``@journaled`` methods the calls a journal records and
replays. It is not one of the plugins (``names()`` lists those only: scenario sections, lab
console targets, drills of a system); the lab store, its images, the journal and the lab file
checks take it from ``state_store.loader.lab_model()`` (a ``state_store.lab_model.LabModel``).
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class SystemEntry:
    name: str            # the scenario section, the journaled operations' prefix, the CLI target
    title: str           # for people: "SwiftMQ HA"
    model: str           # module of the state_store half
    shell: str           # module of the solace_shell half


SYSTEMS: tuple[SystemEntry, ...] = (
    SystemEntry("swiftmq", "SwiftMQ HA", "state_store.swiftmq", "solace_shell.personalities.swiftmq"),
    SystemEntry("qpid", "Qpid C++ HA", "state_store.qpid", "solace_shell.personalities.qpid"),
    SystemEntry("geode", "Geode client-queue HA", "state_store.geode", "solace_shell.personalities.geode"),
)
_BY_NAME = {s.name: s for s in SYSTEMS}


@dataclass(frozen=True)
class RootEntry:
    name: str            # its name (no plugin's: no scenario section, CLI target or drills' --system)
    title: str
    model: str           # module exposing ``LAB`` (a state_store.lab_model.LabModel)
    shell: str           # package of its shell


ROOT = RootEntry("solace", "Solace PubSub+ replication", "state_store.solace.lab", "solace_shell")


def names() -> tuple[str, ...]:
    return tuple(_BY_NAME)


def entry(name: str) -> SystemEntry | None:
    return _BY_NAME.get(name)
