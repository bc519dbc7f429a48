"""Replay doubles for tests and demos of the Spark jobs.

`replay_with_fake_lab` is the real transcript replay (`solace_shell.transcript.replay`: format
parser, matchers, signatures) driving the transcript layer's `FakeLab` instead of the emulator, so the
pipeline can be tested against fixed, known output while the emulator keeps changing. Select it with
`--replay spark_jobs.testing:replay_with_fake_lab --grammar-nodes spark_jobs.testing:FAKE_LAB_NODES`.
"""

from __future__ import annotations

from pathlib import Path

from solace_shell.transcript.results import TranscriptResult

# The node ids FakeLab reports, plus one it never reaches (so coverage has something untouched).
FAKE_LAB_NODES = (
    "configure", "configure.message_vpn", "configure.message_vpn.replication", "configure.state_set", "echo", "end",
    "enable", "exit", "lab.advance", "lab.status", "show.clock", "show.state", "show.version", "lab.audit",
)


def replay_with_fake_lab(text: str, name: str, *, base_dir: Path | None = None) -> TranscriptResult:
    from solace_shell.transcript.fake_lab import FakeLab  # noqa: PLC0415
    from solace_shell.transcript.replay import replay_text  # noqa: PLC0415

    return replay_text(text, name, lab_factory=FakeLab, base_dir=base_dir)
