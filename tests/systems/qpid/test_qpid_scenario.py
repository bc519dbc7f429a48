"""The scenario's `qpid` section: every option with its documented default, strict checking with
every problem at file:line, and nothing built from a refused file."""

from __future__ import annotations

from pathlib import Path

import pytest

from solace_shell.lab import Lab
from state_store.errors import ScenarioError
from state_store.qpid.params import QpidParams
from state_store.scenario_files import ROOT_DIR
from state_store.scenario_schema import load_scenario

BAD = """sites: []
qpid:
  clusters:
    - name: c1
      brokers: [b1, b2, b1]
      ha_replicate: sometimes
      ha_backup_timeout_ms: 0
      manager: maybe
      start: [b4]
      link_heartbeat_interval_ms: -5
      queues: [{name: q1}, {name: q1, replicate: all}]
      clients: [{name: s, hosts: [b9]}]
      bogus: 1
"""


def test_defaults_are_the_documented_ones() -> None:
    p = QpidParams()
    assert (p.ha_cluster, p.ha_queue_replication, p.ha_replicate, p.ha_backup_timeout_ms, p.ha_flow_messages,
            p.ha_flow_bytes, p.link_maintenance_interval_ms, p.link_heartbeat_interval_ms, p.client_heartbeat_ms,
            p.manager) == (False, False, "none", 10000, 1000, 0, 2000, 120000, 0, "off")


def test_every_problem_of_the_section_is_reported_at_its_line(tmp_path: Path) -> None:
    path = tmp_path / "bad.yaml"
    path.write_text(BAD, encoding="utf-8")
    with pytest.raises(ScenarioError) as err:
        load_scenario(path)
    problems = "\n".join(err.value.problems)
    for line, words in ((5, "b1"), (6, "ha_replicate"), (7, "ha_backup_timeout_ms"), (8, "manager"),
                        (9, "b4"), (10, "link_heartbeat_interval_ms"), (11, "q1"), (12, "b9"), (13, "bogus")):
        assert any(p.startswith(f"{path}:{line}:") and words in p for p in err.value.problems), (line, problems)


def test_the_bundled_lab_holds_three_joining_brokers() -> None:
    lab = Lab.fresh(ROOT_DIR / "qpid-ha.yaml")
    try:
        assert lab.systems() == ["qpid"]
        out = lab.execute("qpid", "qpid-ha status --all")
        assert out.text.splitlines() == ["b1:5672 joining", "b2:5672 joining", "b3:5672 joining"]
    finally:
        lab.close()


def test_a_virtual_ip_must_not_reuse_a_name_and_may_be_a_client_host(tmp_path: Path) -> None:
    text = ("sites: []\nqpid:\n  clusters:\n    - name: c1\n      brokers: [b1, b2]\n      vip: b2\n"
            "      clients: [{name: s, hosts: [b2]}]\n")
    path = tmp_path / "vip.yaml"
    path.write_text(text, encoding="utf-8")
    with pytest.raises(ScenarioError) as err:
        load_scenario(path)
    assert [p for p in err.value.problems if "vip '" in p] == [
        f"{path}:6: qpid cluster 'c1': vip 'b2': name already used"]
