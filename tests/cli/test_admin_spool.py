"""ADMIN: heuristic transaction actions and delete-messages (admin/message-spool), client disconnect
(admin). Seed 000 steps 4 and 6 are the heuristic actions on the formerly active site."""

from __future__ import annotations

import pytest

from solace_shell.lab import Lab
from tests.support.cli_steps import go, refused
from tests.support.router_engine import router_engine

NY, NJ, VPN = "NY_Appliance1", "NJ_Appliance1", "Trading_VPN"
SPOOL_PROMPT = "NY_Appliance1(admin/message-spool)#"
X1, X2, X3 = "0021ABC4-00-01", "0021ABC4-00-02", "0021ABC5-00-01"


def at_admin_spool(session):
    return go(session, "enable", "admin", f"message-spool message-vpn {VPN}")


def prepared(lab, *xids, client="trader"):
    """XA transactions that published one message each, ended and prepared."""
    with lab.store.transaction() as e:
        for xid in xids:
            router_engine(e).tx_xa_start(client, xid)
            router_engine(e).publish(client, "trading/orders/new", 1)
            router_engine(e).tx_xa_end(client, xid)
            router_engine(e).tx_xa_prepare(client, xid)


def txns(lab, router=NY):
    with lab.store.transaction() as e:
        return {t.xid: (t.state.upper(), t.heuristic) for t in router_engine(e).transactions(router, vpn=VPN)}


def test_heuristic_commit_then_delete(lab, ny) -> None:
    prepared(lab, X1)
    at_admin_spool(ny)
    go(ny, f"commit-transaction xid {X1}")
    assert ny.prompt == SPOOL_PROMPT
    assert txns(lab)[X1] == ("COMPLETE", "committed")
    go(ny, f"delete-transaction xid {X1}")
    assert X1 not in txns(lab)


def test_heuristic_rollback_with_wildcards(lab, ny) -> None:
    prepared(lab, X1, X2, X3)
    at_admin_spool(ny)
    go(ny, "rollback-transaction xid 0021ABC4-00-0?")
    got = txns(lab)
    assert got[X1] == got[X2] == ("COMPLETE", "rolled back")
    assert got[X3] == ("PREPARED", None)
    go(ny, "delete-transaction xid 0021ABC4*")
    assert set(txns(lab)) == {X3}


def test_commit_refused_for_an_active_transaction(lab, ny) -> None:
    with lab.store.transaction() as e:
        router_engine(e).tx_xa_start("trader", X1)
    at_admin_spool(ny)
    outcome = refused(lab, ny, f"commit-transaction xid {X1}")
    assert outcome.text == (f"ERROR: Transaction '{X1}' is not in a valid state: it is ACTIVE, "
                            "the command requires IDLE or PREPARED.")
    outcome = refused(lab, ny, f"rollback-transaction xid {X1}")
    assert "it is ACTIVE" in outcome.text


def test_a_pattern_refuses_all_when_one_match_is_in_the_wrong_state(lab, ny) -> None:
    prepared(lab, X1)
    with lab.store.transaction() as e:
        router_engine(e).tx_xa_start("trader", X2)
    at_admin_spool(ny)
    refused(lab, ny, "commit-transaction xid 0021ABC4*")
    assert txns(lab)[X1] == ("PREPARED", None)


def test_delete_only_heuristically_completed(lab, ny) -> None:
    prepared(lab, X1)
    at_admin_spool(ny)
    outcome = refused(lab, ny, f"delete-transaction xid {X1}")
    assert outcome.text == (f"ERROR: Transaction '{X1}' is not in a valid state: it is PREPARED, "
                            "the command requires COMPLETE.")


@pytest.mark.parametrize("verb", ["commit-transaction", "rollback-transaction", "delete-transaction"])
def test_a_pattern_matching_nothing_is_an_error(lab, ny, verb) -> None:
    prepared(lab, X1)
    at_admin_spool(ny)
    outcome = refused(lab, ny, f"{verb} xid FFFF*")
    assert outcome.text == "ERROR: No transaction matches XID 'FFFF*'."


def test_seed_000_failover_with_a_prepared_transaction(lab, ny, nj) -> None:
    """Steps 2-6: standby on NY, drain (the PREPARED state is mirrored to NJ), heuristic commit on
    NY only, active on NJ, delete the heuristically completed one on NY."""
    prepared(lab, X1)
    go(ny, "enable", "configure", f"message-vpn {VPN}", "replication state standby")
    assert lab.console.execute("advance 5s").ok
    assert txns(lab, NJ)[X1] == ("PREPARED", None)
    go(ny, "end", "admin", f"message-spool message-vpn {VPN}", f"commit-transaction xid {X1}")
    assert txns(lab)[X1] == ("COMPLETE", "committed")
    go(nj, "enable", "configure", f"message-vpn {VPN}", "replication state active")
    go(ny, f"delete-transaction xid {X1}")
    assert X1 not in txns(lab)
    with lab.store.transaction() as e:
        row = router_engine(e).vpn_replication(NJ, VPN)[0]
        assert (row.admin_enabled, row.role) == (True, "active")


# ------------------------------------------------------------------ delete-messages
def spooled(lab, queue="orders"):
    with lab.store.transaction() as e:
        return [m.msg_id for m in router_engine(e).queue_messages(NY, VPN, queue)]


def test_delete_messages_all_one_and_range(lab, ny) -> None:
    with lab.store.transaction() as e:
        router_engine(e).publish("trader", "trading/orders/new", 6)
    ids = spooled(lab)
    assert len(ids) == 6
    at_admin_spool(ny)
    go(ny, f"delete-messages queue orders message {ids[0]}")
    assert spooled(lab) == ids[1:]
    go(ny, f"delete-messages queue orders message {ids[1]} to {ids[3]}")
    assert spooled(lab) == ids[4:]
    go(ny, "delete-messages queue orders")
    assert spooled(lab) == []


def test_delete_messages_refusals(lab, ny) -> None:
    with lab.store.transaction() as e:
        router_engine(e).publish("trader", "trading/orders/new", 1)
    at_admin_spool(ny)
    outcome = refused(lab, ny, "delete-messages queue orders message 999999")
    assert outcome.text == "ERROR: Message 999999 not found in queue 'orders'."
    outcome = refused(lab, ny, "delete-messages queue nope")
    assert outcome.text == "ERROR: Queue 'nope' not found in Message VPN 'Trading_VPN'."


# ------------------------------------------------------------------ client disconnect
def test_client_disconnect(lab, ny) -> None:
    go(ny, "enable", "admin", f"client trader message-vpn {VPN} disconnect")
    assert ny.prompt == "NY_Appliance1(admin)#"
    with lab.store.transaction() as e:
        c = router_engine(e).client("trader")
    assert (c.status, c.last_disconnect_reason) == ("disconnected", "admin disconnect")
    outcome = refused(lab, ny, f"client nobody message-vpn {VPN} disconnect")
    assert outcome.text == "ERROR: Client 'nobody' not found."
    outcome = refused(lab, ny, "client trader message-vpn Nope disconnect")
    assert outcome.text == "ERROR: Message VPN 'Nope' not found."


def test_client_disconnect_on_the_wrong_router(lab, nj) -> None:
    go(nj, "enable", "admin")
    outcome = refused(lab, nj, f"client trader message-vpn {VPN} disconnect")
    assert outcome.text == "ERROR: Client 'trader' not found."


# ------------------------------------------------------------------ access
@pytest.mark.parametrize("user,ok", [("monitor", False), ("trading_admin", True), ("operator", True)])
def test_heuristics_need_vpn_read_write(user, ok) -> None:
    lab = Lab.fresh(settings={"user": user})
    try:
        prepared(lab, X1)
        ny = at_admin_spool(lab.session(NY))
        line = f"commit-transaction xid {X1}"
        if ok:
            go(ny, line)
            assert txns(lab)[X1] == ("COMPLETE", "committed")
        else:
            outcome = refused(lab, ny, line, kind="access")
            assert outcome.text == ("ERROR: Permission denied: 'commit-transaction xid <xid-pattern>' requires "
                                    "vpn/read-write access; user 'monitor' has vpn/read-only.")
    finally:
        lab.close()


@pytest.mark.parametrize("user,ok", [("monitor", False), ("trading_admin", True)])
def test_client_disconnect_needs_vpn_read_write(user, ok) -> None:
    lab = Lab.fresh(settings={"user": user})
    try:
        ny = go(lab.session(NY), "enable", "admin")
        line = f"client trader message-vpn {VPN} disconnect"
        if ok:
            go(ny, line)
        else:
            refused(lab, ny, line, kind="access")
        with lab.store.transaction() as e:
            assert (router_engine(e).client("trader").status == "disconnected") is ok
    finally:
        lab.close()
