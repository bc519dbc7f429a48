"""`show message-vpn <p> [replication [detail | stats]]` and `show replication [stats]`."""

from __future__ import annotations

import pytest

from solace_shell.access import UserAccess
from solace_shell.lab import Lab
from tests.support.router_engine import router_engine

LEGEND_B = """\
Flags Legend:
A - Admin State (U=Up, D=Down, -=N/A)
C - Config State (A=Active, S=Standby, -=N/A)
B - Local Bridge State (U=Up, Q=Queue Unbound, D=Down, -=N/A)
R - Remote Bridge State (U=Up, D=Down, -=N/A)
Q - Queue State (U=Up, D=Down, -=N/A)
S - Sync Replication Eligible (Y=Yes, N=No, -=N/A)
M - Reject Msg When Sync Ineligible (Y=Yes, N=No, -=N/A)
T - Transaction Replication Mode (A=Async, S=Sync, -=N/A)

Message VPN                      A C B R Q S M T
-------------------------------- - - - - - - - -
"""


def show(session, line):
    outcome = session.execute(line)
    assert outcome.ok, outcome.text
    assert outcome.text.startswith("\n"), "show output begins with a blank line (solace_shell/framing.py)"
    # `show replication` also ends with one (capture T13)
    return outcome.text[1:-1] if line.split()[1:2] == ["replication"] else outcome.text[1:]


def flags_row(session, vpn="Trading_VPN"):
    return show(session, f"show message-vpn {vpn} replication").splitlines()[-1]


def test_layout_b_default_lab_ny_and_nj(ny, nj) -> None:
    assert show(ny, "show message-vpn Trading_VPN replication") == (
        LEGEND_B + "Trading_VPN                      U A - U U - N A")
    assert show(nj, "show message-vpn Trading_VPN replication") == (
        LEGEND_B + "Trading_VPN                      U S U - - - N A")


def test_star_lists_config_sync_first_then_sorted(nj) -> None:
    assert show(nj, "show message-vpn * replication") == LEGEND_B + (
        "#config-sync                     - - - - - - - -\n"
        "Trading_VPN                      U S U - - - N A\n"
        "default                          D S - - - - N A")


def test_layout_a_reproduces_the_seed_table() -> None:
    lab = Lab.fresh(settings={"layout": "A"})
    try:
        text = show(lab.session("NY_Appliance1"), "show message-vpn Trading_VPN replication")
        assert text == """\
Flags Legend:
A - Admin State (U=Up, D=Down)
C - Config State (A=Active, S=Standby)
B - Local Bridge State (U=Up, Q=Queue Unbound, D=Down, -=N/A)
R - Remote Bridge State (U=Up, D=Down, -=N/A)
Q - Queue State (U=Up, D=Down, -=N/A)
S - Sync Replication Eligible (Y=Yes, N=No, -=N/A)
M - Reject Msg When Sync Ineligible (Y=Yes, N=No)
T - Transaction Replication Mode (A=Async, S=Sync, -=N/A)

Message VPN                      A C B R Q S M T
-------------------------------- - - - - - - - - -
Trading_VPN                      U A - U U - N A"""
        assert flags_row(lab.session("NJ_Appliance1")) == "Trading_VPN                      U S U - - - N A"
    finally:
        lab.close()


def test_works_from_every_level_and_the_show_level(ny) -> None:
    ny.execute("enable")
    ny.execute("configure")
    assert flags_row(ny) == "Trading_VPN                      U A - U U - N A"
    ny.execute("end")
    ny.execute("show")
    assert show(ny, "message-vpn Trading_VPN replication").endswith("U A - U U - N A")
    assert ny.prompt == "NY_Appliance1(show)>"


def test_flags_follow_state(lab, ny, nj) -> None:
    with lab.store.transaction() as e:
        router_engine(e).fail_link()
    assert flags_row(ny) == "Trading_VPN                      U A - D D - N A"
    assert flags_row(nj) == "Trading_VPN                      U S D - - - N A"
    with lab.store.transaction() as e:
        router_engine(e).restore_link()
        router_engine(e).set_replication_option("NY_Appliance1", "Trading_VPN", "transaction-replication-mode", "sync")
        router_engine(e).set_replication_option("NY_Appliance1", "Trading_VPN", "reject-msg-when-sync-ineligible", True)
    assert flags_row(ny) == "Trading_VPN                      U A - U U - Y S"
    with lab.store.transaction() as e:   # controlled failover step 2: NY gives up activity
        router_engine(e).set_replication_role("NY_Appliance1", "Trading_VPN", "standby")
    assert flags_row(ny) == "Trading_VPN                      U S Q - - - Y S"
    with lab.store.transaction() as e:
        router_engine(e).set_replication_role("NJ_Appliance1", "Trading_VPN", "active")
    assert flags_row(ny) == "Trading_VPN                      U S U - - - Y S"
    assert flags_row(nj) == "Trading_VPN                      U A - U U - N A"


def test_errors(lab, ny) -> None:
    outcome = ny.execute("show message-vpn Nope replication")
    assert (outcome.ok, outcome.text, outcome.error_kind) == (False, "ERROR: Message VPN 'Nope' not found.", "engine")
    assert show(ny, "show message-vpn Nope* replication") == LEGEND_B.rstrip("\n")
    with lab.store.transaction() as e:
        router_engine(e).fail_site("NY")
    outcome = ny.execute("show message-vpn Trading_VPN replication")
    assert (outcome.ok, outcome.text) == (False, "ERROR: Router 'NY_Appliance1' is down.")


def test_access(ny) -> None:
    monitor = Lab.fresh(settings={"user": "monitor"})
    try:
        assert flags_row(monitor.session("NY_Appliance1")).endswith("U A - U U - N A")
        assert monitor.session("NY_Appliance1").execute("show replication").ok
    finally:
        monitor.close()
    ny.user = UserAccess("nobody", "none")
    for line in ("show message-vpn Trading_VPN replication", "show message-vpn *", "show replication"):
        outcome = ny.execute(line)
        assert (outcome.ok, outcome.error_kind) == (False, "access"), line
        assert "ERROR: Permission denied" in outcome.text


def test_summary_default_lab(ny, nj) -> None:
    header = ("                                                           Messages      Spool\n"
              "Message VPN                      Status  Clients  Queues    Spooled  Usage(MB)\n"
              "-------------------------------- ------- ------- ------- ---------- ----------\n")
    assert show(ny, "show message-vpn *") == header + (
        "#config-sync                     Up            0       0          0       0.00\n"
        "Trading_VPN                      Up            2       1          0       0.00\n"
        "default                          Up            0       0          0       0.00")
    # a pattern lists (an exact name prints the VPN's detail block: tests/cli/test_show_service.py)
    assert show(nj, "show message-vpn Trading_VP*") == header + (
        "Trading_VPN                      Standby       0       1          0       0.00")
    assert ny.execute("show message-vpn Nope").text == "ERROR: Message VPN 'Nope' not found."


def test_summary_counts_follow_state(lab, ny) -> None:
    with lab.store.transaction() as e:
        router_engine(e).publish("trader", "trading/orders/1", count=2000)
    # 2000 messages of 600 bytes, once on orders and once on the replication queue
    assert show(ny, "show message-vpn Trading_VP*").splitlines()[-1] == (
        "Trading_VPN                      Up            2       1       4000       2.29")


DETAIL_NY = """\
Message VPN:                       Trading_VPN
  Admin State:                     Up
  Config State:                    Active
  Replication Mate:                NJ_Appliance1
  Sync Replication Eligible:       N/A
  Reject Msg When Sync Ineligible: No
  Transaction Replication Mode:    Async
  Local Bridge:
    Name:                          #MSGVPN_REPLICATION_BRIDGE
    State:                         N/A
    Queue Bound:                   No
  Remote Bridge:
    Name:                          #MSGVPN_REPLICATION_BRIDGE
    State:                         Up
  Queue:
    Name:                          #MSGVPN_REPLICATION_DATA_QUEUE
    State:                         Up
    Messages Spooled:              0
    Spool Usage (MB):              0.0000
    Max Spool Usage (MB):          60000
    Reject To Sender On Discard:   Yes
  ACK Propagation:
    Admin State:                   Enabled
    Interval (messages):           20
  Bridge:
    Authentication Scheme:         Basic
    Client Username:               replication
    Password:                      Configured
    Compressed Data:               No
    SSL:                           No
    Retry Delay (sec):             3
    Window Size:                   255
    Client Profile:                #client-profile
  Replicated Topics:
    trading/>                      Async"""


def test_detail_default_lab(ny, nj) -> None:
    assert show(ny, "show message-vpn Trading_VPN replication detail") == DETAIL_NY
    nj_text = show(nj, "show message-vpn Trading_VPN replication detail")
    assert "  Config State:                    Standby" in nj_text
    assert "  Local Bridge:\n    Name:                          #MSGVPN_REPLICATION_BRIDGE\n" \
           "    State:                         Up\n    Queue Bound:                   Yes" in nj_text
    # `*` skips the internal VPN: one block per VPN, separated by a blank line
    both = show(ny, "show message-vpn * replication detail")
    assert both.startswith(DETAIL_NY + "\n\nMessage VPN:                       default\n")
    assert "#config-sync" not in both


def test_detail_follows_state(lab, ny) -> None:
    with lab.store.transaction() as e:
        router_engine(e).publish("trader", "trading/orders/1", count=1)
        router_engine(e).create_replicated_topic("NY_Appliance1", "Trading_VPN", "trading/sync/>", mode="sync")
        router_engine(e).fail_link()
    text = show(ny, "show message-vpn Trading_VPN replication detail")
    assert "  Sync Replication Eligible:       No\n  Ineligible Reason:               Remote bridge down\n" in text
    assert "    Messages Spooled:              1\n    Spool Usage (MB):              0.0006\n" in text
    assert text.endswith("    trading/>                      Async\n    trading/sync/>                 Sync")


STATS_ZERO = """\
Statistics While Active:
  Message Processing:
    Sync Messages Queued To Standby:           0
    Sync Messages Queued To Standby As Async:  0
    Async Messages Queued To Standby:          {async_queued}
    Promoted Messages Queued To Standby:       0
    Pruned Locally Consumed Messages:          0
  Sync Replication:
    Transitions To Ineligible:                 0
  Ack Propagation:
    Messages Sent To Standby:                  0
    Reconcile Request From Standby:            0
    Reconcile Scan in Progress:                No
  Rejected Messages:
    Replication Queue Full:                    0
    Sync Replication Ineligible:               0
    Not Replicated (Queue Full):               0
Statistics While Standby:
  Message Processing:
    Messages Received From Active:             {received}
  Ack Propagation:
    Messages Received from Active:             0
    Reconcile Request Sent to Active:          0
    Out of Sequence Ack Received:              0
  Transaction Replication:
    Transactions Received From Active:         0"""


def test_vpn_stats(lab, ny, nj) -> None:
    head = "Message VPN:                       Trading_VPN\n\n"
    assert show(ny, "show message-vpn Trading_VPN replication stats") == head + STATS_ZERO.format(
        async_queued=0, received=0)
    with lab.store.transaction() as e:
        router_engine(e).publish("trader", "trading/orders/1", count=3)
        e.advance(1000)
    assert show(ny, "show message-vpn Trading_VPN replication stats") == head + STATS_ZERO.format(
        async_queued=3, received=0)
    assert show(nj, "show message-vpn Trading_VPN replication stats") == head + STATS_ZERO.format(
        async_queued=0, received=3)


SYSTEM_NY = """\
Replication Interface:             1/6/lag1
Replication Mate:                  v:NJ_Appliance1
  Connect-Via:                     192.168.160.12
  Connect-Ports:
    Plain Text:                    55555
    Compressed:                    55003
    SSL:                           55443
SSL:
  Default Cipher Suite List:       Yes
  Cipher Suites:                   ECDHE-RSA-AES256-GCM-SHA384
                                   AES256-SHA
  Trusted Common Names:

ConfigSync:
  Bridge:
    Admin State:                   Enabled
    State:                         {state}
    Authentication:
      Scheme:                      Basic
    Compressed:                    No
    SSL:                           No
    Message Spool:
      Window Size:                 65535
    Retry Delay:                   3
    SSL Server Certificate Validation:
      Enforce Trusted Common Name: Yes
      Maximum Chain Depth:         3
      Validate Certificate Dates:  Yes"""


def test_show_replication(lab, ny, nj) -> None:
    assert show(ny, "show replication") == SYSTEM_NY.format(state="up")
    assert show(ny, "show replication stats") == SYSTEM_NY.format(state="up") + "\n\n" + STATS_ZERO.format(
        async_queued=0, received=0)
    assert show(nj, "show replication").startswith(
        "Replication Interface:             1/6/lag1\nReplication Mate:                  v:NY_Appliance1\n"
        "  Connect-Via:                     192.168.150.11\n")
    with lab.store.transaction() as e:
        router_engine(e).fail_link()
    assert show(ny, "show replication") == SYSTEM_NY.format(state="down")


@pytest.mark.parametrize("line", ["show message-vpn", "show replication detail", "show message-vpn x replication y"])
def test_bad_input_is_refused(ny, line) -> None:
    outcome = ny.execute(line)
    assert not outcome.ok and outcome.error_kind in ("incomplete", "invalid")
