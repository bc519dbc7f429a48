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
        # The next batch's command rows, column by column (_FIELDS, then each row's transcript index and
        # verdict). Why not the CommandResults themselves until the batch is full: taking their fields
        # at once, while the replay's objects are still in the CPU's caches, and letting the objects go
        # cost about 2% less of a partition's CPU (16,384 results read back cold at the batch's end).
        self._pending: list[list[Any]] = [[] for _ in _FIELDS_NAMED]
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
            for column, values in zip(self._pending, zip(*map(_FIELDS, commands), strict=True), strict=True):
                column += values
            self._pending_t += [index] * len(commands)
            self._pending_verdicts += verdicts
            if len(self._pending_t) >= BATCH_ROWS:
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
        if not self._pending_t:
            return
        line, router, prompt, command, node, expected, actual, signature, duration = self._pending
        same = list(map(operator.eq, actual, expected))
        columns = [
            pa.array(self._pending_t, pa.int32()),
            pa.array(line, pa.int32()),
            *(pa.array(values, pa.string()) for values in (router, prompt)),
            self._text(command),  # a command line is capped as an output is
            pa.array(node, pa.string()),
            pa.array(self._pending_verdicts, pa.string()),
            self._text(expected),
            self._text([None if s else a for a, s in zip(actual, same, strict=True)]),
            pa.array(same, pa.bool_()),
            pa.array(signature, pa.string()),
            pa.array(duration, pa.float64()),
        ]
        self._commands.write_batch(pa.RecordBatch.from_arrays(columns, schema=COMMAND_WIRE))
        self._pending = [[] for _ in _FIELDS_NAMED]
        self._pending_t, self._pending_verdicts = [], []

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


# A command's fields the stream carries, in `_flush`'s order: line .. node, expected, actual, signature,
# duration (the verdict comes apart: the partition's verdicts are checked ones).
_FIELDS_NAMED = (*COMMAND_COLUMNS[1:6], "expected", "actual", "signature", "duration_ms")
_FIELDS = operator.attrgetter(*_FIELDS_NAMED)


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
