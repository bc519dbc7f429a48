"""How an executor hands its partition's rows to the driver: two lz4 Arrow IPC streams, built column by
column, and how the driver turns them back into the rows of the tables.

Why columnar and not one wide row per command: every Python object an executor makes per command and
every value Arrow converts is CPU the replay loses on a small machine. Building the columns straight
from the replay's `CommandResult`s (a list comprehension per column) instead of an 18-field tuple per
row, most of it nulls, cut the executors' own work per command by about two thirds.

What the streams carry beyond the tables' columns, and why (the tables' rows are unchanged):
- a command row names its transcript by its index among the partition's transcript rows (`t`), which
  the transcripts stream carries anyway: the driver takes the names back with one vectorised `take`;
- `actual` is left null where it equals `expected` (`actual_is_expected`): in a passing corpus it
  always does, and it is the widest column; the driver puts `expected` back in its place.
"""

from __future__ import annotations

import operator
from collections.abc import Callable, Sequence
from typing import Any

import pyarrow as pa
import pyarrow.compute as pc

from .job import COMMAND_COLUMNS, TRANSCRIPT_COLUMNS

_TYPES = {"line": pa.int32(), "commands": pa.int32(), "pass": pa.int32(), "fail": pa.int32(),
          "error": pa.int32(), "duration_ms": pa.float64()}


def table_schema(columns: Sequence[str]) -> pa.Schema:
    """A table's Arrow schema: ints are int32, `duration_ms` float64, the rest strings (all nullable)."""
    return pa.schema([pa.field(c, _TYPES.get(c, pa.string())) for c in columns])


COMMAND_WIRE = pa.schema([
    pa.field("t", pa.int32()), *table_schema(COMMAND_COLUMNS[1:8]), pa.field("actual", pa.string()),
    pa.field("actual_is_expected", pa.bool_()), pa.field("signature", pa.string()),
    pa.field("duration_ms", pa.float64())])
TRANSCRIPT_WIRE = table_schema(TRANSCRIPT_COLUMNS)
BATCH_ROWS = 16_384  # command rows per Arrow batch: few batches per partition, bounded memory
_IPC = pa.ipc.IpcWriteOptions(compression="lz4")

StoredText = Callable[[str | None], str | None]  # a command's output as stored (capped, UTF-8-safe)


class PartitionStreams:
    """Collects one partition's transcripts, in order, and writes their rows as two lz4 IPC streams."""

    def __init__(self, stored: StoredText, cap: int) -> None:
        """`stored(text)` is an output as kept, `cap` the length from which it may differ from `text`."""
        self._stored = stored
        self._cap = cap
        self._commands_sink = pa.BufferOutputStream()
        self._commands = pa.ipc.new_stream(self._commands_sink, COMMAND_WIRE, options=_IPC)
        self._pending: list[Any] = []       # CommandResults not yet in a batch
        self._pending_t: list[int] = []
        self._pending_verdicts: list[str] = []
        self._transcripts: list[list[Any]] = [[] for _ in TRANSCRIPT_COLUMNS]

    def add(self, name: str, commands: Sequence[Any], verdicts: Sequence[str], row: Sequence[Any]) -> None:
        """One transcript: its commands, their verdicts (pass/fail/error) and its own row (TRANSCRIPT_COLUMNS
        but the name)."""
        index = len(self._transcripts[0])
        for column, value in zip(self._transcripts, (name, *row), strict=True):
            column.append(value)
        if commands:
            self._pending += commands
            self._pending_t += [index] * len(commands)
            self._pending_verdicts += verdicts
            if len(self._pending) >= BATCH_ROWS:
                self._flush()

    def finish(self) -> tuple[bytes, bytes]:
        """The command stream and the transcript stream, as bytes."""
        self._flush()
        self._commands.close()
        sink = pa.BufferOutputStream()
        with pa.ipc.new_stream(sink, TRANSCRIPT_WIRE, options=_IPC) as writer:
            writer.write_batch(pa.RecordBatch.from_arrays(
                [pa.array(values, type=f.type) for values, f in zip(self._transcripts, TRANSCRIPT_WIRE, strict=True)],
                schema=TRANSCRIPT_WIRE))
        return self._commands_sink.getvalue().to_pybytes(), sink.getvalue().to_pybytes()

    def _flush(self) -> None:
        cmds = self._pending
        if not cmds:
            return
        same = list(map(operator.eq, map(_ACTUAL, cmds), map(_EXPECTED, cmds)))
        columns = [
            pa.array(self._pending_t, pa.int32()),
            *(pa.array(list(map(get, cmds)), pa.string() if name != "line" else pa.int32())
              for name, get in _PLAIN),
            pa.array(self._pending_verdicts, pa.string()),
            self._text(list(map(_EXPECTED, cmds))),
            self._text([None if s else a for a, s in zip(map(_ACTUAL, cmds), same, strict=True)]),
            pa.array(same, pa.bool_()),
            pa.array(list(map(_SIGNATURE, cmds)), pa.string()),
            pa.array(list(map(_DURATION, cmds)), pa.float64()),
        ]
        self._commands.write_batch(pa.RecordBatch.from_arrays(columns, schema=COMMAND_WIRE))
        self._pending, self._pending_t, self._pending_verdicts = [], [], []

    def _text(self, values: list[str | None]) -> pa.Array:
        """Outputs as stored: converted as they are when all fit (the rule: none longer than the cap
        in bytes, none with a lone surrogate), else one by one through `stored`."""
        try:
            column = pa.array(values, pa.string())
        except UnicodeEncodeError:
            column = None
        if column is None or (pc.max(pc.binary_length(column)).as_py() or 0) > self._cap:
            column = pa.array(list(map(self._stored, values)), pa.string())
        return column


_EXPECTED = operator.attrgetter("expected")
_ACTUAL = operator.attrgetter("actual")
_SIGNATURE = operator.attrgetter("signature")
_DURATION = operator.attrgetter("duration_ms")
_PLAIN = [(name, operator.attrgetter(name)) for name in COMMAND_COLUMNS[1:6]]  # line .. node


def read_partition(commands_blob: bytes, transcripts_blob: bytes) -> tuple[pa.Table, pa.Table]:
    """The driver's side: a partition's command rows (COMMAND_COLUMNS + `duration_ms`) and its
    transcript rows (TRANSCRIPT_COLUMNS), both in the executor's order."""
    listed = pa.ipc.open_stream(pa.py_buffer(transcripts_blob)).read_all()
    wire = pa.ipc.open_stream(pa.py_buffer(commands_blob)).read_all()
    names = pc.take(listed.column("transcript"), wire.column("t"))
    expected = wire.column("expected")
    actual = pc.if_else(wire.column("actual_is_expected"), expected, wire.column("actual"))
    columns = [names, *(wire.column(c) for c in COMMAND_COLUMNS[1:8]), actual, wire.column("signature"),
               wire.column("duration_ms")]
    return pa.Table.from_arrays(columns, schema=table_schema([*COMMAND_COLUMNS, "duration_ms"])), listed
