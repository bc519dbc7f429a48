"""Spool quotas as the broker enforces them (issue 15 item 3), through the public Engine API.

A queue over its max-spool-usage with reject-msg-to-sender-on-discard off discards the message on
that queue only; with it on (the default, capture C13) the message is refused to the sender and
stored on no queue. The router's message spool (Maximum Spool Usage of `show message-spool`) and
the Message VPN's spool quota refuse what would take them over. Every refusal is counted with the
other rejections (publish result, audit). The decision itself is unit-tested in test_quotas.py."""

from __future__ import annotations

from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from state_store.errors import EngineError
from state_store.lab_store import LabStore
from state_store.solace.lookups import MB
from tests.support.router_engine import router_engine

NY, NJ, VPN = "NY_Appliance1", "NJ_Appliance1", "Trading_VPN"
RQ = "#MSGVPN_REPLICATION_DATA_QUEUE"
PER_MB = MB // 600  # 600-byte messages in one MB: 1747


@pytest.fixture
def lab():
    s = LabStore.in_memory()
    yield s
    s.close()


def add_queue(e, name: str, topic: str, mb: int, vpn: str = VPN, reject: bool = False) -> None:
    router_engine(e).create_queue(NY, vpn, name)
    router_engine(e).add_queue_subscription(NY, vpn, name, topic)
    router_engine(e).set_queue_shutdown(NY, vpn, name, False)
    router_engine(e).set_queue_option(NY, vpn, name, "max-spool-usage", mb)
    router_engine(e).set_queue_option(NY, vpn, name, "reject-msg-to-sender-on-discard", reject)


def test_queue_over_quota_discards_there_only(lab):
    with lab.transaction() as e:
        add_queue(e, "audit", "trading/>", 1)
        r = router_engine(e).publish("trader", "trading/orders/new", count=2000)
        assert (r.accepted, r.rejected, r.reject_reason) == (2000, 0, None)
        assert r.queues == ("audit", "orders") and r.replicated == 2000
        audit = router_engine(e).queue_detail(NY, VPN, "audit")
        assert (audit.messages_spooled, audit.max_spool_mb) == (PER_MB, 1)
        assert audit.usage_mb <= 1.0 and audit.hwm_mb <= 1.0
        assert router_engine(e).queue_detail(NY, VPN, "orders").messages_spooled == 2000
        # a message only the full queue wants: acknowledged, replicated, stored on no local queue
        r = router_engine(e).publish("trader", "trading/audit/x", count=10)
        assert (r.accepted, r.rejected, r.queues, r.replicated) == (10, 0, (), 10)
        assert router_engine(e).queue_detail(NY, VPN, "audit").messages_spooled == PER_MB
        # consuming makes room again
        assert router_engine(e).consume("settlement", "audit", 1000).consumed == 1000
        r = router_engine(e).publish("trader", "trading/audit/x", count=5)
        assert r.queues == ("audit",)
        assert router_engine(e).queue_detail(NY, VPN, "audit").messages_spooled == PER_MB - 1000 + 5
        assert router_engine(e).audit(VPN).totals.rejected == 0


def test_a_message_every_queue_discarded_is_lost_with_its_reason(lab):
    with lab.transaction() as e:
        router_engine(e).add_client("local", "default", [NY])
        add_queue(e, "tiny", "local/>", 0, vpn="default")
        r = router_engine(e).publish("local", "local/a", count=3)
        assert (r.accepted, r.rejected, r.queues) == (3, 0, ())
        assert router_engine(e).queue_detail(NY, "default", "tiny").messages_spooled == 0
        a = router_engine(e).audit("default")
        assert (a.totals.published, a.totals.lost, a.totals.rejected) == (3, 3, 0)
        assert {p.notes for p in a.problems} == {("spool over quota",)}


def test_lowering_a_quota_keeps_what_is_spooled(lab):
    with lab.transaction() as e:
        router_engine(e).publish("trader", "trading/orders/new", count=3000)
        router_engine(e).set_queue_option(NY, VPN, "orders", "reject-msg-to-sender-on-discard", False)
        router_engine(e).set_queue_option(NY, VPN, "orders", "max-spool-usage", 1)
        assert router_engine(e).queue_detail(NY, VPN, "orders").messages_spooled == 3000
        r = router_engine(e).publish("trader", "trading/orders/new", count=1)
        assert (r.accepted, r.queues) == (1, ())
        assert router_engine(e).queue_detail(NY, VPN, "orders").messages_spooled == 3000


SMALL_SPOOL = Path(__file__).resolve().parents[2] / "transcripts" / "scenarios" / "small-spool.yaml"


@pytest.fixture
def small_spool():
    """The default lab with NY's message spool at 2 MB."""
    s = LabStore.in_memory(SMALL_SPOOL)
    yield s
    s.close()


def test_router_spool_full_rejects_to_the_sender(small_spool):
    with small_spool.transaction() as e:
        assert router_engine(e).message_spool(NY).max_spool_mb == 2
        # each message takes two copies (orders and the replication queue): 1200 bytes
        fit = 2 * MB // 1200
        r = router_engine(e).publish("trader", "trading/orders/new", count=2000)
        assert (r.accepted, r.rejected, r.reject_reason) == (fit, 2000 - fit, "publish_rejected_spool_full")
        assert (r.first_rgmid, r.last_rgmid, r.replicated) == (1000001, 1000000 + fit, fit)
        spool = router_engine(e).message_spool(NY)
        assert spool.messages_spooled == 2 * fit and spool.usage_mb <= 2.0
        assert router_engine(e).queue_detail(NY, VPN, "orders").messages_spooled == fit
        assert router_engine(e).queue_detail(NY, VPN, RQ).messages_spooled == fit
        # full: the next one is refused whole, and every refusal is counted
        r = router_engine(e).publish("trader", "trading/orders/new")
        assert (r.accepted, r.rejected, r.first_rgmid) == (0, 1, None)
        a = router_engine(e).audit(VPN)
        assert (a.totals.published, a.totals.rejected) == (fit, 2000 - fit + 1)
        # the replication queue drains to NJ: room for one copy per message again
        e.advance(5_000)
        assert router_engine(e).queue_detail(NY, VPN, RQ).messages_spooled == 0
        r = router_engine(e).publish("trader", "trading/orders/new", count=2000)
        assert r.reject_reason == "publish_rejected_spool_full"
        assert router_engine(e).message_spool(NY).usage_mb <= 2.0


def test_router_quota_counts_only_copies_that_are_stored(small_spool):
    """Messages no queue keeps take no spool: a publish past what the queues keep is not refused
    for the router's spool."""
    with small_spool.transaction() as e:
        router_engine(e).add_client("local", "default", [NY])
        add_queue(e, "small", "local/>", 1, vpn="default")
        r = router_engine(e).publish("local", "local/a", count=5000)
        assert (r.accepted, r.rejected) == (5000, 0)
        assert router_engine(e).queue_detail(NY, "default", "small").messages_spooled == PER_MB


def test_a_transaction_commit_over_the_spool_is_rejected_whole(small_spool):
    with small_spool.transaction() as e:
        router_engine(e).tx_local_start("trader")
        router_engine(e).publish("trader", "trading/orders/new", count=2000)
    with pytest.raises(EngineError) as err, small_spool.transaction() as e:
        router_engine(e).tx_local_commit("trader")
    assert err.value.code == "transaction_commit_rejected"
    assert err.value.params["reason"] == "publish_rejected_spool_full"
    with small_spool.transaction() as e:
        assert router_engine(e).message_spool(NY).messages_spooled == 0


@settings(max_examples=40, deadline=None)
@given(size=st.integers(1, 300_000), count=st.integers(1, 60), audit_mb=st.integers(0, 2),
       orders_mb=st.integers(0, 3), replicated=st.booleans(), audit_rejects=st.booleans(),
       orders_rejects=st.booleans(), vpn_mb=st.integers(0, 3))
def test_quotas_hold_and_a_refusal_means_no_room(size, count, audit_mb, orders_mb, replicated, audit_rejects,
                                                  orders_rejects, vpn_mb):
    """Whatever the sizes, quotas and flags: no queue, VPN or router goes over its quota, and a
    publish refused for the spool leaves no room for one more message of the same kind."""
    lab = LabStore.in_memory(SMALL_SPOOL)
    with lab.transaction() as e:
        add_queue(e, "audit", "trading/>", audit_mb, reject=audit_rejects)
        router_engine(e).set_queue_option(NY, VPN, "orders", "max-spool-usage", orders_mb)
        router_engine(e).set_queue_option(NY, VPN, "orders", "reject-msg-to-sender-on-discard", orders_rejects)
        router_engine(e).set_vpn_max_spool(NY, VPN, vpn_mb)
        if not replicated:
            router_engine(e).set_replication_enabled(NY, VPN, False)
        r = router_engine(e).publish("trader", "trading/orders/new", count=count, size=size)
        for name, mb in (("audit", audit_mb), ("orders", orders_mb)):
            d = router_engine(e).queue_detail(NY, VPN, name)
            assert d.usage_mb <= mb and d.messages_spooled <= r.accepted
        spool = router_engine(e).message_spool(NY)
        assert spool.usage_mb <= spool.max_spool_mb
        assert router_engine(e).message_spool(NY, VPN).usage_mb <= vpn_mb
        assert r.accepted + r.rejected == count
        if r.reject_reason == "publish_rejected_queue_full":
            # a rejecting queue had no room for the first refused message
            assert any(reject and mb * MB - round(router_engine(e).queue_detail(NY, VPN, name).usage_mb * MB) < size
                       for name, mb, reject in (("audit", audit_mb, audit_rejects),
                                                ("orders", orders_mb, orders_rejects)))
        elif r.reject_reason is None:
            assert r.rejected == 0
        if r.reject_reason == "publish_rejected_spool_full":
            room = spool.max_spool_mb * MB - round(spool.usage_mb * MB)
            copies = sum(1 for name, mb in (("audit", audit_mb), ("orders", orders_mb))
                         if mb * MB - round(router_engine(e).queue_detail(NY, VPN, name).usage_mb * MB) >= size)
            copies += 1 if r.replicated == r.accepted and replicated else 0
            assert copies * size > room
    lab.close()


def test_a_rejecting_queue_refuses_the_message_everywhere(lab):
    """reject-msg-to-sender-on-discard on (the default): a message the full queue cannot take is
    refused to the sender and stored on no queue, not even the ones with room; off on the full
    queue, the others keep it (Solace blog "Reject Message to Sender on Discard")."""
    with lab.transaction() as e:
        add_queue(e, "audit", "trading/>", 1, reject=True)
        assert router_engine(e).queue_detail(NY, VPN, "audit").reject_msg_to_sender_on_discard
        r = router_engine(e).publish("trader", "trading/orders/new", count=2000)
        assert (r.accepted, r.rejected, r.reject_reason) == (PER_MB, 2000 - PER_MB, "publish_rejected_queue_full")
        assert (r.replicated, r.last_rgmid) == (PER_MB, 1000000 + PER_MB)
        for name in ("audit", "orders"):
            assert router_engine(e).queue_detail(NY, VPN, name).messages_spooled == PER_MB
        assert router_engine(e).queue_detail(NY, VPN, RQ).messages_spooled == PER_MB
        # full: refused whole, and the refusals are counted (audit), never in the ledger
        r = router_engine(e).publish("trader", "trading/orders/new")
        assert (r.accepted, r.rejected, r.reject_reason) == (0, 1, "publish_rejected_queue_full")
        a = router_engine(e).audit(VPN)
        assert (a.totals.published, a.totals.rejected, a.totals.lost) == (PER_MB, 2000 - PER_MB + 1, 0)
        # off: the full queue discards, orders keeps it
        router_engine(e).set_queue_option(NY, VPN, "audit", "reject-msg-to-sender-on-discard", False)
        r = router_engine(e).publish("trader", "trading/orders/new", count=5)
        assert (r.accepted, r.rejected, r.queues) == (5, 0, ("orders",))
        assert router_engine(e).queue_detail(NY, VPN, "orders").messages_spooled == PER_MB + 5
        assert router_engine(e).queue_detail(NY, VPN, "audit").messages_spooled == PER_MB


def test_a_transaction_commit_into_a_rejecting_full_queue_fails(lab):
    with lab.transaction() as e:
        router_engine(e).set_queue_option(NY, VPN, "orders", "max-spool-usage", 0)
        router_engine(e).tx_local_start("trader")
        router_engine(e).publish("trader", "trading/orders/new", count=3)
    with pytest.raises(EngineError) as err, lab.transaction() as e:
        router_engine(e).tx_local_commit("trader")
    assert err.value.params["reason"] == "publish_rejected_queue_full"


def test_including_when_shutdown_rejects_while_ingress_is_down(lab):
    with lab.transaction() as e:
        router_engine(e).set_queue_shutdown(NY, VPN, "orders", True, "ingress")
        r = router_engine(e).publish("trader", "trading/orders/new", count=3)
        assert (r.accepted, r.rejected) == (3, 0)  # when-queue-enabled: a shut queue discards silently
        router_engine(e).set_queue_option(NY, VPN, "orders",
                                          "reject-msg-to-sender-on-discard-including-when-shutdown", True)
        r = router_engine(e).publish("trader", "trading/orders/new", count=3)
        assert (r.accepted, r.rejected, r.reject_reason) == (0, 3, "publish_rejected_queue_shutdown")
        router_engine(e).set_queue_shutdown(NY, VPN, "orders", False, "ingress")
        r = router_engine(e).publish("trader", "trading/orders/new", count=3)
        assert (r.accepted, r.queues) == (3, ("orders",))


def test_the_vpn_spool_quota_rejects_after_the_router_and_before_the_queues(small_spool):
    with small_spool.transaction() as e:
        assert router_engine(e).message_spool(NY, VPN).max_spool_mb == 60000  # the lab default
        router_engine(e).set_vpn_max_spool(NY, VPN, 1)
        assert router_engine(e).message_spool(NY, VPN).max_spool_mb == 1
        assert router_engine(e).message_spool(NJ, VPN).max_spool_mb == 1  # config-synced
        fit = MB // 1200  # orders + replication queue: two copies a message
        r = router_engine(e).publish("trader", "trading/orders/new", count=2000)
        assert (r.accepted, r.reject_reason) == (fit, "publish_rejected_vpn_spool_full")
        assert router_engine(e).message_spool(NY, VPN).usage_mb <= 1.0
        # the router's spool (2 MB) is checked first: it names the reason when it is the tighter
        router_engine(e).set_vpn_max_spool(NY, VPN, 3)
        r = router_engine(e).publish("trader", "trading/orders/new", count=2000)
        assert r.reject_reason == "publish_rejected_spool_full"
        # a VPN at 0 MB (the real broker's default for a new VPN) refuses every guaranteed message
        router_engine(e).add_client("local", "default", [NY])
        add_queue(e, "small", "local/>", 1, vpn="default")
        router_engine(e).set_vpn_max_spool(NY, "default", 0)
        r = router_engine(e).publish("local", "local/a", count=2)
        assert (r.accepted, r.reject_reason) == (0, "publish_rejected_vpn_spool_full")
        router_engine(e).set_vpn_max_spool(NY, "default", None)
        assert router_engine(e).message_spool(NY, "default").max_spool_mb == 60000
        with pytest.raises(EngineError) as err:
            router_engine(e).set_vpn_max_spool(NY, "default", 6000001)
        assert err.value.code == "value_out_of_range"


def test_replicated_messages_on_a_full_standby_queue_are_discarded(lab):
    """The standby's queue takes replicated messages as before: what does not fit is discarded
    there (the sender is the mate's bridge, not a client), whatever the flag (docs/lab.md)."""
    with lab.transaction() as e:
        assert router_engine(e).queue_detail(NJ, VPN, "orders").reject_msg_to_sender_on_discard
        router_engine(e).set_queue_option(NY, VPN, "orders", "max-spool-usage", 1)  # config-synced to NJ
        router_engine(e).set_queue_option(NY, VPN, "orders", "reject-msg-to-sender-on-discard", False)
        r = router_engine(e).publish("trader", "trading/orders/new", count=2000)
        assert (r.accepted, r.rejected) == (2000, 0)
        router_engine(e).set_queue_option(NY, VPN, "orders", "reject-msg-to-sender-on-discard", True)
        assert router_engine(e).queue_detail(NJ, VPN, "orders").reject_msg_to_sender_on_discard
        e.advance(5_000)
        assert router_engine(e).queue_detail(NJ, VPN, "orders").messages_spooled == PER_MB
        assert router_engine(e).queue_detail(NY, VPN, RQ).messages_spooled == 0


def test_a_scenario_sets_the_vpn_quota_and_the_queue_flags(tmp_path):
    text = SMALL_SPOOL.read_text()
    text = text.replace("    replication_group_msg_id_seed: 1000001\n",
                        "    replication_group_msg_id_seed: 1000001\n    max_spool_usage: 1\n")
    text = text.replace("        subscriptions: [trading/orders/>]\n",
                        "        subscriptions: [trading/orders/>]\n        reject_msg_to_sender_on_discard: false\n"
                        "        reject_including_when_shutdown: true\n")
    path = tmp_path / "quota.yaml"
    path.write_text(text)
    s = LabStore.in_memory(path)
    try:
        with s.transaction() as e:
            assert router_engine(e).message_spool(NY, VPN).max_spool_mb == 1
            assert router_engine(e).message_spool(NJ, VPN).max_spool_mb == 1
            assert router_engine(e).message_spool(NY, "default").max_spool_mb == 60000
            qc = router_engine(e).current_config(NY, VPN).vpns[0].queues[0]
            assert (qc.name, qc.reject_on_discard, qc.reject_when_shutdown) == ("orders", False, False)
    finally:
        s.close()


def test_a_lab_written_before_the_quota_fields_opens_with_their_defaults(lab):
    """A snapshot without Queue.reject_on_discard/reject_when_shutdown (and the later Queue.settings)
    and Vpn.max_spool_mb (a lab file of the previous version) decodes with the defaults; any other
    field mismatch is refused."""
    from state_store.lab_root.codec import CodecError, decode_state, dumps, encode_state, loads

    with lab.transaction() as e:
        router_engine(e).set_queue_option(NY, VPN, "orders", "reject-msg-to-sender-on-discard", False)
    doc = loads(dumps(encode_state(lab.state)))  # as a lab file holds it
    for kind, drop in (("queues", 3), ("vpns", 1)):
        part = doc["records"][kind]
        part["fields"] = part["fields"][:-drop]
        part["rows"] = [row[:-drop] for row in part["rows"]]
    st_ = decode_state(doc)
    orders = next(q for q in st_.records("queues").values() if q.name == "orders")
    assert (orders.reject_on_discard, orders.reject_when_shutdown) == (True, False)
    assert {v.max_spool_mb for v in st_.records("vpns").values()} == {60000}
    doc["records"]["queues"]["fields"] = doc["records"]["queues"]["fields"][1:]
    with pytest.raises(CodecError):
        decode_state(doc)
