"""The conformance job: replay every transcript on Spark and write results, summary and report.

Pipeline (driver -> executors -> driver):
1. List the inputs on the driver: local files and directories with Python (which can name any file:
   `:` in a name, bytes that are not UTF-8, empty files, none of which Hadoop's Path can carry), globs
   and remote paths (hdfs://, s3a://, ...) through the Hadoop FileSystem API and Spark's file index;
   directories recursively, hidden `.`/`_` names skipped as Hadoop does.
   Each file gets a stable *name*: the path as the user spelled it on the command line.
2. The names are sorted and cut into contiguous ranges of about equal size (two per core), one
   partition each: local files travel as their paths only, in order, with no shuffle; remote ones are
   read by Spark's `binaryFile` source (files over the size limit left unread) and placed into the
   range of their name.
3. Executors (`replay_chunk`): a fresh lab per transcript (the replay's promise), local files read by
   the executor itself (at most MAX_TRANSCRIPT_BYTES + 1 bytes each). Every input yields a row:
   unreadable, oversized, empty, undecodable, malformed, over-long (more than MAX_COMMANDS commands)
   or crashing transcripts become quarantine records with their reason, and the job goes on; stored
   output is capped per command (MAX_STORED_OUTPUT). Each partition hands back one small tuple: its
   aggregates (`partials.Partial`) and its rows, sorted, as two lz4 Arrow IPC streams (command rows,
   transcript rows; built column by column, `wire.py`) that the JVM keeps as bytes. Why: on two cores
   every CPU second the JVM spent converting, caching, sorting and grouping rows (two thirds of the
   CPU before) was a second the replay lost, and so is every second an executor spends on its rows.
4. One Spark job per partition, submitted in partition order, a window of them queued ahead
   (`fetch.py`), brings each partition's result to the driver as soon as it ends; the driver writes
   the partitions in order, while later ones replay, into single-file Parquet tables with fixed
   names (pyarrow, `tables.py`), already sorted by (transcript, line), and adds up the aggregates
   into `summary.json` and `report.html`. Nothing is cached in the JVM.
   All of it is staged and put in place only when the run completes (`output.py`); Ctrl-C or SIGTERM
   cancels the run's Spark jobs and leaves `--out` as it was (`interrupt.py`).

Byte-identical for the same input and arguments: commands.parquet, transcripts.parquet,
quarantine.parquet, summary.json, report.html. Not: timings.parquet (duration_ms) and run.json.
"""

from __future__ import annotations

import importlib.util
import json
import math
import os
import re
import subprocess
import sys
import threading
import time
import uuid
from collections.abc import Callable, Iterable, Iterator, Sequence
from concurrent.futures import Future, ThreadPoolExecutor
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any, TypeVar
from urllib.parse import unquote

from solace_shell.transcript.replay import paced_collection, replay_text
from solace_shell.transcript.shown import MAX_SHOWN_CHARS
from state_store.user_files import TRANSCRIPT_MAX_BYTES, FileRefused, read_bytes

from . import summary as summ
from .grammar_nodes import GrammarUnavailable, grammar_node_ids, levels_knowing

if TYPE_CHECKING:  # pyarrow, for the output, is imported while the first job runs
    from .interrupt import StopOnSignals
    from .output import OutputDir
    from .partials import Partial

JOB_GROUP_PREFIX = "solace-conformance"
GLOB_CHARS = re.compile(r"[*?\[\]{}]")
HADOOP_GLOB_META = re.compile(r"([*?\[\]{}\\])")

COMMAND_COLUMNS = ["transcript", "line", "router", "prompt", "command", "node", "verdict", "expected",
                   "actual", "signature"]
TIMING_COLUMNS = ["transcript", "line", "duration_ms"]
TRANSCRIPT_COLUMNS = ["transcript", "status", "commands", "pass", "fail", "error", "reason"]
# Per-transcript limits (docs/conformance.md): what one input may cost an executor.
MAX_TRANSCRIPT_BYTES = TRANSCRIPT_MAX_BYTES
MAX_COMMANDS = 20_000
MAX_STORED_OUTPUT = MAX_SHOWN_CHARS  # characters of `command`, `expected`, `actual` kept per command


@dataclass
class RunOptions:
    inputs: Sequence[str]
    out: str
    master: str | None = None   # None: spark-submit's master, else local[*]
    min_pass: float = 0.0
    gate_of: str = "transcripts"
    partitions: int | None = None
    progress: bool = True
    max_files_per_partition: int = 4096
    grammar_nodes: Sequence[str] | None = None   # override the grammar's node list (tests, fakes)
    spark_conf: dict[str, str] = field(default_factory=dict)


@dataclass
class RunResult:
    summary: dict[str, Any]
    run_info: dict[str, Any]

    @property
    def ok(self) -> bool:
        return bool(self.summary["gate"]["ok"])


class InputError(Exception):
    pass


class MissingDependency(Exception):
    """The Spark extra is not installed (pyspark, pyarrow)."""


SPARK_EXTRA_HINT = "pip install 'solace-shell[spark]'"


def require_spark_extra() -> None:
    """The executors build Arrow streams and the driver writes Parquet with pyarrow; say so before
    Spark starts. Found, not imported: the driver imports pyarrow while the executors replay."""
    missing = [module for module in ("pyspark", "pyarrow") if importlib.util.find_spec(module) is None]
    if missing:
        raise MissingDependency(f"the Spark job needs {' and '.join(missing)}: {SPARK_EXTRA_HINT}")


# ------------------------------------------------------------------------------------------ session


def ensure_worker_python() -> None:
    """Executors must run this interpreter (and find this package) in local mode."""
    os.environ.setdefault("PYSPARK_PYTHON", sys.executable)
    os.environ.setdefault("PYSPARK_DRIVER_PYTHON", sys.executable)
    here = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    paths = [p for p in os.environ.get("PYTHONPATH", "").split(os.pathsep) if p]
    if here not in paths:  # a source checkout that is not pip-installed still works on local workers
        os.environ["PYTHONPATH"] = os.pathsep.join([here, *paths])


LOG_CONFIG = os.path.join(os.path.dirname(os.path.abspath(__file__)), "log4j2.properties")


def _quoted(path: str) -> str:
    """A path as one word of Spark's extraJavaOptions (split at spaces, double quotes honoured)."""
    return f'"{path}"' if any(c.isspace() for c in path) else path


# What the JVM's module system prints on every start of Spark 4 (its launcher always adds
# `--add-modules=jdk.incubator.vector`), before any logging is set up: no option silences it.
_JVM_NOTICES = (b"WARNING: Using incubator modules: jdk.incubator.vector",)


def _forward_stderr(stream: Any) -> None:
    """Copy the JVM's standard error to ours, line by line, without the notices above."""
    for line in iter(stream.readline, b""):
        if line.rstrip(b"\r\n") not in _JVM_NOTICES:
            sys.stderr.buffer.write(line)
            sys.stderr.flush()


def _start_gateway(options: dict[str, str]) -> None:
    """Start the driver's JVM as PySpark would (spark-submit with these options), its standard
    error passed through `_forward_stderr`, unless a JVM already runs (a session before this one,
    or spark-submit's). The JVM logs errors only (log4j2.properties); this drops the one line the
    JVM prints before any logger exists."""
    from pyspark import SparkConf, SparkContext  # noqa: PLC0415
    from pyspark.java_gateway import launch_gateway  # noqa: PLC0415

    if "PYSPARK_GATEWAY_PORT" in os.environ or SparkContext._gateway is not None:
        return
    gateway = launch_gateway(  # type: ignore[no-untyped-call]  # PySpark gives it no annotations
        SparkConf().setAll(list(options.items())), popen_kwargs={"stderr": subprocess.PIPE})
    threading.Thread(target=_forward_stderr, args=(gateway.proc.stderr,), name="jvm-stderr", daemon=True).start()
    SparkContext._ensure_initialized(gateway=gateway)


def session_options(master: str | None, app_name: str, conf: dict[str, str] | None) -> dict[str, str]:
    """The Spark settings of a run's own session: the job's defaults, then `--conf` over them."""
    defaults = {
        # No web UI unless asked for (`--conf spark.ui.enabled=true`): it would listen on port 4040 of
        # every interface for the whole run, showing the run's file names to whoever connects.
        "spark.ui.enabled": "false",
        "spark.ui.showConsoleProgress": "false",
        "spark.sql.session.timeZone": "UTC",
        "spark.sql.shuffle.partitions": "8",
        "spark.python.daemon.module": "spark_jobs.daemon",  # workers fork with the replay warmed up
        # The JVM here schedules and carries bytes: its C2 compiler's work never paid back in a run of
        # this job, and halving the JVM's CPU (session start-up and job) leaves it to the replay.
        # Its log: errors only from the start (log4j2.properties says why).
        "spark.driver.extraJavaOptions": f"-XX:TieredStopAtLevel=1 -Dlog4j2.configurationFile={_quoted(LOG_CONFIG)}",
    }
    return {"spark.app.name": app_name, **({"spark.master": master} if master else {}), **defaults, **(conf or {})}


def get_spark(master: str | None, app_name: str = "solace-conformance", conf: dict[str, str] | None = None) -> Any:
    ensure_worker_python()
    from pyspark.sql import SparkSession  # noqa: PLC0415

    builder = SparkSession.builder.appName(app_name)
    if master is None and "PYSPARK_GATEWAY_PORT" not in os.environ:
        master = "local[*]"  # not under spark-submit (which sets the gateway port and its own --master)
    if master:
        builder = builder.master(master)
    options = session_options(master, app_name, conf)
    for key, value in options.items():
        builder = builder.config(key, value)
    _start_gateway(options)
    spark = builder.getOrCreate()
    spark.sparkContext.setLogLevel("ERROR")
    return spark


# ------------------------------------------------------------------------------------------- inputs


def _norm_uri(uri: str) -> str:
    """`file:///a/b`, `file:/a/b` -> `file:/a/b`; other schemes unchanged."""
    if uri.startswith("file:"):
        return "file:/" + uri[5:].lstrip("/")
    return uri


# Transcript files, as solace_shell.transcript.format.TRANSCRIPT_SUFFIX names them (not imported:
# the driver lists files without loading the replay engine).
TRANSCRIPT_SUFFIX = ".cli.txt"


def _hidden(name: str) -> bool:
    return name.startswith(".") or name.startswith("_")


def _local_uri(given: str) -> str | None:
    """The local path of an input without glob characters, or None for globs and remote paths."""
    if GLOB_CHARS.search(given):
        return None
    if given.startswith("file:"):
        return "/" + given[5:].lstrip("/")
    return None if "://" in given or re.match(r"^[A-Za-z][A-Za-z0-9+.-]*:/", given) else given


def walk_local(directory: str) -> list[str]:
    """Every transcript file (`*.cli.txt`) below a local directory, hidden names (`.x`, `_x`)
    skipped, as paths relative to it: a directory holds transcripts and what they use (scenarios,
    notes), as for `solace-shell replay DIR` and the remote listing below.

    Python lists names Hadoop's Path cannot hold (a `:` in a name, bytes that are not UTF-8)."""
    found: list[str] = []
    for root, dirs, names in os.walk(directory):
        dirs[:] = sorted(d for d in dirs if not _hidden(d))
        rel_root = os.path.relpath(root, directory)
        for name in sorted(names):
            if not _hidden(name) and name.endswith(TRANSCRIPT_SUFFIX):
                found.append(name if rel_root == "." else f"{rel_root}/{name}")
    return found


def display_safe(name: str) -> str:
    """A name as text Arrow and Parquet accept: bytes that are not UTF-8 are shown as `\\xff`."""
    return os.fsencode(name).decode("utf-8", "backslashreplace") if _SURROGATE.search(name) else name


_SURROGATE = re.compile("[\udc80-\udcff]")


def list_inputs(spark: Any, inputs: Sequence[str]) -> tuple[dict[str, str], dict[str, str], list[str]]:
    """Map every input file to its display name (local files by their path, remote ones by URI);
    also return explicitly named hidden files (`.x`, `_x`: skipped inside directories, as Hadoop
    does) and inputs that matched nothing."""
    jvm = spark.sparkContext._jvm
    conf = spark.sparkContext._jsc.hadoopConfiguration()
    Path = jvm.org.apache.hadoop.fs.Path
    files: dict[str, str] = {}
    hidden: dict[str, str] = {}
    missing: list[str] = []
    for given in inputs:
        local = _local_uri(given)
        if local is not None:
            if os.path.isdir(local):
                base, root = given.rstrip("/"), os.path.abspath(local)
                for rel in walk_local(local):
                    files[os.path.join(root, rel)] = f"{base}/{rel}" if base else rel
            elif os.path.lexists(local):
                if _hidden(os.path.basename(local.rstrip("/"))):
                    hidden[os.path.abspath(local)] = given
                else:
                    files[os.path.abspath(local)] = given
            else:
                missing.append(given)
            continue
        path = Path(given)
        fs = path.getFileSystem(conf)
        statuses = fs.globStatus(path)
        if not statuses:
            missing.append(given)
            continue
        glob = bool(GLOB_CHARS.search(given))
        for status in statuses:
            uri = _norm_uri(status.getPath().toString())
            literal_base = given.rstrip("/") if not glob else None
            if status.isDirectory():
                prefix = literal_base if literal_base is not None else _display(given, uri)
                if uri.startswith("file:"):
                    for rel in walk_local(uri[5:]):
                        files[os.path.join(uri[5:], rel)] = f"{prefix}/{rel}" if prefix else rel
                    continue
                for child_uri in files_under(spark, uri):
                    rel = child_uri[len(uri):].lstrip("/")
                    # a directory holds transcripts and what they use (scenarios, notes): only
                    # `*.cli.txt` files are transcripts, as for `solace-shell replay DIR`
                    if any(_hidden(part) for part in rel.split("/")) or not rel.endswith(TRANSCRIPT_SUFFIX):
                        continue
                    files[child_uri] = f"{prefix}/{rel}" if prefix else rel
            elif _hidden(status.getPath().getName()):
                if not glob:  # Hadoop input formats refuse such names: say so instead of failing
                    hidden[uri] = given
            else:
                key = uri[5:] if uri.startswith("file:") else uri  # a local match is read as a local file
                files[key] = given if not glob else _display(given, uri)
    return files, hidden, missing


def files_under(spark: Any, directory: str) -> list[str]:
    """Every file below a directory, hidden names skipped, as normalised URIs.

    Spark's file index lists the whole tree inside the JVM and hands back one array; walking it from
    Python costs several Py4J round trips per file, which added seconds per thousand files to the job's
    serial start (docs/conformance.md, Benchmark)."""
    with listed_on_the_driver(spark):
        found = (spark.read.format("binaryFile").option("recursiveFileLookup", "true")
                 .load(literal_path(directory)).inputFiles())
    # inputFiles() gives URIs (`a%20b`); the rows' `path` column and globStatus give Path strings (`a b`)
    return sorted(_norm_uri(unquote(uri)) for uri in found)


@contextmanager
def listed_on_the_driver(spark: Any) -> Iterator[None]:
    """Above 32 paths Spark lists files with a distributed job; for explicit transcript files it cost
    milliseconds per file, many times the driver's own listing of the same files (docs/conformance.md)."""
    key = "spark.sql.sources.parallelPartitionDiscovery.threshold"
    before = spark.conf.get(key, None)
    spark.conf.set(key, str(2**31 - 1))
    try:
        yield
    finally:
        if before is None:
            spark.conf.unset(key)
        else:
            spark.conf.set(key, before)


def literal_path(uri: str) -> str:
    """A listed path as Spark's readers must be given it: they expand every path as a glob, so a file
    named `x[1].txt` or `y{a,b}.txt` would otherwise match other files or none."""
    return HADOOP_GLOB_META.sub(r"\\\1", uri)


def _display(given: str, uri: str) -> str:
    """A glob match, spelled from the glob's literal prefix as the user wrote it."""
    parts = given.split("/")
    literal: list[str] = []
    for part in parts:
        if GLOB_CHARS.search(part):
            break
        literal.append(part)
    prefix = "/".join(literal)
    if not prefix:
        return uri[5:] if uri.startswith("file:") else uri
    anchor = prefix.rstrip("/").split("/")[-1] or "/"
    marker = uri.find("/" + anchor + "/") if anchor != "/" else 0
    if marker < 0:
        return uri[5:] if uri.startswith("file:") else uri
    rest = uri[marker + len(anchor) + 2:] if anchor != "/" else uri.split(":", 1)[-1].lstrip("/")
    return f"{prefix.rstrip('/')}/{rest}"


def partition_count(n_files: int, cores: int, max_files_per_partition: int = 4096) -> int:
    """Two partitions per core (so one slow core does not hold the others up), more when a partition
    would hold over `max_files_per_partition` files; never more than the files. The results do not
    depend on it: the tables are written in name order whatever the partitioning."""
    cores = max(1, cores)
    per_core = max(2, math.ceil(n_files / (cores * max(1, max_files_per_partition))))
    return max(1, min(n_files, cores * per_core))


def split_names(weights: dict[str, int], n_parts: int) -> dict[str, int]:
    """Each name's partition: contiguous ranges of the sorted names with about equal total weight
    (bytes to replay), so partition i holds only names sorting before those of partition i + 1."""
    names = sorted(weights)
    total = sum(max(1, weights[n]) for n in names)
    chunk: dict[str, int] = {}
    before = 0
    for name in names:
        chunk[name] = min(n_parts - 1, before * n_parts // total)
        before += max(1, weights[name])
    return chunk


# -------------------------------------------------------------------------------------- executors


Source = bytes | str  # a transcript's bytes, or why it could not be read


VERDICTS = frozenset(("pass", "fail", "error"))


@dataclass
class Replayed:
    """One input's outcome: its commands (none when quarantined), their verdicts (pass/fail/error) and
    its row of the transcripts table."""

    name: str
    commands: list[Any]
    verdicts: list[str]
    status: str
    passed: int
    failed: int
    errors: int
    reason: str | None
    replay_cpu_seconds: float  # `time.process_time` inside `replay_text`

    def row(self) -> tuple[Any, ...]:
        """TRANSCRIPT_COLUMNS but the name."""
        return self.status, len(self.commands), self.passed, self.failed, self.errors, self.reason


def replay_partition(items: Iterable[tuple[str, tuple[str | None, Source]]]) -> Iterator[Replayed]:
    """Executor side: replay every transcript of one partition (a fresh lab per transcript).

    Yields one `Replayed` per input whatever it holds; never raises for a bad transcript (quarantine),
    only for a broken engine (which must fail the job loudly).
    """
    with paced_collection():  # once for the whole partition (see there)
        for raw_name, (base_dir, data) in items:
            name = display_safe(raw_name)
            commands: list[Any] = []
            replay_cpu = 0.0
            try:
                reason = _unusable(name, data)
                if reason is None:
                    assert isinstance(data, (bytes, bytearray, memoryview))
                    text = bytes(data).decode("utf-8-sig")
                    reason = _too_many_commands(text)
                    if reason is None:
                        cpu_before = time.process_time()
                        result = replay_text(text, name, base_dir=Path(base_dir) if base_dir is not None else None)
                        replay_cpu = time.process_time() - cpu_before
                        commands = list(result.commands)
                        if result.error:
                            reason = display_safe(result.error)  # the replay's own "<name>:<line>: <problem>" lines
                        elif not commands:
                            reason = f"{name}:0: no commands"
            except UnicodeDecodeError as exc:
                reason = f"undecodable: not UTF-8 ({exc.reason} at byte {exc.start})"
            except Exception as exc:  # one bad transcript must not stop thousands of others
                reason = display_safe(f"replay crashed: {type(exc).__name__}: {exc}")
                commands = []
            verdicts = [c.verdict for c in commands]
            if not VERDICTS.issuperset(verdicts):
                verdicts = [v if v in VERDICTS else "error" for v in verdicts]
            passed, failed = verdicts.count("pass"), verdicts.count("fail")
            errors = len(verdicts) - passed - failed
            status = "quarantined" if reason else "fail" if failed or errors else "pass"
            yield Replayed(name, commands, verdicts, status, passed, failed, errors, reason, replay_cpu)


def _unusable(name: str, data: Source) -> str | None:
    if isinstance(data, str):
        return data
    if len(data) > MAX_TRANSCRIPT_BYTES:
        return f"too large: more than {MAX_TRANSCRIPT_BYTES:,} bytes (the limit per transcript)"
    if len(data) == 0:
        return "empty file"
    return None


def _too_many_commands(text: str) -> str | None:
    """More prompt lines than MAX_COMMANDS: refused before replay (each command's result is kept)."""
    if text.count("\n") <= MAX_COMMANDS:
        return None
    from solace_shell.transcript.format import match_prompt  # noqa: PLC0415

    prompts = sum(1 for line in text.split("\n") if match_prompt(line.rstrip("\r")) is not None)
    if prompts > MAX_COMMANDS:
        return f"too many commands: {prompts:,} (the limit per transcript is {MAX_COMMANDS:,})"
    return None


def stored_output(text: str | None) -> str | None:
    """A command's output (or its line) as the tables keep it: at most MAX_STORED_OUTPUT characters,
    UTF-8-safe."""
    if text is None or len(text) <= MAX_STORED_OUTPUT:
        return text if text is None or text.isascii() else display_safe(text)
    rest = len(text) - MAX_STORED_OUTPUT
    return display_safe(text[:MAX_STORED_OUTPUT]) + f"\n[... {rest:,} more characters not stored]"


def read_local(path: bytes) -> Source:
    """A local transcript's bytes, or why it cannot be read: through `state_store.user_files`, so
    nothing but a regular file is opened (a FIFO would wait for a writer, a device never ends) and
    at most the limit plus one byte is read (a file that grows past it while read is refused)."""
    try:
        return read_bytes(path, MAX_TRANSCRIPT_BYTES)
    except FileRefused as refused:
        if refused.kind == "too-large":
            if refused.size is None:
                return f"too large: more than {MAX_TRANSCRIPT_BYTES:,} bytes (the limit per transcript)"
            return f"too large: {refused.size:,} bytes (the limit per transcript is {MAX_TRANSCRIPT_BYTES:,})"
        if refused.kind == "not-regular":
            return "unreadable: not a regular file"
        return f"unreadable: {refused.problem}"


Item = tuple[str, tuple[Any, ...]]
# One input as the executors get it: (display name, source), the source being ("local", path as
# fsencoded bytes), ("bytes", directory or None, content) for a remote file Spark read, or
# ("bad", reason) for a file quarantined on the driver.


READ_AHEAD_FILES = 64  # local files read in a row before their replays: at most this many ...
READ_AHEAD_BYTES = 8 << 20  # ... or this many bytes (then one more file, at most MAX_TRANSCRIPT_BYTES + 1)

Sourced = tuple[str, tuple[str | None, Source]]  # (display name, (base directory or None, content or reason))


def sources(items: Iterable[Item]) -> Iterator[Sourced]:
    """A partition's items, sorted by name, as `replay_partition` takes them: each local file read here
    (at most one byte over the limit), remote content as Spark read it, a driver's reason as is.

    Why read ahead: reading one file between two replays cost a partition 3-5% more CPU than
    replaying the same bytes from memory, several times what the system calls take on their own
    (what the kernel's work leaves in the CPU's caches is paid by the replay after it); read in
    runs of READ_AHEAD_FILES, half of that or less (`bench/bench_job_overhead.py`, docs/conformance.md). The bytes
    held at once stay bounded by READ_AHEAD_BYTES and one file."""
    ahead: list[Sourced] = []
    held = 0
    for name, source in sorted(items, key=lambda item: (item[0], repr(item[1][:2]))):
        one = _source(name, source)
        ahead.append(one)
        held += len(one[1][1])
        if len(ahead) >= READ_AHEAD_FILES or held >= READ_AHEAD_BYTES:
            yield from ahead
            ahead, held = [], 0
    yield from ahead


def _source(name: str, source: tuple[Any, ...]) -> Sourced:
    if source[0] == "local":
        path = source[1]
        assert isinstance(path, bytes)
        return name, (os.path.dirname(os.fsdecode(path)), read_local(path))
    if source[0] == "bytes":
        base, content = source[1], source[2]
        assert isinstance(content, bytes) and (base is None or isinstance(base, str))
        return name, (base, content)
    reason = source[1]
    assert isinstance(reason, str)
    return name, (None, reason)


def replay_chunk(index: int, items: Iterable[Item]) -> Iterator[tuple[int, Any, bytes, bytes]]:
    """Executor side: one partition (a contiguous range of the sorted names) in, one small tuple out:
    (partition index, its `partials.Partial`, its command rows and its transcript rows as two lz4 Arrow
    IPC streams, `wire.py`).

    The rows leave sorted by (transcript, line), so the driver writes the tables by concatenating
    partitions in order. The JVM only carries the streams' bytes: it decodes nothing. The partial
    also carries the task's CPU seconds, in `replay_text` and in all, for run.json."""
    from .partials import PartialBuilder  # noqa: PLC0415
    from .wire import PartitionStreams  # noqa: PLC0415

    task_cpu_before = time.process_time()
    builder = PartialBuilder()
    streams = PartitionStreams(stored_output, MAX_STORED_OUTPUT)
    replay_cpu = 0.0
    for r in replay_partition(sources(items)):
        replay_cpu += r.replay_cpu_seconds
        builder.commands(r.name, r.commands, r.verdicts, stored_output)
        builder.transcript(r.name, r.status, r.reason)
        streams.add(r.name, r.commands, r.verdicts, r.row())
    commands_blob, transcripts_blob = streams.finish()
    builder.partial.replay_cpu_seconds = replay_cpu
    builder.partial.task_cpu_seconds = time.process_time() - task_cpu_before
    yield index, builder.partial, commands_blob, transcripts_blob


# ------------------------------------------------------------------------------------------ outputs


def _is_local(out: str) -> bool:
    return "://" not in out and not out.startswith("hdfs:") or out.startswith("file:")


def _local_path(out: str) -> str:
    return out[5:] if out.startswith("file:") else out


def publish(spark: Any, local_file: str, out_dir: str, name: str) -> None:
    """Copy a file written on the driver to `<out_dir>/<name>` on a remote file system."""
    jvm = spark.sparkContext._jvm
    conf = spark.sparkContext._jsc.hadoopConfiguration()
    path = jvm.org.apache.hadoop.fs.Path(out_dir.rstrip("/") + "/" + name)
    stream = path.getFileSystem(conf).create(path, True)
    try:
        with open(local_file, "rb") as fh:
            while block := fh.read(1 << 22):
                stream.write(bytearray(block))
    finally:
        stream.close()


# --------------------------------------------------------------------------------------------- run


TABLES = {"commands.parquet": COMMAND_COLUMNS, "timings.parquet": TIMING_COLUMNS,
          "transcripts.parquet": TRANSCRIPT_COLUMNS, "quarantine.parquet": ["transcript", "reason"]}


def _remote_items(spark: Any, remote: dict[str, str], bad: dict[str, tuple[str, str]]) -> tuple[Any, dict[str, int]]:
    """Remote files read by Spark's binaryFile source, as an RDD of items; their sizes; the files over
    the size limit go to `bad` (binaryFile reads a file's content only for rows its filter keeps)."""
    from pyspark.sql import functions as F  # noqa: PLC0415

    with listed_on_the_driver(spark):
        remote_files = spark.read.format("binaryFile").load([literal_path(u) for u in sorted(remote)])
    weights: dict[str, int] = {}
    for r in remote_files.select("path", "length").collect():
        uri = _norm_uri(r["path"])
        name = display_safe(remote.get(uri, uri[5:] if uri.startswith("file:") else uri))
        weights[name] = weights.get(name, 0) + int(r["length"])
        if r["length"] > MAX_TRANSCRIPT_BYTES:
            bad[uri] = (remote.get(uri, uri), f"too large: {r['length']:,} bytes "
                                              f"(the limit per transcript is {MAX_TRANSCRIPT_BYTES:,})")
    names = dict(remote)

    def item(path: str, content: bytes) -> Item:
        uri = _norm_uri(path)
        local_dir = os.path.dirname(uri[5:]) if uri.startswith("file:") else None
        name = names.get(uri, uri[5:] if uri.startswith("file:") else uri)
        return display_safe(name), ("bytes", local_dir, bytes(content))

    rdd = (remote_files.where(F.col("length") <= MAX_TRANSCRIPT_BYTES).select("path", "content").rdd
           .map(lambda r: item(r["path"], r["content"])))
    return rdd, weights


@dataclass
class JobGroup:
    """The Spark jobs of one run, tagged with its id: Ctrl-C or a failure cancels this run's jobs and
    no other's in the same session (a notebook may run several). Each partition's job also has a
    group of its own, by which the status tracker tells whether it has been submitted."""

    sc: Any
    id: str = field(default_factory=lambda: f"{JOB_GROUP_PREFIX}-{uuid.uuid4().hex[:12]}")

    def join(self, partition: int | None = None) -> None:
        """The calling thread's jobs belong to the run (Spark keeps groups and tags per thread): to
        the run's group, or to a group of their partition's own (`submitted`), tagged with the run."""
        group = self.id if partition is None else self.partition_group(partition)
        self.sc.setJobGroup(group, "solace-shell conformance replay", interruptOnCancel=True)
        self.sc.addJobTag(self.id)

    def leave(self) -> None:
        self.sc.setLocalProperty("spark.jobGroup.id", None)  # None clears it
        self.sc.removeJobTag(self.id)

    def submitted(self, partition: int) -> bool:
        """Spark knows the job of `partition` (joined with `join(partition)`)."""
        return bool(self.sc.statusTracker().getJobIdsForGroup(self.partition_group(partition)))

    def cancel(self) -> None:
        """Cancel the run's jobs, running or about to run."""
        try:
            self.sc.cancelJobsWithTag(self.id)
        except Exception:  # the session (or its JVM) is gone already: nothing runs any more
            pass

    def partition_group(self, partition: int) -> str:
        """The job group of one partition's job: the status tracker finds a job by its group."""
        return f"{self.id}-partition-{partition}"


def run(opts: RunOptions, spark: Any | None = None) -> RunResult:
    """Replay `opts.inputs` and write `opts.out`, which changes only when the run completes: an
    interrupted run (SIGINT, SIGTERM: `interrupt.Interrupted`) or a failed one leaves it as it was."""
    started = time.perf_counter()
    check_local_inputs(opts.inputs)
    return run_job(opts.out, opts.master, opts.spark_conf, spark,
                   lambda spark, group, stop: _run_in_session(opts, spark, group, stop, started))


def check_local_inputs(inputs: Sequence[str]) -> None:
    """Local inputs named without a glob must exist: checked before Spark starts (its JVM takes
    tens of seconds to start), InputError naming each one that does not. Globs and remote paths
    are listed by Hadoop, in the session."""
    missing = [given for given in inputs if (local := _local_uri(given)) is not None and not os.path.lexists(local)]
    if missing:
        raise InputError("no such input: " + ", ".join(missing))


T = TypeVar("T")


def run_job(out: str, master: str | None, spark_conf: dict[str, str], spark: Any | None,
            body: Callable[[Any, JobGroup, StopOnSignals], T]) -> T:
    """`body(spark, group, stop)` as one run writing `out`: the session given, else the active one,
    else one of the run's own (stopped at the end); the run's Spark jobs in `group`, cancelled by
    SIGINT/SIGTERM (`stop`). A local `out` that could not be written is refused before Spark starts."""
    require_spark_extra()
    from .interrupt import StopOnSignals  # noqa: PLC0415

    if _is_local(out):
        from .output import unusable_local_out  # noqa: PLC0415

        why = unusable_local_out(_local_path(out))
        if why:
            raise InputError(f"--out {out}: {why}")
    if spark is None:
        from pyspark.sql import SparkSession  # noqa: PLC0415

        spark = SparkSession.getActiveSession()
    own_session = spark is None  # stop only a session this call created
    if spark is None:
        spark = get_spark(master, conf=spark_conf)
    sc = spark.sparkContext
    finished = False
    try:
        group = JobGroup(sc)

        def abandon() -> None:
            """On a signal: cancel the run's jobs; a session of the run's own stops logging first, as
            its log would only show Spark's races in cancelling (a killed task's lost broadcast)."""
            if own_session:
                sc.setLogLevel("OFF")
            group.cancel()

        with StopOnSignals(abandon) as stop:
            group.join()
            try:
                result = body(spark, group, stop)
            finally:
                group.leave()
        finished = True
        return result
    finally:
        if own_session:
            _stop_session(spark, abandoned=not finished)


SETTLE_SECONDS = 10.0  # how long a session this run started may take to wind its tasks down


def _stop_session(spark: Any, abandoned: bool) -> None:
    """Stop a session the run started, once no task runs on it.

    Why wait: the tasks of a cancelled job (an interrupted run) end a moment after the job does, and
    one still ending when the session stops reports the broadcast it lost. Why silence the JVM's log
    when the run was `abandoned` (interrupted, failed): the teardown of a session with cancelled work
    still has races of its own (a task's status update reaching a scheduler that has stopped), which
    Spark logs as ERRORs with Java stack traces that say nothing about the run; the run's own error
    is what the user is told."""
    sc = spark.sparkContext
    try:
        executors = sc._jsc.sc().statusTracker()
        deadline = time.monotonic() + SETTLE_SECONDS
        while time.monotonic() < deadline and any(e.numRunningTasks() for e in executors.getExecutorInfos()):
            time.sleep(0.05)
        if abandoned:
            sc.setLogLevel("OFF")
        spark.stop()
    except Exception:
        if not abandoned:
            raise  # else the run's own error (being raised) is the one to report, not the JVM's end



def balanced_inputs(spark: Any, files: dict[str, str], hidden: dict[str, str], partitions: int | None,
                    max_files_per_partition: int) -> tuple[Any, int]:
    """The listed transcripts as one RDD of `Item`s in partitions of about equal size (bytes), and
    the number of partitions (`partitions`, or one for every `max_files_per_partition` files and at
    least the cluster's parallelism). Local files are read by the executors from their paths;
    remote ones are listed through Spark (a job); a hidden file name becomes an item that reports
    itself unreadable. With local files only there is one slice per partition, in name order, and
    no shuffle. Shared by every job that replays a corpus (the conformance run, grading)."""
    sc = spark.sparkContext
    bad = {u: (n, "unreadable: hidden file name (starts with '.' or '_')") for u, n in hidden.items()}
    local = {path: name for path, name in files.items() if "://" not in path and not path.startswith("hdfs:")}
    remote = {uri: name for uri, name in files.items() if uri not in local}
    items: list[Item] = [(display_safe(name), ("local", os.fsencode(path))) for path, name in local.items()]
    weights = {name: _size(source[1]) for name, source in items}
    remote_rdd = None
    if remote:
        remote_rdd, remote_weights = _remote_items(spark, remote, bad)
        for name, size in remote_weights.items():
            weights[name] = weights.get(name, 0) + size
    items += [(display_safe(n), ("bad", why)) for n, why in bad.values()]
    for name, _ in items:
        weights.setdefault(name, 0)
    n_parts = partitions or partition_count(len(weights), sc.defaultParallelism, max_files_per_partition)
    chunk_of = split_names(weights, n_parts)
    if remote_rdd is None:
        chunks: list[list[Item]] = [[] for _ in range(n_parts)]
        for it in items:
            chunks[chunk_of[it[0]]].append(it)
        return sc.parallelize(chunks, n_parts).flatMap(lambda chunk: chunk), n_parts
    owner = sc.broadcast(chunk_of)
    return (sc.parallelize(items).union(remote_rdd).keyBy(lambda it: it[0])
            .partitionBy(n_parts, lambda name: owner.value[name]).values()), n_parts

def _run_in_session(opts: RunOptions, spark: Any, group: JobGroup, stop: StopOnSignals,
                    started: float) -> RunResult:
    """The run itself, its jobs in `group`; `stop` is the run's `StopOnSignals`."""
    from .fetch import InOrder, window_for  # noqa: PLC0415
    from .partials import merge  # noqa: PLC0415
    from .progress import RunProgress  # noqa: PLC0415

    sc = spark.sparkContext
    files, hidden, missing = list_inputs(spark, opts.inputs)
    if missing:
        raise InputError("no such input: " + ", ".join(missing))
    if not files and not hidden:
        raise InputError("the inputs hold no transcript files")
    stop.check()

    opening: Future[OutputDir] | None = None
    with (RunProgress(enabled=opts.progress) as progress,
          ThreadPoolExecutor(1, thread_name_prefix="conformance-setup") as setup):
        try:
            progress.set_label(f"replaying {len(files)} transcripts")
            inputs, n_parts = balanced_inputs(spark, files, hidden, opts.partitions, opts.max_files_per_partition)
            parts = inputs.mapPartitionsWithIndex(replay_chunk)
            partials = []
            timing_ms = 0.0
            phases = {"replay": 0.0, "write": 0.0}
            stop.check()
            # The driver's own set-up (importing pyarrow, staging the output) runs while the first Spark
            # job starts and the executors replay, not before: ~0.3 s off the job's serial start.
            # Submitted just before the job, so it does not hold the GIL while the inputs are prepared.
            opening = setup.submit(_open_output, spark, opts.out)
            # One job per partition, a window of them queued ahead (`fetch.py`): the driver writes each
            # partition, in order, while later ones replay.
            progress.expect(n_parts)
            with InOrder(lambda k: _collect(group, parts, k), n_parts, window_for(sc.defaultParallelism),
                         cancel=group.cancel, on_done=progress.advance, submitted=group.submitted) as fetched:
                phase_started = time.perf_counter()
                for _, partial_of_part, commands_blob, transcripts_blob in fetched:
                    phases["replay"] += time.perf_counter() - phase_started
                    stop.check()
                    phase_started = time.perf_counter()
                    output = opening.result()
                    partials.append(partial_of_part)
                    timing_ms += _write_partition(output.tables, commands_blob, transcripts_blob)
                    del commands_blob, transcripts_blob
                    phases["write"] += time.perf_counter() - phase_started
                    stop.check()
                    phase_started = time.perf_counter()
            phase_started = time.perf_counter()
            output = opening.result()
            output.tables.close()
            partial = merge(partials)
            phases["write"] += time.perf_counter() - phase_started
            phase_started = time.perf_counter()
            progress.set_label("aggregating")
            summary = _summary(opts, partial)
            phases["aggregate"] = time.perf_counter() - phase_started

            output.write_text("summary.json", summ.dumps(summary))
            output.write_text("report.html", summ.render_report(summary))
            wall = time.perf_counter() - started
            n_cmd = summary["totals"]["commands"]
            run_info = {
                "spark_version": spark.version,
                "master": sc.master,
                "default_parallelism": sc.defaultParallelism,
                "partitions": n_parts,
                "transcripts": summary["totals"]["transcripts"],
                "commands": n_cmd,
                "wall_seconds": round(wall, 3),
                "commands_per_second": round(n_cmd / wall, 1) if wall > 0 else None,
                **executor_cpu(partial, sc.defaultParallelism, wall),
                "replay_cpu_ms_total": round(timing_ms, 3),
                "phase_seconds": {k: round(v, 3) for k, v in phases.items()},
            }
            output.write_text("run.json", json.dumps(run_info, indent=2) + "\n")
            stop.check()
            output.commit()
        except BaseException:
            group.cancel()  # any job of the run still going (the remote inputs' listing, a fetch)
            if opening is not None:
                _discard_output(opening)
            raise
    return RunResult(summary=summary, run_info=run_info)


def executor_cpu(partial: Partial, cores: int, wall: float) -> dict[str, Any]:
    """run.json's account of the executors' CPU: seconds in `replay_text` and in the task bodies, and
    the shares of the cores' time (cores x the run's wall time) that went to the replay, to the rest
    of the task bodies, and to neither (Spark, the driver, idle).

    Why shares: a core's speed can drift by 10-30% within a minute on a shared machine, so a ratio of
    two runs' throughputs made a minute apart measures the drift as much as the job; the replay's
    share of the cores is measured within one run, and `cores x share` is what the run reaches
    against one process that only replays at the same speed (the in-process replay)."""
    replay, task = partial.replay_cpu_seconds, partial.task_cpu_seconds
    seconds = {"executor_cpu_seconds": {"replay": round(replay, 3), "task": round(task, 3)}}
    capacity = max(1, cores) * wall
    if capacity <= 0:
        return seconds
    return {**seconds, "share_of_cores": {"replay": round(replay / capacity, 4),
                                          "rest_of_tasks": round((task - replay) / capacity, 4),
                                          "outside_tasks": round(1 - task / capacity, 4)}}


def _collect(group: JobGroup, parts: Any, partition: int) -> tuple[int, Any, bytes, bytes]:
    """One partition's result (`replay_chunk` yields exactly one), fetched by a job of its own in a
    thread of its own (`fetch.InOrder`) while the main thread writes earlier partitions."""
    group.join(partition)
    results: list[tuple[int, Any, bytes, bytes]] = group.sc.runJob(parts, lambda it: it, [partition])
    (result,) = results
    return result


def _open_output(spark: Any, out: str) -> OutputDir:
    """The run's staged output (`output.OutputDir`), pyarrow imported on the way."""
    from .output import OutputDir  # noqa: PLC0415
    from .wire import table_schema  # noqa: PLC0415

    return OutputDir(_local_path(out), _is_local(out),
                     {name: table_schema(cols) for name, cols in TABLES.items()},
                     lambda file, name: publish(spark, file, out, name))


def _discard_output(opening: Future[OutputDir]) -> None:
    """A run that does not finish keeps nothing it staged (its own error is the one reported)."""
    try:
        opening.result().discard()
    except Exception:  # staging itself failed: nothing was staged
        pass


def _write_partition(tset: Any, commands_blob: bytes, transcripts_blob: bytes) -> float:
    """One partition's rows appended to the four tables; returns its commands' total duration_ms."""
    from .wire import read_partition  # noqa: PLC0415

    commands, listed = read_partition(commands_blob, transcripts_blob)
    tset.writers["commands.parquet"].write(commands.select(COMMAND_COLUMNS))
    tset.writers["timings.parquet"].write(commands.select(TIMING_COLUMNS))
    tset.writers["transcripts.parquet"].write(listed)
    tset.writers["quarantine.parquet"].write(_quarantined(listed))
    return _total(commands.column("duration_ms"))


def _size(path: Any) -> int:
    try:
        return os.stat(path).st_size
    except OSError:
        return 0


def _total(column: Any) -> float:
    import pyarrow.compute as pc  # noqa: PLC0415

    return float(pc.sum(column).as_py() or 0.0)


def _quarantined(listed: Any) -> Any:
    import pyarrow.compute as pc  # noqa: PLC0415

    return listed.filter(pc.equal(listed.column("status"), "quarantined")).select(["transcript", "reason"])


def _summary(opts: RunOptions, partial: Any) -> dict[str, Any]:
    from .partials import summary_inputs  # noqa: PLC0415

    reason = None
    grammar_nodes: list[str] | None
    if opts.grammar_nodes is not None:
        grammar_nodes = sorted(set(opts.grammar_nodes))
    else:
        try:
            grammar_nodes = grammar_node_ids()
        except GrammarUnavailable as exc:
            grammar_nodes, reason = None, str(exc)
    collected = summary_inputs(partial)
    unparsed = list(collected.pop("unknown_commands"))
    try:
        known = levels_knowing(u["command"] for u in unparsed)
    except GrammarUnavailable:
        known = {}
    return summ.build_summary(
        inputs=opts.inputs, grammar_nodes=grammar_nodes, grammar_reason=reason,
        min_pass=opts.min_pass, gate_of=opts.gate_of,
        unknown_commands=[u for u in unparsed if u["command"] not in known],
        misplaced_commands=[{**u, "levels": known[u["command"]]} for u in unparsed if u["command"] in known],
        **collected)
