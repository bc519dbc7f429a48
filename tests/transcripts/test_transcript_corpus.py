"""The golden transcript corpus (transcripts/**/*.cli.txt, docs/corpus.md): every drill replays
green against a fresh lab, replays deterministically, and every show object of the grammar is
exercised by at least one drill (a new show command needs a drill)."""

from __future__ import annotations

import re
from functools import cache
from pathlib import Path

import pytest

from solace_shell.lab import shell_grammar
from solace_shell.transcript.replay import replay_file

ROOT = Path(__file__).resolve().parents[2]
CORPUS = ROOT / "transcripts"
FILES = sorted(CORPUS.rglob("*.cli.txt"))
IDS = [str(p.relative_to(CORPUS)) for p in FILES]


@cache
def _replay(path: Path):
    return replay_file(path)


def _failures(result) -> list[str]:
    if result.error:
        return [result.error]
    return [f"{c.transcript}:{c.line}: {c.prompt} {c.command} [{c.verdict} {c.signature}]\n"
            f"--- expected\n{c.expected}\n--- actual\n{c.actual}"
            for c in result.commands if c.verdict != "pass"]


def test_corpus_is_not_empty():
    assert len(FILES) >= 20
    for d in ("seed000", "failover-types", "mistakes", "shows", "errors", "scripts"):
        assert any(p.parent.name == d for p in FILES), d


@pytest.mark.parametrize("path", FILES, ids=IDS)
def test_transcript_replays_green(path: Path):
    result = _replay(path)
    assert result.commands, f"{path}: no commands"
    assert not _failures(result), "\n".join(_failures(result))


# A password hash: its salt is random (state_store.passwords), the one thing that may differ
_HASH = re.compile(r"\$scrypt\$[^\"\s]+")


@pytest.mark.parametrize("path", FILES, ids=IDS)
def test_transcript_replay_is_deterministic(path: Path):
    def strip(result):
        return (result.error, [{k: _HASH.sub("<hash>", v) if isinstance(v, str) else v
                                for k, v in c.to_dict().items() if k != "duration_ms"}
                               for c in result.commands])
    assert strip(replay_file(path)) == strip(replay_file(path))


def test_every_show_node_has_a_drill():
    show_nodes = {c.node for c in shell_grammar().by_mode["show"] if c.handler.startswith("show.")}
    assert show_nodes
    used = {c.node for p in FILES for c in _replay(p).commands if c.verdict == "pass"}
    missing = sorted(show_nodes - used)
    assert not missing, "show commands without a corpus drill (add one under transcripts/shows/): " + ", ".join(missing)
