"""Bulk paths give exact results at size; their speed is measured in bench/bench_engine_scale.py."""

from __future__ import annotations

from solace_shell.personalities.solace.renderers.flags import vpn_replication_flags
from state_store.lab_store import LabStore
from tests.support.router_engine import router_engine

NY, NJ, VPN = "NY_Appliance1", "NJ_Appliance1", "Trading_VPN"
RQ = "#MSGVPN_REPLICATION_DATA_QUEUE"


def test_bulk_publish_drain_consume_audit():
    n = 50_000
    lab = LabStore.in_memory()
    with lab.transaction() as e:
        r = router_engine(e).publish("trader", "trading/orders/new", count=n)
        assert (r.accepted, r.first_rgmid, r.last_rgmid) == (n, 1000001, 1000000 + n)
        rows = {q.name: q for q in router_engine(e).queues(NY)}
        flags = vpn_replication_flags(router_engine(e).vpn_replication(NY, VPN)[0])
        assert rows[RQ].messages_spooled == n and rows["orders"].messages_spooled == n
        assert f"{rows[RQ].usage_mb:.2f}" == f"{n * 600 / 1048576:.2f}"
        assert flags == "U A - U U - N A"
        e.advance(20_000)  # 20k entries at 1000/s
        assert router_engine(e).queue_detail(NY, VPN, RQ).messages_spooled == n - 20_000
        assert router_engine(e).queue_detail(NJ, VPN, "orders").messages_spooled == 20_000
        assert router_engine(e).consume("settlement", "orders", n).consumed == n
        assert router_engine(e).replication_stats(NY, VPN).pruned_locally_consumed_msgs == n - 20_000
        assert router_engine(e).queue_detail(NY, VPN, RQ).messages_spooled == 0
        e.advance(30_000)
        assert router_engine(e).queue_detail(NJ, VPN, "orders").messages_spooled == 0
        router = router_engine(e)
        assert router.queue_detail(NY, VPN, "orders").hwm_mb == router.queue_detail(NY, VPN, RQ).hwm_mb
        a = router_engine(e).audit()
        assert (a.totals.published, a.totals.delivered_once, a.totals.stored) == (n, n, 0)
