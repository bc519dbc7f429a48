"""Every CLI personality writes a shared lab file beside another shell without a write conflict
reaching its user: each runs on the shared execute loop (personalities/base.py), whose store
command catches up and runs again when the other shell wrote first."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from solace_shell.lab import Lab
from state_store.scenario_files import DEFAULT_SCENARIO, ROOT_DIR

COUNT = 60
SWIFTMQ = ROOT_DIR / "swiftmq-ha.yaml"
QPID = ROOT_DIR / "qpid-ha.yaml"
PREPARE = {SWIFTMQ: (("lab", "ha start ha1.A"), ("lab", "ha start ha1.B"), ("lab", "advance 5s")),
           QPID: (("qpid", "qpid-ha --cluster-manager promote"), ("lab", "advance 3s"), ("lab", "amqp connect s b1"))}
GEODE = ROOT_DIR / "geode-ha.yaml"
# personality -> (scenario, its writer: target, line, setup; the other shell's writer)
CASES = {
    "router-cli": (DEFAULT_SCENARIO,
                   ("NJ_Appliance1", "reject-msg-when-sync-ineligible",
                    ("enable", "configure", "message-vpn Trading_VPN", "replication")),
                   ("lab", "publish trader trading/orders/{i} count 3", ())),
    "swiftmq-admin-cli": (SWIFTMQ,
                          ("swiftmq", "set negotiation-timeout 1{i:04d}", ("sr ha1", "cc sys$hacontroller")),
                          ("lab", "jms publish c1 q1 count 5", ())),
    "qpid-broker-shell": (QPID,
                          ("qpid", "qpid-config add queue qn{i} --replicate configuration", ()),
                          ("lab", "amqp publish s q1 count 5", ())),
    "gfsh": (GEODE,
             ("geode", "alter runtime --message-sync-interval=1{i:02d}", ()),
             ("lab", "geode put p1 r1 count 5", ())),
    "lab-console": (SWIFTMQ,
                    ("lab", "jms publish c2 q2 count 2", ()),
                    ("lab", "jms publish c1 q1 count 5", ())),
}


def child(path: Path, target: str, line: str, setup: tuple[str, ...]) -> subprocess.Popen[str]:
    return subprocess.Popen([sys.executable, "-m", "tests.support.personality_child", str(path), target, str(COUNT),
                             line, *setup], stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                            text=True, cwd=Path(__file__).resolve().parents[2])


@pytest.mark.parametrize("personality", sorted(CASES))
def test_two_processes_write_one_lab_file_and_no_conflict_reaches_the_user(tmp_path: Path,
                                                                         personality: str) -> None:
    scenario, mine, other = CASES[personality]
    path = tmp_path / "lab.sqlite"
    lab = Lab.open(path, scenario=scenario)
    try:
        for target, line in PREPARE.get(scenario, ()):
            assert lab.execute(target, line).ok
    finally:
        lab.close()
    target, line, setup = mine
    procs = [child(path, target, line, setup), child(path, *other)]
    for p in procs:
        assert p.stdout is not None and p.stdout.readline().strip() == "ready", p.communicate()
    for p in procs:
        assert p.stdin is not None
        p.stdin.write("go\n")
        p.stdin.flush()
    outputs = [p.communicate(timeout=600) for p in procs]
    for p, (out, err) in zip(procs, outputs, strict=True):
        assert p.returncode == 0, err[-2000:]
        failed = [x for x in out.splitlines() if not x.startswith("ok ")]
        assert failed == [], failed[:3]
        assert out.count("ok ") == COUNT
