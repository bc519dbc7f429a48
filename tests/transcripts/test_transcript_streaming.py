"""Replay in bounded memory: a transcript checked whole, then made and replayed one step at a time.

`scan_transcript` + `ScannedTranscript.steps()` must give exactly what `parse_transcript` gives (the
text is split in chunks, so a step may cross a chunk boundary), and `run_text(on_step=...)` must
hand every step to its callback and keep nothing per command.
"""

from __future__ import annotations

import dataclasses
from pathlib import Path

import pytest

from solace_shell.transcript import format as transcript_format
from solace_shell.transcript.format import TranscriptError, parse_transcript, scan_transcript, split_raw
from solace_shell.transcript.replay import StepRun, replay_text, run_text

HOSTS = ["NY_Appliance1", "NJ_Appliance1", "lab"]
ROOT = Path(__file__).resolve().parents[2]

MIXED = (
    "#: strict-blank-lines: no\n"
    "#| a comment before the first input\n"
    "\n"
    "NY_Appliance1> enable\n"
    "NY_Appliance1# show hostname\n"
    "\n"
    "#| inside a block\n"
    "Hostname: NY_Appliance1  \r\n"
    "\n"
    "lab> advance 5s\n"
    "clock 00:00:\\d+\\.000 \\(\\+5s\\) drained 0 reconnected - (re)\n"
    "NJ_Appliance1> show hostname\n"
    "\n"
    "Hostname: [..]"
)


def _steps(text: str) -> list[tuple[object, ...]]:
    return [dataclasses.astuple(s) for s in parse_transcript(text, "t.cli.txt", hosts=HOSTS).steps]


@pytest.mark.parametrize("chunk", [1, 7, 64, 1 << 16])
def test_scanned_steps_equal_parsed_steps_across_chunk_sizes(monkeypatch: pytest.MonkeyPatch, chunk: int) -> None:
    expected = _steps(MIXED)
    monkeypatch.setattr(transcript_format, "_CHUNK", chunk)
    scanned = scan_transcript(MIXED, "t.cli.txt", hosts=HOSTS)
    assert [dataclasses.astuple(s) for s in scanned.steps()] == expected
    assert scanned.line_count == len(split_raw(MIXED))
    assert list(scanned.inputs) == [s[0] for s in expected]


def test_chunked_lines_are_the_raw_lines(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(transcript_format, "_CHUNK", 3)
    for text in ["", "\n", "a", "a\n", "a\n\nb", "a\r\n b \n\n", "x" * 10 + "\n" + "y" * 7]:
        assert list(transcript_format.iter_lines(text)) == [line.removesuffix("\n") for line in split_raw(text)]


@pytest.mark.parametrize("text", [
    "",
    "no prompt at all\n",
    "output first\nNY_Appliance1> enable\n",
    "NY_Appliance1> enable\n#: late header\n",
    "XX_Router(configure)# show x\n",
    "NY_Appliance1> enable\n(a)\\1 (re)\n",
    "\udcff\nNY_Appliance1> enable\n",
])
def test_every_problem_is_still_reported_with_its_line(text: str) -> None:
    with pytest.raises(TranscriptError) as parsed:
        parse_transcript(text, "t.cli.txt", hosts=HOSTS)
    with pytest.raises(TranscriptError) as scanned:
        scan_transcript(text, "t.cli.txt", hosts=HOSTS)
    assert str(scanned.value) == str(parsed.value) and parsed.value.problems


def test_streamed_replay_hands_over_every_step_and_keeps_nothing() -> None:
    text = (ROOT / "transcripts" / "failover-types" / "controlled.cli.txt").read_text(encoding="utf-8")
    kept = run_text(text, "t.cli.txt")
    seen: list[StepRun] = []
    streamed = run_text(text, "t.cli.txt", on_step=seen.append)
    assert streamed.result.error is None and kept.result.error is None
    assert streamed.steps == [] and streamed.result.commands == [] and streamed.transcript is None
    assert [dataclasses.replace(s.result, duration_ms=0.0) for s in seen] == \
        [dataclasses.replace(r, duration_ms=0.0) for r in kept.result.commands]
    assert [s.step for s in seen] == [s.step for s in kept.steps]
    assert streamed.counts == kept.counts == {"pass": len(seen), "fail": 0, "error": 0}
    assert streamed.header == kept.header
    assert all(s.strict_blank == kept.header.strict_blank_lines for s in seen)  # type: ignore[union-attr]


def test_replay_text_equals_the_kept_run_and_restores_the_collector() -> None:
    import gc

    text = (ROOT / "transcripts" / "failover-types" / "controlled.cli.txt").read_text(encoding="utf-8")
    before = gc.get_threshold()
    result = replay_text(text, "t.cli.txt")
    assert gc.get_threshold() == before
    kept = run_text(text, "t.cli.txt").result
    assert [dataclasses.replace(c, duration_ms=0.0) for c in result.commands] == \
        [dataclasses.replace(c, duration_ms=0.0) for c in kept.commands]


def test_a_switched_off_collector_stays_off() -> None:
    import gc

    before = gc.get_threshold()
    gc.set_threshold(0)
    try:
        seen: list[int] = []
        replay_text("NY_Appliance1> enable\n", "t.cli.txt", lab_factory=None)
        seen.append(gc.get_threshold()[0])
        assert seen == [0]
    finally:
        gc.set_threshold(*before)


def test_a_batch_paces_the_collector_once_and_restores_it() -> None:
    import gc

    from solace_shell.transcript.replay import paced_collection

    before = gc.get_threshold()
    text = "NY_Appliance1> show hostname\n\nHostname: NY_Appliance1\n"
    with paced_collection():
        paced = gc.get_threshold()
        assert paced[0] >= 5000 and paced[1] >= 100
        for _ in range(3):
            assert replay_text(text, "t.cli.txt").passed
            assert gc.get_threshold() == paced  # a transcript inside the batch leaves it paced
    assert gc.get_threshold() == before


# Every way a block can match or not: exact text, trailing blanks, a `(re)` line that matches and
# one that does not, `...`, `[..]`, a prompt mismatch, a differing number, a missing and an extra
# line, a comment inside a block, an empty block, a command that raises.
VERDICTS = (
    "NY_Appliance1> show hostname\n"
    "\n"
    "Hostname: NY_Appliance1\n"
    "NY_Appliance1> show hostname\n"
    "\n"
    "Hostname: NY_Appliance1 \t\r\n"
    "NY_Appliance1> show hostname\n"
    "\n"
    "Hostname: NY_\\w+ (re)\n"
    "NY_Appliance1> show hostname\n"
    "\n"
    "Hostname: NJ_\\w+ (re)\n"
    "NY_Appliance1> show hostname\n"
    "...\n"
    "NY_Appliance1> show hostname\n"
    "\n"
    "Hostname: [..]1\n"
    "NY_Appliance1# show hostname\n"
    "\n"
    "Hostname: NY_Appliance1\n"
    "NY_Appliance1> show hostname\n"
    "\n"
    "Hostname: NY_Appliance2\n"
    "#| a comment\n"
    "NY_Appliance1> show hostname\n"
    "\n"
    "NY_Appliance1> show hostname\n"
    "\n"
    "Hostname: NY_Appliance1\n"
    "more\n"
    "lab> advance 5s\n"
    "clock 00:00:05.000 (+5s) drained 0 reconnected -\n"
    "lab> echo a\\n\\nb\n"
    "a\n"
    "...\n"
    "lab> boom\n"
)


@pytest.mark.parametrize("header", ["", "#: strict-blank-lines: no\n"])
def test_replay_text_equals_the_kept_run_for_every_kind_of_difference(header: str) -> None:
    from tests.support.lab_patches import echo_and_boom

    with echo_and_boom():
        result = replay_text(header + VERDICTS, "t.cli.txt")
        kept = run_text(header + VERDICTS, "t.cli.txt").result
    assert result.error is None
    assert [dataclasses.replace(c, duration_ms=0.0) for c in result.commands] == \
        [dataclasses.replace(c, duration_ms=0.0) for c in kept.commands]
    assert {c.verdict for c in result.commands} == {"pass", "fail", "error"}
    assert len({c.signature for c in result.commands}) >= 5
