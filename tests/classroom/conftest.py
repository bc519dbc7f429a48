"""A small class: two solo trainees, a team of two, one trainer."""

from __future__ import annotations

from pathlib import Path

import pytest

from solace_shell.classroom.class_file import ClassFile, load_class_file
from solace_shell.classroom.room import ClassRoom

CLASS_YAML = """\
scenario: default
runbook: controlled-failover
trainers:
  - {name: trainer, password: trainer-pw}
trainees:
  - {name: alice, password: alice-pw}
  - {name: bob, password: bob-pw}
  - {name: carol, password: carol-pw, team: blue}
  - {name: dave, password: dave-pw, team: blue}
"""

# README's "A first drill" with the runbook's two checks: a passing controlled failover
DRILL = """\
lab> publish trader trading/orders/new count 10
NY_Appliance1> show message-vpn Trading_VPN replication
NJ_Appliance1> show message-vpn Trading_VPN replication
NY_Appliance1> enable
NY_Appliance1# configure
NY_Appliance1(configure)# message-vpn Trading_VPN
NY_Appliance1(configure/message-vpn)# replication state standby
lab> advance 5s
NY_Appliance1(configure/message-vpn)# show queue #MSGVPN_REPLICATION_DATA_QUEUE message-vpn Trading_VPN
NJ_Appliance1> enable
NJ_Appliance1# configure
NJ_Appliance1(configure)# message-vpn Trading_VPN
NJ_Appliance1(configure/message-vpn)# replication state active
lab> advance 1s
lab> consume settlement orders count 100
lab> advance 1s
lab> audit
"""


def drill_lines() -> list[tuple[str, str]]:
    """(target, line) of each line of DRILL."""
    out = []
    for text in DRILL.splitlines():
        prompt, line = text.split(" ", 1)
        out.append((prompt.split("(")[0].rstrip(">#"), line))
    return out


@pytest.fixture()
def class_path(tmp_path: Path) -> Path:
    path = tmp_path / "course.yaml"
    path.write_text(CLASS_YAML)
    return path


@pytest.fixture()
def class_file(class_path: Path) -> ClassFile:
    return load_class_file(class_path)


@pytest.fixture()
def room(class_file: ClassFile, tmp_path: Path) -> ClassRoom:
    found = ClassRoom(class_file, tmp_path / "course.class")
    yield found
    found.close()
