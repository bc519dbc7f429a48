"""Per-partition aggregates of the conformance job, built by the executors and merged on the driver.

Why: aggregating a million command rows inside the JVM (a dozen group-bys over a cached table) cost
more CPU than the replay saved on a second core. Each executor already holds its rows, so it counts
them as it yields them and hands the driver one small `Partial` per partition; the driver adds them up
and builds exactly the lists `summary.build_summary` takes, in the same total orders.

Distinct-transcript counts add up because the job never splits one transcript name across partitions.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from typing import Any

from . import summary as summ

Example = tuple[str, int]  # (transcript, line): the smallest one is the example


@dataclass
class Group:
    """Rows sharing a signature (or an unknown command): how many, in how many transcripts, at which
    grammar nodes, and the first (transcript, line)."""

    count: int
    transcripts: int
    nodes: set[str]
    example: Example

    def merge(self, other: Group) -> None:
        self.count += other.count
        self.transcripts += other.transcripts
        self.nodes |= other.nodes
        self.example = min(self.example, other.example)


@dataclass
class Partial:
    by_status: dict[str, int] = field(default_factory=dict)
    verdicts: dict[str, int] = field(default_factory=dict)
    by_node: dict[str, list[int]] = field(default_factory=dict)  # node -> [pass, fail, error]
    signatures: dict[str, Group] = field(default_factory=dict)
    unknown: dict[str, Group] = field(default_factory=dict)
    quarantine: list[tuple[str, str]] = field(default_factory=list)
    # CPU seconds of the executors (`time.process_time`): inside `replay_text`, and the whole task body
    # (reading, replaying, counting, the streams). Not part of the summary: run.json reports them.
    replay_cpu_seconds: float = 0.0
    task_cpu_seconds: float = 0.0

    def merge(self, other: Partial) -> None:
        self.replay_cpu_seconds += other.replay_cpu_seconds
        self.task_cpu_seconds += other.task_cpu_seconds
        for key, n in other.by_status.items():
            self.by_status[key] = self.by_status.get(key, 0) + n
        for key, n in other.verdicts.items():
            self.verdicts[key] = self.verdicts.get(key, 0) + n
        for node, counts in other.by_node.items():
            mine = self.by_node.setdefault(node, [0, 0, 0])
            for i, n in enumerate(counts):
                mine[i] += n
        for own, theirs in ((self.signatures, other.signatures), (self.unknown, other.unknown)):
            for key, group in theirs.items():
                if key in own:
                    own[key].merge(group)
                else:
                    own[key] = group
        self.quarantine.extend(other.quarantine)


VERDICT_INDEX = {"pass": 0, "fail": 1, "error": 2}
SPACES = re.compile(r"\s+", re.ASCII)  # Java's \s, as the JVM aggregation used


class PartialBuilder:
    """Counts one partition's rows as the executor yields them (one transcript at a time)."""

    def __init__(self) -> None:
        self.partial = Partial()
        self._invalid = re.compile(summ.invalid_input_regex())
        self._seen_signatures: set[str] = set()
        self._seen_unknown: set[str] = set()

    def commands(self, transcript: str, commands: Sequence[Any], verdicts: Sequence[str],
                 stored: Callable[[str | None], str | None]) -> None:
        """A transcript's commands (`CommandResult`s) and their verdicts (pass/fail/error); `stored(actual)`
        is an output as stored. Why one call per transcript: most commands parsed and passed, and cost
        only a verdict and a node count here."""
        p = self.partial
        verdict_counts = p.verdicts
        by_node = p.by_node
        for c, verdict in zip(commands, verdicts, strict=True):
            verdict_counts[verdict] = verdict_counts.get(verdict, 0) + 1
            node = c.node
            counts = by_node.get(node)
            if counts is None:
                counts = by_node[node] = [0, 0, 0]
            counts[VERDICT_INDEX[verdict]] += 1
            if c.signature or not node:
                self._divergent(transcript, c.line, stored(c.command) or "", node,
                                stored(c.actual) if not node else None, c.signature)

    def _divergent(self, transcript: str, line: int, command: str, node: str, actual: str | None,
                   signature: str) -> None:
        """A command with a signature or that did not parse: its signature group, its unknown command."""
        p = self.partial
        if signature:
            self._group(p.signatures, self._seen_signatures, signature, transcript, line, node)
        if node == "" and command.strip(" ") and (
                signature in summ.INVALID_SIGNATURES or (actual is not None and self._invalid.search(actual))):
            key = SPACES.sub(" ", command.strip(" "))
            self._group(p.unknown, self._seen_unknown, key, transcript, line, node)

    def transcript(self, name: str, status: str, reason: str | None) -> None:
        """The transcript's own row, after its commands: closes its distinct counts."""
        p = self.partial
        p.by_status[status] = p.by_status.get(status, 0) + 1
        if status == "quarantined":
            p.quarantine.append((name, reason or ""))
        self._seen_signatures.clear()
        self._seen_unknown.clear()

    @staticmethod
    def _group(groups: dict[str, Group], seen: set[str], key: str, transcript: str, line: int, node: str) -> None:
        group = groups.get(key)
        if group is None:
            groups[key] = Group(1, 1, {node}, (transcript, line))
        else:
            group.count += 1
            group.nodes.add(node)
            group.example = min(group.example, (transcript, line))
            if key not in seen:
                group.transcripts += 1
        seen.add(key)


def merge(partials: Iterable[Partial]) -> Partial:
    total = Partial()
    for p in partials:
        total.merge(p)
    return total


def summary_inputs(p: Partial) -> dict[str, Any]:
    """The aggregated lists `summary.build_summary` takes, each in its total order."""
    def example(g: Group) -> dict[str, Any]:
        return {"transcript": g.example[0], "line": g.example[1]}

    return {
        "transcripts": {"total": sum(p.by_status.values()), "passed": p.by_status.get("pass", 0),
                        "failed": p.by_status.get("fail", 0), "quarantined": p.by_status.get("quarantined", 0)},
        "verdicts": dict(p.verdicts),
        "by_node": [{"node": node, "pass": c[0], "fail": c[1], "error": c[2]} for node, c in sorted(p.by_node.items())],
        "by_signature": [
            {"signature": sig, "count": g.count, "transcripts": g.transcripts,
             "nodes": [n or summ.UNPARSED for n in sorted(g.nodes)], "example": example(g)}
            for sig, g in sorted(p.signatures.items(), key=lambda kv: (-kv[1].count, kv[0]))],
        "exercised": list(p.by_node),
        "unknown_commands": [
            {"command": cmd, "count": g.count, "transcripts": g.transcripts, "example": example(g)}
            for cmd, g in sorted(p.unknown.items(), key=lambda kv: (-kv[1].count, kv[0]))],
        "quarantine": [{"transcript": t, "reason": r} for t, r in sorted(p.quarantine)],
    }
