"""Where a graded session starts from: a session keeps the lab's position at its first line (the
store's last image and a count of the calls since, shared), not a copy of the state, so opening
many sessions on a big lab costs little; `grade` builds the start again and grades exactly as a
copy of the state taken at that moment would."""

from __future__ import annotations

import gc
import threading
import tracemalloc
from collections.abc import Iterator
from pathlib import Path
from typing import TYPE_CHECKING

import pytest

from solace_shell.grading import load_runbook
from solace_shell.grading.results import TranscriptGrade
from solace_shell.grading.transcript import grade_session
from solace_shell.lab import Lab
from solace_shell.session_log import SessionLog
from solace_shell.ssh.store import SerializedStore
from solace_shell.transcript.format import scan_transcript
from state_store.images import Image
from state_store.lab_store import LabStore
from state_store.scenario_files import ROOT_DIR
from state_store.solace.engine import Engine
from state_store.tuning import StoreTuning
from tests.support.router_engine import router_engine

if TYPE_CHECKING:
    from state_store.lab_root.model import RootStore

ROOT = Path(__file__).resolve().parents[2]
DATA = ROOT / "tests" / "data" / "grading"
QUEUES = 10_000
SESSIONS = 40
SESSION_BYTES = 200 * 1024   # a loose bound: what a session's Lab and its first line cost, no state


def _type(lab: Lab, transcript: Path) -> None:
    text = transcript.read_text(encoding="utf-8")
    for step in scan_transcript(text, transcript.name, hosts=lab.targets()).steps():
        lab.execute(step.host, step.command)


def _make_queues(engine: Engine) -> None:
    for i in range(QUEUES):
        router_engine(engine).create_queue("NY_Appliance1", "Trading_VPN", f"bulk{i:05d}")


@pytest.fixture()
def big_store() -> Iterator[RootStore]:
    store: RootStore = LabStore.in_memory()
    store.run(_make_queues)
    yield store
    store.close()


def test_many_sessions_on_a_big_lab_keep_no_copy_of_its_state(big_store: RootStore) -> None:
    Lab(big_store, "operator").execute("NY_Appliance1", "show hostname")   # first-use caches, not counted
    labs: list[Lab] = []
    gc.collect()
    tracemalloc.start()
    try:
        before = tracemalloc.get_traced_memory()[0]
        for i in range(SESSIONS):
            lab = Lab(big_store, ("admin", "operator")[i % 2])
            assert lab.execute("NY_Appliance1", "show hostname").ok
            labs.append(lab)
        gc.collect()
        per_session = (tracemalloc.get_traced_memory()[0] - before) / SESSIONS
    finally:
        tracemalloc.stop()
    assert per_session < SESSION_BYTES, f"{per_session / 1024:.0f} KB a session"
    # ... and each of them still grades from the big lab it started on
    at_start = big_store.dump()
    trainee = labs[1]
    _type(trainee, DATA / "clean.cli.txt")
    shown = trainee.execute("lab", "grade").text.splitlines()[0]
    assert shown == "this session: pass (score 1.00, runbook controlled-failover)"
    start = labs[0].session_log.start
    assert start is not None
    rebuilt = start()
    try:
        assert rebuilt.store.dump() == at_start and f"bulk{QUEUES - 1:05d}" in at_start
    finally:
        rebuilt.close()
    for lab in labs:
        lab.close()


def _reference_start(lab: Lab) -> SessionLog:
    """The log of `lab`'s session as grading kept it before: a whole copy of the state, taken
    where the session starts (its lines are filled in by the caller)."""
    kept = lab.store.copy()
    user = lab.user.name
    return SessionLog(start=lambda: Lab(kept.copy(), user=user))


def _both_grades(tmp_path: Path, transcript: Path, runbook: str, scenario: Path | None) -> tuple[TranscriptGrade,
                                                                                                TranscriptGrade]:
    """A trainee's session on a lab file another shell wrote to first (calls rows and snapshots),
    graded from its position and from a copy of the state taken at the same moment."""
    path = tmp_path / "class.lab"
    tuning = StoreTuning(snapshot_every=2)
    other = Lab.open(path, scenario=scenario, tuning=tuning)
    trainee = Lab.open(path, scenario=scenario, tuning=tuning)
    try:
        for line in ("advance 1s", "advance 2s", "advance 1s"):
            assert other.execute("lab", line).ok
        reference = _reference_start(trainee)
        _type(trainee, transcript)
        other.execute("lab", "advance 5s")      # another shell's line meanwhile: in neither grade
        reference.lines.extend(trainee.session_log.lines)
        graded = load_runbook(runbook)
        return grade_session(graded, trainee.session_log), grade_session(graded, reference)
    finally:
        other.close()
        trainee.close()


@pytest.mark.parametrize("name", ["clean", "skip-drain-check", "wrong-router", "forbidden-heuristic",
                                  "promote-before-demote", "typo-corrected"])
def test_a_session_grades_from_its_position_as_from_a_copy(tmp_path: Path, name: str) -> None:
    kept, copied = _both_grades(tmp_path, DATA / f"{name}.cli.txt", "controlled-failover", None)
    assert kept == copied


def test_a_system_session_grades_from_its_position_as_from_a_copy(tmp_path: Path) -> None:
    kept, copied = _both_grades(tmp_path, DATA / "swiftmq-kill-before-swap.cli.txt",
                                "swiftmq-preferred-active-return", ROOT_DIR / "swiftmq-ha.yaml")
    assert kept == copied and not kept.passed


def test_a_session_started_before_a_reset_grades_from_where_it_started() -> None:
    store: RootStore = LabStore.in_memory()
    trainer, trainee = Lab(store, "admin"), Lab(store, "operator")
    try:
        assert trainer.execute("lab", "publish trader trading/orders/new count 3").ok
        at_start = store.dump()
        assert trainee.execute("NY_Appliance1", "show hostname").ok
        assert trainer.execute("lab", "reset").ok     # a new image: the trainee's start is the old one
        assert trainer.execute("lab", "advance 1s").ok
        start = trainee.session_log.start
        assert start is not None
        rebuilt = start()
        try:
            assert rebuilt.store.dump() == at_start != store.dump()
        finally:
            rebuilt.close()
    finally:
        trainer.close()
        trainee.close()


def test_a_start_that_cannot_be_kept_is_one_line_from_grade(monkeypatch: pytest.MonkeyPatch) -> None:
    lab = Lab.fresh()
    lab.session_log.start = None                  # as a session on a shared store starts

    def refuse(self: object) -> None:
        raise OSError("no room")
    monkeypatch.setattr(LabStore, "start_point", refuse)
    try:
        assert lab.execute("NY_Appliance1", "show hostname").ok    # the line itself runs
        shown = lab.execute("lab", "grade")
        assert not shown.ok and shown.text == ("ERROR: This session cannot be graded: the state the session "
                                               "started from could not be kept (OSError)")
    finally:
        lab.close()


def test_a_start_that_cannot_be_rebuilt_is_one_line_from_grade(monkeypatch: pytest.MonkeyPatch) -> None:
    store: RootStore = LabStore.in_memory()
    lab = Lab(store, "admin")
    try:
        _type(lab, DATA / "clean.cli.txt")

        def short_of_memory(self: Image) -> None:
            raise MemoryError()
        monkeypatch.setattr(Image, "load", short_of_memory)
        shown = lab.execute("lab", "grade")
        assert not shown.ok and shown.text == ("ERROR: This session cannot be graded: the state the session "
                                               "started from could not be rebuilt (MemoryError)")
        monkeypatch.undo()
        assert lab.execute("lab", "grade").text.startswith("this session: pass")
    finally:
        lab.close()


def test_a_lab_built_at_a_position_rolls_a_failed_command_back_to_it(big_store: RootStore) -> None:
    point = big_store.start_point()
    big_store.run(lambda engine: router_engine(engine).create_queue("NY_Appliance1", "Trading_VPN", "later"))
    built: RootStore = LabStore.at(point)
    try:
        at_point = built.dump()
        assert "'later'" not in at_point and f"bulk{QUEUES - 1:05d}" in at_point

        def fails(engine: Engine) -> None:
            router_engine(engine).create_queue("NY_Appliance1", "Trading_VPN", "doomed")
            raise RuntimeError("a failure after a change")
        with pytest.raises(RuntimeError):
            built.run(fails)
        assert built.dump() == at_point
    finally:
        built.close()


def test_sessions_that_start_while_another_writes_on_a_served_store_start_on_whole_commands(
        tmp_path: Path) -> None:
    store = SerializedStore.open(tmp_path / "class.lab")
    writer, trainer = Lab(store, "admin"), Lab(store, "admin")
    trainees = [Lab(store, "operator") for _ in range(8)]

    def publish() -> None:
        for _ in range(30):
            assert writer.execute("lab", "publish trader trading/orders/new count 10").ok

    threads = [threading.Thread(target=publish),
               *(threading.Thread(target=lab.execute, args=("NY_Appliance1", "show hostname")) for lab in trainees)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=120)
    try:
        assert not any(thread.is_alive() for thread in threads)
        for lab in trainees:
            start = lab.session_log.start
            assert start is not None
            rebuilt = start()
            try:
                published = int(rebuilt.execute("lab", "audit").text.split()[1])
            finally:
                rebuilt.close()
            assert published % 10 == 0 and 0 <= published <= 300
        rows = trainer.execute("lab", "progress").text.splitlines()[2:]
        assert [row.split()[:2] for row in rows][-8:] == [["operator", "1"]] * 8
        assert all(row.split()[2] == "fail" for row in rows[-8:])
    finally:
        writer.close()
