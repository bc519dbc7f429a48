"""`show client <p> [message-vpn <p>] [detail]` and `show bridge <p> [message-vpn <p>] [detail]`."""

from __future__ import annotations

from solace_shell.access import UserAccess
from tests.support.router_engine import router_engine

CLIENT_HEAD = """\
Client Name              Message VPN              Client Username            Uptime
------------------------ ------------------------ -------------------- ------------"""


def show(session, line):
    outcome = session.execute(line)
    assert outcome.ok, outcome.text
    assert outcome.text.startswith("\n"), "show output begins with a blank line (solace_shell/framing.py)"
    return outcome.text[1:]


def test_clients_default_lab(ny, nj) -> None:
    assert show(ny, "show client *") == CLIENT_HEAD + (
        "\nsettlement               Trading_VPN              settlement            0d 0h 0m 0s"
        "\ntrader                   Trading_VPN              trader                0d 0h 0m 0s")
    assert show(ny, "show client tr* message-vpn Trading_VPN") == CLIENT_HEAD + (
        "\ntrader                   Trading_VPN              trader                0d 0h 0m 0s")
    assert show(ny, "show client * message-vpn default") == CLIENT_HEAD
    assert show(nj, "show client *") == CLIENT_HEAD


TRADER_DETAIL = """\
Client Name:                       trader
Message VPN:                       Trading_VPN
Client Username:                   trader
Status:                            Connected
Connected To:                      {router}
Uptime:                            {uptime}
Host List:                         NY_Appliance1, NJ_Appliance1
Transacted Session:                {tx}
Reconnects:                        {reconnects}
Last Disconnect Reason:            {reason}"""


def test_client_detail_and_failover(lab, ny, nj) -> None:
    with lab.store.transaction() as e:
        e.advance(65000)
        router_engine(e).tx_local_start("trader")
    assert show(ny, "show client trader detail") == TRADER_DETAIL.format(
        router="NY_Appliance1", uptime="0d 0h 1m 5s", tx="Yes", reconnects=0, reason="N/A")
    with lab.store.transaction() as e:   # NY gives up activity, NJ takes it, clients follow their host lists
        router_engine(e).tx_local_rollback("trader")
        router_engine(e).set_replication_role("NY_Appliance1", "Trading_VPN", "standby")
        e.advance(1000)
        router_engine(e).set_replication_role("NJ_Appliance1", "Trading_VPN", "active")
        e.advance(2000)
    assert show(ny, "show client *") == CLIENT_HEAD
    assert show(nj, "show client trader message-vpn Trading_VPN detail") == TRADER_DETAIL.format(
        router="NJ_Appliance1", uptime="0d 0h 0m 2s", tx="No", reconnects=1, reason="replication state standby")
    assert show(nj, "show client *") == CLIENT_HEAD + (
        "\nsettlement               Trading_VPN              settlement            0d 0h 0m 2s"
        "\ntrader                   Trading_VPN              trader                0d 0h 0m 2s")


def test_client_errors(lab, ny) -> None:
    assert ny.execute("show client * message-vpn Nope").text == "ERROR: Message VPN 'Nope' not found."
    assert show(ny, "show client nobody*") == CLIENT_HEAD
    ny.user = UserAccess("nobody", "none")
    assert ny.execute("show client *").error_kind == "access"


BRIDGE_HEAD = """\
Flags Legend:
A - Admin State (U=Up, D=Down)
B - Connection Establisher (L=Local, R=Remote)
I - Inbound Operational State (U=Up, D=Down, -=N/A)
O - Outbound Operational State (U=Up, D=Down, -=N/A)
Q - Queue Operational State (U=Up, D=Down, -=N/A)
R - Redundancy (P=Primary, B=Backup, A=Auto)

Bridge Name
Local Message VPN    Remote Message VPN   Remote Router        A B I O Q R       Uptime
-------------------- -------------------- -------------------- ----------- ------------"""


def test_bridges(lab, ny, nj) -> None:
    assert show(nj, "show bridge *") == BRIDGE_HEAD + (
        "\n#MSGVPN_REPLICATION_BRIDGE"
        "\nTrading_VPN          Trading_VPN          v:NY_Appliance1      U L U - U A  0d 0h 0m 0s")
    assert show(ny, "show bridge *") == BRIDGE_HEAD        # the active site has no replication bridge
    assert show(nj, "show bridge other*") == BRIDGE_HEAD
    with lab.store.transaction() as e:
        e.advance(3723000)
    assert show(nj, "show bridge #MSGVPN_REPLICATION_BRIDGE message-vpn Trading_VPN").endswith(
        "U L U - U A  0d 1h 2m 3s")
    with lab.store.transaction() as e:
        router_engine(e).fail_link()
    assert show(nj, "show bridge *").endswith(
        "\nTrading_VPN          Trading_VPN          v:NY_Appliance1      U L D - D A  0d 0h 0m 0s")
    assert nj.execute("show bridge * message-vpn Nope").text == "ERROR: Message VPN 'Nope' not found."


BRIDGE_DETAIL = """\
Bridge Name:                       #MSGVPN_REPLICATION_BRIDGE
Message VPN:                       Trading_VPN
Admin State:                       Enabled
Conn Establisher:                  Local
Inbound Oper State:                {inbound}
Outbound Oper State:               NotApplicable
Queue Oper State:                  {queue}
Redundancy:                        Auto
Uptime:                            0d 0h 0m 0s
Remote Message VPN:                Trading_VPN
Remote Router:                     v:NY_Appliance1
Using Server Certificate:          No
SSL:                               No
Compressed:                        No
Message Spool:
  Queue:                           #MSGVPN_REPLICATION_DATA_QUEUE
  Queue Bind State:                {bind}"""


def test_bridge_detail(lab, nj) -> None:
    line = "show bridge #MSGVPN_REPLICATION_BRIDGE message-vpn Trading_VPN detail"
    assert show(nj, line) == BRIDGE_DETAIL.format(inbound="Ready-InSync", queue="Bound", bind="Up")
    with lab.store.transaction() as e:
        router_engine(e).fail_site("NY")
    assert show(nj, line) == BRIDGE_DETAIL.format(inbound="Down", queue="Unbound", bind="Down")
    nj.user = UserAccess("nobody", "none")
    assert nj.execute(line).error_kind == "access"
