"""The redundancy shows byte for byte against their captures (trailing blanks included, which
the transcript corpus does not compare): `show redundancy` (C01 on the primary, C02 on the
backup), `show redundancy detail` (C05, paged as the capture's 32-line terminal paged it),
`show redundancy group` (C04, C08, and C05's wrapped addresses with an offline monitor); and the
refusals of the redundancy levels, one line each, nothing changed."""

from __future__ import annotations

from datetime import datetime, timezone
from pathlib import Path

import pytest

from solace_shell.lab import Lab
from solace_shell.paging import MORE_PROMPT, split_pages
from solace_shell.personalities.solace.handlers.redundancy import RedundancyShow
from solace_shell.personalities.solace.renderers.clock import LAB_EPOCH
from solace_shell.personalities.solace.renderers.redundancy import redundancy_show
from state_store.solace.redundancy import RedundancyView, VirtualRouterView
from tests.support.router_engine import router_engine

ROOT = Path(__file__).resolve().parents[2]
SCENARIOS = ROOT / "transcripts" / "scenarios"
C05_DETAIL = (ROOT / "tests" / "data" / "c05-show-redundancy-detail.txt").read_text()

C01 = """\
Configuration Status     : Enabled
Redundancy Status        : Up
Operating Mode           : Message Routing Node
Switchover Mechanism     : Hostlist
Auto Revert              : No
Redundancy Mode          : Active/Standby
Active-Standby Role      : Primary
Mate Router Name         : backup_vmr
ADB Link To Mate         : Up
ADB Hello To Mate        : Up

                               Primary Virtual Router  Backup Virtual Router
                               ----------------------  ----------------------
Activity Status                Local Active            Shutdown
Routing Interface              intf0:1                 intf0:1
Routing Interface Status       Up
VRRP Status                    Initialize
VRRP Priority                  250
Message Spool Status           AD-Active
Priority Reported By Mate      Standby"""

C02 = """\
Configuration Status     : Enabled
Redundancy Status        : Up
Operating Mode           : Message Routing Node
Switchover Mechanism     : Hostlist
Auto Revert              : No
Redundancy Mode          : Active/Standby
Active-Standby Role      : Backup
Mate Router Name         : primary_vmr
ADB Link To Mate         : Up
ADB Hello To Mate        : Up

                               Primary Virtual Router  Backup Virtual Router
                               ----------------------  ----------------------
Activity Status                Shutdown                Mate Active
Routing Interface              intf0:1                 intf0:1
Routing Interface Status                               Up
VRRP Status                                            Initialize
VRRP Priority                                          100
Message Spool Status                                   AD-Standby
Priority Reported By Mate                              Active"""

C05_GROUP = """\
Node Router-Name   Node Type       Address           Status
-----------------  --------------  ----------------  ---------
cncdcdev1backup    Message-Router  cdc-dev1-b.51080  Online
                                     .cn.app.exampl\x20\x20\x20\x20
                                     e-company01.co\x20\x20\x20\x20
                                     m\x20\x20\x20\x20\x20\x20\x20\x20\x20\x20\x20\x20\x20\x20\x20\x20\x20
cncdcdev1monitor   Monitor         cdc-dev1-c.51080  Offline
                                     .cn.app.exampl\x20\x20\x20\x20
                                     e-company01.co\x20\x20\x20\x20
                                     m\x20\x20\x20\x20\x20\x20\x20\x20\x20\x20\x20\x20\x20\x20\x20\x20\x20
cncdcdev1primary*  Message-Router  cdc-dev1-a.51080  Online
                                     .cn.app.exampl\x20\x20\x20\x20
                                     e-company01.co\x20\x20\x20\x20
                                     m\x20\x20\x20\x20\x20\x20\x20\x20\x20\x20\x20\x20\x20\x20\x20\x20\x20

* - indicates the current node"""

C08_GROUP = """\
Node Router-Name   Node Type       Address           Status
-----------------  --------------  ----------------  ---------
solace1*           Message-Router  192.168.110.100   Online
solace2            Message-Router  192.168.110.101   Online
solace3            Monitor         192.168.110.102   Online

* - indicates the current node"""


def _ms(moment: datetime) -> int:
    return int((moment - LAB_EPOCH).total_seconds() * 1000)


def test_show_redundancy_is_c01_on_the_primary_and_c02_on_the_backup() -> None:
    lab = Lab.fresh(SCENARIOS / "ha-c01-vmr.yaml")
    assert lab.execute("primary_vmr", "show redundancy").text == C01
    assert lab.execute("backup_vmr", "show redundancy").text == C02


def test_show_redundancy_group_is_c08() -> None:
    lab = Lab.fresh(SCENARIOS / "ha-c08-solace.yaml")
    assert lab.execute("solace1", "show redundancy group").text == C08_GROUP


def test_show_redundancy_group_wraps_addresses_as_c05() -> None:
    lab = Lab.fresh(SCENARIOS / "ha-c05-cncdcdev1.yaml")
    assert lab.execute("lab", "fail router cncdcdev1monitor").ok
    assert lab.execute("cncdcdev1primary", "show redundancy group").text == C05_GROUP


def test_show_redundancy_detail_is_c05_paged_as_c05() -> None:
    """The view holds C05's values (its failure times, the hello latency of 2 ms, its interface
    and contents key); a 32-line terminal pages the output where the capture's pager lines are."""
    live = VirtualRouterView("Local Active", "intf0:1", "Up", "Initialize", 250, "AD-Active", "Standby")
    shut = VirtualRouterView("Shutdown", "intf0:1", None, None, None, None, None)
    view = RedundancyView(
        router="cncdcdev1primary", role="Primary", config_status="Enabled", status_up=False,
        last_failure=("One or more nodes is offline", _ms(datetime(2026, 6, 17, 7, 14, 53, tzinfo=timezone.utc))),
        auto_revert=False, mate="cncdcdev1backup", mate_address="cdc-dev1-b.51080.cn.app.example-company01.com",
        adb_link_up=True,
        adb_last_failure=("Mate Link Restart", _ms(datetime(2026, 6, 17, 5, 56, 46, tzinfo=timezone.utc))),
        hello_up=True, hello_last_failure=None, interface_address="10.27.245.146",
        contents_key="198.51.100.102:2,1", ready=True, mate_ready=True, hello_avg_ms=0, hello_max_ms=2,
        primary_vr=live, backup_vr=shut, local_active=True, mate_active=False)
    text = redundancy_show(RedundancyShow(view, True))
    paged = f"\n{MORE_PROMPT}\n".join("\n".join(page) for page in split_pages(text, 30))
    assert paged + "\n" == C05_DETAIL


def test_show_redundancy_detail_prints_c22s_first_lines() -> None:
    """C22 (real 8.x, partial): the failure sub-lines while Up, the day padded with a space."""
    live = VirtualRouterView("Local Active", "intf0:1", "Up", "Initialize", 250, "AD-Active", "Standby")
    view = RedundancyView(
        router="x", role="Primary", config_status="Enabled", status_up=True,
        last_failure=("Message spools out of sync", _ms(datetime(2018, 2, 1, 14, 19, 34, tzinfo=timezone.utc))),
        auto_revert=False, mate="incindiaryslothsolace1", mate_address="", adb_link_up=True, adb_last_failure=None,
        hello_up=True, hello_last_failure=None, interface_address="", contents_key="", ready=True, mate_ready=True,
        hello_avg_ms=0, hello_max_ms=0, primary_vr=live, backup_vr=live, local_active=True, mate_active=False)
    lines = redundancy_show(RedundancyShow(view, True)).split("\n")
    assert lines[:10] == [
        "Configuration Status     : Enabled",
        "Redundancy Status        : Up",
        "  Last Failure Reason    : Message spools out of sync",
        "  Last Failure Time      : Feb  1 2018 14:19:34 UTC",
        "Operating Mode           : Message Routing Node",
        "Switchover Mechanism     : Hostlist",
        "Auto Revert              : No",
        "Redundancy Mode          : Active/Standby",
        "Active-Standby Role      : Primary",
        "Mate Router Name         : incindiaryslothsolace1",
    ]


def test_the_lab_reproduces_c05s_failure_lines() -> None:
    """The mate link restarts at 05:56:46 and the monitor goes offline at 07:14:53 (the lab
    clock starts on Jan 1 2026): the detail's failure lines read as C05's."""
    lab = Lab.fresh(SCENARIOS / "ha-c05-cncdcdev1.yaml")
    restart = _ms(datetime(2026, 6, 17, 5, 56, 46, tzinfo=timezone.utc))
    offline = _ms(datetime(2026, 6, 17, 7, 14, 53, tzinfo=timezone.utc))
    for line in (f"advance {restart}ms", "fail mate-link site1", "restore mate-link site1",
                 f"advance {offline - restart}ms", "fail router cncdcdev1monitor"):
        assert lab.execute("lab", line).ok, line
    detail = lab.execute("cncdcdev1primary", "show redundancy detail").text.split("\n")
    expected = C05_DETAIL.split("\n")
    assert detail[:16] == expected[:16]
    assert detail[16:19] == expected[16:19]   # ADB Link To Mate: Up, Mate Link Restart, its time


@pytest.mark.parametrize(("router", "line", "error"), [
    ("NY_Appliance2", "admin redundancy revert-activity",
     "ERROR: Cannot revert activity: router 'NY_Appliance2' is not the backup holding activity."),
    ("NY_Appliance1", "admin redundancy revert-activity",
     "ERROR: Cannot revert activity: router 'NY_Appliance1' is not the backup holding activity."),
    ("NY_Appliance2", "configure redundancy release-activity",
     "ERROR: Cannot release activity: router 'NY_Appliance2' is a backup that is not active."),
    ("NY_Monitor", "configure redundancy release-activity",
     "ERROR: Router 'NY_Monitor' is a monitoring node; it holds no message-routing activity."),
    ("NY_Monitor", "show queue orders message-vpn Trading_VPN", "ERROR: Message VPN 'Trading_VPN' not found."),
])
def test_refusals_are_one_line_and_change_nothing(router: str, line: str, error: str) -> None:
    lab = Lab.fresh(ROOT / "state_store" / "scenarios" / "two-site-ha.yaml")
    before = lab.execute("NY_Appliance1", "show redundancy").text
    lab.execute(router, "enable")
    out = lab.execute(router, line)
    assert not out.ok and out.text == error
    assert lab.execute("NY_Appliance1", "show redundancy").text == before


STANDALONE = """\
Configuration Status     : Disabled
Redundancy Status        : Down
Operating Mode           : Message Routing Node
Switchover Mechanism     : Hostlist
Auto Revert              : No
Redundancy Mode          : Active/Standby
Active-Standby Role      : Undefined
Mate Router Name         : \n\
ADB Link To Mate         : Down
ADB Hello To Mate        : Down

                               Primary Virtual Router  Backup Virtual Router
                               ----------------------  ----------------------
Activity Status                Local Active            Shutdown
Routing Interface              intf0:1                 intf0:1
Routing Interface Status       Up
VRRP Status                    Initialize
VRRP Priority                  250
Message Spool Status           AD-Active
Priority Reported By Mate      None"""


def test_default_lab_has_no_redundancy_group() -> None:
    """A router outside a group prints its redundancy Disabled (SEMP's values, C16; the page is
    the member's layout); the detail and the group, which no capture shows, stay refused."""
    lab = Lab.fresh()
    out = lab.execute("NY_Appliance1", "show redundancy")
    assert out.ok and out.text == STANDALONE
    for line in ("show redundancy detail", "show redundancy group"):
        out = lab.execute("NJ_Appliance1", line)
        assert not out.ok
        assert out.text == "ERROR: Router 'NJ_Appliance1' is not a member of a redundancy group."


def test_redundancy_reads_change_nothing() -> None:
    lab = Lab.fresh(ROOT / "state_store" / "scenarios" / "two-site-ha.yaml")
    assert lab.execute("lab", "fail router NY_Appliance1").ok
    before = lab.store.dump()
    with lab.store.transaction() as engine:
        for router in ("NY_Appliance2", "NY_Monitor", "NJ_Appliance1"):
            router_engine(engine).redundancy(router)
            router_engine(engine).redundancy_group(router)
        assert router_engine(engine).local_failovers() == [("NY", 0, "NY_Appliance1", "NY_Appliance2")]
    assert lab.store.dump() == before


def test_the_backups_message_spool_reads_as_c10() -> None:
    """C10 (SEMP, the HA backup): Enabled (Backup), AD-Standby, datapath down, sync Unknown."""
    lab = Lab.fresh(ROOT / "state_store" / "scenarios" / "two-site-ha.yaml")
    lines = lab.execute("NY_Appliance2", "show message-spool").text.split("\n")
    assert "Config Status:                     Enabled (Backup)" in lines
    assert "Operational Status:                AD-Standby" in lines
    assert "Datapath Status:                   Down" in lines
    assert "Synchronization Status:            Unknown" in lines
    primary = lab.execute("NY_Appliance1", "show message-spool").text.split("\n")
    assert "Operational Status:                AD-Active" in primary


def _site_table(text: str) -> list[str]:
    lines = text.split("\n")
    start = next(i for i, line in enumerate(lines) if line.startswith("site  router"))
    return lines[start:lines.index("", start)]


def test_lab_status_shows_each_members_process_and_activity() -> None:
    """A group's routers and monitor each with their own process state and activity; the VPNs
    under the member holding the site's activity; a failed site's members all down."""
    lab = Lab.fresh(ROOT / "state_store" / "scenarios" / "two-site-ha.yaml")
    for line in ("fail router NY_Appliance1", "ha hang NJ.NJ_Appliance2"):
        assert lab.execute("lab", line).ok
    status = lab.execute("lab", "status").text
    assert _site_table(status) == [
        "site  router         state  activity",
        "NY    NY_Appliance1  down   -",
        "NY    NY_Appliance2  up     active",
        "NY    NY_Monitor     up     monitor",
        "NJ    NJ_Appliance1  up     active",
        "NJ    NJ_Appliance2  hung   -",
        "NJ    NJ_Monitor     up     monitor"]
    assert "NY_Appliance2  Trading_VPN  enabled      active" in status
    assert lab.execute("lab", "fail site NJ").ok
    assert _site_table(lab.execute("lab", "status").text)[4:] == [
        "NJ    NJ_Appliance1  down   -", "NJ    NJ_Appliance2  down   -", "NJ    NJ_Monitor     down   -"]


def test_the_default_labs_status_keeps_its_three_columns() -> None:
    assert _site_table(Lab.fresh().execute("lab", "status").text) == [
        "site  router         state", "NY    NY_Appliance1  up", "NJ    NJ_Appliance1  up"]


def test_current_config_on_a_member_names_that_member() -> None:
    """The site's one configuration (config-sync), its header naming the router it is asked on;
    the replication mate stays the mate site's primary virtual router."""
    lab = Lab.fresh(ROOT / "state_store" / "scenarios" / "two-site-ha.yaml")
    texts = {}
    for router in ("NY_Appliance1", "NY_Appliance2"):
        lab.execute(router, "enable")
        texts[router] = lab.execute(router, "show current-config").text
        assert f'!   Router: "{router}"' in texts[router]
        assert 'virtual-router-name "v:NJ_Appliance1"' in texts[router]
    assert texts["NY_Appliance1"].replace('"NY_Appliance1"', '"NY_Appliance2"', 1) == texts["NY_Appliance2"]
