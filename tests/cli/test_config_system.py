"""System replication mate: configure/replication/mate, and the engine rule behind it (mate changes
only while replication is shut down on every Message VPN of the router)."""

from __future__ import annotations

import pytest

from solace_shell.lab import Lab
from state_store.errors import EngineError
from tests.support.cli_steps import go, refused
from tests.support.router_engine import router_engine

NY, VPN = "NY_Appliance1", "Trading_VPN"


def mate(lab):
    with lab.store.transaction() as e:
        rep = router_engine(e).system_replication(NY)
    return rep.mate_virtual_router_name, rep.connect_via


def shut_down_replication(ny):
    go(ny, f"message-vpn {VPN} replication shutdown")


def test_mate_change_refused_while_replication_is_enabled(lab, ny) -> None:
    go(ny, "enable", "configure")
    original = mate(lab)
    outcome = refused(lab, ny, "replication mate virtual-router-name v:NJ_Appliance2")
    assert outcome.text == ("ERROR: Cannot change the replication mate: not in a valid state "
                            "(replication is not shut down on Message VPN Trading_VPN).")
    assert mate(lab) == original


def test_mate_in_one_line_from_configure(lab, ny) -> None:
    go(ny, "enable", "configure")
    shut_down_replication(ny)
    go(ny, "replication mate virtual-router-name v:NJ_Appliance2 connect-via 10.0.0.9:55555")
    assert ny.prompt == "NY_Appliance1(configure)#"
    assert mate(lab) == ("v:NJ_Appliance2", "10.0.0.9:55555")
    go(ny, "replication mate connect-via 10.0.0.10")
    assert mate(lab) == ("v:NJ_Appliance2", "10.0.0.10")


def test_mate_from_the_replication_and_mate_levels(lab, ny) -> None:
    go(ny, "enable", "configure")
    shut_down_replication(ny)
    go(ny, "replication", "mate connect-via nj-host")
    assert ny.prompt == "NY_Appliance1(configure/replication)#"
    go(ny, "mate", "virtual-router-name v:NJ_B")
    assert ny.prompt == "NY_Appliance1(configure/replication/mate)#"
    assert mate(lab) == ("v:NJ_B", "nj-host")
    go(ny, "no connect-via", "no virtual-router-name")
    assert mate(lab) == ("", "")


@pytest.mark.parametrize("name", ["NJ_Appliance1", "v:", "v:_x", "v:x-", "v:a b", "v:" + "a" * 67])
def test_virtual_router_name_must_be_v_colon_name(lab, ny, name) -> None:
    go(ny, "enable", "configure")
    shut_down_replication(ny)
    outcome = ny.execute(f'replication mate virtual-router-name "{name}"')
    assert not outcome.ok
    assert mate(lab)[0] == "v:NJ_Appliance1"


def test_mate_needs_global_read_write() -> None:
    lab = Lab.fresh(settings={"user": "meshmgr"})
    try:
        ny = go(lab.session(NY), "enable", "configure")
        shut_down_replication(ny)                         # mesh-manager may do that
        outcome = refused(lab, ny, "replication mate connect-via x", kind="access")
        assert outcome.text == ("ERROR: Permission denied: 'connect-via <connect-via> [plain-text | compressed | ssl]' "
                                "requires global/read-write access; user 'meshmgr' has global/mesh-manager.")
    finally:
        lab.close()


# ------------------------------------------------------------------ engine
def test_engine_set_replication_mate(lab) -> None:
    with lab.store.transaction() as e:
        with pytest.raises(EngineError) as err:
            router_engine(e).set_replication_mate(NY, "connect-via", "x")
        assert err.value.code == "replication_not_shutdown"
        assert err.value.params == {"router": NY, "vpns": VPN}
        router_engine(e).set_replication_enabled(NY, VPN, False)
        router_engine(e).set_replication_mate(NY, "virtual-router-name", "v:other.router_1")
        router_engine(e).set_replication_mate(NY, "connect-via", "h:1")
        system = router_engine(e).system_replication(NY)
        assert (system.mate_virtual_router_name, system.connect_via) == (
            "v:other.router_1", "h:1")
        assert router_engine(e).system_replication(NY).config_sync_bridge_up is False   # no such router
        router_engine(e).set_replication_mate(NY, "virtual-router-name", None)
        assert router_engine(e).system_replication(NY).mate_virtual_router_name == ""
        with pytest.raises(EngineError) as err:
            router_engine(e).set_replication_mate(NY, "port", "1")
        assert err.value.code == "unknown_option"
        with pytest.raises(EngineError) as err:
            router_engine(e).set_replication_mate(NY, "virtual-router-name", "v:-bad")
        assert err.value.code == "invalid_value"
