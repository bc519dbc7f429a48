"""Named configuration objects through the real Lab: the rules state_store/solace/config_objects.py
enforces, each refusal leaving the lab byte-for-byte unchanged."""

from __future__ import annotations

from prompt_toolkit.completion import CompleteEvent
from prompt_toolkit.document import Document

from solace_shell.completer import ShellCompleter
from solace_shell.lab import Lab
from solace_shell.live_names import LiveNames
from tests.support.router_engine import router_engine

NY, NJ = "NY_Appliance1", "NJ_Appliance1"


def run(lab: Lab, *lines: str, router: str = NY) -> None:
    for line in lines:
        outcome = lab.execute(router, line)
        assert outcome.ok, (line, outcome.text)


def refused(lab: Lab, line: str, text: str, router: str = NY) -> None:
    before = lab.store.dump()
    prompt = lab.prompt(router)
    outcome = lab.execute(router, line)
    assert not outcome.ok and outcome.text == text, outcome.text
    assert lab.store.dump() == before and lab.prompt(router) == prompt


def test_defaults_exist_and_cannot_be_deleted() -> None:
    lab = Lab.fresh()
    run(lab, "enable", "configure", "client-username default message-vpn Trading_VPN", "exit")
    refused(lab, "no client-username default message-vpn Trading_VPN",
            "ERROR: client-username 'default' is a default object and cannot be deleted.")
    refused(lab, "client-username nobody message-vpn Trading_VPN",
            "ERROR: client-username 'nobody' not found in Message VPN 'Trading_VPN'.")
    run(lab, "create client-username u message-vpn Trading_VPN", "exit")
    refused(lab, "create client-username u message-vpn Trading_VPN",
            "ERROR: client-username 'u' already exists in Message VPN 'Trading_VPN'.")
    refused(lab, "create client-username #u message-vpn Trading_VPN",
            "ERROR: Invalid client-username name '#u' (reserved).")


def test_profiles_must_exist_and_cannot_go_while_used() -> None:
    lab = Lab.fresh()
    run(lab, "enable", "configure", "create client-username u message-vpn Trading_VPN")
    refused(lab, "client-profile gold", "ERROR: client-profile 'gold' not found in Message VPN 'Trading_VPN'.")
    run(lab, "exit", "create acl-profile strict message-vpn Trading_VPN", "exit",
        "client-username u message-vpn Trading_VPN", "acl-profile strict", "exit")
    refused(lab, "no acl-profile strict message-vpn Trading_VPN",
            "ERROR: acl-profile 'strict' is in use by client-username 'u'.")
    run(lab, "no client-username u message-vpn Trading_VPN", "no acl-profile strict message-vpn Trading_VPN")


def test_telemetry_profile_owns_its_queue_and_profiles() -> None:
    lab = Lab.fresh()
    run(lab, "enable", "configure", "message-vpn default", "create telemetry-profile t", "end")
    rows = lab.execute(NY, "show queue #telemetry-t").text.splitlines()
    assert rows[-1] == "default                             0       0.00       0.00     0 D U N N P D N"
    run(lab, "configure")
    refused(lab, "no client-profile #telemetry-t message-vpn default",
            "ERROR: client-profile '#telemetry-t' is managed by the broker (created by a telemetry profile) "
            "and cannot be changed directly.")
    run(lab, "message-spool message-vpn default")
    refused(lab, "queue #telemetry-t", "ERROR: Queue '#telemetry-t' is managed by the broker (created by a "
                                       "telemetry profile) and cannot be configured directly.")
    run(lab, "exit", "message-vpn default", "no telemetry-profile t", "end")
    assert not lab.execute(NY, "show queue #telemetry-t").ok
    assert "#telemetry-t" not in lab.execute(NY, "show client-profile *").text


def test_objects_are_config_synced_to_the_mate() -> None:
    lab = Lab.fresh()
    run(lab, "enable", "configure", "message-vpn Trading_VPN", "rest", "create rest-delivery-point rdp", "end")
    assert "rdp" in lab.execute(NJ, "show message-vpn Trading_VPN rest rest-delivery-point *").text


def test_secrets_stay_hashed() -> None:
    lab = Lab.fresh()
    run(lab, "enable", "configure", "create client-username u message-vpn default", "password hunter2", "end")
    with lab.store.transaction() as engine:
        (user,) = [u for u in router_engine(engine).client_usernames(NY, "default") if u.name == "u"]
    assert user.password_hash.startswith("$scrypt$") and "hunter2" not in user.password_hash
    assert "hunter2" not in lab.store.dump()
    run(lab, "configure", "client-username u message-vpn default")
    refused(lab, "encrypted-password not-a-hash",
            "ERROR: Invalid value '(hidden)' for password (allowed: a hash printed by show current-config).")


def test_tab_offers_the_objects_that_exist() -> None:
    lab = Lab.fresh()
    run(lab, "enable", "configure", "create client-username alice message-vpn Trading_VPN", "exit")
    session = lab.session(NY)
    completer = ShellCompleter(lab.parser, lambda: session, LiveNames(lab), lambda: NY)
    found = completer.get_completions(Document("client-username "), CompleteEvent(completion_requested=True))
    assert [c.display_text for c in found] == ["alice", "default"]
