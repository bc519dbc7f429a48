"""`show transaction [xid <p>] [message-vpn <p>] [state <S>] [replicated] [sort-by-...] [detail]`."""

from __future__ import annotations

from solace_shell.access import UserAccess
from tests.support.router_engine import router_engine

HEAD = """\
Flags Legend
T - Transaction Type (X=XA L=Local)
S - Transaction State (A=Active S=Suspended I=Idle P=Prepared C=Complete)
R - Replicated (Y=Yes N=No)
XID                                                                   Messages
Message VPN                                   T S R Last State Change  Spooled
--------------------------------------------- - - - ----------------- --------"""

XID = "0021ABC4-00-01"


def show(session, line):
    outcome = session.execute(line)
    assert outcome.ok, outcome.text
    # show output begins with a blank line (solace_shell/framing.py); no output prints nothing
    assert outcome.text == "" or outcome.text.startswith("\n")
    return outcome.text[1:]


def prepared_xa(lab, xid=XID, consume=2):
    with lab.store.transaction() as e:
        router_engine(e).publish("trader", "trading/orders/1", count=consume)
        router_engine(e).tx_xa_start("settlement", xid)
        router_engine(e).consume("settlement", "orders", count=consume)
        router_engine(e).tx_xa_end("settlement", xid)
        router_engine(e).tx_xa_prepare("settlement", xid)


def test_summary_layout_matches_the_seed_example() -> None:
    # the seed's row, character for character, from the same widths
    from solace_shell.loader import load_all
    from solace_shell.personalities.solace.handlers.show_transaction import TransactionTable
    from solace_shell.renderers import render
    load_all()
    from state_store.solace.views import TransactionInfo
    info = TransactionInfo(router="r", xid=XID, vpn="blue_02", kind="xa", state="prepared", replicated=True,
                           heuristic=None, last_state_change_ms=1000, messages_spooled=0, messages_published=0,
                           messages_consumed=0, client_num=1, client_name="c", client_username="default",
                           mirror=False)
    assert render(TransactionTable((info,))) == HEAD + (
        "\n0021ABC4-00-01"
        "\nblue_02                                       X P Y                1s        0")


def test_empty_default_lab(ny) -> None:
    assert show(ny, "show transaction") == HEAD
    assert show(ny, "show transaction replicated detail") == ""


def test_summary_follows_state(lab, ny, nj) -> None:
    prepared_xa(lab)
    with lab.store.transaction() as e:
        e.advance(1000)
    row = f"{XID}\nTrading_VPN                                   X P Y                1s        0"
    assert show(ny, "show transaction") == HEAD + "\n" + row
    assert show(ny, "show transaction message-vpn Trading_VPN state PREPARED replicated") == HEAD + "\n" + row
    assert show(ny, "show transaction state IDLE") == HEAD
    assert show(ny, "show transaction xid 0021*") == HEAD + "\n" + row
    assert show(ny, "show transaction xid FFFF*") == HEAD
    # mirrored on the standby once the replication stream drained
    assert show(nj, "show transaction replicated") == HEAD + (
        f"\n{XID}\nTrading_VPN                                   X P Y                0s        0")
    with lab.store.transaction() as e:
        router_engine(e).tx_local_start("trader")
        router_engine(e).publish("trader", "trading/orders/2", count=4)
        e.advance(125000)
    assert show(ny, "show transaction") == HEAD + (
        # an ACTIVE transaction is not mirrored: R is N (seed 004)
        "\nN/A\nTrading_VPN                                   L A N             2m 5s        4"
        f"\n{XID}\nTrading_VPN                                   X P Y             2m 6s        0")
    assert show(ny, "show transaction sort-by-messages-spooled").splitlines()[-4] == "N/A"
    assert show(ny, "show transaction sort-by-last-state-change").splitlines()[-4] == XID


DETAIL = """\
XID: 0021ABC4-00-01
Message VPN: Trading_VPN
Client: settlement/2/#000c0002
Client Username: settlement
Session: N/A
Idle Timeout: 0
Type: XA
State: PREPARED
Replicated: Yes
Last State Change: 0d 0h 0m 3s
Messages: 0
Messages Published: 0
Messages Consumed: 2
Publisher Messages:
Message Id Topic
-------------------- -----------------------------------------------------------
Consumer Messages:
Message Id Type Endpoint Name
-------------------- ----- -----------------------------------------------------
3118727406 queue orders
3118727407 queue orders"""


def test_detail(lab, ny) -> None:
    prepared_xa(lab)
    with lab.store.transaction() as e:
        e.advance(3000)
    assert show(ny, f"show transaction xid {XID} detail") == DETAIL
    assert show(ny, "show transaction message-vpn Trading_VPN state PREPARED replicated detail") == DETAIL
    with lab.store.transaction() as e:
        router_engine(e).heuristic_commit("NY_Appliance1", "Trading_VPN", XID)
    text = show(ny, f"show transaction xid {XID} detail")
    assert "State: COMPLETE\nHeuristic Outcome: Committed\nReplicated: Yes\n" in text
    assert show(ny, "show transaction").splitlines()[-1].startswith(
        "Trading_VPN                                   X C Y")


def test_detail_lists_publisher_messages(lab, ny) -> None:
    with lab.store.transaction() as e:
        router_engine(e).tx_xa_start("trader", "00AA-01-02")
        router_engine(e).publish("trader", "trading/orders/9", count=2)
    text = show(ny, "show transaction xid 00AA-01-02 detail")
    assert ("Publisher Messages:\nMessage Id Topic\n"
            "-------------------- -----------------------------------------------------------\n"
            "N/A trading/orders/9\nN/A trading/orders/9\nConsumer Messages:\n") in text
    assert "State: ACTIVE\nReplicated: No\n" in text  # ACTIVE branches are not mirrored (seed 004)


def test_errors_and_access(lab, ny) -> None:
    assert ny.execute("show transaction message-vpn Nope").text == "ERROR: Message VPN 'Nope' not found."
    assert not ny.execute("show transaction state BOGUS").ok
    with lab.store.transaction() as e:
        router_engine(e).fail_site("NY")
    assert ny.execute("show transaction").text == "ERROR: Router 'NY_Appliance1' is down."
    ny.user = UserAccess("nobody", "none")
    assert ny.execute("show transaction").error_kind == "access"
