"""LabStore: one lab, in memory, kept in a lab file shared by several shells or in memory only.

Why:
- The lab is a state of the lab's root model in memory (``state_store.lab_model``, named by the
  registry ``state_store.systems``); a command's whole effect is the list of mutating engine calls
  it made (``state_store.journal``). A file lab keeps a journal of those (``state_store.lab_tables``):
  before a command the shell catches up with what other shells appended (``PRAGMA data_version``
  tells when nothing changed, so a quiet lab costs one pragma), and after a command that changed
  something it appends one row in one short ``BEGIN IMMEDIATE`` transaction that first checks no one
  appended since the catch-up. The write lock is held for a few statements only, not while a
  command runs; readers never ask for it (WAL). When another shell appended first, or the lock
  cannot be had, the command is rolled back in memory and ``LabStore.run`` runs it again from the
  start on the caught-up state -- safe because a command is deterministic and a rolled-back command
  changed nothing -- up to a bounded wait, then ``LabBusy`` (one clear line, never a traceback).
  A command that lost that race once runs again holding the lock from its start, so a long command
  cannot be starved by a shell that writes all the time (the only case where the lock is held
  while a command runs).
- A killed shell loses nothing it reported and never half applies a command: a command is one
  committed row or nothing (WAL with ``synchronous=NORMAL`` keeps every commit across a killed
  process; only a power cut can lose the last commits).
- Opening replays the calls after the latest ``snapshot`` row; a snapshot is written now and then
  (every ``StoreTuning.snapshot_every`` calls rows, encoded outside the lock; a big one in parts, each in its
  own short transaction) and the rows it supersedes are then dropped, a few MB per transaction.
- A unit of commit (``joined``) keeps the journal's transaction of its commands open, the lab's
  write lock held, until the caller has written what goes with them (the class record's line),
  then commits; when it does not, the lab in memory goes back to before the unit.
- A command that raised leaves the state exactly as before: the state goes back to the last image
  (a pickle of the state, taken in memory only, never written) and the calls since are replayed.
  The image is refreshed when replaying since it would cost more than taking a new one.
- Tests and transcript replay need thousands of fresh labs: each scenario is built once per process
  (cached by path + mtime) and kept as such an image; a fresh in-memory lab is one unpickle
  (images and those templates: ``state_store.images``; the SQL of the journal:
  ``state_store.journal_file``; the tuning of waits and snapshots: ``state_store.tuning``).
  Pickle is for in-process images only: a lab file holds JSON (the root model's codec), because a
  file may come from anywhere.
- A path that cannot be a usable lab is refused with a one-line ``LabFileError`` (``lab_file``);
  a lab file of an older schema is read into a state and rewritten (the root model's ``migrate``).
- A scenario the builder cannot complete (its initial traffic refused by the engine) is a
  ``ScenarioError``, like any other problem of the file.
"""

from __future__ import annotations

import json
import logging
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager, nullcontext
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Generic, TypeVar, cast

from . import lab_file, loader
from .commit_unit import CommitUnit
from .errors import EngineError, LabBusy, LabFileError
from .images import RECORD_IMAGE_S, Image, StatePoint, record_count, scenario_path, template
from .journal import CallRecord
from .journal_file import Journal, WriteConflict, fill_new_lab, is_busy
from .lab_model import LabEngine, LabState
from .lab_tables import CALLS, PART, SCHEMA_VERSION, SNAPSHOT, TABLES
from .passwords import is_hashed
from .tuning import DEFAULT_TUNING, StoreTuning

T = TypeVar("T")
S = TypeVar("S", bound=LabState)
E = TypeVar("E", bound=LabEngine)
log = logging.getLogger(__name__)
# The lab's root model: its states, engine and codec. The registry decides it at run time, so the
# type checker cannot tie it to a store's ``S`` and ``E``: the casts below are where a state or an
# engine it made becomes the store's.
_LAB = loader.lab_model()
CodecError = _LAB.codec_error


class LabClosed(RuntimeError):
    """The store was closed: its lab can no longer be read or changed."""

    def __init__(self) -> None:
        super().__init__("the lab is closed")


def _kernel_text(st: LabState) -> str:
    """The HA kernel as text, for ``dump`` ("" for a lab without one)."""
    return json.dumps(st.kernel.snapshot(), sort_keys=True) if st.kernel.groups else ""


def replay_calls(st: LabState, calls: list[CallRecord]) -> None:
    """Apply recorded calls to ``st`` (the state they were made on): how a rollback, a catch-up
    and an opened journal reproduce commands. A call that raised EngineError when it was made (a
    handler may catch one and go on) raises it again here, with the same (deterministic) effect;
    a name that is not a journaled engine method (a damaged or foreign file) is the codec's error."""
    engine = _LAB.engine(st)
    resolve = _LAB.resolve_call
    try:
        for call in calls:
            fn = resolve(engine, call.name)
            if fn is None:
                raise CodecError(f"{call.name!r} is not a recorded Engine call")
            st.work.clear()
            try:
                fn(*call.args, **call.kwargs)
            except EngineError:
                pass
    finally:
        engine.close()
    st.work.clear()


# ------------------------------------------------------------------ the store
@dataclass
class _Kept:
    """A command that changed the lab, between its append and the end of its transaction."""

    calls: list[CallRecord]
    spent_s: float
    seq: int  # the journal position before it
    rows_since_snapshot: int


class LabStore(Generic[S, E]):
    """One lab. ``S`` and ``E`` are the state and engine classes of the lab's root model (the
    registry's ``lab_model()``): a store only ever holds those, which the registry decides at run
    time; a caller that drives that model's engine names them (``LabStore[State, Engine]``)."""

    def __init__(self, state: S, path: str | None = None, image: Image | None = None,
                 journal: Journal | None = None, seq: int = 0, tuning: StoreTuning = DEFAULT_TUNING) -> None:
        loader.hold(state)
        self.state = state
        self.tuning = tuning
        self.path = path
        # the last image of the state and the calls made on it since (rollback = both, replayed)
        self._image = image if image is not None else Image.of(state)
        # (only ever appended to while its image is current: a new image starts a new list, so a
        # StatePoint can share it; see start_point)
        self._since: list[CallRecord] = []
        self._since_s = 0.0  # time the commands since the image took (what replaying them costs)
        self._record_s = RECORD_IMAGE_S
        self._refresh_after_s = 0.0  # since_s beyond which _remember looks at the lab's size again
        self._measure(self._image)
        self._journal = journal
        self._seq = seq  # the last journal row applied
        self._rows_since_snapshot = 0
        self._exclusive = False  # run(): this attempt holds the write lock from its start
        self._engine: E | None = None  # the engine of self.state (it holds nothing else)
        self._superseded: tuple[int, set[int]] | None = None  # a snapshot's seq and parts: drop what is before
        self._kept: _Kept | None = None  # the command just appended, until its transaction has committed
        self._closed = False

    # ------------------------------------------------------------------ constructors
    @classmethod
    def in_memory(cls, scenario: str | Path | None = None,
                  tuning: StoreTuning = DEFAULT_TUNING) -> LabStore[S, E]:
        """A fresh in-memory lab (no file, no SQLite): a copy of the scenario's cached image."""
        image = template(scenario_path(scenario))
        return cls(cast(S, image.load()), None, image, tuning=tuning)

    def copy(self) -> LabStore[S, E]:
        """An in-memory copy of this lab's current state."""
        if self._journal is not None:
            self._catch_up()
        image = self._image if not self._since else Image.of(self.state)
        return LabStore(cast(S, image.load()), None, image, tuning=self.tuning)

    def start_point(self) -> StatePoint:
        """Where this lab is now (caught up with other shells), kept without copying anything:
        the last image and how many of the calls since it make the current state. ``at`` builds
        that state again. Taken inside ``run`` so that a store whose transactions take a lock
        waits its turn, and the state is never read half-way through another command."""
        return self.run(lambda engine: StatePoint(self._image, self._since, len(self._since)))

    @classmethod
    def at(cls, point: StatePoint, tuning: StoreTuning = DEFAULT_TUNING) -> LabStore[S, E]:
        """A new in-memory lab in the state of ``point`` (its image loaded, its calls replayed)."""
        st = cast(S, point.image.load())
        calls = point.calls_since_image()
        if calls:
            replay_calls(st, calls)
        store = cls(st, None, point.image, tuning=tuning)
        store._since = calls  # its state is that image plus these calls, as in the store the point is of
        return store

    @classmethod
    def open(cls, path: str | Path, scenario: str | Path | None = None,
             tuning: StoreTuning = DEFAULT_TUNING) -> LabStore[S, E]:
        """Open a lab file, creating it from ``scenario`` (default lab) when missing."""
        p = Path(path)
        lab_file.remove_stale_creations(p)
        if not p.exists() and not p.is_symlink():
            image = template(scenario_path(scenario))
            body = _LAB.state_text(image.load())
            if not lab_file.create(p, lambda con: fill_new_lab(con, body)):
                cls._check_file(p)  # another shell created it a moment ago
        else:
            cls._check_file(p)
        with lab_file.damage_is_one_line(p):
            journal = Journal(p, tuning)
            store = cls(cast(S, _LAB.new_state()), str(p), Image(b"", 0), journal, tuning=tuning)
            try:
                store._catch_up(opening=True)
                lab_file.check_state(p, store.state)
            except BaseException:
                journal.close()
                raise
        return store

    @staticmethod
    def _check_file(p: Path) -> None:
        lab_file.check_path(p)
        with lab_file.damage_is_one_line(p):
            old = lab_file.legacy_version(p)
            if old is not None:
                _LAB.migrate(p, old)
        lab_file.check_contents(p, SCHEMA_VERSION, TABLES)

    # ------------------------------------------------------------------ use
    def run(self, work: Callable[[E], T], *, max_wait_s: float | None = None) -> T:
        """``work(engine)`` in one transaction, run again from the start while the write lock
        cannot be had or another shell wrote first, for at most ``max_wait_s`` in all; then
        ``LabBusy``. ``work`` must not have effects outside the engine before it returns (the shell
        applies mode changes only after this returns)."""
        if self._journal is None:  # in memory: no lock, no other writer, nothing to retry
            engine, started = self._begin()
            try:
                result = work(engine)
            except BaseException:
                self._abort(engine.state)
                raise
            self._end(engine.state, started)
            self._committed()
            return result
        max_wait_s = self.tuning.max_wait_s if max_wait_s is None else max_wait_s
        start = time.monotonic()
        pause = 0.002
        conflicts = 0
        while True:
            # A command that lost the race to another writer runs again holding the write lock, so
            # a long command cannot be starved by a shell that writes all the time; only then is
            # the lock held longer than one append (readers still never wait).
            self._exclusive = conflicts >= self.tuning.exclusive_after
            try:
                with self.transaction() as engine:
                    return work(engine)
            except WriteConflict:
                conflicts += 1
                if time.monotonic() - start >= max_wait_s:
                    raise LabBusy(time.monotonic() - start, changed_meanwhile=True) from None
                continue  # someone else wrote: catch up and run again at once
            except Exception as exc:
                if not is_busy(exc):
                    problem = lab_file.damage_problem(exc)
                    if problem is not None:  # the file went bad under this command: one line
                        raise LabFileError(str(self.path), problem) from None
                    raise
                waited = time.monotonic() - start
                if waited >= max_wait_s:
                    raise LabBusy(waited) from exc
                time.sleep(min(pause, max(0.0, max_wait_s - waited)))
                pause = min(pause * 2, 0.2)
            finally:
                self._exclusive = False

    @contextmanager
    def transaction(self) -> Iterator[E]:
        """One command: the Engine over the caught-up state; on normal exit what it changed is
        kept (and appended to the lab file), on ANY exception the state is as before (re-raised)."""
        held = self._journal.writing() if self._journal is not None and self._exclusive else nullcontext()
        try:
            with held:
                engine, started = self._begin()
                try:
                    yield engine
                except BaseException:
                    self._abort(engine.state)
                    raise
                self._end(engine.state, started)
        except BaseException:
            if self._kept is not None:  # appended inside a held transaction that did not commit
                self._seq, self._rows_since_snapshot = self._kept.seq, self._kept.rows_since_snapshot
                self._kept = None
                self._superseded = None
                self._rollback()
            raise
        self._committed()

    def _begin(self) -> tuple[E, float]:
        """A command starts: caught up, an empty work log; the engine and the start time."""
        if self._closed:
            raise LabClosed()
        if self._journal is not None:
            self._catch_up()
        st = self.state
        log = st.work
        if log.calls or log.depth:  # (a clean log, the usual case, needs no clearing)
            log.clear()
        engine = self._engine
        if engine is None or engine.state is not st:
            if engine is not None:
                engine.close()
            engine = self._engine = cast(E, _LAB.engine(st))
        return engine, time.perf_counter()

    def _abort(self, st: LabState) -> None:
        """The command raised: the state as it was before it (nothing to undo when no mutating
        call ran)."""
        if st.work.changed:
            self._rollback()
        else:
            st.work.clear()

    def _committed(self) -> None:
        """After the command's transaction: remember what it kept for rollbacks, then the journal's
        upkeep."""
        kept, self._kept = self._kept, None
        if kept is not None:
            self._remember(kept.calls, kept.spent_s)
            self._housekeeping()

    def _end(self, st: LabState, started: float) -> None:
        """The command returned: what it changed becomes ``_kept`` (and a journal row of a file lab)."""
        work = st.work
        if not work.changed:
            return
        calls = work.calls  # handed over, not copied: the log starts a new list
        work.calls = []
        kept = _Kept(calls, time.perf_counter() - started, self._seq, self._rows_since_snapshot)
        if self._journal is not None:
            try:
                self._persist(calls)
            except BaseException:
                self._rollback()
                raise
        self._kept = kept

    @contextmanager
    def joined(self) -> Iterator[CommitUnit]:
        """A unit of commit (``state_store.commit_unit``): the transactions of the commands run
        inside the block join one transaction of the journal, which holds the lab's write lock
        from the first of them to the end of the block and commits then, so what the caller writes
        meanwhile commits with them (through ``unit.connection``, a shared database) or before them
        (another file). When the block raises, the unit is ``broken`` or its commit fails, the
        lab in memory goes back to where it was before the block and is read again at the next
        command (whatever the database kept: a commit whose outcome is unknown shows there). A lab
        in memory has no journal: its commands are kept at once, and the unit is empty. The
        commit's failure is ``LabFileError`` (``CommitUnknown`` when it may have happened)."""
        journal = self._journal
        if journal is None:
            yield CommitUnit()
            return
        before = self._position()
        try:
            with journal.deferring() as unit:
                yield unit
        except BaseException:
            self._back_to(before)
            raise
        if unit.broken:
            self._back_to(before)

    @contextmanager
    def holding(self) -> Iterator[int]:
        """The journal's last row, the lab's write lock held (a lab file's write transaction, a
        shared database's lab lock) until the block ends; nothing is written. 0 in memory."""
        with self.joined():
            journal = self._journal
            if journal is None:
                yield 0
                return
            with journal.writing() as conn:  # kept open by the unit until the block ends
                head = journal.last_row(conn)
            yield head

    def _position(self) -> tuple[StatePoint, float, int, int]:
        """Where the lab is in memory: its state (as a point: nothing copied), the cost of the
        calls since its image, and its journal position (for ``_back_to``)."""
        point = StatePoint(self._image, self._since, len(self._since))
        return point, self._since_s, self._seq, self._rows_since_snapshot

    def _back_to(self, position: tuple[StatePoint, float, int, int]) -> None:
        """The lab in memory as at ``position`` (what a unit that did not commit leaves), and the
        journal read again at the next command."""
        point, since_s, seq, rows = position
        self._seq, self._rows_since_snapshot = seq, rows
        self._kept = None
        self._superseded = None
        if self._journal is not None:
            self._journal.data_version = -1
        if self._image is point.image and self._since is point.calls and len(self._since) == point.count:
            return  # nothing was applied since: the state is the one it was
        st = cast(S, point.image.load())
        calls = point.calls_since_image()
        if calls:
            replay_calls(st, calls)
        st.work.clear()
        loader.hold(st)
        self.state = st
        self._image, self._since, self._since_s = point.image, calls, since_s

    def reset(self, scenario: str | Path | None = None) -> None:
        """Start this lab again from ``scenario`` (default lab): the whole state is replaced by a
        fresh lab of that scenario (settings included); a file lab is reset for every shell using
        it (one snapshot row replaces its journal). Raises ScenarioError (nothing changed) for an
        invalid scenario."""
        image = template(scenario_path(scenario))
        st = cast(S, image.load())
        if self._journal is not None:
            self._seq, keep = self._journal.replace_all(_LAB.state_text(st))
            self._rows_since_snapshot = 0
            self._superseded = (self._seq, keep)
        self._set_state(st, image)
        self._housekeeping()

    def dump(self) -> str:
        """Every kind of record, every record, sorted, with the clock, settings, bookkeeping, id
        counters and HA core: a deterministic text image of the lab. Password hashes show as
        ``<password hash>``: each carries a random salt, so two labs built from one scenario
        differ there and nowhere else."""
        if self._journal is not None:
            self._catch_up()
        st = self.state
        out = [f"== now_ms {st.now_ms}",
               f"== settings {sorted(st.settings.items())!r}",
               f"== meta {sorted(st.meta.items())!r}",
               f"== next_ids {sorted(st.next_ids.items())!r}",
               f"== ha_core {_kernel_text(st) or '-'}"]
        for kind in _LAB.kinds.values():
            spec = _LAB.specs[kind]
            rows = [repr(tuple(_masked(v) for v in spec.get(r))) for r in st.records(kind).values()]
            out.append(f"== {kind} ({', '.join(spec.names)}) {len(rows)} rows")
            out.extend(sorted(rows))
        return "\n".join(out) + "\n"

    def close(self) -> None:
        self._closed = True
        if self._engine is not None:
            self._engine.close()
            self._engine = None
        if self._journal is not None:
            self._journal.close()
            self._journal = None

    # ------------------------------------------------------------------ in memory
    def _set_state(self, st: S, image: Image | None = None) -> None:
        loader.hold(st)
        self.state = st
        self._image = image if image is not None else Image.of(st)
        self._since = []
        self._since_s = 0.0
        self._measure(self._image)

    def _measure(self, image: Image) -> None:
        """The cost of an image per record, when ``image`` measured it; and the time of commands
        since it after which ``_remember`` looks again."""
        if image.seconds > 0:
            self._record_s = image.seconds / max(image.records, 1)
        self._refresh_after_s = self._image_limit_s(image.records)

    def _image_limit_s(self, records: int) -> float:
        return self.tuning.image_cost_factor * max(records * self._record_s, self.tuning.min_image_s)

    def _remember(self, calls: list[CallRecord], spent_s: float) -> None:
        """What a kept command did, for a later rollback: a new image once replaying the calls since
        the image would cost more than ``tuning.image_cost_factor`` new images (estimated from the number
        of records: after one command that published a million messages, replaying it is cheaper
        than imaging its result). The records are counted only
        when the commands since have run longer than the last limit: counting them after every
        command would cost more than the commands of a small lab."""
        self._since.extend(calls)
        self._since_s += spent_s
        if self._since_s > self._refresh_after_s:
            limit = self._image_limit_s(record_count(self.state))
            if self._since_s > limit:
                self._set_state(self.state)
            else:
                self._refresh_after_s = limit

    def _rollback(self) -> None:
        """Back to the state before the current command: the last image plus the calls since.
        When replaying those cost more than an image of the result, that image is taken, so the
        next rollback does not replay them again."""
        st = cast(S, self._image.load())
        if self._since:
            replay_calls(st, self._since)
        st.work.clear()
        if self._since_s > record_count(st) * self._record_s:
            self._set_state(st)
        else:
            self.state = st

    # ------------------------------------------------------------------ the file
    def _persist(self, calls: list[CallRecord]) -> None:
        """Append the command: the journaled calls it made."""
        assert self._journal is not None
        self._seq = self._journal.append(self._seq, CALLS, _LAB.dumps(_LAB.encode_calls(calls)))
        self._rows_since_snapshot += 1

    def _housekeeping(self) -> None:
        """After a committed command: the periodic snapshot, then dropping the rows a snapshot
        supersedes. Nothing here can lose or undo a command (it is committed already); a failure
        is logged and the next command tries again."""
        journal = self._journal
        if journal is None:
            return
        try:
            if self._rows_since_snapshot >= self.tuning.snapshot_every:
                self._snapshot()
            if self._superseded is not None:
                (seq, keep), self._superseded = self._superseded, None
                journal.collect(seq, keep)
        except Exception:
            log.warning("lab %s: writing a snapshot or dropping old journal rows failed", self.path, exc_info=True)

    def _snapshot(self) -> None:
        """Write the state as a snapshot (encoded before the lock is taken); skipped (tried again
        after the next command) when another shell wrote first or holds the lock."""
        assert self._journal is not None
        body = _LAB.state_text(self.state)
        try:
            self._seq, keep = self._journal.append_snapshot(self._seq, body)
        except WriteConflict:
            return
        except Exception as exc:
            if is_busy(exc):
                return
            raise
        self._rows_since_snapshot = 0
        self._superseded = (self._seq, keep)

    def _catch_up(self, opening: bool = False) -> None:
        """Apply what other shells appended since this shell's last row (nothing to read when no
        other connection committed since the last look)."""
        journal = self._journal
        assert journal is not None
        if not journal.changed() and not opening:
            return
        try:
            self._apply_rows(journal, opening)
        except LabFileError:
            if not opening:
                # Back to the last row applied whole, and read again at the next command: every
                # command of this shell then says the same line, none runs on a half-applied row.
                journal.data_version = -1
                self._rollback()
            raise

    def _apply_rows(self, journal: Journal, opening: bool) -> None:
        rows = journal.rows_after(self._seq)
        if opening and (not rows or rows[0][1] != SNAPSHOT):
            raise LabFileError(str(journal.path), "lab file is damaged (its journal does not start with a snapshot)")
        for seq, kind, body in rows:
            try:
                if kind == SNAPSHOT:
                    state = cast(S, _LAB.decode_state(_LAB.loads(body)))
                    self._set_state(state, Image(body, record_count(state)))
                    self._rows_since_snapshot = 0
                elif kind == CALLS:
                    calls = _LAB.decode_calls(_LAB.loads(body))
                    started = time.perf_counter()
                    replay_calls(self.state, calls)
                    self._remember(calls, time.perf_counter() - started)
                    self._rows_since_snapshot += 1
                elif kind != PART:  # a part of a snapshot: read with its snapshot row
                    raise CodecError(f"unknown row kind {kind[:40]!r}")
            except CodecError as exc:
                raise LabFileError(str(journal.path), f"lab file is damaged (journal row {seq}: {exc})") from None
            except (TypeError, ValueError, KeyError, AttributeError, IndexError, OverflowError,
                    RecursionError) as exc:
                raise LabFileError(str(journal.path), f"lab file is damaged (journal row {seq}: "
                                                      f"{type(exc).__name__} replaying it)") from None
            self._seq = seq


def _masked(v: Any) -> Any:
    if isinstance(v, str) and is_hashed(v):
        return "<password hash>"
    if isinstance(v, dict):
        return {k: _masked(x) for k, x in sorted(v.items())}
    return v
