"""The Solace replication model as a section of the lab's root (``SECTION``): its record kinds for
the lab file, its state and engine on the root, its settings, its scenario part.

Why a record: the lab's root (``state_store.lab_root``) names no system; the registry
(``state_store.systems.SECTIONS``) lists this package, and the root takes what it needs of this
model from this one record. The scenario reader and builder and the reader of older lab files
are imported when first called: a shell that opens an existing lab never loads them.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

from ..lab_root.state import RootState
from ..lab_section import SectionModel
from .broker_state import KINDS, BrokerState
from .engine import SETTING_RULES, Engine
from .lookups import SETTING_DEFAULTS

if TYPE_CHECKING:
    from grammar.yaml_source import LocatedDict

    from ..lab_root.engine import RootEngine

# reference fields: (kind, field) -> the kind it points to, checked on decode because engine code
# looks them up without a guard. Only references that are never left dangling: a spooled copy's or
# an operation's transaction, a delivery's message may outlive what they name, as rows did.
REFS: dict[tuple[str, str], str] = {
    ("links", "site_a_id"): "sites", ("links", "site_b_id"): "sites",
    ("routers", "site_id"): "sites",
    ("vpns", "router_id"): "routers", ("vpns", "group_id"): "groups",
    ("replicated_topics", "vpn_id"): "vpns", ("queues", "vpn_id"): "vpns",
    ("subscriptions", "queue_id"): "queues", ("clients", "router_id"): "routers",
    ("messages", "group_id"): "groups", ("spooled", "queue_id"): "queues", ("repl_entries", "vpn_id"): "vpns",
    ("txns", "router_id"): "routers", ("txns", "vpn_id"): "vpns",
    ("config_objects", "router_id"): "routers", ("config_objects", "vpn_id"): "vpns",
    ("config_objects", "parent_id"): "config_objects",
}


def check_row(kind: str, n: int, row: list[Any]) -> str | None:
    """A settled row's counts must agree ([vpn_name, messages, not_replicated, id])."""
    if kind == "settled" and not 0 <= row[2] <= row[1]:
        return f"settled row {n}: not_replicated must be between 0 and messages ({row[1]}), not {row[2]}"
    return None


def holds(doc: LocatedDict) -> bool:
    """A lab holds the replication model's section when its scenario has routers (a lab of HA
    systems only, ``sites: []`` or no ``sites``, holds none)."""
    return any(site.get("routers") for site in doc.get("sites") or [])


def build(engine: Engine, doc: LocatedDict) -> None:
    from .scenario import build_section

    build_section(engine, doc)


def new_section(root: RootState) -> BrokerState:
    return BrokerState(root)


def engine(section: BrokerState, lab: RootEngine) -> Engine:
    return Engine(section, lab)


def unusable(st: BrokerState) -> str | None:
    """A lab with neither routers nor an HA system cannot be used."""
    return "the lab has no routers" if not st.routers and not st.kernel.groups else None


def read_scenario(path: Path) -> LocatedDict:
    from .scenario_schema import load_scenario  # only when a lab is built: see scenario_files

    return load_scenario(path)


def legacy_versions() -> Sequence[str]:
    from .old_schemas import LEGACY_VERSIONS

    return LEGACY_VERSIONS


def migrate(path: Path, version: str) -> None:
    from .old_schemas import migrate as rewrite

    rewrite(path, version)


SECTION = SectionModel(
    name="solace", kinds=KINDS, refs=REFS, new_section=new_section, engine=engine, holds=holds, build=build,
    setting_rules=SETTING_RULES, setting_defaults=SETTING_DEFAULTS, check_row=check_row, unusable=unusable,
    read_scenario=read_scenario, legacy_versions=legacy_versions, migrate=migrate,
)
