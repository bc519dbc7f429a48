"""Snapshot documents of runs (version 2) and of one record per message (version 1).

A lab file written before runs holds version 1 snapshots: records of messages, copies, stream
entries and deliveries without a ``count``. They must open as the same lab (count 1 each), in
memory and through a lab file, and a damaged count is one line."""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path
from typing import Any

import pytest

from state_store.errors import LabFileError
from state_store.lab_root.codec import CodecError, decode_state, encode_state, loads, state_text
from state_store.lab_store import LabStore
from state_store.tuning import StoreTuning
from tests.support.router_engine import router_engine

RUN_KINDS = ("messages", "spooled", "repl_entries", "deliveries")


def _as_version_1(doc: dict[str, Any]) -> dict[str, Any]:
    """The document as the program before runs wrote it (every run holds one message)."""
    doc = json.loads(json.dumps(doc))
    doc["version"] = 1
    assert not doc["records"].pop("settled")["rows"]  # newer than version 1: nothing folded yet
    for kind in RUN_KINDS:
        part = doc["records"][kind]
        assert part["fields"][-1] == "count" and all(row[-1] == 1 for row in part["rows"])
        part["fields"] = part["fields"][:-1]
        part["rows"] = [row[:-1] for row in part["rows"]]
    return doc


def _traffic(e: Any) -> None:
    for _ in range(3):
        router_engine(e).publish("trader", "trading/orders/new", count=1)
    router_engine(e).consume("settlement", "orders", 1)


def test_a_version_1_document_reads_as_the_same_lab() -> None:
    lab = LabStore.in_memory()
    lab.run(_traffic)
    doc = encode_state(lab.state)
    assert doc["version"] == 3 and all(doc["records"][k]["rows"] for k in RUN_KINDS)
    again = decode_state(_as_version_1(doc))
    assert loads(state_text(again)) == loads(state_text(lab.state))
    lab.close()


def test_a_count_below_one_is_refused_in_one_line() -> None:
    lab = LabStore.in_memory()
    lab.run(_traffic)
    doc = json.loads(state_text(lab.state))
    doc["records"]["spooled"]["rows"][0][-1] = 0
    with pytest.raises(CodecError, match=r"^spooled row 0: count must be at least 1, not 0$"):
        decode_state(doc)
    lab.close()


def test_a_lab_file_with_a_version_1_snapshot_opens(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    p = tmp_path / "lab.sqlite"
    tuning = StoreTuning(snapshot_every=1)
    lab = LabStore.open(p, tuning=tuning)
    lab.run(_traffic)
    lab.run(lambda e: e.advance(10))  # a snapshot row holds everything
    expected = lab.dump()
    lab.close()
    con = sqlite3.connect(p)
    seq, body = con.execute("SELECT seq, body FROM journal WHERE kind = 'snapshot'").fetchone()
    old = json.dumps(_as_version_1(json.loads(body)), separators=(",", ":"))
    con.execute("UPDATE journal SET body = ? WHERE seq = ?", (old, seq))
    con.commit()
    con.close()
    reopened = LabStore.open(p, tuning=tuning)
    assert reopened.dump() == expected
    reopened.run(lambda e: router_engine(e).publish("trader", "trading/orders/new", count=5))  # and it goes on
    assert reopened.run(
        lambda e: router_engine(e).queue_detail("NY_Appliance1", "Trading_VPN", "orders").messages_spooled) == 7
    reopened.close()


def test_a_newer_snapshot_version_is_one_line(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    p = tmp_path / "lab.sqlite"
    tuning = StoreTuning(snapshot_every=1)
    lab = LabStore.open(p, tuning=tuning)
    lab.run(lambda e: e.advance(10))
    lab.close()
    con = sqlite3.connect(p)
    seq, body = con.execute("SELECT seq, body FROM journal WHERE kind = 'snapshot'").fetchone()
    doc = json.loads(body)
    doc["version"] = 4
    con.execute("UPDATE journal SET body = ? WHERE seq = ?", (json.dumps(doc), seq))
    con.commit()
    con.close()
    with pytest.raises(LabFileError) as ei:
        LabStore.open(p, tuning=tuning)
    assert "lab state version 4, this program reads 1, 2 and 3" in ei.value.problem
