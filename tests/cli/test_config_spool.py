"""Queue configuration: configure/message-spool and configure/message-spool/queue."""

from __future__ import annotations

import pytest

from solace_shell.lab import Lab
from tests.support.cli_steps import go, refused
from tests.support.router_engine import router_engine

NY, NJ, VPN = "NY_Appliance1", "NJ_Appliance1", "Trading_VPN"
SPOOL_PROMPT = "NY_Appliance1(configure/message-spool)#"
QUEUE_PROMPT = "NY_Appliance1(configure/message-spool/queue)#"


def at_spool(session):
    return go(session, "enable", "configure", f"message-spool message-vpn {VPN}")


def queue(lab, name, router=NY):
    with lab.store.transaction() as e:
        return router_engine(e).queue_detail(router, VPN, name)


def names(lab, router=NY):
    with lab.store.transaction() as e:
        return router_engine(e).queue_names(router, VPN)


def test_create_queue_enters_its_level_and_syncs_to_the_mate(lab, ny) -> None:
    at_spool(ny)
    go(ny, "create queue q1")
    assert ny.prompt == QUEUE_PROMPT
    assert "q1" in names(lab) and "q1" in names(lab, NJ)
    q = queue(lab, "q1")
    assert (q.ingress_up, q.egress_up, q.shutdown) == (False, False, True)
    go(ny, "exit")
    assert ny.prompt == SPOOL_PROMPT


def test_create_queue_in_one_line_from_configure(lab, ny) -> None:
    go(ny, "enable", "configure", f"message-spool message-vpn {VPN} create queue q2 primary")
    assert ny.prompt == QUEUE_PROMPT
    assert "q2" in names(lab)
    go(ny, "exit")
    assert ny.prompt == SPOOL_PROMPT


def test_create_existing_queue_is_refused(lab, ny) -> None:
    at_spool(ny)
    outcome = refused(lab, ny, "create queue orders")
    assert outcome.text == "ERROR: Queue 'orders' already exists in Message VPN 'Trading_VPN'."


def test_create_queue_reserved_name_refused(lab, ny) -> None:
    at_spool(ny)
    outcome = refused(lab, ny, "create queue #mine")
    assert outcome.text == "ERROR: Invalid queue name '#mine' (reserved)."


def test_queue_must_exist_to_be_edited(lab, ny) -> None:
    at_spool(ny)
    outcome = refused(lab, ny, "queue nope")
    assert outcome.text == "ERROR: Queue 'nope' not found in Message VPN 'Trading_VPN'."
    outcome = refused(lab, ny, "queue #MSGVPN_REPLICATION_DATA_QUEUE")
    assert outcome.text == ("ERROR: Queue '#MSGVPN_REPLICATION_DATA_QUEUE' is reserved for replication "
                            "and cannot be configured.")
    go(ny, "queue orders")
    assert ny.prompt == QUEUE_PROMPT


def test_shutdown_directions(lab, ny) -> None:
    at_spool(ny)
    go(ny, "queue orders", "shutdown ingress")
    with lab.store.transaction() as e:
        row = router_engine(e).queues(NY, VPN, "orders")[0]
    assert (row.ingress_up, row.egress_up) == (False, True)
    go(ny, "shutdown egress", "no shutdown ingress")
    with lab.store.transaction() as e:
        row = router_engine(e).queues(NY, VPN, "orders")[0]
        mate = router_engine(e).queues(NJ, VPN, "orders")[0]
    assert (row.ingress_up, row.egress_up) == (True, False)
    assert (mate.ingress_up, mate.egress_up) == (True, False)
    go(ny, "shutdown", "no shutdown")
    with lab.store.transaction() as e:
        row = router_engine(e).queues(NY, VPN, "orders")[0]
    assert (row.ingress_up, row.egress_up) == (True, True)


def test_queue_options(lab, ny) -> None:
    at_spool(ny)
    go(ny, "queue orders", "access-type non-exclusive", "permission all consume", "max-spool-usage 10",
       "owner trader")
    with lab.store.transaction() as e:
        row = router_engine(e).queues(NY, VPN, "orders")[0]
    assert row.access_type == "non-exclusive"
    q = queue(lab, "orders")
    assert (q.access_type, q.owner, q.max_spool_mb) == ("non-exclusive", "trader", 10)
    assert q.permission == "consume"
    go(ny, "no max-spool-usage", "no owner", "access-type exclusive", "permission all no-access")
    q = queue(lab, "orders")
    assert (q.access_type, q.owner, q.max_spool_mb) == ("exclusive", "", 5000)


@pytest.mark.parametrize("level", ["no-access", "read-only", "consume", "modify-topic", "delete"])
def test_permission_values(lab, ny, level) -> None:
    at_spool(ny)
    other = "consume" if level == "delete" else "delete"       # start from another value
    go(ny, f"queue orders permission all {other}", f"queue orders permission all {level}")
    assert ny.prompt == SPOOL_PROMPT
    assert queue(lab, "orders").permission == level
    assert queue(lab, "orders", NJ).permission == level


def test_subscriptions(lab, ny) -> None:
    at_spool(ny)
    go(ny, "create queue q1", "subscription topic trading/>", "subscription topic a/b")
    assert set(queue(lab, "q1").subscriptions) == {"trading/>", "a/b"}
    outcome = refused(lab, ny, "subscription topic a/b")
    assert outcome.text == "ERROR: Subscription 'a/b' already exists on queue 'q1'."
    go(ny, "no subscription topic a/b")
    assert set(queue(lab, "q1").subscriptions) == {"trading/>"}
    assert set(queue(lab, "q1", NJ).subscriptions) == {"trading/>"}
    outcome = refused(lab, ny, "no subscription topic a/b")
    assert outcome.text == "ERROR: Subscription 'a/b' not found on queue 'q1'."


def test_no_queue_only_when_shut_down(lab, ny) -> None:
    at_spool(ny)
    outcome = refused(lab, ny, "no queue orders")
    assert outcome.text == ("ERROR: Queue 'orders' in Message VPN 'Trading_VPN' is not in a valid state: "
                            "shut it down before deleting it.")
    go(ny, "queue orders", "shutdown", "exit", "no queue orders")
    assert "orders" not in names(lab) and "orders" not in names(lab, NJ)
    outcome = refused(lab, ny, "no queue orders")
    assert outcome.text == "ERROR: Queue 'orders' not found in Message VPN 'Trading_VPN'."


def test_unknown_vpn_is_refused_on_entry(lab, ny) -> None:
    go(ny, "enable", "configure")
    outcome = refused(lab, ny, "message-spool message-vpn Nope")
    assert outcome.text == "ERROR: Message VPN 'Nope' not found."


@pytest.mark.parametrize("user,ok", [("monitor", False), ("trading_admin", True), ("operator", True)])
def test_queue_changes_need_vpn_read_write(user, ok) -> None:
    lab = Lab.fresh(settings={"user": user})
    try:
        ny = at_spool(lab.session(NY))
        if ok:
            go(ny, "create queue q9")
            assert "q9" in names(lab)
        else:
            outcome = refused(lab, ny, "create queue q9", kind="access")
            assert outcome.text.endswith("requires vpn/read-write access; user 'monitor' has vpn/read-only.")
            go(ny, "queue orders")                      # entering to look is read-only
            refused(lab, ny, "shutdown", kind="access")
    finally:
        lab.close()


def queue_config(lab, name, router=NY):
    with lab.store.transaction() as e:
        vpn = router_engine(e).current_config(router, VPN).vpns[0]
    return next(qc for qc in vpn.queues if qc.name == name)


def test_reject_msg_to_sender_on_discard_is_on_by_default_and_config_synced(lab, ny) -> None:
    """C13: a queue made with defaults shows reject-msg-to-sender-on-discard Yes and
    ...-including-when-shutdown No."""
    at_spool(ny)
    go(ny, "create queue q1")
    qc = queue_config(lab, "q1")
    assert (qc.reject_on_discard, qc.reject_when_shutdown) == (True, False)
    assert queue(lab, "q1").reject_msg_to_sender_on_discard
    go(ny, "no reject-msg-to-sender-on-discard")
    assert not queue(lab, "q1").reject_msg_to_sender_on_discard
    assert not queue(lab, "q1", NJ).reject_msg_to_sender_on_discard
    go(ny, "reject-msg-to-sender-on-discard including-when-shutdown")
    qc = queue_config(lab, "q1", NJ)
    assert (qc.reject_on_discard, qc.reject_when_shutdown) == (True, True)
    go(ny, "reject-msg-to-sender-on-discard")
    qc = queue_config(lab, "q1")
    assert (qc.reject_on_discard, qc.reject_when_shutdown) == (True, False)
    outcome = ny.execute("no reject-msg-to-sender-on-discard including-when-shutdown")
    assert not outcome.ok and outcome.error_kind != "engine"


def test_vpn_max_spool_usage_at_the_message_spool_level(lab, ny) -> None:
    at_spool(ny)
    go(ny, "max-spool-usage 2500")
    assert ny.prompt == SPOOL_PROMPT
    with lab.store.transaction() as e:
        assert router_engine(e).message_spool(NY, VPN).max_spool_mb == 2500
        assert router_engine(e).message_spool(NJ, VPN).max_spool_mb == 2500
        assert router_engine(e).message_spool(NY).max_spool_mb == 60000  # the router's own is another setting
    refused(lab, ny, "max-spool-usage 6000001", kind="invalid-value")
    go(ny, "no max-spool-usage")
    with lab.store.transaction() as e:
        assert router_engine(e).message_spool(NY, VPN).max_spool_mb == 60000
