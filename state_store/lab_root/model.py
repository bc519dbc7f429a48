"""The lab's root as the lab's model (``LAB``): what the lab store, its images, the journal and the
lab file checks use of it (``state_store.lab_model``).

Why here: the loader (``state_store.loader.lab_model``) takes the state, engine, codec and
scenario builder from this one record; the sections' parts come from the registered systems'
``SECTION`` records (``state_store.loader.section_models``), so this module names no system.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

from .. import loader, systems
from ..lab_model import LabModel
from .bulk import bulk
from .codec import CodecError, decode_calls, decode_state, dumps, encode_calls, loads, specs, state_text
from .engine import RootEngine, resolve_call
from .state import KINDS, RootState
from .users import LabUser, unusable_user

if TYPE_CHECKING:
    from typing import TypeAlias

    from grammar.yaml_source import LocatedDict

    from ..lab_section import SectionModel
    from ..lab_store import LabStore

    # A store of the lab, typed with its state and engine: for the shell code that drives it.
    RootStore: TypeAlias = LabStore[RootState, RootEngine]


class _Lazy(Mapping[Any, Any]):
    """A mapping computed on first use: the sections' kinds need their models imported."""

    def __init__(self, make: Any) -> None:
        self._make = make
        self._data: dict[Any, Any] | None = None

    def _get(self) -> dict[Any, Any]:
        if self._data is None:
            self._data = self._make()
        return self._data

    def __getitem__(self, key: Any) -> Any:
        return self._get()[key]

    def __iter__(self) -> Iterator[Any]:
        return iter(self._get())

    def __len__(self) -> int:
        return len(self._get())


def _kinds() -> dict[type, str]:
    out: dict[type, str] = {}
    for model in loader.section_models():
        out.update(model.kinds)
    out.update(KINDS)
    return out


def held_kinds(st: RootState) -> list[str]:
    """The kinds of the sections ``st`` holds, then the root's."""
    names = tuple(st.sections)
    found = _HELD_KINDS.get(names)
    if found is None:
        found = _HELD_KINDS[names] = list(specs(list(names)))
    return found


_HELD_KINDS: dict[tuple[str, ...], list[str]] = {}  # by the sections held (a handful of combinations)


def _reader() -> SectionModel:
    """The section model that reads whole scenario files and older lab files (see lab_section)."""
    model = loader.section_model(systems.ROUTER_CLI.name)
    assert model is not None and model.read_scenario is not None
    return model


def load_scenario(path: Path) -> LocatedDict:
    doc: LocatedDict = _reader().read_scenario(path)  # type: ignore[misc]
    return doc


def build_lab(state: RootState, doc: LocatedDict) -> None:
    """Fill ``state`` (an empty root) from a checked scenario: the lab's settings and users, each
    section the scenario holds (its records, then its initial traffic through its engine), each
    HA system's groups on the kernel, then the clock advanced. The built state is the lab's first
    image: ``state.work`` is left empty, there is nothing to journal."""
    # only what the scenario sets is stored; every other setting keeps the systems' defaults
    for k, val in (doc.get("settings") or {}).items():
        state.settings[k] = str(val)
    state.settings["scenario"] = str(doc.get("scenario") or "unnamed")
    state.now_ms = 0
    for u in doc.get("users") or []:
        # the scenario reader has already turned a clear password into a hash with a random salt
        # (or the scenario gave the hash itself, as the bundled ones do)
        state.add_user(LabUser(name=u["name"], password_hash=u["password_hash"], scope=u.get("scope", "global"),
                               level=u.get("level", "read-only"), vpn=u.get("vpn"),
                               lab_admin=u.get("lab_admin", False),
                               # checked by the reader (public_keys): kept with their spaces normalised
                               ssh_keys="\n".join(" ".join(key.split()) for key in u.get("ssh_keys") or [])))
    models = [m for m in loader.section_models() if m.holds(doc)]
    for model in models:
        state.add_section(model.name, model.new_section(state), list(model.kinds.values()))
    engine = RootEngine(state)
    try:
        for model in models:
            model.build(engine.system(model.name), doc)
        for name in systems.names():  # the HA systems' sections: their groups on the kernel
            if doc.get(name) is not None:
                found = loader.load_model(name)
                assert found is not None
                found.MODEL.build(state.kernel, doc[name])
        if doc.get("advance_ms"):
            engine.advance(doc["advance_ms"])
    finally:
        engine.close()
    state.work.clear()


def legacy_versions() -> Sequence[str]:
    found = _reader().legacy_versions
    return found() if found is not None else ()


def migrate(path: Path, version: str) -> None:
    found = _reader().migrate
    assert found is not None
    found(path, version)


def unusable(st: RootState) -> str | None:
    """What makes a readable lab unusable: no system at all, a section its system cannot use, a
    CLI user this program cannot place."""
    if not st.sections and not st.kernel.groups:
        return "the lab has no routers"
    for name, section in st.sections.items():
        model = loader.section_model(name)
        problem = model.unusable(section) if model is not None and model.unusable is not None else None
        if problem is not None:
            return problem
    return unusable_user(list(st.users.values()))


LAB: LabModel[RootState, RootEngine] = LabModel(
    new_state=RootState, engine=RootEngine, kinds=_Lazy(_kinds), root_kinds=KINDS, held_kinds=held_kinds, bulk=bulk,
    specs=_Lazy(specs), dumps=dumps, loads=loads, state_text=state_text, decode_state=decode_state,
    encode_calls=encode_calls, decode_calls=decode_calls, codec_error=CodecError, resolve_call=resolve_call,
    load_scenario=load_scenario, build_lab=build_lab,
    legacy_versions=legacy_versions, migrate=migrate, unusable=unusable,
)
