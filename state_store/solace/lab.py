"""The Solace replication model as the lab's root model (``LAB``): what the lab store, its images,
the journal and the lab file checks use of it (``state_store.lab_model``).

Why here: the registry (``state_store.systems``) names this module as the lab's root, so the shared
machinery takes the state, engine, codec and scenario builder from this one record and never
imports the Solace package itself. The scenario reader and builder and the reader of older lab
files are imported when first called: a shell that opens an existing lab of this schema never
loads them.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING

from ..lab_model import LabModel
from .broker_state import KINDS, BrokerState, bulk
from .codec import SPECS, CodecError, decode_calls, decode_state, dumps, encode_calls, loads, state_text
from .engine import Engine

if TYPE_CHECKING:
    from typing import TypeAlias

    from grammar.yaml_source import LocatedDict

    from ..lab_store import LabStore

    # A store of this model, typed with its state and engine: for the shell code that drives this
    # engine (the lab, its sessions and personalities).
    RootStore: TypeAlias = LabStore[BrokerState, Engine]

# the access levels and scopes a CLI user of the lab may have (grammar.ACCESS_LEVELS, as stored)
ACCESS_LEVELS = ("none", "read-only", "mesh-manager", "read-write", "admin")
USER_SCOPES = ("global", "vpn")


def load_scenario(path: Path) -> LocatedDict:
    from .scenario_schema import load_scenario as load  # only when a lab is built: see scenario_files

    return load(path)


def build_lab(state: BrokerState, doc: LocatedDict) -> None:
    from .scenario import build_lab as build

    build(state, doc)


def legacy_versions() -> Sequence[str]:
    from .old_schemas import LEGACY_VERSIONS

    return LEGACY_VERSIONS


def migrate(path: Path, version: str) -> None:
    from .old_schemas import migrate as rewrite

    rewrite(path, version)


def unusable(st: BrokerState) -> str | None:
    """What makes a readable lab unusable: no routers and no HA system, a CLI user this program
    cannot place."""
    if not st.routers and not st.kernel.groups:
        return "the lab has no routers"
    for user in sorted(st.users.values(), key=lambda u: u.name):
        if user.level not in ACCESS_LEVELS:
            return f"CLI user {user.name!r} has an unknown access level {user.level!r}"
        if user.scope not in USER_SCOPES:
            return f"CLI user {user.name!r} has an unknown scope {user.scope!r}"
    return None


LAB: LabModel[BrokerState, Engine] = LabModel(
    new_state=BrokerState, engine=Engine, kinds=KINDS, bulk=bulk,
    specs=SPECS, dumps=dumps, loads=loads, state_text=state_text, decode_state=decode_state,
    encode_calls=encode_calls, decode_calls=decode_calls, codec_error=CodecError,
    load_scenario=load_scenario, build_lab=build_lab,
    legacy_versions=legacy_versions, migrate=migrate, unusable=unusable,
)
