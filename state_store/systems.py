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

The lab's root (``state_store.lab_root``: the kernel with the one clock, settings, users, SSH keys)
names no system and is no entry here. A system that keeps records of its own beside its groups on
the kernel is listed in ``SECTIONS``: its model package exposes ``SECTION``
(``state_store.lab_section.SectionModel``), and the root holds one section per such system the
lab holds. ``ROUTER_CLI`` names the system whose CLI runs on the lab's routers: the shell registers
its shell part once per process (``solace_shell.loader.load_own``), not per lab.
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


# systems keeping a section on the lab's root state (their model package exposes ``SECTION``)
SECTIONS: tuple[SystemEntry, ...] = (
    SystemEntry("solace", "Solace PubSub+ replication", "state_store.solace", "solace_shell.personalities.solace"),
)
_SECTION_BY_NAME = {s.name: s for s in SECTIONS}
ROUTER_CLI: SystemEntry = SECTIONS[0]   # whose CLI runs on the lab's routers (its scenario keys are top level)


def names() -> tuple[str, ...]:
    return tuple(_BY_NAME)


def entry(name: str) -> SystemEntry | None:
    return _BY_NAME.get(name)


def section_names() -> tuple[str, ...]:
    return tuple(_SECTION_BY_NAME)


def section_entry(name: str) -> SystemEntry | None:
    return _SECTION_BY_NAME.get(name)
