"""The lab console's verbs on the default lab: exact output (docs/lab.md), state after, errors."""

from __future__ import annotations

import pytest

from tests.support.router_engine import router_engine

NY, NJ, VPN = "NY_Appliance1", "NJ_Appliance1", "Trading_VPN"
RQ = "#MSGVPN_REPLICATION_DATA_QUEUE"
T = "trading/orders/new"
XID = "0021ABC4-00-01"


def ok(lab, line: str) -> str:
    outcome = lab.console.execute(line)
    assert outcome.ok, (line, outcome.text)
    return outcome.text


def refused(lab, line: str, kind: str = "engine") -> str:
    before = lab.store.dump()
    outcome = lab.console.execute(line)
    assert not outcome.ok and outcome.error_kind == kind, (line, outcome)
    assert lab.store.dump() == before, line
    return outcome.text


def engine(lab):
    return lab.store.transaction()


# ---------------------------------------------------------------- advance
def test_advance_prints_clock_step_drained_reconnected(lab):
    assert ok(lab, "advance 5s") == "clock 00:00:05.000 (+5s) drained 0 reconnected -"
    ok(lab, "publish trader trading/orders/new count 12")
    assert ok(lab, "advance 250ms") == "clock 00:00:05.250 (+250ms) drained 12 reconnected -"
    assert ok(lab, "advance 2m") == "clock 00:02:05.250 (+2m) drained 0 reconnected -"
    assert ok(lab, "advance 1500ms") == "clock 00:02:06.750 (+1500ms) drained 0 reconnected -"
    assert ok(lab, "advance 60s") == "clock 00:03:06.750 (+1m) drained 0 reconnected -"
    assert ok(lab, "advance 25h") == "clock 25:03:06.750 (+25h) drained 0 reconnected -"
    with engine(lab) as e:
        assert e.now_ms() == 90_186_750
        assert router_engine(e).queue_detail(NJ, VPN, "orders").messages_spooled == 12


def test_advance_drain_rate_and_reconnect(lab):
    ok(lab, "set replication-drain-rate 4")
    ok(lab, "publish trader trading/orders/new count 10")
    assert ok(lab, "advance 1s") == "clock 00:00:01.000 (+1s) drained 4 reconnected -"
    assert ok(lab, "advance 500ms") == "clock 00:00:01.500 (+500ms) drained 2 reconnected -"
    assert ok(lab, "advance 1s") == "clock 00:00:02.500 (+1s) drained 4 reconnected -"
    ok(lab, "fail site NY")
    assert ok(lab, "advance 1s") == "clock 00:00:03.500 (+1s) drained 0 reconnected -"
    lab.session(NJ).execute("enable")
    lab.session(NJ).execute("configure")
    assert lab.session(NJ).execute("message-vpn Trading_VPN replication state active").ok
    assert ok(lab, "advance 0s") == "clock 00:00:03.500 (+0ms) drained 0 reconnected settlement,trader"


def test_advance_bad_duration_is_refused_without_change(lab):
    text = refused(lab, "advance 5x", "invalid-value")
    assert text.endswith("-> Invalid value '5x' for <duration>: expected a duration such as 250ms, 5s, 2m or 1h")
    refused(lab, "advance -5s", "invalid-value")
    refused(lab, "advance", "incomplete")


# ---------------------------------------------------------------- publish / consume
def test_publish_exact_form_and_state(lab):
    assert ok(lab, "publish trader trading/orders/new count 10") == (
        "published 10 rejected 0 replicated 10 not-replicated 0 on NY_Appliance1 (rgmid 1000001-1000010)")
    assert ok(lab, "publish trader trading/orders/new") == (
        "published 1 rejected 0 replicated 1 not-replicated 0 on NY_Appliance1 (rgmid 1000011)")
    # a topic that is not replicated: spooled nowhere, not replicated, still gets a rgmid
    assert ok(lab, "publish trader other/topic count 2 size 100") == (
        "published 2 rejected 0 replicated 0 not-replicated 0 on NY_Appliance1 (rgmid 1000012-1000013)")
    with engine(lab) as e:
        assert router_engine(e).queue_detail(NY, VPN, "orders").messages_spooled == 11
        assert router_engine(e).queue_detail(NY, VPN, RQ).messages_spooled == 11


def test_publish_refusals_unknown_client_standby_disconnected(lab):
    assert refused(lab, "publish nobody trading/orders/new") == "ERROR: Client 'nobody' not found."
    assert refused(lab, "publish trader trading/orders/*") == "ERROR: Invalid topic 'trading/orders/*'."
    ny = lab.session(NY)
    for line in ("enable", "configure", "message-vpn Trading_VPN replication state standby"):
        assert ny.execute(line).ok
    assert refused(lab, "publish trader trading/orders/new") == (
        "ERROR: Client 'trader' is not connected: Message VPN 'Trading_VPN' is replication standby on NY_Appliance1.")
    ok(lab, "fail site NY")
    assert refused(lab, "consume settlement orders") == (
        "ERROR: Client 'settlement' is not connected: Message VPN 'Trading_VPN' is replication standby on "
        "NJ_Appliance1.")


def test_publish_rejected_when_replication_queue_full(lab):
    """Partly rejected: ok with a reason line; wholly rejected: an error, but the rejection is counted."""
    ny = lab.session(NY)
    for line in ("enable", "configure", "message-vpn Trading_VPN replication", "queue max-spool-usage 1"):
        assert ny.execute(line).ok, line
    ok(lab, "fail link")
    assert ok(lab, "publish trader trading/orders/new count 2000") == (
        "published 1747 rejected 253 replicated 1747 not-replicated 0 on NY_Appliance1 (rgmid 1000001-1001747)\n"
        "rejected 253: replication queue full")
    outcome = lab.console.execute("publish trader trading/orders/new count 3")
    assert (outcome.ok, outcome.error_kind) == (False, "engine")
    assert outcome.text == (
        "ERROR: Publish rejected: the replication queue of Message VPN 'Trading_VPN' on NY_Appliance1 is full "
        "(3 of 3 rejected; reject-msg-to-sender-on-discard is on).")
    with engine(lab) as e:
        assert router_engine(e).replication_stats(NY, VPN).rejected_repl_queue_full == 256
    assert ok(lab, "audit").splitlines()[:2] == [
        "published 1747 delivered 0 duplicated 0 lost 0 spooled 1747",
        "rejected 256 not-replicated 0 stranded 0 in-transaction 0",
    ]
    # reject-msg-to-sender-on-discard off: accepted but not replicated
    assert ny.execute("queue").ok and ny.execute("no reject-msg-to-sender-on-discard").ok
    assert ok(lab, "publish trader trading/orders/new count 5") == (
        "published 5 rejected 0 replicated 0 not-replicated 5 on NY_Appliance1 (rgmid 1001748-1001752)")


def test_consume_exact_form(lab):
    ok(lab, "publish trader trading/orders/new count 10")
    assert ok(lab, "consume settlement orders count 4") == (
        "consumed 4 from orders on NY_Appliance1 (rgmid 1000001-1000004)")
    assert ok(lab, "consume settlement orders") == "consumed 1 from orders on NY_Appliance1 (rgmid 1000005)"
    assert ok(lab, "consume settlement orders count 100") == (
        "consumed 5 from orders on NY_Appliance1 (rgmid 1000006-1000010)")
    assert ok(lab, "consume settlement orders") == "consumed 0 from orders on NY_Appliance1 (rgmid -)"
    assert refused(lab, "consume settlement nosuch") == "ERROR: Queue 'nosuch' not found in Message VPN 'Trading_VPN'."
    refused(lab, "consume settlement orders count 0", "invalid-value")


def test_consume_gaps_print_as_ranges(lab):
    ok(lab, "publish trader trading/orders/new count 6")
    ok(lab, "transaction local start trader")
    assert ok(lab, "consume trader orders count 2") == (
        "locked 2 from orders on NY_Appliance1 in transaction (rgmid 1000001-1000002)")
    ok(lab, "publish settlement trading/orders/new count 1")
    assert ok(lab, "consume settlement orders count 10") == (
        "consumed 5 from orders on NY_Appliance1 (rgmid 1000003-1000007)")
    ok(lab, "transaction local rollback trader")
    assert ok(lab, "consume settlement orders count 10") == (
        "consumed 2 from orders on NY_Appliance1 (rgmid 1000001-1000002)")


# ---------------------------------------------------------------- transactions
def test_local_transaction_holds_publishes_until_commit(lab):
    assert ok(lab, "transaction local start trader") == "transaction local trader ACTIVE on NY_Appliance1"
    assert ok(lab, "publish trader trading/orders/new count 3") == "held 3 in transaction on NY_Appliance1"
    with engine(lab) as e:
        assert router_engine(e).queue_detail(NY, VPN, "orders").messages_spooled == 0
        assert router_engine(e).client("trader").transacted
    assert ok(lab, "transaction local commit trader") == "transaction local trader COMMITTED on NY_Appliance1"
    with engine(lab) as e:
        assert router_engine(e).queue_detail(NY, VPN, "orders").messages_spooled == 3
    assert refused(lab, "transaction local commit trader") == "ERROR: Client 'trader' has no open local transaction."
    ok(lab, "transaction local start trader")
    assert refused(lab, "transaction local start trader") == "ERROR: Client 'trader' already has an open transaction."
    ok(lab, "publish trader trading/orders/new")
    assert ok(lab, "transaction local rollback trader") == "transaction local trader ROLLED-BACK on NY_Appliance1"
    with engine(lab) as e:
        assert router_engine(e).queue_detail(NY, VPN, "orders").messages_spooled == 3


def test_xa_transaction_lifecycle(lab):
    assert ok(lab, f"transaction xa start trader {XID}") == f"transaction xa {XID} trader ACTIVE on NY_Appliance1"
    assert ok(lab, "publish trader trading/orders/new count 2") == "held 2 in transaction on NY_Appliance1"
    assert ok(lab, f"transaction xa suspend trader {XID}") == f"transaction xa {XID} trader SUSPENDED on NY_Appliance1"
    assert ok(lab, f"transaction xa resume trader {XID}") == f"transaction xa {XID} trader ACTIVE on NY_Appliance1"
    assert ok(lab, f"transaction xa end trader {XID}") == f"transaction xa {XID} trader IDLE on NY_Appliance1"
    assert ok(lab, f"transaction xa prepare trader {XID}") == f"transaction xa {XID} trader PREPARED on NY_Appliance1"
    with engine(lab) as e:
        assert [t.state for t in router_engine(e).transactions(NY)] == ["prepared"]
    assert ok(lab, f"transaction xa commit trader {XID}") == f"transaction xa {XID} trader COMMITTED on NY_Appliance1"
    with engine(lab) as e:
        assert router_engine(e).transactions(NY) == []
        assert router_engine(e).queue_detail(NY, VPN, "orders").messages_spooled == 2
    # one-phase commit from IDLE; two-phase commit from IDLE is refused
    xid2 = "0021ABC4-00-02"
    ok(lab, f"transaction xa start trader {xid2}")
    ok(lab, f"transaction xa end trader {xid2}")
    assert refused(lab, f"transaction xa commit trader {xid2}") == (
        f"ERROR: Transaction '{xid2}' is not in a valid state: it is IDLE, the command requires PREPARED.")
    assert ok(lab, f"transaction xa commit trader {xid2} one-phase") == (
        f"transaction xa {xid2} trader COMMITTED on NY_Appliance1")
    ok(lab, f"transaction xa start trader {xid2}")
    assert ok(lab, f"transaction xa rollback trader {xid2}") == (
        f"transaction xa {xid2} trader ROLLED-BACK on NY_Appliance1")
    assert refused(lab, f"transaction xa end trader {xid2}") == f"ERROR: No transaction matches XID '{xid2}'."
    assert refused(lab, "transaction xa start trader nothex") == (
        "ERROR: Invalid XID 'nothex' (format-gtrid-bqual in hex, e.g. 0021ABC4-00-01).")


# ---------------------------------------------------------------- failures
def test_fail_restore_replace_site_and_link(lab):
    assert ok(lab, "fail site NY") == "site NY down routers NY_Appliance1 disconnected settlement,trader"
    with engine(lab) as e:
        assert [r.up for r in e.routers()] == [False, True]
        assert [c.router for c in router_engine(e).clients()] == [None, None]
    assert refused(lab, "fail site NY") == "ERROR: Site 'NY' is already down."
    assert ok(lab, "restore site NY") == "site NY up routers NY_Appliance1 disconnected -"
    assert refused(lab, "restore site NY") == "ERROR: Site 'NY' is already up."
    assert refused(lab, "fail site Boston") == "ERROR: Site 'Boston' not found."
    assert ok(lab, "fail link") == "link down"
    with engine(lab) as e:
        assert router_engine(e).status().link_up is False
    assert refused(lab, "fail link") == "ERROR: The inter-site link is already down."
    assert ok(lab, "restore link") == "link up"
    assert refused(lab, "restore link") == "ERROR: The inter-site link is already up."
    ok(lab, "advance 1s")
    ok(lab, "publish trader trading/orders/new count 2")
    assert ok(lab, "replace site NY") == "site NY replaced routers NY_Appliance1 disconnected settlement,trader"
    with engine(lab) as e:
        assert router_engine(e).vpn_replication(NY, VPN)[0].role == "standby"
        assert router_engine(e).queue_detail(NY, VPN, "orders").messages_spooled == 0


# ---------------------------------------------------------------- connect
def test_connect_switches_the_target(lab):
    outcome = lab.console.execute("connect NJ_Appliance1")
    assert (outcome.ok, outcome.text, outcome.switch_to) == (True, "", NJ)
    outcome = lab.console.execute("connect Boston_Appliance1")
    assert (outcome.ok, outcome.text, outcome.switch_to) == (
        False, "ERROR: Router 'Boston_Appliance1' not found.", None)


# ---------------------------------------------------------------- status
DEFAULT_STATUS = """\
clock 00:00:00.000 link up scenario default
settings layout B software-version 10.4.1.52 replication-drain-rate 1000 default-message-size 600

site  router         state
NY    NY_Appliance1  up
NJ    NJ_Appliance1  up

router         vpn          replication  role     repl-queue  entries
NY_Appliance1  Trading_VPN  enabled      active   0           0
NY_Appliance1  default      shutdown     standby  0           0
NJ_Appliance1  Trading_VPN  enabled      standby  0           0
NJ_Appliance1  default      shutdown     standby  0           0

client      vpn          router         reconnects
settlement  Trading_VPN  NY_Appliance1  0
trader      Trading_VPN  NY_Appliance1  0"""


def test_status_default_lab(lab):
    assert ok(lab, "status") == DEFAULT_STATUS


def test_status_after_failure(lab):
    ok(lab, "publish trader trading/orders/new count 3")
    ok(lab, "advance 1s")
    ok(lab, "consume settlement orders count 1")   # its ack waits for a batch: lost with NY
    ok(lab, "fail link")
    ok(lab, "publish trader trading/orders/new count 2")
    ok(lab, "fail site NY")
    ok(lab, "advance 1s")
    assert ok(lab, "status") == """\
clock 00:00:02.000 link down scenario default
settings layout B software-version 10.4.1.52 replication-drain-rate 1000 default-message-size 600

site  router         state
NY    NY_Appliance1  down
NJ    NJ_Appliance1  up

router         vpn          replication  role     repl-queue  entries
NY_Appliance1  Trading_VPN  enabled      active   2           2
NY_Appliance1  default      shutdown     standby  0           0
NJ_Appliance1  Trading_VPN  enabled      standby  0           0
NJ_Appliance1  default      shutdown     standby  0           0

client      vpn          router  reconnects
settlement  Trading_VPN  -       0
trader      Trading_VPN  -       0"""


# ---------------------------------------------------------------- audit
def test_audit_default_lab_and_unknown_vpn(lab):
    expected = ("published 0 delivered 0 duplicated 0 lost 0 spooled 0\n"
                "rejected 0 not-replicated 0 stranded 0 in-transaction 0")
    assert ok(lab, "audit") == expected
    assert ok(lab, "audit Trading_VPN") == expected
    assert refused(lab, "audit Nope_VPN") == "ERROR: Message VPN 'Nope_VPN' not found."


def test_audit_lists_where_spooled(lab):
    ok(lab, "publish trader trading/orders/new count 10")
    ok(lab, "advance 1s")
    ok(lab, "consume settlement orders count 4")
    assert ok(lab, "audit Trading_VPN") == (
        "published 10 delivered 4 duplicated 0 lost 0 spooled 6\n"
        "rejected 0 not-replicated 0 stranded 0 in-transaction 0\n"
        "spooled 10 in Trading_VPN/orders on NJ_Appliance1\n"
        "spooled 6 in Trading_VPN/orders on NY_Appliance1")
    with engine(lab) as e:
        # the 4 acks wait for a batch of 20 (ack-propagation interval) or the one-second timer
        assert router_engine(e).status().vpns[1].repl_queue_entries == 0
    ok(lab, "advance 1s")
    assert ok(lab, "audit").splitlines()[2:] == [
        "spooled 6 in Trading_VPN/orders on NJ_Appliance1",
        "spooled 6 in Trading_VPN/orders on NY_Appliance1",
    ]


def test_audit_caps_per_message_lines(lab):
    """Ack propagation off, every other message consumed on NY before a controlled failover: each
    of those is delivered again on NJ, one audit line each (not contiguous); 20 lines are shown."""
    ny, nj = lab.session(NY), lab.session(NJ)
    for line in ("enable", "configure", "message-vpn Trading_VPN replication", "ack-propagation", "shutdown"):
        assert ny.execute(line).ok, line
    ok(lab, "transaction local start settlement")
    for _ in range(25):
        ok(lab, "publish trader trading/orders/new")
        ok(lab, "consume settlement orders")      # locked in settlement's transaction
        ok(lab, "publish trader trading/orders/new")
        ok(lab, "consume trader orders")          # consumed for good on NY
    ok(lab, "transaction local rollback settlement")
    ok(lab, "advance 1s")
    assert ny.execute("end").ok and ny.execute("configure").ok
    assert ny.execute("message-vpn Trading_VPN replication state standby").ok
    ok(lab, "advance 1s")
    for line in ("enable", "configure", "message-vpn Trading_VPN replication state active"):
        assert nj.execute(line).ok, line
    assert ok(lab, "consume settlement orders count 100") == (
        "consumed 50 from orders on NJ_Appliance1 (rgmid 1000001-1000050)")
    ok(lab, "advance 1s")   # NY (standby now) applies NJ's acks
    lines = ok(lab, "audit").splitlines()
    assert lines[:2] == ["published 50 delivered 50 duplicated 25 lost 0 spooled 0",
                         "rejected 0 not-replicated 0 stranded 0 in-transaction 0"]
    assert lines[2:4] == ["rgmid 1000002 duplicated 2x to settlement,trader via NJ_Appliance1,NY_Appliance1",
                          "rgmid 1000004 duplicated 2x to settlement,trader via NJ_Appliance1,NY_Appliance1"]
    assert len(lines) == 2 + 20 + 1 and lines[21].startswith("rgmid 1000040 ")
    assert lines[-1] == "... 5 more"


# ---------------------------------------------------------------- set
def test_set_settings(lab):
    assert ok(lab, "set layout a") == "layout A"
    assert ok(lab, "set software-version 10.5.1.1") == "software-version 10.5.1.1"
    assert ok(lab, "set replication-drain-rate 50") == "replication-drain-rate 50"
    assert ok(lab, "set default-message-size 1000") == "default-message-size 1000"
    with engine(lab) as e:
        s = e.settings()
    assert (s["layout"], s["software_version"], s["replication_drain_rate"], s["default_message_size"]) == (
        "A", "10.5.1.1", "50", "1000")
    assert ok(lab, "status").splitlines()[1] == (
        "settings layout A software-version 10.5.1.1 replication-drain-rate 50 default-message-size 1000")
    assert refused(lab, "set default-message-size 0") == (
        "ERROR: Invalid value '0' for default_message_size (allowed: integer >= 1).")
    refused(lab, "set layout C", "invalid-value")


@pytest.mark.parametrize("line", ["status", "audit", "advance 1s", "fail link", "set layout A"])
def test_every_user_may_use_the_console(line):
    from solace_shell.lab import Lab

    lab = Lab.fresh(settings={"user": "monitor"})
    try:
        assert lab.console.execute(line).ok
    finally:
        lab.close()
