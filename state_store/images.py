"""Images of a lab's state: in-memory pickles to roll back to, and the cached fresh lab of each scenario.

Why: a command that raised goes back to the last image plus the calls since (``LabStore``), and
tests and transcript replay need thousands of fresh labs: each scenario is built once per process
(cached by file version) and kept as an image, so a fresh in-memory lab is one unpickle. Pickle is
for in-process images only, never files: a lab file holds JSON (the root model's codec, ``LabModel``).
"""

from __future__ import annotations

import io
import pickle
import threading
import time
from collections.abc import Iterable
from contextlib import nullcontext
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from . import loader
from .errors import EngineError, ScenarioError
from .scenario_files import DEFAULT_SCENARIO

if TYPE_CHECKING:
    from grammar.yaml_source import LocatedDict

    from .journal import CallRecord
    from .lab_model import LabState

BULK_RECORDS = 10_000  # images of more records pause the collector (state.bulk); smaller ones gain nothing
RECORD_IMAGE_S = 3e-6  # first guess of the time to image one record (then measured)
_PICKLE = pickle.HIGHEST_PROTOCOL
_templates: dict[tuple[int, int, int, int], Image] = {}
_default_image: Image | None = None  # DEFAULT_SCENARIO's, once built (see template)
_templates_lock = threading.Lock()
_LAB = loader.lab_model()  # the lab's root model: its states, codec and scenario builder


_REDUCED: set[str] = set()  # the sections whose record classes pickle by their fields already


def _register_reducers(classes: Iterable[type]) -> None:
    """Pickle records as (class, field values): the slotted dataclasses' own pickling calls
    ``dataclasses.fields`` per object, several times slower for a lab of a million messages."""
    import copyreg
    from dataclasses import fields
    from operator import attrgetter

    for cls in classes:
        get = attrgetter(*[f.name for f in fields(cls)])

        def reduce(rec: Any, cls: type = cls, get: Any = get) -> tuple[type, tuple[Any, ...]]:
            return cls, get(rec)

        copyreg.pickle(cls, reduce)


def _reducers_for(st: LabState) -> None:
    """Register the reducers of every section ``st`` holds (once per system): a lab's images
    import no system it does not hold."""
    for name in loader.held_sections(st):
        if name not in _REDUCED:
            model = loader.section_model(name)
            if model is not None:
                _register_reducers(model.kinds)
            _REDUCED.add(name)


_register_reducers(_LAB.root_kinds)


class _Unpickler(pickle.Unpickler):
    """``pickle.loads`` with the classes an image names looked up once per process: the standard
    unpickler imports each class's module again (``__import__`` with a from-list, Python code) for
    every image it loads, a fifth of loading a fresh lab. Images are this process's own pickles
    (never files), so a class they name is one it has already imported."""

    _found: dict[tuple[str, str], Any] = {}

    def find_class(self, module: str, name: str) -> Any:
        found = self._found.get((module, name))
        if found is None:
            found = self._found[module, name] = super().find_class(module, name)
        return found


class Image:
    """A state to go back to: pickled in memory (never written anywhere), or the JSON text of the
    snapshot row it was read from (no cost to keep). ``seconds`` is what taking it cost (0 when
    unknown): the measure of when replaying calls since it costs more than a new one."""

    def __init__(self, data: bytes | str, records: int, seconds: float = 0.0) -> None:
        self.data = data
        self.records = records
        self.seconds = seconds

    @classmethod
    def of(cls, st: LabState) -> Image:
        records = record_count(st)
        _reducers_for(st)
        started = time.perf_counter()
        with _LAB.bulk() if records > BULK_RECORDS else nullcontext():
            data = pickle.dumps(st, _PICKLE)
        return cls(data, records, time.perf_counter() - started)

    def load(self) -> LabState:
        with _LAB.bulk() if self.records > BULK_RECORDS else nullcontext():
            if isinstance(self.data, bytes):
                state: LabState = _Unpickler(io.BytesIO(self.data)).load()
                return state
            return _LAB.decode_state(_LAB.loads(self.data))


@dataclass(frozen=True)
class StatePoint:
    """A state of a lab, kept for nothing: an image the store holds anyway, and the first ``count``
    of the calls it has applied since that image (``calls`` is the store's own list, shared, not
    copied: while that image is current the store only appends to it, and a new image starts a new
    list, so the first ``count`` never change). Every session that starts between two images
    shares the one image (kept alive, with that list, as long as a point holds it);
    ``LabStore.at`` builds the state again (image loaded, calls replayed) when it is asked for.

    Why: a copy of the whole state for every session that might be graded grows with the lab and
    with the sessions; a point is three references, and the work of rebuilding falls on the rare
    moment a state is asked for (`lab> grade`)."""

    image: Image
    calls: list[CallRecord]
    count: int

    def calls_since_image(self) -> list[CallRecord]:
        return self.calls[:self.count]


def record_count(st: LabState) -> int:
    return sum(len(st.records(kind)) for kind in _LAB.held_kinds(st))


def _build(doc: LocatedDict, scenario: Path) -> LabState:
    """build_lab, with what only building can find (the initial traffic refused by the engine's
    own rules, e.g. a publish from a client whose routers are all standby) reported as a
    ScenarioError rather than a traceback."""
    st = _LAB.new_state()
    try:
        _LAB.build_lab(st, doc)  # its code is imported only when a lab is built: see scenario_files
    except EngineError as exc:
        detail = ", ".join(f"{k}={v}" for k, v in exc.params.items())
        raise ScenarioError(str(scenario), [f"{scenario}:0: the lab cannot be built: its initial traffic "
                                            f"was refused ({exc.code}{': ' + detail if detail else ''})"]) from None
    except (ValueError, OverflowError, TypeError, KeyError) as exc:
        raise ScenarioError(str(scenario), [f"{scenario}:0: the lab cannot be built: "
                                            f"{type(exc).__name__}: {str(exc).splitlines()[0] if str(exc) else ''}"]
                            ) from None
    st.work.clear()
    return st


def template(scenario: Path) -> Image:
    """The image of a fresh lab of ``scenario``, built once per process (per file version: the
    file's device, inode, size and modification time, from one stat; a fresh lab needs no path
    resolution). The packaged default scenario is part of the installed code, as the grammar
    is: its image is built once per process and then needs no stat either (replay makes a fresh
    lab per transcript, and the stat cost it about 8 us each, 0.6% of a drill's replay)."""
    global _default_image
    default = scenario is DEFAULT_SCENARIO
    if default and _default_image is not None:
        return _default_image
    info = scenario.stat()
    key = (info.st_dev, info.st_ino, info.st_size, info.st_mtime_ns)
    with _templates_lock:
        image = _templates.get(key)
        if image is None:
            image = Image.of(_build(_LAB.load_scenario(scenario), scenario))
            _templates[key] = image
        if default:
            _default_image = image
        return image


def scenario_path(scenario: str | Path | None) -> Path:
    return Path(scenario) if scenario is not None else DEFAULT_SCENARIO
