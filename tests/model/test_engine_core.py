"""Default lab state, topic matching, publish/consume/drain/ack basics, config ops."""

from __future__ import annotations

import pytest
import yaml

from solace_shell.personalities.solace.renderers.flags import queue_flags, vpn_replication_flags
from state_store.errors import EngineError
from state_store.lab_store import LabStore
from state_store.passwords import verify_password
from state_store.scenario_files import resolve_scenario
from state_store.solace.topics import name_matches, topic_matches
from tests.support.router_engine import router_engine

NY, NJ, VPN = "NY_Appliance1", "NJ_Appliance1", "Trading_VPN"
RQ = "#MSGVPN_REPLICATION_DATA_QUEUE"


@pytest.fixture
def lab():
    s = LabStore.in_memory()
    yield s
    s.close()


def flags(e, router, vpn=VPN):
    return {r.name: vpn_replication_flags(r) for r in router_engine(e).vpn_replication(router, "*")}[vpn]


def qcount(e, router, queue, vpn=VPN):
    return router_engine(e).queue_detail(router, vpn, queue).messages_spooled


# The logins the bundled scenarios publish in their comments. They give them as hashes made once, so
# building their labs hashes no password (five scrypt hashes were ~0.2 s of CPU in every process that
# built a default lab: a replay, each Spark executor's daemon, a first shell).
PUBLISHED_LOGINS = {
    "default": {"admin": "admin", "operator": "operator", "monitor": "monitor", "meshmgr": "meshmgr",
                "trading_admin": "trading"},
    "swiftmq-ha": {"admin": "admin", "operator": "operator", "monitor": "monitor"},
    "geode-ha": {"admin": "admin", "operator": "operator", "monitor": "monitor"},
    "qpid-ha": {"admin": "admin", "operator": "operator", "monitor": "monitor"},
}


def _keys(node: object) -> set[str]:
    if isinstance(node, dict):
        return set(node).union(*map(_keys, node.values()))
    if isinstance(node, list):
        return set().union(*map(_keys, node))
    return set()


@pytest.mark.parametrize("name", sorted(PUBLISHED_LOGINS))
def test_bundled_scenarios_store_hashes_of_their_published_passwords(name):
    path = resolve_scenario(name)
    assert path is not None
    assert "password" not in _keys(yaml.safe_load(path.read_text(encoding="utf-8")))
    store = LabStore.in_memory(path)
    try:
        with store.transaction() as e:
            assert sorted(u.name for u in e.users()) == sorted(PUBLISHED_LOGINS[name])
            for user, password in PUBLISHED_LOGINS[name].items():
                assert e.verify_password(user, password) and not e.verify_password(user, password + "x")
    finally:
        store.close()


def test_default_bridge_password_hash_is_the_one_its_clear_password_makes():
    """So the default lab is the lab `password: replication` builds (but for the salt)."""
    path = resolve_scenario("default")
    assert path is not None
    vpns = {v["name"]: v for v in yaml.safe_load(path.read_text(encoding="utf-8"))["vpns"]}
    bridge = vpns[VPN]["replication"]["bridge"]
    assert verify_password("replication", bridge["password_hash"])
    assert not verify_password("replication-x", bridge["password_hash"])


def test_default_lab_flags_both_routers(lab):
    with lab.transaction() as e:
        ny = {r.name: vpn_replication_flags(r) for r in router_engine(e).vpn_replication(NY)}
        nj = {r.name: vpn_replication_flags(r) for r in router_engine(e).vpn_replication(NJ)}
    assert list(ny) == ["#config-sync", "Trading_VPN", "default"]
    assert ny == {"#config-sync": "- - - - - - - -", "Trading_VPN": "U A - U U - N A",
                  "default": "D S - - - - N A"}
    assert nj == {"#config-sync": "- - - - - - - -", "Trading_VPN": "U S U - - - N A",
                  "default": "D S - - - - N A"}


def test_default_lab_settings_clients_users(lab):
    with lab.transaction() as e:
        assert e.settings()["software_version"] == "10.4.1.52"
        assert e.settings()["layout"] == "B"
        assert e.settings()["replication_drain_rate"] == "1000"
        assert [(c.name, c.router) for c in router_engine(e).clients()] == [("settlement", NY), ("trader", NY)]
        assert router_engine(e).clients(NY)[0].hosts == (NY, NJ)
        assert router_engine(e).clients(NJ) == []
        assert e.user("admin").level == "admin"
        assert e.user("trading_admin").scope == "vpn" and e.user("trading_admin").vpn == VPN
        assert e.verify_password("admin", "admin") and not e.verify_password("admin", "x")
        assert {u.level for u in e.users()} >= {"admin", "read-only", "read-write", "mesh-manager"}
        d = router_engine(e).vpn_replication_detail(NJ, VPN)
        assert (d.queue_max_spool_mb, d.ack_propagation_interval, d.bridge_window_size,
                d.bridge_retry_delay, d.bridge_client_profile, d.bridge_auth_scheme) == (
            60000, 20, 255, 3, "#client-profile", "basic")
        assert d.queue_reject_msg_to_sender_on_discard and not d.reject_msg_when_sync_ineligible
        assert d.flags.local_bridge == "up" and d.mate_router == NY
        assert [(t.topic, t.mode) for t in d.replicated_topics] == [("trading/>", "async")]
        b = router_engine(e).bridges(NJ)
        assert [(x.name, x.queue_bound, x.remote_router, x.local_bridge) for x in b] == [
            ("#MSGVPN_REPLICATION_BRIDGE", True, "NY_Appliance1", "up")]
        assert router_engine(e).bridges(NY) == []
        assert router_engine(e).queue_detail(NY, VPN, "orders").subscriptions == ("trading/orders/>",)
    dump = lab.dump()
    assert "'admin', 'admin'" not in dump  # password never in clear


@pytest.mark.parametrize("sub,topic,ok", [
    ("trading/>", "trading/orders/new", True),
    ("trading/>", "trading", False),
    ("trading/*/new", "trading/orders/new", True),
    ("trading/*/new", "trading/orders/old", False),
    ("trading/ord*/>", "trading/orders/new", True),
    ("trading/ord*/>", "trading/quotes/new", False),
    ("a/b", "a/b", True),
    ("a/b", "a/b/c", False),
    ("a/*", "a/b/c", False),
    ("a/>/c", "a/>/c", True),
])
def test_topic_matching(sub, topic, ok):
    assert topic_matches(sub, topic) is ok


def test_name_patterns():
    assert name_matches("Trad*", "Trading_VPN") and name_matches("?efault", "default")
    assert not name_matches("Trad?", "Trading_VPN") and name_matches(None, "x")


def test_publish_spools_and_replicates(lab):
    with lab.transaction() as e:
        r = router_engine(e).publish("trader", "trading/orders/new", count=3)
        assert (r.accepted, r.replicated, r.first_rgmid, r.last_rgmid) == (3, 3, 1000001, 1000003)
        assert qcount(e, NY, "orders") == 3 and qcount(e, NY, RQ) == 3
        assert f"{router_engine(e).queue_detail(NY, VPN, RQ).usage_mb:.4f}" == "0.0017"
        assert qcount(e, NJ, "orders") == 0
        msgs = router_engine(e).queue_messages(NY, VPN, "orders")
        assert [m.msg_id for m in msgs] == [3118727406, 3118727407, 3118727408]
        assert [m.replication_group_msg_id for m in msgs] == [1000001, 1000002, 1000003]
        e.advance(2)  # 1000/s -> 2 entries
        assert qcount(e, NY, RQ) == 1 and qcount(e, NJ, "orders") == 2
        e.advance(1)
        assert qcount(e, NY, RQ) == 0 and qcount(e, NJ, "orders") == 3
        assert [m.replication_group_msg_id
                for m in router_engine(e).queue_messages(NJ, VPN, "orders")] == [1000001, 1000002, 1000003]
        # non-replicated topic stays local
        r = router_engine(e).publish("trader", "other/topic", count=1)
        assert (r.accepted, r.replicated, r.queues) == (1, 0, ())
        assert qcount(e, NY, RQ) == 0
        st = router_engine(e).replication_stats(NY, VPN)
        assert st.async_msgs_queued_to_standby == 3
        assert router_engine(e).replication_stats(NJ, VPN).msgs_received_from_active == 3


def test_one_message_shows_0_0006_mb(lab):
    with lab.transaction() as e:
        router_engine(e).publish("trader", "trading/orders/x")
        assert f"{router_engine(e).queue_detail(NY, VPN, RQ).usage_mb:.4f}" == "0.0006"
        assert router_engine(e).queues(NY, VPN, RQ)[0].messages_spooled == 1


def test_ack_propagation_and_pruning(lab):
    with lab.transaction() as e:
        router_engine(e).set_replication_option(NY, VPN, "ack-propagation-interval", 1)  # every ack at once
        router_engine(e).publish("trader", "trading/orders/new", count=4)
        e.advance(2)  # 2 replicated, 2 still waiting
        c = router_engine(e).consume("settlement", "orders", count=3)
        assert c.consumed == 3 and c.rgmids == (1000001, 1000002, 1000003)
        # msg 3 was still on the replication queue with no other copy -> pruned
        assert router_engine(e).replication_stats(NY, VPN).pruned_locally_consumed_msgs == 1
        assert qcount(e, NY, RQ) == 1  # only msg 4 counts; two acks are entries, not messages
        assert router_engine(e).replication_stats(NY, VPN).ack_msgs_sent_to_standby == 2
        e.advance(10)
        assert qcount(e, NY, RQ) == 0
        assert [m.replication_group_msg_id for m in router_engine(e).queue_messages(NJ, VPN, "orders")] == [1000004]
        assert router_engine(e).replication_stats(NJ, VPN).ack_msgs_received_from_active == 2


def test_drain_rate_setting_and_carry(lab):
    with lab.transaction() as e:
        e.set_setting("replication_drain_rate", 10)
        router_engine(e).publish("trader", "trading/orders/new", count=5)
        e.advance(150)  # 1.5 entries
        assert qcount(e, NY, RQ) == 4
        e.advance(50)  # carry .5 + .5
        assert qcount(e, NY, RQ) == 3
        with pytest.raises(EngineError) as ei:
            e.set_setting("layout", "C")
        assert ei.value.code == "invalid_value"


def test_switch_standby_disconnects_clients_and_publish_refused(lab):
    with lab.transaction() as e:
        router_engine(e).set_replication_role(NY, VPN, "standby")
        assert all(c.router is None for c in router_engine(e).clients())
        assert flags(e, NY) == "U S Q - - - N A"
        assert flags(e, NJ) == "U S Q - - - N A"
    with pytest.raises(EngineError) as ei:
        with lab.transaction() as e:
            router_engine(e).publish("trader", "trading/orders/new")
    assert ei.value.code == "publish_rejected_standby"
    with lab.transaction() as e:
        router_engine(e).set_replication_role(NJ, VPN, "active")
        r = router_engine(e).publish("trader", "trading/orders/new")
        assert r.router == NJ
        assert flags(e, NJ) == "U A - U U - N A" and flags(e, NY) == "U S U - - - N A"


def test_replication_config_ops(lab):
    with lab.transaction() as e:
        router_engine(e).set_replication_option(NY, VPN, "transaction-replication-mode", "sync")
        router_engine(e).set_replication_option(NY, VPN, "reject-msg-when-sync-ineligible", True)
        assert flags(e, NY) == "U A - U U - Y S"
        router_engine(e).set_replication_option(NY, VPN, "reject-msg-when-sync-ineligible", None)
        router_engine(e).set_replication_option(NY, VPN, "bridge-password", "secret")
        router_engine(e).set_replication_option(NY, VPN, "bridge-window-size", 1000)
        d = router_engine(e).vpn_replication_detail(NY, VPN)
        assert d.bridge_password_configured and d.bridge_window_size == 1000
        with pytest.raises(EngineError) as ei:
            router_engine(e).set_replication_option(NY, VPN, "queue-max-spool-usage", 0)
        assert ei.value.code == "value_out_of_range"
        router_engine(e).set_replication_option(NY, VPN, "ack-propagation-interval", None)
        assert router_engine(e).vpn_replication_detail(NY, VPN).ack_propagation_interval == 20
        router_engine(e).set_replication_enabled(NY, "default", True)
        assert flags(e, NY, "default") == "U S D - - - N A"  # mate not replication-enabled
        router_engine(e).set_replication_enabled(NY, VPN, False)
        assert flags(e, NY) == "D A - - - - N S"
        assert flags(e, NJ) == "U S D - - - N A"
    assert "secret" not in lab.dump()


def test_sync_topics_s_flag_and_sync_reject(lab):
    with lab.transaction() as e:
        router_engine(e).create_replicated_topic(NY, VPN, "sync/>", "sync")
        assert [t.topic for t in router_engine(e).replicated_topics(NJ, VPN)] == ["sync/>", "trading/>"]  # synced
        assert flags(e, NY) == "U A - U U Y N A"
        router_engine(e).publish("trader", "sync/a", count=2)
        assert qcount(e, NJ, "orders") == 0  # no subscription, but the stream drained at once
        assert qcount(e, NY, RQ) == 0
        assert router_engine(e).replication_stats(NY, VPN).sync_msgs_queued_to_standby == 2
        router_engine(e).fail_link()
        assert flags(e, NY) == "U A - D D N N A"
        assert router_engine(e).replication_stats(NY, VPN).transitions_to_ineligible == 1
        r = router_engine(e).publish("trader", "sync/a")
        assert r.replicated == 1
        assert router_engine(e).replication_stats(NY, VPN).sync_msgs_queued_to_standby_as_async == 1
        router_engine(e).set_replication_option(NY, VPN, "reject-msg-when-sync-ineligible", True)
        r = router_engine(e).publish("trader", "sync/a", count=3)
        assert (r.accepted, r.rejected, r.reject_reason) == (0, 3, "publish_rejected_sync_ineligible")
        assert router_engine(e).audit().totals.rejected == 3


def test_queue_config_ops(lab):
    with lab.transaction() as e:
        router_engine(e).create_queue(NY, VPN, "audit_q")
        d = router_engine(e).queue_detail(NJ, VPN, "audit_q")  # config-synced
        assert (d.ingress_up, d.egress_up, d.shutdown) == (False, False, True)
        router_engine(e).add_queue_subscription(NY, VPN, "audit_q", "trading/>")
        r = router_engine(e).publish("trader", "trading/orders/new")
        assert r.queues == ("orders",)  # ingress down: not spooled
        router_engine(e).set_queue_shutdown(NY, VPN, "audit_q", False)
        r = router_engine(e).publish("trader", "trading/orders/new")
        assert r.queues == ("audit_q", "orders")
        router_engine(e).set_queue_option(NY, VPN, "audit_q", "access-type", "non-exclusive")
        assert queue_flags(router_engine(e).queues(NJ, VPN, "audit_q")[0]) == "U U N N P D N"
        with pytest.raises(EngineError) as ei:
            router_engine(e).delete_queue(NY, VPN, "audit_q")
        assert ei.value.code == "queue_not_shutdown"
        router_engine(e).set_queue_shutdown(NY, VPN, "audit_q", True, "ingress")
        assert queue_flags(router_engine(e).queues(NY, VPN, "audit_q")[0]) == "D U N N P D N"
        router_engine(e).set_queue_shutdown(NY, VPN, "audit_q", True)
        assert router_engine(e).delete_queue(NY, VPN, "audit_q") == 1
        assert router_engine(e).queue_names(NY, VPN) == [RQ, "orders"]
        assert router_engine(e).queue_names(NJ, VPN) == [RQ, "orders"]
        with pytest.raises(EngineError) as ei:
            router_engine(e).create_queue(NY, VPN, "#bad")
        assert ei.value.code == "invalid_queue_name"
        with pytest.raises(EngineError) as ei:
            router_engine(e).queue_detail(NY, VPN, "nope")
        assert (ei.value.code, ei.value.params) == ("queue_not_found", {"queue": "nope", "vpn": VPN})


def test_delete_messages(lab):
    with lab.transaction() as e:
        router_engine(e).publish("trader", "trading/orders/new", count=5)
        ids = [m.msg_id for m in router_engine(e).queue_messages(NY, VPN, "orders")]
        assert router_engine(e).delete_messages(NY, VPN, "orders", ids[0]) == 1
        assert router_engine(e).delete_messages(NY, VPN, "orders", ids[1], ids[2]) == 2
        with pytest.raises(EngineError) as ei:
            router_engine(e).delete_messages(NY, VPN, "orders", ids[0])
        assert ei.value.code == "message_not_found"
        assert router_engine(e).delete_messages(NY, VPN, "orders") == 2
        assert qcount(e, NY, "orders") == 0
        assert router_engine(e).queue_detail(NY, VPN, "orders").hwm_mb > 0
        e.advance(100)
        router_engine(e).consume("settlement", "orders", 5)
        a = router_engine(e).audit()
        # only on NJ (standby): lost to the serving site
        assert (a.totals.published, a.totals.lost, a.totals.stored) == (5, 5, 5)
        router_engine(e).delete_messages(NY, VPN, RQ)


def test_lookups_raise_codes(lab):
    with lab.transaction() as e:
        for call, code in [
            (lambda: router_engine(e).vpn_replication("nope"), "router_not_found"),
            (lambda: router_engine(e).vpn_replication(NY, "nope"), "vpn_not_found"),
            (lambda: router_engine(e).consume("ghost", "orders"), "client_not_found"),
            (lambda: router_engine(e).publish("trader", "bad/>"), "invalid_topic"),
            (lambda: e.advance(-1), "invalid_value"),
            (lambda: router_engine(e).set_replication_role(NY, "#config-sync", "active"), "vpn_internal"),
        ]:
            with pytest.raises(EngineError) as ei:
                call()
            assert ei.value.code == code
        assert router_engine(e).vpn_replication(NY, "nope*") == []
        assert router_engine(e).vpn_names("nope") == [] and router_engine(e).queue_names(NY, "nope") == []
        router_engine(e).fail_site("NY")
        with pytest.raises(EngineError) as ei:
            router_engine(e).queues(NY)
        assert ei.value.params == {"router": NY} and ei.value.code == "router_down"


def test_current_config_and_spool_and_status(lab):
    with lab.transaction() as e:
        router_engine(e).publish("trader", "trading/orders/new", count=2)
        cc = router_engine(e).current_config(NY, VPN)
        (vpn,) = cc.vpns
        assert (cc.vpn, vpn.name, vpn.replication.role) == (VPN, VPN, "active")
        assert [(t.topic, t.mode) for t in vpn.replication.replicated_topics] == [("trading/>", "async")]
        assert vpn.replication.bridge_password_set and [q.name for q in vpn.queues] == ["orders"]
        ms = router_engine(e).message_spool(NY)
        assert (ms.messages_spooled, ms.router_up) == (4, True)
        assert router_engine(e).message_spool(NY, VPN).queues == 1
        st = router_engine(e).status()
        assert st.link_up and [(v.router, v.repl_queue_messages) for v in st.vpns if v.vpn == VPN] == [(NY, 2), (NJ, 0)]
        assert router_engine(e).system_replication(NY).mate_virtual_router_name == "v:NJ_Appliance1"


def test_queue_messages_filters_and_replication_queue(lab):
    with lab.transaction() as e:
        router_engine(e).publish("trader", "trading/orders/new", count=5, size=1000)
        rq = router_engine(e).queue_messages(NY, VPN, RQ)
        assert [m.replication_group_msg_id for m in rq] == [1000001, 1000002, 1000003, 1000004, 1000005]
        assert rq[0].size == 1000 and rq[0].topic == "trading/orders/new"
        assert [m.replication_group_msg_id
                for m in router_engine(e).queue_messages(NY, VPN, "orders", from_rgmid=1000004)] == [1000004, 1000005]
        assert [m.replication_group_msg_id
                for m in router_engine(e).queue_messages(NY, VPN, "orders", newest=True, limit=1)] == [1000005]
        found = router_engine(e).queue_messages(NY, VPN, "orders", msg_id=rq[1].msg_id)
        assert found[0].replication_group_msg_id == 1000002
        assert router_engine(e).delete_messages(NY, VPN, RQ, rq[0].msg_id) == 1
        assert router_engine(e).queue_detail(NY, VPN, RQ).messages_spooled == 4
        e.advance(1000)
        assert router_engine(e).queue_detail(NJ, VPN, "orders").messages_spooled == 4
        assert router_engine(e).audit().totals.not_replicated == 1
