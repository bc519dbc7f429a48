"""Generated controlled-failover drills follow the `controlled-failover` runbook step by step, and each
operator mistake changes exactly the step it names (planned, and as recorded from the engine)."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from solace_shell.transcript.replay import replay_file
from spark_jobs.drills import COMMENT, LAB, MISTAKE_TEXT, MISTAKES, SITES, Drill, plan_drills
from spark_jobs.generate import record_drill

NY, NJ = SITES["NY"], SITES["NJ"]
STANDBY = (NY, "replication state standby")
ACTIVATE = (NJ, "replication state active")
BRIDGE = "show message-vpn Trading_VPN replication"
DRAIN = "show queue #MSGVPN_REPLICATION_DATA_QUEUE message-vpn Trading_VPN"


def _controlled(mistake: str | None, transaction: str | None = None, count: int = 400) -> list[Drill]:
    drills = [d for d in plan_drills(count, 21) if d.kind == "controlled" and d.mistake == mistake
              and (transaction is None or d.transaction == transaction)]
    assert drills, (mistake, transaction)
    return drills


def _at(cmds: list[tuple[str, str]], step: tuple[str, str]) -> int:
    return cmds.index(step)


def _xid(d: Drill) -> str:
    return next(c.split()[4] for t, c in d.commands() if c.startswith("transaction xa start "))


def test_a_clean_controlled_drill_performs_every_step_in_order():
    for d in _controlled(None):
        cmds = d.commands()
        standby, activate = _at(cmds, STANDBY), _at(cmds, ACTIVATE)
        assert standby < activate
        before = cmds[:standby]
        assert (NY, BRIDGE) in before and (NJ, BRIDGE) in before, "step 1 on both sites"
        assert (NY, DRAIN) not in before, "the drain check is after the standby switch, not before"
        between = cmds[standby:activate]
        assert [c for c in between if c == (NY, DRAIN)] == [(NY, DRAIN)] * 2, "step 3: checked, waited, checked"
        assert any(t == LAB and c.startswith("advance ") for t, c in between)
        heuristics = [(t, c) for t, c in cmds if re.fullmatch(r"(commit|rollback|delete)-transaction xid \S+", c)]
        if d.transaction == "xa":
            xid = _xid(d)
            decided = next(c for t, c in heuristics if not c.startswith("delete"))
            assert heuristics == [(NY, decided), (NY, f"delete-transaction xid {xid}")], "only on NY"
            assert standby < cmds.index((NY, decided)) < activate, "step 4 between the switch and activation"
            assert cmds.index((NY, f"delete-transaction xid {xid}")) > activate, "step 6 after activation"
            action = decided.split("-")[0]
            manager = next(i for i, (t, c) in enumerate(cmds) if t == LAB and c.startswith(f"transaction xa {action} "))
            assert activate < manager < cmds.index((NY, f"delete-transaction xid {xid}"))
        else:
            assert heuristics == []
        assert d.steps[1] == (COMMENT, "runbook: controlled-failover; every step, in order")


def test_skip_drain_check_leaves_out_only_the_check_after_the_standby():
    for d in _controlled("skip-drain-check"):
        cmds = d.commands()
        standby, activate = _at(cmds, STANDBY), _at(cmds, ACTIVATE)
        assert standby < activate
        assert (NY, DRAIN) not in cmds[standby:activate]
        assert not any(t == LAB and c.startswith("advance ") for t, c in cmds[standby:activate])
        assert (NY, BRIDGE) in cmds[:standby] and (NJ, BRIDGE) in cmds[:standby]


def test_promote_before_demote_activates_the_mate_first_and_keeps_the_other_steps():
    for d in _controlled("promote-before-demote"):
        cmds = d.commands()
        standby, activate = _at(cmds, STANDBY), _at(cmds, ACTIVATE)
        assert activate < standby
        assert (NY, BRIDGE) in cmds[:activate] and (NJ, BRIDGE) in cmds[:activate]
        assert [c for c in cmds[standby:] if c == (NY, DRAIN)] == [(NY, DRAIN)] * 2


def test_a_failback_switches_home_by_the_failback_runbook():
    """After NY returns as standby: the bridge seen on both sites, NJ to standby, NJ's replication queue
    checked (twice, with a wait) before NY is made active; `skip-drain-check` leaves out that check."""
    home = (NY, "replication state active")
    for d in plan_drills(300, 21):
        if d.kind != "failback" or d.mistake == "activate-returning-site":
            continue
        cmds = d.commands()
        restore = cmds.index((LAB, "restore site NY"))
        nj_standby, ny_active = _at(cmds[restore:], (NJ, "replication state standby")), _at(cmds[restore:], home)
        before, between = cmds[restore:][:nj_standby], cmds[restore:][nj_standby:ny_active]
        assert (NY, BRIDGE) in before and (NJ, BRIDGE) in before
        drains = [c for c in between if c == (NJ, "show queue #MSGVPN_REPLICATION_DATA_QUEUE message-vpn Trading_VPN")]
        assert len(drains) == (0 if d.mistake == "skip-drain-check" else 2), d.name
        assert d.steps[1][1].startswith("runbook: failback; ")


@pytest.mark.parametrize("mistake", MISTAKES["controlled"])
def test_every_deviation_is_labelled_in_the_name_and_the_header(mistake):
    for d in _controlled(mistake, count=300):
        assert d.name.endswith(f"_{mistake}")
        assert d.steps[0] == (COMMENT, f"controlled failover drill (seed 21, #{d.index}); operator mistake: {mistake}")
        assert d.steps[1] == (COMMENT, f"runbook: controlled-failover; deviation: {MISTAKE_TEXT[mistake]}")


def _audit(path: Path) -> list[str]:
    lines = path.read_text().splitlines()
    start = max(i for i, line in enumerate(lines) if line.startswith("lab> audit"))
    return lines[start + 1:]


def _spooled_before_activation(path: Path) -> list[int]:
    text = path.read_text()
    head = text[:text.index("NJ_Appliance1(configure/message-vpn)# replication state active")]
    return [int(n) for n in re.findall(r"Current Messages Spooled\s+: (\d+)", head)]


def test_recorded_clean_drills_replay_and_their_audits_are_clean(tmp_path):
    """Recorded from the engine: the drain check sees the queue empty before the mate is activated,
    the XA branch is resolved and deleted, and the audit finds nothing lost, duplicated or left over."""
    drills = _controlled(None, "xa")[:3] + _controlled(None)[:3]
    for d in drills:
        path = tmp_path / f"{d.name}.cli.txt"
        record_drill(d, path)
        result = replay_file(path)
        assert result.error is None and result.passed, d.name
        assert _spooled_before_activation(path)[-1] == 0, d.name
        audit = _audit(path)
        assert re.match(r"published \d+ delivered \d+ duplicated 0 lost 0 ", audit[0]), (d.name, audit)
        assert not [line for line in audit if line.startswith(("xid ", "warning"))], (d.name, audit)


def test_recorded_skip_drain_check_activates_before_the_queue_is_seen_empty(tmp_path):
    d = _controlled("skip-drain-check")[0]
    path = tmp_path / f"{d.name}.cli.txt"
    record_drill(d, path)
    assert replay_file(path).passed
    text = path.read_text()
    standby = text.index("NY_Appliance1(configure/message-vpn)# replication state standby")
    activate = text.index("NJ_Appliance1(configure/message-vpn)# replication state active")
    assert "Current Messages Spooled" not in text[standby:activate]


def test_the_grader_passes_clean_drills_and_fails_each_mistake_at_its_step(tmp_path):
    """The done-criterion on a small sample (bench/check_drill_grades.py runs it on 1,000 drills):
    clean drills pass `controlled-failover`, each mistake of RUNBOOK_FAILURES fails at one of its steps,
    and the corrected typos are no failure."""
    from solace_shell.grading import grade_transcript, load_runbook
    from spark_jobs.drills import RUNBOOK_FAILURES, RUNBOOKS

    sample = [*_controlled(None, "xa")[:2], *_controlled(None, "local")[:1], *_controlled(None)[:2]]
    for mistake in (*RUNBOOK_FAILURES, "vpn-typo", "forgot-enable"):
        sample += _controlled(mistake)[:2]
    failbacks = [d for d in plan_drills(200, 21) if d.kind == "failback"]
    sample += [d for d in failbacks if d.mistake is None][:2]
    sample += [d for d in failbacks if d.mistake == "skip-drain-check"][:1]
    for d in sample:
        path = tmp_path / f"{d.name}.cli.txt"
        record_drill(d, path)
        grade = grade_transcript(load_runbook(RUNBOOKS[d.kind]), path)
        expected = RUNBOOK_FAILURES.get(d.mistake or "")
        if expected is None and d.kind == "failback":  # what the failover before it cost is in the audit
            assert set(grade.failed_steps) <= {"outcome"}, (d.name, grade.verdict)
        elif expected is None:
            assert grade.passed and grade.failed_steps == (), (d.name, grade.verdict)
        else:
            assert not grade.passed and set(expected) & set(grade.failed_steps), (d.name, grade.verdict)
