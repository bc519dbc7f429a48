"""`[no] shutdown` of a Message VPN (the `Disable Message Vpn` block of a real 10.26 remove dump):
the VPN serves no client and binds no replication bridge while shut down."""

from __future__ import annotations

from solace_shell.lab import Lab
from tests.support.router_engine import router_engine

NY, NJ, VPN = "NY_Appliance1", "NJ_Appliance1", "Trading_VPN"


def _run(lab: Lab, router: str, *lines: str) -> None:
    for line in lines:
        outcome = lab.execute(router, line)
        assert outcome.ok, (line, outcome.text)


def test_shutdown_disconnects_and_unbinds_until_no_shutdown() -> None:
    lab = Lab.fresh()
    _run(lab, NY, "enable", "configure", f"message-vpn {VPN}", "shutdown")
    with lab.store.transaction() as e:
        assert [c.name for c in router_engine(e).clients(NY, "*", VPN) if c.router == NY] == []
        assert router_engine(e).vpn_replication(NJ, VPN)[0].local_bridge != "up"
    lines = lab.execute(NY, f"show message-vpn {VPN}").text.splitlines()
    assert lines[2:4] == ["Configuration Status:                Disabled", "Local Status:                        Down"]
    assert lab.execute(NY, "show message-vpn Trading_*").text.splitlines()[-1].split()[1] == "Down"
    _run(lab, NY, "no shutdown")
    _run(lab, "lab", "advance 1s")
    with lab.store.transaction() as e:
        assert router_engine(e).vpn_replication(NJ, VPN)[0].local_bridge == "up"
        assert len([c for c in router_engine(e).clients(NY, "*", VPN) if c.router == NY]) == 2
    assert "Local Status:                        Up" in lab.execute(NY, f"show message-vpn {VPN}").text


def test_the_internal_vpn_cannot_be_shut_down() -> None:
    lab = Lab.fresh()
    _run(lab, NY, "enable", "configure", "message-vpn #config-sync")
    before = lab.store.dump()
    outcome = lab.execute(NY, "shutdown")
    assert not outcome.ok and outcome.text.startswith("ERROR: Message VPN '#config-sync' is not in a valid state")
    assert lab.store.dump() == before
