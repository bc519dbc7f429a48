"""The lab as it was after one line of its record, for the trainee page's timeline.

Contract: `lab_after(room, lab, seq)` draws lab `lab` after its recorded line `seq` (None when no
line of that lab has that seq), by running the lab's recorded lines up to it, in their order, on a
fresh lab of the class's scenario through `Lab.execute`. Each login starts its member's session
afresh (a new `Lab` over the same store, as each SSH login is one), a trainee's lines run with a
trainee's rights and the trainer's with a lab administrator's, as they ran; a line that raises is
passed over, as replay passes it. Nothing of the class's labs or record is changed.

Why a replay: the record keeps lines, not states, and a lab's state is what its lines made of its
scenario. Where a replayed line succeeds or fails otherwise than it did, or the replayed lab's
simulated clock after the line is not the one the record kept, the drawing says so (it may then
differ from what the trainee saw).

Bounded: at most `MAX_LINES` lines are replayed and for at most `SECONDS` (checked between lines),
else the drawing says why there is none; the caller runs it in a worker thread, a few at a time.
The last `CACHED` drawings are kept (the record only grows, so a line's drawing does not change).
"""

from __future__ import annotations

import threading
import time
from collections import OrderedDict
from dataclasses import dataclass

from ...lab import Lab
from ...router_cli import router_cli
from ..class_lab import trainee_user, with_trainee_rights
from ..record import Note, RecordedLine
from ..room import ClassRoom, admin_lab
from .drawing import Drawing
from .views import engine_drawing

MAX_LINES = 2000
SECONDS = 10.0
CACHED = 32
TRAINER_DOOR = "trainer"


@dataclass(frozen=True)
class LabAt:
    """The drawing after line `seq` (the `number`-th line of the lab), and `note` when the replay
    may differ from the lab as it was."""

    seq: int
    number: int
    wall: str
    drawing: Drawing
    note: str = ""


_cache: OrderedDict[tuple[str, str, str, int, int, frozenset[int]], LabAt] = OrderedDict()
_cache_lock = threading.Lock()


def lab_after(room: ClassRoom, lab: str, seq: int, max_lines: int = MAX_LINES,
              seconds: float = SECONDS) -> LabAt | None:
    lines = room.record.lines(lab)
    upto = [line for line in lines if line.seq <= seq]
    if not upto or upto[-1].seq != seq:
        return None
    target = upto[-1]
    if len(upto) > max_lines:
        return LabAt(seq, len(upto), target.wall, _refused(f"not drawn: the lab is drawn after its first {max_lines} "
                                                           "lines only (a replay of more would take too long)"))
    # lines whose change never reached the lab (a server stopped between the two commits of a
    # lab file's line): passed over, as grading and the export pass them
    skipped = frozenset(n for n in room.unapplied(lab) if n <= seq)
    key = (str(room.directory), room.database_shown, lab, seq, len(upto), skipped)
    with _cache_lock:
        found = _cache.get(key)
        if found is not None:
            _cache.move_to_end(key)
            return found
    logins = [n for n in room.record.notes(lab, ("login",)) if (n.wall, 0, n.seq) < (target.wall, 1, target.seq)]
    found = _replayed(room, lab, upto, logins, time.monotonic() + seconds, skipped)
    if not found.drawing.problem:  # (a drawing refused for time may be made another time)
        with _cache_lock:
            _cache[key] = found
            while len(_cache) > CACHED:
                _cache.popitem(last=False)
    return found


def _refused(why: str) -> Drawing:
    return Drawing(400, 40, [], [], "-", why)


def _replayed(room: ClassRoom, lab: str, upto: list[RecordedLine], logins: list[Note], deadline: float,
              skipped: frozenset[int] = frozenset()) -> LabAt:
    target = upto[-1]
    fresh = Lab.fresh(scenario=room.class_file.scenario_of(lab))
    sessions: dict[tuple[str, str], Lab] = {}
    otherwise = 0  # lines that succeeded or failed otherwise than they did
    try:
        rows: list[RecordedLine | Note] = sorted([*upto, *logins], key=lambda r: (r.wall, isinstance(r, RecordedLine),
                                                                                   r.seq))
        for row in rows:
            if isinstance(row, Note):  # a login: that member's next lines by that door are a new session
                sessions.pop((row.member, row.text.split(" ", 1)[0]), None)
                continue
            if row.seq in skipped:
                continue
            if time.monotonic() > deadline:
                return LabAt(target.seq, len(upto), target.wall,
                             _refused("not drawn: the replay of the lines up to it took too long"))
            session = sessions.get((row.member, row.door))
            if session is None:
                session = sessions[(row.member, row.door)] = _session(fresh, row)
            try:
                otherwise += session.execute(row.target, row.line).ok != row.ok
            except Exception:  # noqa: BLE001  as replay: the line's error, not the drawing's
                otherwise += 1
        with fresh.store.transaction() as engine:
            drawing = engine_drawing(engine)
            clock = router_cli(engine).status().now_ms
    except Exception as exc:  # noqa: BLE001  a lab of another kind: say so rather than fail the page
        return LabAt(target.seq, len(upto), target.wall, _refused(f"cannot draw this lab: {type(exc).__name__}"))
    finally:
        sessions.clear()
        fresh.close()
    notes = [f"{otherwise} of the lines up to it ran otherwise in the replay"] if otherwise else []
    if target.seq in skipped:
        notes.append("this line's change never reached the lab (the server stopped before it was written)")
    if target.clock_ms is not None and target.clock_ms != clock:
        notes.append(f"the replay's clock ({clock / 1000:.3f}s) is not the recorded one "
                     f"({target.clock_ms / 1000:.3f}s)")
    note = "; ".join(notes) + ": the lab may have been otherwise" if notes else ""
    return LabAt(target.seq, len(upto), target.wall, drawing, note)


def _session(fresh: Lab, line: RecordedLine) -> Lab:
    """A new session over the replay's store, with the rights the line ran with."""
    if line.door == TRAINER_DOOR:
        return admin_lab(fresh.store)
    return with_trainee_rights(Lab(fresh.store, user=trainee_user(fresh.store)), line.member)
