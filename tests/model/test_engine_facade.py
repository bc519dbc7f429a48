"""The Engine facade's journal contract: a command's effect is exactly its journaled calls.

Why these tests: persistence writes only the journaled calls and other shells replay them, so a
method that changes the state without being journaled would lose that change across shells, and a
clear secret in a call would land in the lab file. Checked on the real default lab: every public
method is either journaled or leaves the state unchanged, replaying a drill's calls on the state it
started from gives the same state, and secrets reach the journal hashed.
"""

from __future__ import annotations

import inspect
import pickle
import re
from collections.abc import Callable
from typing import Any

import pytest

from solace_shell.lab import shell_grammar
from state_store.errors import EngineError
from state_store.journal import CallRecord
from state_store.lab_root.engine import RootEngine
from state_store.lab_root.state import RootState
from state_store.lab_store import LabStore, replay_calls
from state_store.passwords import HashedSecret
from state_store.solace import engine as engine_module
from state_store.solace.engine import MAX_COUNT, Engine
from tests.support.router_engine import owner_of, router_engine, router_section

NY, NJ, VPN = "NY_Appliance1", "NJ_Appliance1", "Trading_VPN"
RQ = "#MSGVPN_REPLICATION_DATA_QUEUE"
XID = "1-ab-01"

# every read-only public method with the arguments it is called with here
READS: dict[str, list[tuple[Any, ...]]] = {
    "now_ms": [()], "routers": [()], "sites": [()], "status": [()], "site_names": [()], "user_vpn_names": [()],
    "user_names": [()], "replicated_topic_names": [(NY, VPN)], "settings": [()], "user": [("admin",)],
    "users": [()], "verify_password": [("admin", "admin")], "ssh_keys": [("admin",)], "ha_instance_names": [()],
    "ha_router_names": [()], "ha_node_names": [()], "ha_network_names": [()], "jms_client_names": [()],
    "ha_queue_names": [()], "ha_node_names_extra": [()], "ha_network_names_extra": [()], "sections": [()],
    "vpn_names": [(NY,)], "vpn_replication": [(NY,), (NJ,)], "vpn_replication_detail": [(NY, VPN), (NJ, VPN)],
    "replication_stats": [(NY,), (NJ, VPN)], "system_replication": [(NY,)], "bridges": [(NJ,), (NY,)],
    "replicated_topics": [(NY, VPN)], "queues": [(NY,), (NJ,)],
    "queue_detail": [(NY, VPN, "orders"), (NY, VPN, RQ)], "queue_names": [(NY, VPN)],
    "queue_messages": [(NY, VPN, "orders"), (NY, VPN, RQ)], "message_spool": [(NY,), (NJ, VPN)],
    "queue_name_is_replication": [(RQ,)], "clients": [(), (NY,)], "client_names": [()],
    "client": [("trader",)], "transactions": [(NY,), (NJ,)], "xids": [(NY,)],
    "require_object": [(NY, VPN, "telemetry-profile", ("trace",))], "client_usernames": [(NY,)],
    "client_profiles": [(NY,)], "acl_profiles": [(NY,)], "telemetry_profiles": [(NY,)],
    "rest_delivery_points": [(NY,)], "config_sync": [(NY,)], "config_sync_bridge": [(NY,)],
    "router_identity": [(NY,)], "cli_script": [(NY, "s.cli")], "current_config": [(NY,), (NJ, VPN)],
    "audit": [(), (VPN,)], "kernel": [()], "system_names": [()], "local_failovers": [()],
    # refused in the default lab (no redundancy group): tests/test_redundancy_layouts.py reads them
    # on the two-site-ha lab
    "redundancy": [], "redundancy_group": [],
}
# public methods that are neither: they hash a secret, then make the journaled call
# (`_set_replication_option`, `_set_object_attr`), or resolve a failure's target and make the
# journaled call its own verb makes (`fail`, `site_change`, `link_change`: the journal holds that call);
# vpn_auth_type takes records; close ends the engine's life (its lab closed or its state replaced)
# The lab's root engine: its sections' engines (`system`, `system_view`, `held_system`); a section engine's part of
# the root's journaled advance (`advance_section`, `after_advance`) and of its failure verbs
# (`fail_node`, `fail_network`), and its forwarder to the root's journaled `kernel_call`.
SPECIAL = {"set_replication_option", "set_object_attr", "vpn_auth_type", "close", "fail", "site_change",
           "link_change", "system", "system_view", "held_system", "advance_section", "after_advance", "fail_node",
           "fail_network", "kernel_call"}


def dump(st: RootState) -> str:
    return LabStore(st).dump()


def fresh() -> RootState:
    st: RootState = LabStore.in_memory().state
    return st


def drill(e: Engine) -> None:
    """Traffic, failover, transactions, configuration and secrets: most mutating methods."""
    def call(fn: Callable[..., Any], *args: Any, **kwargs: Any) -> None:
        try:
            fn(*args, **kwargs)
        except EngineError:
            pass  # refused the same way on replay

    call(router_engine(e).set_queue_shutdown, NY, VPN, "orders", False)
    call(router_engine(e).publish, "trader", "trading/orders/1", count=5)
    call(router_engine(e).consume, "settlement", "orders", count=2)
    call(e.advance, 500)
    call(router_engine(e).set_replication_role, NY, VPN, "standby")
    call(router_engine(e).set_replication_role, NJ, VPN, "active")
    call(e.advance, 3000)
    call(router_engine(e).fail_site, "NY")
    call(router_engine(e).publish, "trader", "trading/orders/2", count=3)
    call(router_engine(e).restore_site, "NY")
    call(router_engine(e).tx_xa_start, "trader", XID)
    call(router_engine(e).publish, "trader", "trading/orders/3", count=2)
    call(router_engine(e).tx_xa_end, "trader", XID)
    call(router_engine(e).tx_xa_prepare, "trader", XID)
    call(router_engine(e).tx_local_start, "settlement")
    call(router_engine(e).consume, "settlement", "orders", count=1)
    call(router_engine(e).fail_link)
    call(router_engine(e).heuristic_commit, NJ, VPN, XID)
    call(router_engine(e).restore_link)
    call(router_engine(e).create_replicated_topic, NJ, VPN, "sync/>", mode="sync")
    call(router_engine(e).set_replication_option, NJ, VPN, "bridge-password", "s3cret")
    call(router_engine(e).create_object, NJ, VPN, "client-username", ("bob",))
    call(router_engine(e).set_object_attr, NJ, VPN, "client-username", ("bob",), "password", "pw1")
    call(router_engine(e).set_object_attr, NJ, None, "replication-config-sync-bridge", ("",), "pre-shared-key", "psk")
    call(router_engine(e).create_object, NJ, VPN, "telemetry-profile", ("trace",))
    call(router_engine(e).create_queue, NJ, VPN, "q2")
    call(router_engine(e).add_queue_subscription, NJ, VPN, "q2", "a/b")
    call(e.set_setting, "replication_drain_rate", 5)
    call(router_engine(e).add_client, "c3", VPN, [NY, NJ])
    call(e.advance, 2000)
    call(router_engine(e).delete_messages, NJ, VPN, "orders")
    call(router_engine(e).remove_client, "settlement")
    call(router_engine(e).replace_site, "NY")
    call(e.advance, 100)


def test_every_public_method_is_journaled_or_a_listed_read() -> None:
    """Of the Solace engine and of the lab's root engine it serves beside (the root's own journaled
    calls: advance, kernel_call, set_setting)."""
    reads: set[str] = set()
    for cls in (Engine, RootEngine):
        public = {n for n, _ in inspect.getmembers(cls, inspect.isfunction) if not n.startswith("_")}
        journaled = {n for n in public if getattr(getattr(cls, n), "__journaled__", False)}
        assert not journaled & set(READS)
        assert public - journaled - SPECIAL <= set(READS)
        reads |= public - journaled - SPECIAL
    assert reads == set(READS)


def test_reads_leave_the_state_unchanged_and_record_nothing() -> None:
    st = fresh()
    e = RootEngine(st)
    router_engine(e).set_queue_shutdown(NY, VPN, "orders", False)
    router_engine(e).publish("trader", "trading/orders/1", count=5)
    router_engine(e).tx_xa_start("trader", XID)
    router_engine(e).publish("trader", "trading/orders/1")
    router_engine(e).tx_local_start("settlement")
    router_engine(e).consume("settlement", "orders")
    router_engine(e).fail_link()
    router_engine(e).publish("trader", "trading/orders/2", count=2)
    router_engine(e).create_object(NY, VPN, "telemetry-profile", ("trace",))
    router_engine(e).create_object(NY, None, "cli-script", ("s.cli",))
    st.work.clear()
    before = dump(st)
    for name, argss in READS.items():
        for args in argss:
            getattr(owner_of(e, name), name)(*args)
    records = router_section(st)
    r = records.router_by_name[NY]
    router_engine(e).vpn_auth_type(r, records.vpns_by_router[r.id][VPN])
    assert dump(st) == before
    assert not st.work.changed


def test_replaying_the_journal_gives_the_same_state() -> None:
    st = fresh()
    start = pickle.dumps(st)
    drill(RootEngine(st))
    calls = list(st.work.calls)
    assert {"advance", "solace.publish", "solace._set_object_attr", "solace._set_replication_option",
            "solace.replace_site"} <= {c.name for c in calls}
    again: RootState = pickle.loads(start)
    replay_calls(again, calls)  # what a rollback, a catch-up and an opened lab file do
    assert dump(again) == dump(st)


def secrets_of(calls: list[CallRecord]) -> list[Any]:
    return [c.args[-1] for c in calls if c.name in ("solace._set_object_attr", "solace._set_replication_option")]


def test_secrets_reach_the_journal_hashed_as_the_service_would_hash_them() -> None:
    st = fresh()
    e = RootEngine(st)
    router_engine(e).set_replication_option(NJ, VPN, "bridge-password", "s3cret")
    router_engine(e).set_object_attr(NY, VPN, "client-username", ("default",), "password", "pw1")
    router_engine(e).set_object_attr(NY, None, "replication-config-sync-bridge", ("",), "pre-shared-key", "psk")
    secrets = secrets_of(st.work.calls)
    assert len(secrets) == 3 and all(isinstance(s, HashedSecret) for s in secrets)
    assert not {"s3cret", "pw1", "psk"} & {str(a) for c in st.work.calls for a in c.args}
    # the same hash the service stores for the clear text (deterministic per object)
    records = router_section(st)
    v = records.vpns_by_router[records.router_by_name[NJ].id][VPN]
    assert v.bridge_password_hash == secrets[0]
    (user,) = [u for u in router_engine(e).client_usernames(NY, VPN) if u.name == "default"]
    assert user.password_hash == secrets[1]
    assert router_engine(e).config_sync_bridge(NY).pre_shared_key_hash == secrets[2]


@pytest.mark.parametrize("value", [None, ""])
def test_no_secret_is_not_hashed(value: str | None) -> None:
    st = fresh()
    router_engine(RootEngine(st)).set_replication_option(NJ, VPN, "bridge-password", value)
    assert secrets_of(st.work.calls) == [value]


def test_kernel_reads_change_nothing_and_its_changes_are_journaled_calls() -> None:
    st = fresh()
    e = RootEngine(st)
    assert (e.ha_instance_names(), e.ha_router_names(), e.jms_client_names(), e.ha_queue_names()) == ([], [], [], [])
    assert e.kernel() is st.kernel
    assert not st.work.changed
    with pytest.raises(EngineError):   # an operation no system registered: refused, nothing recorded
        e.kernel_call("nosystem.verb")
    assert not st.work.changed



def test_counts_are_bounded_as_the_grammar_bounds_them() -> None:
    """A journal replays publish/consume calls as recorded: a damaged lab file cannot ask for
    more messages than the grammar lets a user type."""
    assert shell_grammar().types["count"].max == MAX_COUNT
    st = fresh()
    e = RootEngine(st)
    before = dump(st)
    router = router_engine(e)
    for fn, args in ((router.publish, ("trader", "trading/orders/new")), (router.consume, ("settlement", "orders"))):
        with pytest.raises(EngineError) as err:
            fn(*args, count=MAX_COUNT + 1)
        assert (err.value.code, err.value.params["max"]) == ("value_out_of_range", MAX_COUNT)
    assert dump(st) == before


def _documented_names() -> set[str]:
    """Every name the module docstring's "Public API" list gives, with `a/b/c` shorthands
    (``tx_local_start/commit/rollback``) expanded to each method's full name."""
    text = engine_module.__doc__.split("Public API", 1)[1].split("Secrets:", 1)[0]
    names: set[str] = set()
    for group in re.findall(r"[a-z_][a-z0-9_]*(?:/[a-z_][a-z0-9_]*)*", text):
        first, *rest = group.split("/")
        names.add(first)
        stem = first.rsplit("_", 1)[0]
        names.update(f"{stem}_{word}" for word in rest)
    return names


def test_the_public_api_list_names_every_public_method() -> None:
    """The docstring is the one place a newcomer reads the facade; a method missing from it is a
    method nobody finds."""
    public = {name for name, value in vars(Engine).items() if callable(value) and not name.startswith("_")}
    assert sorted(public - _documented_names()) == []
