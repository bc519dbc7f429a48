"""The redundancy group's rules through the lab (state_store/solace/redundancy.py): who holds activity
after each failure, the monitor's vote, the mirror's sync, the hello timeout, and the site's
message router following the activity (docs/lab-ha-pair.md)."""

from __future__ import annotations

from pathlib import Path

from solace_shell.lab import Lab
from tests.support.router_engine import router_engine

SCENARIO = Path(__file__).resolve().parents[2] / "state_store" / "scenarios" / "two-site-ha.yaml"


def _lab() -> Lab:
    return Lab.fresh(SCENARIO)


def _run(lab: Lab, *lines: str) -> list[str]:
    out = []
    for line in lines:
        result = lab.execute("lab", line)
        assert result.ok, (line, result.text)
        out.append(result.text)
    return out


def _active(lab: Lab, site: str = "NY") -> str | None:
    with lab.store.transaction() as engine:
        active = engine.kernel().groups[site].data["active"]
    return None if active is None else str(active)


def _router_up(lab: Lab, name: str) -> bool:
    with lab.store.transaction() as engine:
        return next(r.up for r in engine.routers() if r.name == name)


def test_the_backup_takes_over_from_a_killed_primary_and_nothing_is_lost() -> None:
    lab = _lab()
    _run(lab, "publish trader trading/orders/new count 40", "fail router NY_Appliance1", "advance 1s")
    assert _active(lab) == "NY_Appliance2" and _router_up(lab, "NY_Appliance1")
    assert lab.execute("lab", "consume settlement orders count 40").text.startswith("consumed 40 ")
    assert "lost 0" in lab.execute("lab", "audit").text


def test_a_cut_between_the_members_alone_moves_nothing() -> None:
    """The standby still reaches the monitor, which still reaches the holder: no split brain.
    (No lab verb cuts that one link: the kernel's link is cut directly, in memory.)"""
    lab = _lab()
    with lab.store.transaction() as engine:
        kernel = engine.kernel()
        link = kernel.link("NY.NY_Appliance1", "NY.NY_Appliance2")
        assert link is not None
        kernel.set_link(link, False)
        assert kernel.groups["NY"].data["active"] == "NY_Appliance1"
        assert kernel.groups["NY"].data["status_down"] == "One or more nodes is offline"


def test_the_mate_link_down_moves_nothing_but_the_status() -> None:
    lab = _lab()
    _run(lab, "fail mate-link NY")
    assert _active(lab) == "NY_Appliance1"
    with lab.store.transaction() as engine:
        assert router_engine(engine).redundancy("NY_Appliance2").backup_vr.spool_status == "AD-Disabled"
        assert not router_engine(engine).redundancy("NY_Appliance1").status_up


def test_without_the_monitor_the_survivor_has_no_quorum_until_it_returns() -> None:
    lab = _lab()
    _run(lab, "fail router NY_Monitor")
    assert _active(lab) == "NY_Appliance1"
    _run(lab, "fail router NY_Appliance1")
    assert _active(lab) is None and not _router_up(lab, "NY_Appliance1")
    _run(lab, "restore router NY_Monitor")
    assert _active(lab) == "NY_Appliance2" and _router_up(lab, "NY_Appliance1")


def test_a_stale_mirror_keeps_the_backup_from_taking_over() -> None:
    lab = _lab()
    _run(lab, "fail mate-link NY", "publish trader trading/orders/new count 5", "fail router NY_Appliance1")
    assert _active(lab) is None
    _run(lab, "restore router NY_Appliance1")
    assert _active(lab) == "NY_Appliance1"


def test_a_hung_primary_loses_activity_at_its_mates_hello_timeout() -> None:
    lab = _lab()
    _run(lab, "ha hang NY.NY_Appliance1", "advance 2999ms")
    assert _active(lab) == "NY_Appliance1"
    _run(lab, "advance 1ms")
    assert _active(lab) == "NY_Appliance2"


def test_auto_revert_gives_activity_back_and_off_keeps_it() -> None:
    lab = _lab()
    _run(lab, "fail router NY_Appliance1", "restore router NY_Appliance1")
    assert _active(lab) == "NY_Appliance2"
    lab = _lab()
    for line in ("enable", "configure", "redundancy", "auto-revert"):
        assert lab.execute("NY_Appliance1", line).ok
    _run(lab, "fail router NY_Appliance1", "restore router NY_Appliance1")
    assert _active(lab) == "NY_Appliance1"


def test_both_released_is_no_service_and_a_release_undone_brings_it_back() -> None:
    lab = _lab()
    for router in ("NY_Appliance1", "NY_Appliance2"):
        for line in ("enable", "configure", "redundancy", "release-activity"):
            assert lab.execute(router, line).ok, (router, line)
    assert _active(lab) is None and not _router_up(lab, "NY_Appliance1")
    assert lab.execute("NY_Appliance2", "no release-activity").ok
    assert _active(lab) == "NY_Appliance2" and _router_up(lab, "NY_Appliance1")


def test_a_killed_member_refuses_its_cli_in_one_line() -> None:
    lab = _lab()
    _run(lab, "fail router NY_Appliance2")
    out = lab.execute("NY_Appliance2", "show redundancy")
    assert not out.ok and out.text == "ERROR: Router 'NY_Appliance2' is down."
    assert lab.execute("NY_Appliance1", "show message-vpn Trading_VPN replication").ok


def test_the_lab_verbs_refuse_what_the_state_forbids() -> None:
    lab = _lab()
    cases = {
        "restore router NY_Appliance1": "ERROR: Node 'NY_Appliance1' is up.",
        "restore mate-link NY": "ERROR: The network of redundancy group 'NY' is already up.",
        "fail mate-link XX": "ERROR: Site 'XX' not found.",
        "fail router NOPE": "ERROR: Router 'NOPE' not found.",
        "ha replace NY.NY_Appliance1": "ERROR: Node 'NY_Appliance1' is up.",
    }
    for line, error in cases.items():
        out = lab.execute("lab", line)
        assert not out.ok and out.text == error, (line, out.text)
    assert _active(lab) == "NY_Appliance1"


def test_a_replaced_member_copies_the_spool_again_and_nothing_is_lost() -> None:
    """`ha replace` on a stopped member: its copy of the spool is gone, its mate's serves (the
    primary's mirror was in sync), and it copies the spool again once back with the mate link up;
    a stopped monitor is replaced with nothing to lose."""
    lab = _lab()
    _run(lab, "publish trader trading/orders/new count 40", "fail router NY_Appliance1", "advance 1s",
         "ha replace NY.NY_Appliance1", "fail router NY_Monitor", "ha replace NY.NY_Monitor",
         "restore router NY_Monitor", "restore router NY_Appliance1")
    assert _active(lab) == "NY_Appliance2"
    lab.execute("NY_Appliance2", "enable")
    assert "Redundancy Status        : Up" in lab.execute("NY_Appliance2", "show redundancy").text
    _run(lab, "fail router NY_Appliance2", "advance 1s")
    assert _active(lab) == "NY_Appliance1"
    assert lab.execute("lab", "consume settlement orders count 40").text.startswith("consumed 40 ")
    assert "lost 0" in lab.execute("lab", "audit").text


def test_replacing_the_only_current_copy_of_the_spool_is_refused() -> None:
    lab = _lab()
    _run(lab, "fail mate-link NY", "publish trader trading/orders/new count 5", "fail router NY_Appliance1")
    before = lab.store.dump()
    out = lab.execute("lab", "ha replace NY.NY_Appliance1")
    assert not out.ok and out.text == (
        "ERROR: Node 'NY_Appliance1' holds the only current copy of the message spool (its mate's mirror is "
        "out of sync); the lab does not simulate losing it.")
    assert lab.store.dump() == before


def test_the_default_lab_refuses_the_redundancy_verbs() -> None:
    lab = Lab.fresh()
    assert lab.execute("lab", "fail router NY_Appliance1").text == (
        "ERROR: Router 'NY_Appliance1' is not a member of a redundancy group.")
    assert lab.execute("lab", "fail mate-link NY").text == "ERROR: Site 'NY' has no redundancy group."
