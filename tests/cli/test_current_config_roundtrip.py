"""`show current-config` replays (issue 14.6): its output, run line by line on a fresh lab, gives no
error and the same current-config again.

Random labs are random sequences of configuration commands (every kind of object the grammar
configures, including deletes and refused commands) run through the real Lab on a lab of the
default shape with nothing configured (transcripts/scenarios/bare.yaml), as a broker fresh from the box.
The replay runs each script line through `Lab.execute`, skipping `!` comment lines as a CLI
script does; the pragma-driven replay onto a lab that already has the objects waits for the
script runner's `ignore-already-exists` support (xfail below). The `remove` form of a VPN, run on
the configured lab, tears it down to what the same script leaves of a lab with nothing configured.
"""

from __future__ import annotations

import io
from collections.abc import Callable
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from grammar.leaves import VALUE, Leaf, with_words
from solace_shell.lab import Lab
from solace_shell.script import run_script
from state_store.solace.views import RouterConfig
from tests.support.router_engine import router_engine

BARE = Path(__file__).resolve().parents[2] / "transcripts" / "scenarios" / "bare.yaml"
NY = "NY_Appliance1"
VPNS = ["default", "Trading_VPN"]
NAMES = ["a", "b"]
TOPICS = [">", "t/1", "t/*/x"]
QUEUES = ["q1", "q2"]
Draw = Callable[[st.SearchStrategy[object]], object]
Lines = Callable[[str, str], list[str]]


def _vpn_level(*levels: str) -> Lines:
    return lambda vpn, name: [f"message-vpn {vpn}", *levels]


def _telemetry_level(*levels: str) -> Lines:
    return lambda vpn, name: [f"message-vpn {vpn}", f"create telemetry-profile {name}", f"telemetry-profile {name}",
                              *levels]


def _profile_queue(queue: str) -> Lines:
    return lambda vpn, name: [f"client-profile default message-vpn {vpn}", f"queue {queue}"]


# The lines that reach the level of a generic leaf's command (grammar/data/leaves.yaml), by mode:
# every leaf with words is configured by the random labs below.
LEAF_LEVELS: dict[str, Lines] = {
    "configure/client-profile": lambda vpn, name: [f"create client-profile {name} message-vpn {vpn}" if name == "a"
                                                   else f"client-profile default message-vpn {vpn}"],
    "configure/client-username": lambda vpn, name: [f"create client-username {name} message-vpn {vpn}"
                                                    if name == "a" else f"client-username default message-vpn {vpn}"],
    **{f"configure/client-profile/queue-{q}": _profile_queue(q) for q in ("G-1", "D-1", "D-2", "D-3", "C-1")},
    "configure/message-vpn": _vpn_level(),
    **{f"configure/message-vpn/{level}": _vpn_level(*level.split("/"))
       for level in ("authentication/client-certificate", "authentication/oauth", "authorization", "ssl",
                     "dynamic-message-routing", "mqtt/retain", "kafka", "rest", "replication",
                     "replication/queue", "replication/bridge", "replication/ack-propagation")},
    # (a `create` of an object that exists fails and the line after enters it instead)
    **{f"configure/message-vpn/telemetry-profile{below}": _telemetry_level(*levels)
       for below, levels in (("", ()), ("/trace", ("trace",)),
                             ("/trace/filter", ("trace", "create filter f", "filter f")))},
    "configure/message-spool": lambda vpn, name: [f"message-spool message-vpn {vpn}"],
    "configure/jndi": lambda vpn, name: [f"jndi message-vpn {vpn}"],
    "configure/message-spool/queue": lambda vpn, name: [f"message-spool message-vpn {vpn}", f"create queue q{name}"],
    "configure/message-vpn/rest/rest-delivery-point": _vpn_level("rest", "create rest-delivery-point a"),
    "configure/message-vpn/rest/rest-delivery-point/queue-binding": lambda vpn, name: [
        f"message-spool message-vpn {vpn}", "create queue qa", "end", "configure", f"message-vpn {vpn}", "rest",
        "create rest-delivery-point a", "create queue-binding qa"],
    "configure/message-vpn/rest/rest-delivery-point/rest-consumer": _vpn_level(
        "rest", "create rest-delivery-point a", "create rest-consumer a"),
    "configure/message-vpn/rest/rest-delivery-point/rest-consumer/authentication": _vpn_level(
        "rest", "create rest-delivery-point a", "create rest-consumer a", "authentication"),
}
LEAVES = with_words()


def _pick(draw: Draw, options: list[str]) -> str:
    return str(draw(st.sampled_from(options)))


def _leaf_line(draw: Draw, leaf: Leaf) -> str:
    """A line that sets ``leaf`` to a value of its range, or restores its default."""
    if draw(st.booleans()):
        return f"no {leaf.no_words}"
    if leaf.type == "bool":
        return leaf.cli
    if leaf.type == "threshold":
        return leaf.cli + _pick(draw, [" clear-percent 50 set-percent 70", " clear-value 10 set-value 20"])
    if leaf.type == "enum":
        value = _pick(draw, list(leaf.values))
    elif leaf.type == "int":
        assert leaf.min is not None and leaf.max is not None
        value = str(draw(st.sampled_from([leaf.min, leaf.max, (leaf.min + leaf.max) // 2])))
    else:
        value = _pick(draw, ["v1", "a/b"])
    return leaf.cli.replace(VALUE, value)


def test_every_generic_leaf_is_configured_by_the_random_labs() -> None:
    assert {leaf.mode for leaf in LEAVES} <= set(LEAF_LEVELS)


def _some(draw: Draw, lines: list[str]) -> list[str]:
    """A random subset of optional lines, in order."""
    return [line for line in lines if draw(st.booleans())]


@st.composite
def _step(draw: Draw) -> list[str]:
    """One configuration step: the lines typed after `configure` (the test ends it with `end`)."""
    vpn, name = _pick(draw, VPNS), _pick(draw, NAMES)
    profile = _pick(draw, ["default", "a", "b", "#telemetry-a"])
    action = _pick(draw, ["allow", "disallow"])
    kind = _pick(draw, ["client-profile", "acl-profile", "client-username", "delete", "vpn", "rest-service",
                        "telemetry", "no-telemetry", "rdp", "queue", "no-queue", "replication", "bridge", "system",
                        "leaf", "jndi"])
    if kind == "jndi":
        factory = f"/jms/cf/{name}"
        if draw(st.booleans()):
            return [f"jndi message-vpn {vpn}", f"create connection-factory {factory}", "exit"]
        return [f"jndi message-vpn {vpn}", f"no connection-factory {factory}"]
    if kind == "leaf" and LEAVES:
        leaves = draw(st.lists(st.sampled_from(LEAVES), min_size=1, max_size=4))
        return [line for leaf in leaves for line in [*LEAF_LEVELS[leaf.mode](vpn, name), _leaf_line(draw, leaf), "end",
                                                     "configure"]]
    if kind == "client-profile":
        head = f"create client-profile {name} message-vpn {vpn}" if draw(st.booleans()) \
            else f"client-profile default message-vpn {vpn}"
        return [head] + _some(draw, ["message-spool reject-msg-to-sender-on-no-subscription-match",
                                     "no message-spool reject-msg-to-sender-on-no-subscription-match"])
    if kind == "acl-profile":
        head = f"create acl-profile {name} message-vpn {vpn}" if draw(st.booleans()) \
            else f"acl-profile default message-vpn {vpn}"
        return [head] + _some(draw, [f"client-connect default-action {action}",
                                     f"publish-topic default-action {action}", "subscribe-topic default-action allow",
                                     f"subscribe-share-name default-action {action}"])
    if kind == "client-username":
        head = f"create client-username {name} message-vpn {vpn}" if draw(st.booleans()) \
            else f"client-username default message-vpn {vpn}"
        return [head] + _some(draw, [f"password pw-{name}", f"client-profile {profile}", f"acl-profile {profile}",
                                     "no shutdown", "shutdown", "no password", "subscription-manager",
                                     "guaranteed-endpoint-permission-override"])
    if kind == "delete":
        what = _pick(draw, ["client-username", "client-profile", "acl-profile"])
        return [f"no {what} {_pick(draw, ['a', 'b', 'default'])} message-vpn {vpn}"]
    if kind == "vpn":
        return [f"message-vpn {vpn}", f"authentication basic auth-type {_pick(draw, ['internal', 'none', 'ldap'])}"
                ] + _some(draw, ["shutdown", "no shutdown"])
    if kind == "rest-service":
        return [f"message-vpn {vpn}", "service rest"] + _some(draw, [
            f"mode {_pick(draw, ['gateway', 'messaging'])}", "incoming", "plain-text shutdown",
            f"listen-port {_pick(draw, ['9000', '9001'])}", "no listen-port", "no plain-text shutdown"])
    if kind == "telemetry":
        return [f"message-vpn {vpn}", f"create telemetry-profile {name}"] + _some(draw, [
            f"receiver acl connect default-action {action}", "no receiver shutdown"]) + [
            "trace"] + _some(draw, ["no shutdown"]) + [f"create filter {_pick(draw, NAMES)}"] + _some(draw, [
                "no shutdown"]) + [f"create subscription {_pick(draw, TOPICS)}"]
    if kind == "no-telemetry":
        return [f"message-vpn {vpn}", f"no telemetry-profile {name}"]
    if kind == "rdp":
        return [f"message-vpn {vpn}", "rest", f"create rest-delivery-point {name}"] + _some(draw, [
            f"client-profile {profile}", "service Salesforce", "vendor Acme", "no client-profile",
            f"create rest-consumer {_pick(draw, NAMES)}", "remote host example.com",
            "remote port 9443", "remote ssl", "remote outgoing-connection-count 5", "remote retry delay 7",
            "remote max-post-wait-time 60", "remote http-method put", "authentication auth-scheme http-basic",
            "authentication", "http-basic username u", "http-basic password p", "exit", "no shutdown", "exit",
            f"create queue-binding {_pick(draw, QUEUES)}", "post-request-target /x", "exit", "no shutdown"])
    if kind == "queue":
        return [f"message-spool message-vpn {vpn}"] + _some(draw, [
            f"max-spool-usage {_pick(draw, ['0', '70', '60000'])}", "no max-spool-usage"]) + [
            f"create queue {_pick(draw, QUEUES)}"] + _some(draw, [
            "access-type non-exclusive", f"owner {name}", "permission all consume", "max-spool-usage 10",
            "max-bind-count 5", f"subscription topic {_pick(draw, TOPICS)}", "no shutdown ingress", "no shutdown",
            _pick(draw, ["no reject-msg-to-sender-on-discard", "reject-msg-to-sender-on-discard",
                         "reject-msg-to-sender-on-discard including-when-shutdown"])])
    if kind == "no-queue":
        queue = _pick(draw, QUEUES)
        return [f"message-spool message-vpn {vpn}", f"queue {queue}", "shutdown", "exit", f"no queue {queue}"]
    if kind == "replication":
        return [f"message-vpn {vpn}", "replication"] + _some(draw, [
            f"state {_pick(draw, ['active', 'standby'])}", "transaction-replication-mode sync",
            "reject-msg-when-sync-ineligible", f"create replicated-topic {_pick(draw, TOPICS)}",
            "replication-mode sync", "exit", "queue max-spool-usage 100", "no queue reject-msg-to-sender-on-discard",
            "ack-propagation interval messages 7", "no shutdown", "shutdown"])
    if kind == "bridge":
        return [f"message-vpn {vpn}", "replication", "bridge"] + _some(draw, [
            f"authentication basic client-username u{name} password p{name}", "authentication basic no client-username",
            "ssl", "compressed-data", "retry-delay 9", "message-spool window-size 99",
            "unidirectional client-profile default"])
    return _some(draw, [
        "no replication interface", "replication interface 1/2/lag3",
        f"replication mate virtual-router-name v:{_pick(draw, ['NJ_Appliance1', 'other'])}",
        "replication mate connect-via 10.0.0.9:55443 ssl", "replication mate no connect-via",
        "replication config-sync bridge authentication pre-shared-key key c2VjcmV0",
        "no replication config-sync bridge authentication insecure-upgrade-mode",
        "replication config-sync bridge ssl", "replication config-sync bridge shutdown",
        "config-sync ssl", "config-sync shutdown", "no config-sync shutdown"])


def _configure(lab: Lab, steps: list[list[str]]) -> None:
    for step in steps:
        for line in ["home", "enable", "configure", *step, "end"]:
            outcome = lab.execute(NY, line)
            assert outcome.error_kind != "internal", (line, outcome.text)


def _replay(lab: Lab, script: str) -> list[tuple[str, str]]:
    """Run a current-config script line by line; the failures, with the prompt they met."""
    failures = []
    for raw in script.splitlines():
        line = raw.strip()
        if not line or line.startswith("!"):
            continue
        outcome = lab.execute(NY, line)
        if not outcome.ok:
            failures.append((f"{lab.prompt(NY)} {line}", outcome.text))
    return failures


def _data(lab: Lab) -> RouterConfig:
    with lab.store.transaction() as engine:
        return router_engine(engine).current_config(NY)


def _config(lab: Lab, vpn: str | None = None, remove: bool = False) -> str:
    outcome = lab.execute(NY, "show current-config" + (f" message-vpn {vpn}" if vpn else "")
                          + (" remove" if remove else ""))
    assert outcome.ok, outcome.text
    return outcome.text


def _torn_down(lab: Lab, vpn: str) -> str:
    """The VPN's configuration after its `remove` script ran (which must run without an error)."""
    assert _replay(lab, _config(lab, vpn, remove=True)) == []
    return _config(lab, vpn)


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(steps=st.lists(_step(), min_size=1, max_size=12))
def test_current_config_replays_to_itself(steps: list[list[str]]) -> None:
    lab = Lab.fresh(BARE)
    _configure(lab, steps)
    script = _config(lab)
    again = Lab.fresh(BARE)
    assert _replay(again, script) == []
    assert _config(again) == script
    # The same configuration, not only the same text: a setting the script left out would be
    # missing from both texts alike, but not from the engine's data.
    assert _data(again) == _data(lab)
    for vpn in VPNS:  # the per-VPN form replays on its own too
        vpn_script = _config(lab, vpn)
        fresh = Lab.fresh(BARE)
        assert _replay(fresh, vpn_script) == []
        assert _config(fresh, vpn) == vpn_script
        assert _torn_down(lab, vpn) == _torn_down(Lab.fresh(BARE), vpn)


def test_default_lab_config_replays_onto_a_bare_lab() -> None:
    """The default lab's configuration (replication active, a queue, a replicated topic, a bridge
    password) rebuilds itself on a lab with nothing configured."""
    script = _config(Lab.fresh())
    bare = Lab.fresh(BARE)
    assert _replay(bare, script) == []
    assert _config(bare) == script
    assert _data(bare) == _data(Lab.fresh())


def test_secrets_never_print_in_clear() -> None:
    lab = Lab.fresh(BARE)
    _configure(lab, [["create client-username u message-vpn default", "password s3cret-pw"],
                     ["replication config-sync bridge authentication pre-shared-key key cHNrLXNlY3JldA=="],
                     ["message-vpn default", "replication", "bridge",
                      "authentication basic client-username r password bridge-pw"]])
    script = _config(lab)
    for secret in ("s3cret-pw", "cHNrLXNlY3JldA==", "bridge-pw"):
        assert secret not in script
    assert 'encrypted-password "$scrypt$' in script and 'encrypted-key "$scrypt$' in script


@pytest.mark.xfail(strict=True, reason="a second run on the same lab stops at `subscription topic` (already "
                                       "exists): only `create` lines sit inside the ignore-already-exists pragma")
def test_current_config_runs_twice_as_a_script_with_pragmas() -> None:
    script = _config(Lab.fresh())
    lab = Lab.fresh()
    assert run_script(lab, NY, script.splitlines(), io.StringIO()) == 0
    assert _config(lab) == script
