"""The real set-up scripts of the captures file run through the Lab without an error (issue 14.5).

T16 (the queue script of T15), T18 (the telemetry/client session) and T28 (the replication set-up
scripts). The scripts run here in the unquoted form; the verbatim forms, which quote keyword values
(`access-type "exclusive"`, `connect-via "h:p" "ssl"`), are the tests at the end. `!` lines
(comments and pragmas) are skipped as a script does.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import TypeVar

from solace_shell.lab import Lab
from state_store.solace.engine import Engine
from tests.support.router_engine import router_engine

T = TypeVar("T")

BARE = Path(__file__).resolve().parents[2] / "transcripts" / "scenarios" / "bare.yaml"
NY = "NY_Appliance1"

T16 = """home
enable
configure
message-spool message-vpn "default"
! pragma:interpreter:ignore-already-exists
  create queue "connector-quickstart" primary
! pragma:interpreter:no-ignore-already-exists
    access-type exclusive
    permission all delete
    no shutdown
    exit
  exit
"""

T28_SYSTEM = """home
enable
configure

no replication interface
replication mate connect-via "broker-b:55443" ssl
replication mate virtual-router-name "v:broker-b"
replication config-sync bridge shutdown
replication config-sync bridge authentication pre-shared-key key c2hhcmVkLXNlY3JldC1rZXk=
no replication config-sync bridge authentication insecure-upgrade-mode
no replication config-sync bridge shutdown
show replication
"""

T28_VPN = """home
enable
configure
message-vpn default
replication bridge authentication basic client-username default password default
replication bridge ssl
!replication bridge unidirectional client-profile default
replication queue reject-msg-to-sender-on-discard
replication reject-msg-when-sync-ineligible
create replication replicated-topic ">"
replication-mode async
exit
state active
no shutdown force-recreate-queue

home
enable
admin
config-sync assert-leader message-vpn default
exit

configure
config-sync ssl
no config-sync shutdown
"""

T18 = """enable
configure
message-vpn default
authentication basic auth-type internal
end
configure
client-username default message-vpn default
password default
end
configure
client-profile default message-vpn default
message-spool reject-msg-to-sender-on-no-subscription-match
end
configure
message-vpn default
create telemetry-profile trace
receiver acl connect default-action allow
no receiver shutdown
trace
no shutdown
create filter default
no shutdown
create subscription ">"
end
configure
create client-username trace message-vpn default
password trace
client-profile #telemetry-trace
acl-profile #telemetry-trace
no shutdown
end
configure
message-spool message-vpn default
create queue q
permission all delete
subscription topic t
no shutdown
"""


def run(lab: Lab, script: str) -> list[tuple[str, str, str]]:
    """Each line through Lab.execute: (prompt, line, output) of every line, failures raise."""
    seen = []
    for raw in script.splitlines():
        line = raw.strip()
        if not line or line.startswith("!"):
            continue
        prompt = lab.prompt(NY)
        outcome = lab.execute(NY, line)
        assert outcome.ok, (prompt, line, outcome.text)
        seen.append((prompt, line, outcome.text))
    return seen


def test_t16_queue_script() -> None:
    lab = Lab.fresh()
    run(lab, T16)
    rows = lab.execute(NY, "show queue connector-quickstart").text.splitlines()
    assert rows[-1] == "default                             0       0.00       0.00     0 U U E N P D N"


def test_t18_telemetry_and_client_session() -> None:
    lab = Lab.fresh()
    seen = run(lab, T18)
    prompts = {line: prompt for prompt, line, _ in seen}
    assert prompts["no receiver shutdown"] == "NY_Appliance1(configure/message-vpn/telemetry-profile)#"
    assert prompts['create subscription ">"'] == "NY_Appliance1(...ge-vpn/telemetry-profile/trace/filter)#"
    assert lab.prompt(NY) == "NY_Appliance1(configure/message-spool/queue)#"
    users = {u.name: u for u in _engine_read(lab, lambda e: router_engine(e).client_usernames(NY, "default"))}
    assert users["trace"].enabled and users["trace"].client_profile == "#telemetry-trace"
    assert users["default"].password_hash.startswith("$scrypt$")


def test_t28_replication_scripts_on_a_fresh_broker() -> None:
    lab = Lab.fresh(BARE)
    run(lab, T28_SYSTEM)
    seen = run(lab, T28_VPN)
    after_exit = [prompt for prompt, line, _ in seen if line == "state active"]
    assert after_exit == ["NY_Appliance1(configure/message-vpn/replication)#"]  # `exit` left the topic level
    config = lab.execute(NY, "show current-config").text
    for line in ('connect-via "broker-b:55443" ssl', 'virtual-router-name "v:broker-b"', "no interface",
                 "no authentication insecure-upgrade-mode", 'create replicated-topic ">"', "state active",
                 "reject-msg-when-sync-ineligible", "encrypted-key \"$scrypt$"):
        assert line in config, line
    assert "c2hhcmVkLXNlY3JldC1rZXk=" not in config
    status = lab.execute(NY, "show config-sync").text
    assert "SSL Enabled                       : Yes" in status


def test_config_changed_while_the_mate_is_unreachable_is_out_of_sync_until_asserted() -> None:
    lab = Lab.fresh()
    lab.execute("lab", "fail link")
    run(lab, "enable\nconfigure\ncreate client-username late message-vpn default\n")
    assert lab.execute(NY, "show config-sync").text.splitlines()[3] == (  # after the leading blank line
        "Oper Status                       : Down (local table has a problem:  (2,Vpn,'default') [Out-Of-Sync])")
    assert lab.execute("NJ_Appliance1", "show client-username late").text.count("late") == 0
    run(lab, "home\nenable\nadmin\n")
    refused = lab.execute(NY, "config-sync assert-leader message-vpn default")
    assert not refused.ok and "router NJ_Appliance1 is not reachable" in refused.text
    lab.execute("lab", "restore link")
    assert lab.execute(NY, "config-sync assert-leader message-vpn default").ok
    assert "Oper Status                       : Up" in lab.execute(NY, "show config-sync").text
    assert "late" in lab.execute("NJ_Appliance1", "show client-username late").text


def _engine_read(lab: Lab, read: Callable[[Engine], T]) -> T:
    with lab.store.transaction() as engine:
        return read(engine)


def test_t16_verbatim() -> None:
    lab = Lab.fresh()
    run(lab, T16.replace("access-type exclusive", 'access-type "exclusive"')
        .replace("permission all delete", 'permission all "delete"'))


def test_t28_verbatim() -> None:
    lab = Lab.fresh(BARE)
    run(lab, T28_SYSTEM.replace('"broker-b:55443" ssl', '"broker-b:55443" "ssl"'))
