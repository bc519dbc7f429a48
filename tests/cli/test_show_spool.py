"""`show queue ...` and `show message-spool ...`."""

from __future__ import annotations

import pytest

from solace_shell.access import UserAccess
from tests.support.router_engine import router_engine

QUEUE_HEAD = """
Flags Legend:
I - Ingress Admin State (U=Up, D=Down)
E - Egress  Admin State (U=Up, D=Down)
A - Access-Type         (E=Exclusive, N=Non-Exclusive)
S - Selector            (Y=Yes, N=No)
R - Redundancy          (P=Primary, B=Backup)
D - Durability          (D=Durable, N=Non-Durable)
P - Priority            (Y=Yes, N=No)

Queue Name                   Messages      Spool             Bind Status
Message VPN                   Spooled  Usage(MB)   HWM (MB) Count I E A S R D P
------------------------- ----------- ---------- ---------- ----- -------------
"""


def show(session, line):
    outcome = session.execute(line)
    assert outcome.ok, outcome.text
    assert outcome.text.startswith("\n"), "show output begins with a blank line (solace_shell/framing.py)"
    return outcome.text


def test_summary_default_lab(ny, nj) -> None:
    assert show(ny, "show queue *") == QUEUE_HEAD + (
        "#MSGVPN_REPLICATION_DATA_QUEUE\n"
        "Trading_VPN                         0       0.00       0.00     1 U U E N P D N\n"
        "orders\n"
        "Trading_VPN                         0       0.00       0.00     0 U U E N P D N")
    # the standby's replication queue exists (replication enabled) but nothing binds it
    assert show(nj, "show queue * message-vpn Trading_VPN") == QUEUE_HEAD + (
        "#MSGVPN_REPLICATION_DATA_QUEUE\n"
        "Trading_VPN                         0       0.00       0.00     0 U U E N P D N\n"
        "orders\n"
        "Trading_VPN                         0       0.00       0.00     0 U U E N P D N")
    assert show(ny, "show queue ord*") == QUEUE_HEAD + (
        "orders\n"
        "Trading_VPN                         0       0.00       0.00     0 U U E N P D N")


def test_summary_follows_state(lab, ny) -> None:
    with lab.store.transaction() as e:
        router_engine(e).publish("trader", "trading/orders/1", count=10000)
        router_engine(e).set_queue_shutdown("NY_Appliance1", "Trading_VPN", "orders", True, direction="ingress")
    assert show(ny, "show queue orders").splitlines()[-1] == (
        "Trading_VPN                     10000       5.72       5.72     0 D U E N P D N")
    with lab.store.transaction() as e:
        e.advance(60000)           # the standby drains the replication queue; its HWM stays
    assert show(ny, "show queue #MSGVPN_REPLICATION_DATA_QUEUE message-vpn Trading_V*").splitlines()[-1] == (
        "Trading_VPN                         0       0.00       5.72     1 U U E N P D N")


REPL_DETAIL = """
Name                                 : #MSGVPN_REPLICATION_DATA_QUEUE
Message VPN                          : Trading_VPN
Durability                           : Durable
Type                                 : Primary
Ingress Config Status                : Up
Egress Config Status                 : Up
Access Type                          : Exclusive
Owner                                : #replication
All Other Permission                 : No-Access
Quota (MB)                           : 60000
Max Bind Count                       : 1
Bind Count                           : 1
Reject Msg To Sender On Discard      : Yes
Current Messages Spooled             : {count}
Current Spool Usage (MB)             : {usage}
High Water Mark (MB)                 : {usage}
Topic Subscriptions                  :"""

ORDERS_DETAIL = """\
Name                                 : orders
Message VPN                          : Trading_VPN
Durability                           : Durable
Type                                 : Primary
Ingress Config Status                : Up
Egress Config Status                 : Up
Access Type                          : Exclusive
Owner                                :
All Other Permission                 : No-Access
Quota (MB)                           : 5000
Max Bind Count                       : 1000
Bind Count                           : 0
Reject Msg To Sender On Discard      : Yes
Current Messages Spooled             : 0
Current Spool Usage (MB)             : 0.0000
High Water Mark (MB)                 : 0.0000
Topic Subscriptions                  : trading/orders/>"""


def test_seed_step_3_exact_queue_shows_the_detail(lab, ny) -> None:
    ny.execute("enable")
    ny.execute("configure")
    line = "show queue #MSGVPN_REPLICATION_DATA_QUEUE message-vpn Trading_VPN"
    assert show(ny, line) == REPL_DETAIL.format(count=0, usage="0.0000")
    with lab.store.transaction() as e:
        router_engine(e).publish("trader", "trading/orders/1")
        router_engine(e).set_replication_role("NY_Appliance1", "Trading_VPN", "standby")
    assert show(ny, line) == REPL_DETAIL.format(count=1, usage="0.0006")
    with lab.store.transaction() as e:
        e.advance(1000)
    assert "Current Messages Spooled             : 0\n" in show(ny, line)


def test_detail_keyword_and_wildcards(lab, ny) -> None:
    assert show(ny, "show queue orders message-vpn Trading_VPN detail") == "\n" + ORDERS_DETAIL
    both = show(ny, "show queue * detail")
    assert both == REPL_DETAIL.format(count=0, usage="0.0000") + "\n\n" + ORDERS_DETAIL
    with lab.store.transaction() as e:
        router_engine(e).add_queue_subscription("NY_Appliance1", "Trading_VPN", "orders", "trading/fills/>")
    assert show(ny, "show queue orders message-vpn Trading_VPN").endswith(
        "Topic Subscriptions                  : trading/fills/>\n"
        "                                       trading/orders/>")


MESSAGES_HEAD = """
Queue Name:                        orders
Message VPN:                       Trading_VPN
Messages Spooled:                  {count}

          Message Id Replication Group Msg Id  Size(B)      Age Topic
-------------------- ------------------------ -------- -------- ------------------------------"""


def test_messages(lab, ny) -> None:
    line = "show queue orders message-vpn Trading_VPN messages"
    assert show(ny, line) == MESSAGES_HEAD.format(count=0)
    with lab.store.transaction() as e:
        router_engine(e).publish("trader", "trading/orders/1", count=3)
        e.advance(65000)
    assert show(ny, line) == MESSAGES_HEAD.format(count=3) + (
        "\n          3118727406                  1000001      600    1m 5s trading/orders/1"
        "\n          3118727407                  1000002      600    1m 5s trading/orders/1"
        "\n          3118727408                  1000003      600    1m 5s trading/orders/1")
    assert show(ny, line + " replication-group-msg-id 1000003") == MESSAGES_HEAD.format(count=3) + (
        "\n          3118727408                  1000003      600    1m 5s trading/orders/1")
    outcome = ny.execute(line + " replication-group-msg-id abc")
    assert not outcome.ok and "replication-group-msg-id" in outcome.text


def test_messages_are_capped(lab, ny) -> None:
    with lab.store.transaction() as e:
        router_engine(e).publish("trader", "trading/orders/1", count=150)
    lines = show(ny, "show queue orders message-vpn Trading_VPN messages").splitlines()
    assert len(lines) == 7 + 100 + 1
    assert lines[-1] == "(first 100 messages shown)"


def test_queue_errors(lab, ny) -> None:
    assert ny.execute("show queue orders message-vpn Nope").text == "ERROR: Message VPN 'Nope' not found."
    assert ny.execute("show queue nope message-vpn Trading_VPN").text == (
        "ERROR: Queue 'nope' not found in Message VPN 'Trading_VPN'.")
    # a replication-disabled VPN has no visible replication queue
    outcome = ny.execute("show queue #MSGVPN_REPLICATION_DATA_QUEUE message-vpn default")
    assert not outcome.ok and outcome.error_kind == "engine"
    assert show(ny, "show queue zz*") == QUEUE_HEAD.rstrip("\n")
    with lab.store.transaction() as e:
        router_engine(e).fail_site("NY")
    assert ny.execute("show queue *").text == "ERROR: Router 'NY_Appliance1' is down."
    ny.user = UserAccess("nobody", "none")
    assert ny.execute("show queue *").error_kind == "access"


SPOOL = """\
Config Status:                     Enabled (Primary)
Maximum Spool Usage:               60000 MB
Using Internal Disk:               Yes

Operational Status:                AD-Active
Datapath Status:                   Up
Synchronization Status:            Synced
Spool-Sync Status:                 Synced
{detail}
Current Spool Usage (MB):          {usage}
High Water Mark (MB):              {usage}
Messages Currently Spooled:        {count}
Current Queues:                    1
Current Transactions:              {tx}"""

VPN_SPOOL = """\
Message VPN:                       Trading_VPN
Operational Status:                AD-Active
Maximum Spool Usage (MB):          60000
Current Spool Usage (MB):          {usage}
High Water Mark (MB):              {usage}
Messages Currently Spooled:        {count}
Current Queues:                    {queues}
Current Transactions:              0"""


def test_message_spool(lab, ny, nj) -> None:
    assert show(ny, "show message-spool") == "\n" + SPOOL.format(detail="", usage="0.0000", count=0, tx=0)
    assert show(ny, "show message-spool detail") == "\n" + SPOOL.format(
        detail="Defragmentation Status:            Idle\nDisk Contents:                     Ready\n",
        usage="0.0000", count=0, tx=0)
    assert show(ny, "show message-spool message-vpn Trading_VPN") == "\n" + VPN_SPOOL.format(
        usage="0.0000", count=0, queues=1)
    assert show(ny, "show message-spool message-vpn default detail") == "\n" + VPN_SPOOL.format(
        usage="0.0000", count=0, queues=0).replace("Trading_VPN", "default")
    with lab.store.transaction() as e:
        router_engine(e).publish("trader", "trading/orders/1", count=5)
        router_engine(e).tx_local_start("settlement")
    assert show(ny, "show message-spool") == "\n" + SPOOL.format(detail="", usage="0.0057", count=10, tx=1)
    assert show(nj, "show message-spool message-vpn Trading_VPN") == "\n" + VPN_SPOOL.format(
        usage="0.0000", count=0, queues=1)
    assert ny.execute("show message-spool message-vpn Nope").text == "ERROR: Message VPN 'Nope' not found."


@pytest.mark.parametrize("user,ok", [("monitor", True), ("trading_admin", True)])
def test_spool_access_for_lab_users(user, ok) -> None:
    from solace_shell.lab import Lab
    lab = Lab.fresh(settings={"user": user})
    try:
        session = lab.session("NY_Appliance1")
        assert session.execute("show message-spool").ok is ok
        assert session.execute("show queue * message-vpn Trading_VPN").ok is ok
    finally:
        lab.close()
