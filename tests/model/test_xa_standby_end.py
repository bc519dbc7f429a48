"""Seed 000 step 4 ("Only prepared transactions have to be addressed. Transactions in other states
can be ignored") and seed 004 ("XA transactions in the ACTIVE state are not mirrored"): a VPN going
standby ends its clients' XA branches that are not PREPARED, audited; the R flag marks mirrored
states only."""

from __future__ import annotations

from solace_shell.lab import Lab
from tests.support.router_engine import router_engine

NY, NJ, VPN = "NY_Appliance1", "NJ_Appliance1", "Trading_VPN"


def _standby(lab: Lab, router: str) -> None:
    for line in ("enable", "configure", f"message-vpn {VPN}", "replication state standby", "end"):
        assert lab.execute(router, line).ok


def test_unprepared_branches_end_prepared_ones_stay() -> None:
    lab = Lab.fresh()
    with lab.store.transaction() as e:
        router_engine(e).tx_xa_start("trader", "0021ABC4-00-01")
        router_engine(e).publish("trader", "trading/orders/1")
        router_engine(e).tx_xa_end("trader", "0021ABC4-00-01")              # IDLE
        router_engine(e).tx_xa_start("settlement", "0021ABC4-00-02")
        router_engine(e).tx_xa_end("settlement", "0021ABC4-00-02")
        router_engine(e).tx_xa_prepare("settlement", "0021ABC4-00-02")      # PREPARED
        e.advance(1000)
    _standby(lab, NY)
    with lab.store.transaction() as e:
        left = [(t.xid, t.state) for t in router_engine(e).transactions(NY)]
        audit = router_engine(e).audit()
    assert left == [("0021ABC4-00-02", "prepared")]
    kinds = {(i.xid, i.kind, i.state) for i in audit.xa_issues}
    assert ("0021ABC4-00-01", "ended-on-standby", "idle") in kinds
    assert ("0021ABC4-00-02", "left-prepared", "") in kinds
    assert "IDLE branch rolled back on NY_Appliance1 when its VPN went standby" in lab.execute("lab", "audit").text


def test_a_client_disconnect_alone_keeps_the_idle_branch() -> None:
    lab = Lab.fresh()
    with lab.store.transaction() as e:
        router_engine(e).tx_xa_start("trader", "0021ABC4-00-01")
        router_engine(e).tx_xa_end("trader", "0021ABC4-00-01")
        router_engine(e).disconnect_client(NY, VPN, "trader")
        assert [t.state for t in router_engine(e).transactions(NY)] == ["idle"]


def test_the_r_flag_marks_mirrored_states_only() -> None:
    lab = Lab.fresh()
    with lab.store.transaction() as e:
        router_engine(e).tx_xa_start("trader", "0021ABC4-00-01")            # ACTIVE: not mirrored
        router_engine(e).tx_xa_start("settlement", "0021ABC4-00-02")
        router_engine(e).tx_xa_end("settlement", "0021ABC4-00-02")          # IDLE: mirrored
    rows = lab.execute(NY, "show transaction").text.splitlines()
    assert rows[-3].endswith("X A N                0s        0")
    assert rows[-1].endswith("X I Y                0s        0")
    replicated = lab.execute(NY, "show transaction replicated").text
    assert "0021ABC4-00-02" in replicated and "0021ABC4-00-01" not in replicated
    assert "Replicated: No" in lab.execute(NY, "show transaction xid 0021ABC4-00-01 detail").text
