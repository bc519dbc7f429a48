"""The job's Parquet tables, written on the driver by pyarrow from the executors' sorted partitions.

Why: the executors replay contiguous ranges of the sorted transcript names, so their partitions,
read in order, are already sorted by (transcript, line); writing them needs no sort and no JVM (which
spent more CPU encoding and caching the rows than the replay itself on two cores). Row groups have a
fixed number of rows whatever the partitioning, so the bytes depend only on the rows.
"""

from __future__ import annotations

import os
import shutil

import pyarrow as pa
import pyarrow.parquet as pq

ROWS_PER_GROUP = 65_536
PART_FILE = "part-00000.parquet"


class SortedTableWriter:
    """One table, `<dir>/part-00000.parquet` + `_SUCCESS`, fed with already-sorted Arrow tables."""

    def __init__(self, directory: str, schema: pa.Schema) -> None:
        shutil.rmtree(directory, ignore_errors=True)
        os.makedirs(directory)
        self.directory = directory
        self.schema = schema
        self._writer = pq.ParquetWriter(os.path.join(directory, PART_FILE), schema, compression="snappy")
        self._pending: list[pa.Table] = []
        self._rows = 0

    def write(self, table: pa.Table) -> None:
        if table.num_rows:
            self._pending.append(table)
            self._rows += table.num_rows
        while self._rows >= ROWS_PER_GROUP:
            self._flush(ROWS_PER_GROUP)

    def close(self) -> None:
        if self._rows:
            self._flush(self._rows)
        self._writer.close()
        open(os.path.join(self.directory, "_SUCCESS"), "wb").close()

    def abort(self) -> None:
        """Stop writing: pending rows are dropped and no `_SUCCESS` is written; the owner removes the file."""
        self._pending, self._rows = [], 0
        try:
            self._writer.close()
        except Exception:  # the run is being abandoned, maybe for this very writer's error (a full disk)
            pass

    def _flush(self, n: int) -> None:
        """Write the first `n` pending rows as one row group. Each row is copied once, into the row
        group's contiguous columns: the writer's bytes depend on how the columns are chunked, so a row
        group is always written from a single chunk, whatever the partitions' batches were."""
        table = pa.concat_tables(self._pending)  # no copy: the pending tables' chunks side by side
        self._writer.write_table(table.slice(0, n).combine_chunks(), row_group_size=n)
        rest = table.slice(n)
        self._pending = [rest] if rest.num_rows else []
        self._rows = rest.num_rows


class TableSet:
    """Several tables written side by side into one local directory (a run's staging, `output.py`)."""

    def __init__(self, out_dir: str, schemas: dict[str, pa.Schema]) -> None:
        self.out_dir = out_dir
        self.writers = {name: SortedTableWriter(os.path.join(out_dir, name), schema)
                        for name, schema in schemas.items()}

    def close(self) -> None:
        for writer in self.writers.values():
            writer.close()

    def abort(self) -> None:
        for writer in self.writers.values():
            writer.abort()
