"""Message VPN replication configuration: configure/message-vpn/replication and its sub-levels.

Each command is checked through the engine's views (what `show message-vpn X replication [detail]`
shows), its one-line crossings, its refusals (state unchanged: `lab.store.dump()`), and its access.
"""

from __future__ import annotations

import pytest

from solace_shell.lab import Lab
from tests.support.cli_steps import go, refused
from tests.support.router_engine import router_engine

NY, NJ, VPN = "NY_Appliance1", "NJ_Appliance1", "Trading_VPN"
VPN_PROMPT = "NY_Appliance1(configure/message-vpn)#"
REPL_PROMPT = "NY_Appliance1(configure/message-vpn/replication)#"


def at_vpn(session):
    return go(session, "enable", "configure", f"message-vpn {VPN}")


def flags(lab, router=NY):
    with lab.store.transaction() as e:
        return router_engine(e).vpn_replication(router, VPN)[0]


def detail(lab, router=NY):
    with lab.store.transaction() as e:
        return router_engine(e).vpn_replication_detail(router, VPN)


# ------------------------------------------------------------------ seed 000, step 2
def test_seed_000_step_2_state_standby_from_the_message_vpn_level(lab, ny) -> None:
    at_vpn(ny)
    assert ny.prompt == VPN_PROMPT
    outcome = ny.execute("replication state standby")
    assert (outcome.ok, outcome.text) == (True, "")
    assert ny.prompt == VPN_PROMPT
    row = flags(lab)
    assert (row.admin_enabled, row.role) == (True, "standby")
    with lab.store.transaction() as e:
        clients = router_engine(e).clients(vpn=VPN)
    assert clients and all(c.status == "disconnected" for c in clients)
    assert {c.last_disconnect_reason for c in clients} == {"replication state standby"}


def test_state_active_on_the_standby_site(lab, nj) -> None:
    at_vpn(nj)
    go(nj, "replication", "state active")
    assert nj.prompt == "NJ_Appliance1(configure/message-vpn/replication)#"
    assert flags(lab, NJ).role == "active"


def test_state_needs_active_or_standby(lab, ny) -> None:
    at_vpn(ny)
    refused(lab, ny, "replication state", kind="incomplete")
    refused(lab, ny, "replication state primary", kind="invalid")


# ------------------------------------------------------------------ shutdown
def test_shutdown_and_no_shutdown(lab, ny) -> None:
    at_vpn(ny)
    go(ny, "replication shutdown")
    row = flags(lab)
    assert (row.admin_enabled, row.remote_bridge_up, row.queue_bound) == (False, None, None)
    go(ny, "replication", "no shutdown")
    row = flags(lab)
    assert (row.admin_enabled, row.role, row.remote_bridge_up, row.queue_bound) == (True, "active", True, True)
    assert ny.prompt == REPL_PROMPT


def _leave_messages_in_replication_queue(lab) -> None:
    """Replication shut down on NJ, so NY's replication queue keeps what is published."""
    go(at_vpn(lab.session(NJ)), "replication shutdown")
    with lab.store.transaction() as e:
        router_engine(e).publish("trader", "trading/x", count=2)
    go(lab.session(NY), "replication shutdown")


def test_no_shutdown_refused_while_the_replication_queue_has_messages(lab, ny) -> None:
    at_vpn(ny)
    _leave_messages_in_replication_queue(lab)
    outcome = refused(lab, ny, "replication no shutdown")
    assert outcome.text == (
        "ERROR: Cannot enable replication for Message VPN 'Trading_VPN': the replication queue "
        "#MSGVPN_REPLICATION_DATA_QUEUE already exists with 2 messages "
        "(use force-use-existing-queue or force-recreate-queue).")
    assert flags(lab).admin_enabled is False


@pytest.mark.parametrize("word,left", [("force-use-existing-queue", 2), ("force-recreate-queue", 0)])
def test_no_shutdown_forced(lab, ny, word, left) -> None:
    at_vpn(ny)
    _leave_messages_in_replication_queue(lab)
    go(ny, f"replication no shutdown {word}")
    assert flags(lab).admin_enabled is True
    assert detail(lab).queue_messages_spooled == left


# ------------------------------------------------------------------ modes and flags
def test_transaction_replication_mode(lab, ny) -> None:
    at_vpn(ny)
    go(ny, "replication transaction-replication-mode sync")
    assert flags(lab).trm == "sync"
    go(ny, "replication transaction-replication-mode async")
    assert flags(lab).trm == "async"
    assert ny.prompt == VPN_PROMPT


def test_reject_msg_when_sync_ineligible(lab, ny) -> None:
    at_vpn(ny)
    go(ny, "replication reject-msg-when-sync-ineligible")
    assert flags(lab).reject_sync_ineligible is True
    go(ny, "replication", "no reject-msg-when-sync-ineligible")
    assert flags(lab).reject_sync_ineligible is False


# ------------------------------------------------------------------ replicated topics
def topics(lab, router=NY):
    with lab.store.transaction() as e:
        return {t.topic: t.mode for t in router_engine(e).replicated_topics(router, VPN)}


def test_create_replicated_topic_enters_its_level_and_exit_lands_on_replication(lab, ny) -> None:
    at_vpn(ny)
    go(ny, "replication create replicated-topic orders/>")
    assert ny.prompt == "NY_Appliance1(...sage-vpn/replication/replicated-topic)#"
    assert topics(lab)["orders/>"] == "async"
    assert topics(lab, NJ)["orders/>"] == "async"        # config-synced to the mate
    go(ny, "replication-mode sync")
    assert topics(lab)["orders/>"] == "sync"
    assert flags(lab).sync_eligible is True                           # a sync topic, bridge bound: eligible
    go(ny, "exit")
    assert ny.prompt == REPL_PROMPT
    go(ny, "state standby")                              # a replication-level command works here
    assert flags(lab).role == "standby"


def test_script_template_sequence(lab, ny) -> None:
    """The SCRIPT R5 template, typed inside the replication level."""
    at_vpn(ny)
    go(ny, "replication", "no ack-propagation shutdown", "transaction-replication-mode sync",
       "bridge authentication auth-scheme basic",
       "bridge authentication basic client-username repl password s3cret", "bridge ssl",
       'bridge unidirectional client-profile "#client-profile"', "queue max-spool-usage 1000",
       "queue reject-msg-to-sender-on-discard", 'create replicated-topic ">"', "replication-mode async",
       "exit", "state active", "no shutdown", "exit")
    assert ny.prompt == VPN_PROMPT
    d = detail(lab)
    assert (d.transaction_replication_mode, d.bridge_client_username, d.bridge_password_configured) == (
        "sync", "repl", True)
    assert (d.bridge_ssl, d.queue_max_spool_mb, d.ack_propagation_enabled) == (True, 1000, True)
    assert ">" in topics(lab)


def test_create_existing_replicated_topic_is_refused(lab, ny) -> None:
    at_vpn(ny)
    existing = next(iter(topics(lab)))
    outcome = refused(lab, ny, f"replication create replicated-topic {existing}")
    assert outcome.text == f"ERROR: Replicated topic '{existing}' already exists in Message VPN 'Trading_VPN'."
    assert "already exists" in outcome.text


def test_replicated_topic_edit_needs_an_existing_topic(lab, ny) -> None:
    at_vpn(ny)
    outcome = refused(lab, ny, "replication replicated-topic nope/>")
    assert outcome.text == "ERROR: Replicated topic 'nope/>' not found in Message VPN 'Trading_VPN'."
    existing = next(iter(topics(lab)))
    go(ny, f"replication replicated-topic {existing}", "replication-mode sync")
    assert topics(lab)[existing] == "sync"
    assert ny.prompt == "NY_Appliance1(...sage-vpn/replication/replicated-topic)#"


def test_no_replicated_topic(lab, ny) -> None:
    at_vpn(ny)
    go(ny, "replication", "create replicated-topic a/b", "exit", "no replicated-topic a/b")
    assert "a/b" not in topics(lab) and "a/b" not in topics(lab, NJ)
    outcome = refused(lab, ny, "no replicated-topic a/b")
    assert outcome.text == "ERROR: Replicated topic 'a/b' not found in Message VPN 'Trading_VPN'."


# ------------------------------------------------------------------ replication queue
def test_replication_queue_settings_in_one_line_from_message_vpn(lab, ny) -> None:
    at_vpn(ny)
    go(ny, "replication queue max-spool-usage 100")
    assert detail(lab).queue_max_spool_mb == 100
    go(ny, "replication", "queue no reject-msg-to-sender-on-discard")
    assert detail(lab).queue_reject_msg_to_sender_on_discard is False
    assert ny.prompt == REPL_PROMPT
    go(ny, "queue reject-msg-to-sender-on-discard", "queue no max-spool-usage")
    d = detail(lab)
    assert (d.queue_reject_msg_to_sender_on_discard, d.queue_max_spool_mb) == (True, 60000)
    go(ny, "exit", "replication queue reject-msg-to-sender-on-discard")
    assert ny.prompt == VPN_PROMPT


def test_replication_queue_max_spool_out_of_range_is_refused(lab, ny) -> None:
    at_vpn(ny)
    outcome = refused(lab, ny, "replication queue max-spool-usage 0")
    assert outcome.text == "ERROR: Value 0 for queue-max-spool-usage is out of range (1 to 2000000)."


# ------------------------------------------------------------------ ack propagation
def test_ack_propagation(lab, ny) -> None:
    at_vpn(ny)
    go(ny, "replication ack-propagation interval messages 5")
    assert detail(lab).ack_propagation_interval == 5
    go(ny, "replication ack-propagation shutdown")
    assert detail(lab).ack_propagation_enabled is False
    go(ny, "replication", "ack-propagation", "no shutdown", "no interval messages")
    d = detail(lab)
    assert (d.ack_propagation_enabled, d.ack_propagation_interval) == (True, 20)
    assert ny.prompt == "NY_Appliance1(...ssage-vpn/replication/ack-propagation)#"


def test_ack_interval_bounds(lab, ny) -> None:
    at_vpn(ny)
    refused(lab, ny, "replication ack-propagation interval messages 0", kind="invalid-value")
    refused(lab, ny, "replication ack-propagation interval messages 65536", kind="invalid-value")


# ------------------------------------------------------------------ bridge
def test_bridge_settings(lab, nj) -> None:
    at_vpn(nj)
    go(nj, "replication", "bridge")
    go(nj, "authentication auth-scheme client-certificate", "compressed-data", "ssl",
       "message-spool window-size 100", "retry-delay 9", "unidirectional client-profile cp1")
    d = detail(lab, NJ)
    assert (d.bridge_auth_scheme, d.bridge_compressed, d.bridge_ssl) == ("client-certificate", True, True)
    assert (d.bridge_window_size, d.bridge_retry_delay, d.bridge_client_profile) == (100, 9, "cp1")
    go(nj, "authentication auth-scheme basic", "no compressed-data", "no ssl", "no message-spool window-size",
       "no retry-delay", "unidirectional no client-profile")
    d = detail(lab, NJ)
    assert (d.bridge_auth_scheme, d.bridge_compressed, d.bridge_ssl) == ("basic", False, False)
    assert (d.bridge_window_size, d.bridge_retry_delay, d.bridge_client_profile) == (255, 3, "#client-profile")
    assert nj.prompt == "NJ_Appliance1(configure/message-vpn/replication/bridge)#"


def test_bridge_client_username_and_password_never_printed(lab, nj) -> None:
    at_vpn(nj)
    outcome = nj.execute("replication bridge authentication basic client-username repl password Secret99")
    assert (outcome.ok, outcome.text) == (True, "")
    d = detail(lab, NJ)
    assert (d.bridge_client_username, d.bridge_password_configured) == ("repl", True)
    assert "Secret99" not in lab.store.dump()               # only a hash is stored
    go(nj, "replication bridge authentication basic client-username other")
    d = detail(lab, NJ)
    assert (d.bridge_client_username, d.bridge_password_configured) == ("other", False)
    go(nj, "replication bridge authentication basic client-username repl password x",
       "replication bridge authentication basic no client-username")
    d = detail(lab, NJ)
    assert (d.bridge_client_username, d.bridge_password_configured) == ("", False)


def test_bridge_window_size_out_of_range(lab, nj) -> None:
    at_vpn(nj)
    refused(lab, nj, "replication bridge message-spool window-size 0", kind="invalid-value")


# ------------------------------------------------------------------ refusals and access
def test_internal_vpn_cannot_be_configured(lab, ny) -> None:
    go(ny, "enable", "configure", "message-vpn #config-sync")
    outcome = refused(lab, ny, "replication state active")
    assert outcome.text == ("ERROR: Message VPN '#config-sync' is not in a valid state for this command "
                            "(it is the internal config-sync Message VPN).")


def test_config_on_a_failed_router_is_refused(lab, ny) -> None:
    at_vpn(ny)
    assert lab.console.execute("fail site NY").ok
    outcome = refused(lab, ny, "replication state standby")
    assert outcome.text == "ERROR: Router 'NY_Appliance1' is down."


def _as(user):
    return Lab.fresh(settings={"user": user})


@pytest.mark.parametrize("user,ok", [("monitor", False), ("operator", True), ("meshmgr", True),
                                     ("trading_admin", False), ("admin", True)])
def test_state_needs_global_mesh_manager(user, ok) -> None:
    lab = _as(user)
    try:
        ny = at_vpn(lab.session(NY))
        if ok:
            go(ny, "replication state standby")
            assert flags(lab).role == "standby"
        else:
            outcome = refused(lab, ny, "replication state standby", kind="access")
            assert outcome.text == (
                f"ERROR: Permission denied: 'state {{active | standby}}' requires global/mesh-manager "
                f"access; user '{user}' has global/read-only.")
            assert flags(lab).role == "active"
    finally:
        lab.close()


@pytest.mark.parametrize("line", ["replication bridge ssl", "replication queue max-spool-usage 10",
                                  "replication shutdown"])
def test_monitor_refused_on_mesh_manager_commands(line) -> None:
    lab = _as("monitor")
    try:
        ny = at_vpn(lab.session(NY))
        outcome = refused(lab, ny, line, kind="access")
        assert "requires global/mesh-manager access; user 'monitor' has global/read-only." in outcome.text
    finally:
        lab.close()


@pytest.mark.parametrize("user,ok", [("monitor", False), ("trading_admin", True), ("meshmgr", True)])
def test_vpn_read_write_commands(user, ok) -> None:
    lab = _as(user)
    try:
        ny = at_vpn(lab.session(NY))
        line = "replication transaction-replication-mode sync"
        if ok:
            go(ny, line)
            assert flags(lab).trm == "sync"
        else:
            outcome = refused(lab, ny, line, kind="access")
            assert outcome.text.endswith("requires vpn/read-write access; user 'monitor' has vpn/read-only.")
    finally:
        lab.close()
