"""Failover runbooks end to end: router sessions for the broker commands, the lab console for time,
traffic, failures and the audit (docs/lab.md recipes)."""

from __future__ import annotations

NY, NJ, VPN = "NY_Appliance1", "NJ_Appliance1", "Trading_VPN"
XID = "0021ABC4-00-01"
SHOW_RQ = "show queue #MSGVPN_REPLICATION_DATA_QUEUE message-vpn Trading_VPN"


def run(session, *lines: str) -> str:
    text = ""
    for line in lines:
        outcome = session.execute(line)
        assert outcome.ok, (line, outcome.text)
        text = outcome.text
    return text


def spooled(session) -> int:
    """Current Messages Spooled of the replication queue, as an operator reads it (step 3)."""
    text = run(session, SHOW_RQ)
    line = next(x for x in text.splitlines() if x.startswith("Current Messages Spooled"))
    return int(line.split(":")[1])


def role_flags(session) -> str:
    text = run(session, f"show message-vpn {VPN} replication")
    return next(x for x in text.splitlines() if x.startswith(VPN))[33:]


def test_controlled_failover_seed_000(lab, ny, nj):
    con = lab.console
    run(con, "publish trader trading/orders/new count 100")
    run(con, "advance 5s")
    run(con, "consume settlement orders count 40")
    run(con, f"transaction xa start trader {XID}", "publish trader trading/orders/new count 5",
        f"transaction xa end trader {XID}", f"transaction xa prepare trader {XID}")
    run(con, "publish trader trading/orders/new count 20")    # still on NY's replication queue
    # step 1: the bridge is bound
    run(ny, "enable")
    run(nj, "enable")
    assert role_flags(ny) == "U A - U U - N A" and role_flags(nj) == "U S U - - - N A"
    # step 2: NY standby (clients disconnect)
    run(ny, "configure", "message-vpn Trading_VPN", "replication state standby")
    assert spooled(ny) == 20
    # step 3: wait for the drain (40 acks, 2 XA states, 20 messages)
    assert run(con, "advance 5s") == "clock 00:00:10.000 (+5s) drained 62 reconnected -"
    assert spooled(ny) == 0
    # step 4: the PREPARED XA transaction on the old active site: the transaction manager's log
    # says the other branches commit, so commit it heuristically there (a rollback here and the
    # manager's commit on NJ would be inconsistent, which the audit reports: issue 13)
    run(ny, "end", "admin", "message-spool message-vpn Trading_VPN", f"commit-transaction xid {XID}")
    # step 5: NJ active; the clients follow their host list
    run(nj, "configure", "message-vpn Trading_VPN", "replication state active")
    assert role_flags(nj) == "U A - U U - N A"
    assert run(con, "advance 1s") == "clock 00:00:11.000 (+1s) drained 0 reconnected settlement,trader"
    # step 6: delete the heuristically completed transaction on the old active site
    run(ny, f"delete-transaction xid {XID}")
    # the transaction manager commits the mirrored branch on the new active site
    assert run(con, f"transaction xa commit trader {XID}") == f"transaction xa {XID} trader COMMITTED on NJ_Appliance1"
    assert run(con, "consume settlement orders count 1000") == (
        "consumed 85 from orders on NJ_Appliance1 (rgmid 1000041-1000125)")
    run(con, "advance 1s")
    assert run(con, "audit") == (
        "published 125 delivered 125 duplicated 0 lost 0 spooled 0\n"
        "rejected 0 not-replicated 0 stranded 0 in-transaction 0")


def test_classic_mistake_activate_before_drain(lab, ny, nj):
    con = lab.console
    run(con, "publish trader trading/orders/new count 10")
    run(con, "advance 1s")
    run(con, "publish trader trading/orders/new count 5")    # not yet replicated
    run(ny, "enable", "configure", "message-vpn Trading_VPN", "replication state standby")
    run(nj, "enable", "configure", "message-vpn Trading_VPN", "replication state active")   # too early
    assert run(con, "advance 10s") == "clock 00:00:11.000 (+10s) drained 0 reconnected settlement,trader"
    assert spooled(ny) == 5     # stuck: nobody drains a standby's queue
    assert run(con, "consume settlement orders count 100") == (
        "consumed 10 from orders on NJ_Appliance1 (rgmid 1000001-1000010)")
    run(con, "advance 1s")
    assert run(con, "audit Trading_VPN") == (
        "published 15 delivered 10 duplicated 0 lost 5 spooled 5\n"
        "rejected 0 not-replicated 0 stranded 5 in-transaction 0\n"
        "spooled 5 in Trading_VPN/#MSGVPN_REPLICATION_DATA_QUEUE on NY_Appliance1\n"
        "spooled 5 in Trading_VPN/orders on NY_Appliance1\n"
        "rgmid 1000011-1000015 stranded on NY_Appliance1/#MSGVPN_REPLICATION_DATA_QUEUE,NY_Appliance1/orders"
        " (may reappear out of order or as duplicates if NY_Appliance1 becomes active again)")


def test_uncontrolled_short_term_outage_and_failback(lab, ny, nj):
    con = lab.console
    run(con, "publish trader trading/orders/new count 3", "advance 1s")
    run(con, "publish trader trading/orders/new count 2")    # lost with the site (for now)
    assert run(con, "fail site NY") == "site NY down routers NY_Appliance1 disconnected settlement,trader"
    run(nj, "enable")
    assert role_flags(nj) == "U S D - - - N A"
    run(nj, "configure", "message-vpn Trading_VPN", "replication state active")
    assert run(con, "advance 1s") == "clock 00:00:02.000 (+1s) drained 0 reconnected settlement,trader"
    assert run(con, "publish trader trading/orders/new count 4") == (
        "published 4 rejected 0 replicated 4 not-replicated 0 on NJ_Appliance1 (rgmid 1000006-1000009)")
    assert run(con, "consume settlement orders count 100") == (
        "consumed 7 from orders on NJ_Appliance1 (rgmid 1000001-1000003,1000006-1000009)")
    # NY comes back active (both active): make it standby, let it drain NJ's queue
    assert run(con, "restore site NY") == "site NY up routers NY_Appliance1 disconnected -"
    run(ny, "enable")
    assert role_flags(ny) == "U A - D D - N A"
    run(ny, "configure", "message-vpn Trading_VPN", "replication state standby")
    run(con, "advance 5s")
    assert role_flags(ny) == "U S U - - - N A"
    assert run(con, "audit") == (
        "published 9 delivered 7 duplicated 0 lost 2 spooled 2\n"
        "rejected 0 not-replicated 0 stranded 2 in-transaction 0\n"
        "spooled 2 in Trading_VPN/#MSGVPN_REPLICATION_DATA_QUEUE on NY_Appliance1\n"
        "spooled 2 in Trading_VPN/orders on NY_Appliance1\n"
        "rgmid 1000004-1000005 stranded on NY_Appliance1/#MSGVPN_REPLICATION_DATA_QUEUE,NY_Appliance1/orders"
        " (may reappear out of order or as duplicates if NY_Appliance1 becomes active again)")


def test_complete_failure_replace_site_then_failback(lab, ny, nj):
    con = lab.console
    run(con, "publish trader trading/orders/new count 3", "advance 1s", "publish trader trading/orders/new count 2")
    run(con, "fail site NY")
    run(nj, "enable", "configure", "message-vpn Trading_VPN", "replication state active")
    assert run(con, "replace site NY") == "site NY replaced routers NY_Appliance1 disconnected -"
    run(con, "advance 1s", "consume settlement orders count 10", "publish trader trading/orders/new count 4")
    run(con, "advance 1s")
    # controlled failback to the replacement
    run(nj, "replication state standby")
    run(con, "advance 1s")
    run(ny, "enable", "configure", "message-vpn Trading_VPN", "replication state active")
    assert run(con, "advance 1s") == "clock 00:00:05.000 (+1s) drained 0 reconnected settlement,trader"
    assert run(con, "consume settlement orders count 10") == (
        "consumed 4 from orders on NY_Appliance1 (rgmid 1000006-1000009)")
    run(con, "advance 1s")
    assert run(con, "audit") == (
        "published 9 delivered 7 duplicated 0 lost 2 spooled 0\n"
        "rejected 0 not-replicated 2 stranded 0 in-transaction 0\n"
        "rgmid 1000004-1000005 lost: not replicated, site replaced")
