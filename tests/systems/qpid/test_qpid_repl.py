"""The Qpid broker shell in the REPL: `qpid:root@<host>` prompts in recordings, `?` as a plain
character (`echo $?`), F2 to the lab console and back, `logout` at the end of input."""

from __future__ import annotations

from solace_shell.lab import Lab
from state_store.scenario_files import ROOT_DIR
from tests.support.repl_driver import ListRecorder, drive

F2 = "\x1bOQ"


def test_the_broker_shell_in_the_repl() -> None:
    lab = Lab.fresh(ROOT_DIR / "qpid-ha.yaml")
    try:
        assert lab.start_target() == "qpid"
        recorder = ListRecorder()
        code, out = drive(lab, "qpid-ha promote\recho $?\r" + F2 + "qpid state\rqpid cli\rssh b2\rqpid-ha ping\r",
                          start="qpid", recorder=recorder)
        assert code == 0
        assert [r[:2] for r in recorder.records] == [
            ("qpid:root@b1>", "qpid-ha promote"), ("qpid:root@b1>", "echo $?"), ("lab>", "qpid state"),
            ("lab>", "qpid cli"), ("qpid:root@b1>", "ssh b2"), ("qpid:root@b2>", "qpid-ha ping")]
        assert recorder.records[1][2] == "1"
        assert out.rstrip("\n").endswith("logout")
    finally:
        lab.close()
