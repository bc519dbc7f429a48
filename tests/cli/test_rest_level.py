"""The `rest` level of a Message VPN: REST delivery points, REST consumers and queue bindings as
the codelab solace-event-enable-rest configures them and the 10.26 current-config dump names their
settings; the refusals leave the lab unchanged."""

from __future__ import annotations

import io
import subprocess
import sys
from pathlib import Path

import pytest

from solace_shell.lab import Lab
from solace_shell.script import run_script, script_lines
from state_store.solace.views import RestConsumerInfo
from tests.support.router_engine import router_engine

NY = "NY_Appliance1"

# The codelab's three scripts, verbatim (indentation included).
CODELAB = """home
enable
  config
    message-spool message-vpn "default"
      create queue "q_rest_get"
      access-type exclusive
      permission all consume
      max-spool-usage 100
      subscription topic "GET/>"
      no shutdown
      exit
    end

show queue q_rest_get detail
home
enable
  config
    message-vpn "default"
      rest
        create rest-delivery-point "rdp_get"
          create queue-binding "q_rest_get"
          exit
        no shut

show message-vpn default rest rest-delivery-point * detail
home
enable
  config
    message-vpn "default"
      rest
        rest-delivery-point "rdp_get"
          create rest-consumer "rc_get"
            authentication auth-scheme none
            remote host "postman-echo.com"
            remote port 80
            no shut
show message-vpn default rest rest-consumer * detail
"""

# The REST part of the 10.26 dump's teardown script (`show current-config message-vpn default
# remove`), run after the objects it names exist.
DUMP_REST = """home
enable
configure
message-vpn "default"
  rest
    rest-delivery-point "test"
      shutdown
      no client-profile
      exit
    exit
  exit
message-vpn "default"
  rest
    rest-delivery-point "test"
      no service
      no vendor
      shutdown
      rest-consumer "test-rc"
        shutdown
        authentication
          auth-scheme "none"
          no http-basic username
          exit
        no remote host
        no remote max-post-wait-time
        no remote outgoing-connection-count
        no remote port
        no remote http-method
        no remote retry delay
        no remote ssl
        exit
      no rest-consumer "test-rc"
      no queue-binding "test-rdp"
      exit
    no rest-delivery-point "test"
    exit
  exit
"""


def _run(lab: Lab, *lines: str) -> None:
    for line in lines:
        outcome = lab.execute(NY, line)
        assert outcome.ok, (line, outcome.text)


def _refused(lab: Lab, line: str, text: str) -> None:
    before, prompt = lab.store.dump(), lab.prompt(NY)
    outcome = lab.execute(NY, line)
    assert not outcome.ok and outcome.text.splitlines()[-1] == text, outcome.text
    assert lab.store.dump() == before and lab.prompt(NY) == prompt


def test_the_codelab_scripts_run_without_an_error() -> None:
    out = io.StringIO()
    assert run_script(Lab.fresh(), NY, script_lines(CODELAB), out) == 0, out.getvalue()
    assert "Operational State:                   Up" in out.getvalue()


def test_the_dump_tears_its_rest_objects_down() -> None:
    lab = Lab.fresh()
    _run(lab, "enable", "configure", "message-spool message-vpn default", "create queue test-rdp", "end",
         "configure", "message-vpn default", "rest", "create rest-delivery-point test", "service S", "vendor V",
         "create rest-consumer test-rc", "remote host h", "remote ssl", "remote retry delay 9", "exit",
         "create queue-binding test-rdp", "end")
    assert run_script(lab, NY, script_lines(DUMP_REST), io.StringIO()) == 0
    assert "test" not in lab.execute(NY, "show message-vpn default rest rest-delivery-point *").text.split()


def test_rest_is_a_level_of_its_own() -> None:
    lab = Lab.fresh()
    _run(lab, "enable", "configure", "message-vpn default", "rest")
    assert lab.prompt(NY) == "NY_Appliance1(configure/message-vpn/rest)#"
    _run(lab, "create rest-delivery-point r")
    assert lab.prompt(NY) == "NY_Appliance1(.../message-vpn/rest/rest-delivery-point)#"
    _run(lab, "exit", "exit")
    assert lab.prompt(NY) == "NY_Appliance1(configure/message-vpn)#"


@pytest.mark.parametrize(("line", "error"), [
    ("remote port 0", "   -> Invalid value '0' for <port>: out of range 1-65535"),
    ("remote retry delay 301", "   -> Invalid value '301' for <rest-retry-delay>: out of range 1-300"),
    ("remote max-post-wait-time x", "   -> Invalid value 'x' for <post-wait-time>: expected a whole number"),
    ("remote outgoing-connection-count 51", "   -> Invalid value '51' for <connection-count>: out of range 1-50"),
    ("remote colour blue", "   -> Unknown command, or command not available in current context (colour)"),
    ("authentication auth-scheme kerberos",
     "   -> Unknown command, or command not available in current context (kerberos)"),
    ("remote http-method get", "   -> Unknown command, or command not available in current context (get)"),
    ("post-request-target /x",
     "   -> Unknown command, or command not available in current context (post-request-target)"),
])
def test_bad_rest_consumer_input_is_refused(line: str, error: str) -> None:
    lab = Lab.fresh()
    _run(lab, "enable", "configure", "message-vpn default", "rest", "create rest-delivery-point r",
         "create rest-consumer c")
    _refused(lab, line, error)


def test_wrong_levels_and_missing_objects_are_refused() -> None:
    lab = Lab.fresh()
    _run(lab, "enable", "configure", "message-vpn default")
    _refused(lab, "create rest-delivery-point r",
             "   -> Unknown command, or command not available in current context (rest-delivery-point)")
    _run(lab, "rest")
    _refused(lab, "rest-delivery-point nope", "ERROR: rest-delivery-point 'nope' not found in Message VPN 'default'.")
    _refused(lab, "remote host h", "   -> Unknown command, or command not available in current context (remote)")


# The codelab's two scripts for the VPN's REST service ("in this exact order").
CODELAB_SERVICE = """home
enable
  config
    message-vpn "default"
      service rest
        incoming
          plain-text shutdown
          listen-port 9001
          no plain-text shutdown
          exit
home
enable
  config
    message-vpn "default"
      service rest
        mode gateway
"""


def test_the_codelab_service_scripts_run_and_show() -> None:
    lab = Lab.fresh()
    out = io.StringIO()
    assert run_script(lab, NY, script_lines(CODELAB_SERVICE), out) == 0, out.getvalue()
    assert "REST mode:                           Gateway" in lab.execute(NY, "show message-vpn default").text
    assert "REST    WEB N - MsgBB  9001 U U" in lab.execute(NY, "show message-vpn default service").text.splitlines()
    assert "REST       WEB N - - Mgmt  default          9001 U U " in lab.execute(NY, "show service").text


def test_the_listen_port_changes_only_while_shut_down() -> None:
    lab = Lab.fresh()
    _run(lab, "enable", "configure", "message-vpn default", "service rest", "incoming")
    _refused(lab, "listen-port 9001", "ERROR: Cannot change the listen port of the REST incoming plain-text service "
                                      "of Message VPN 'default': not in a valid state (shut it down first).")
    _refused(lab, "listen-port 0", "   -> Invalid value '0' for <port>: out of range 1-65535")
    _refused(lab, "mode gateway", "   -> Unknown command, or command not available in current context (mode)")
    _run(lab, "plain-text shutdown", "listen-port 9001")
    assert "REST    WEB N - MsgBB  9001 D D" in lab.execute(NY, "show message-vpn default service").text.splitlines()


# The replication block of the same dump's `Remove Message Vpn` section, verbatim.
DUMP_REPLICATION = """message-vpn "Trading_VPN"
  replication
    no ack-propagation interval messages
    no ack-propagation shutdown
    no transaction-replication-mode
    no reject-msg-when-sync-ineligible
    bridge authentication auth-scheme basic
    no bridge authentication basic client-username
    no bridge compressed-data
    no bridge message-spool window-size
    no bridge retry-delay
    no bridge ssl
    no bridge unidirectional client-profile
    no queue max-spool-usage
    queue reject-msg-to-sender-on-discard
    exit
  exit
"""


def test_the_dump_resets_the_replication_settings() -> None:
    lab = Lab.fresh()
    _run(lab, "enable", "configure", "message-vpn Trading_VPN", "replication", "transaction-replication-mode sync",
         "reject-msg-when-sync-ineligible", "ack-propagation interval messages 7", "ack-propagation shutdown",
         "bridge ssl", "bridge compressed-data", "bridge retry-delay 9", "bridge message-spool window-size 99",
         "bridge unidirectional client-profile default", "queue max-spool-usage 100",
         "queue", "no reject-msg-to-sender-on-discard", "end", "configure")
    assert run_script(lab, NY, script_lines(DUMP_REPLICATION), io.StringIO()) == 0
    with lab.store.transaction() as engine:
        after = router_engine(engine).current_config(NY, "Trading_VPN").vpns[0].replication
    with Lab.fresh().store.transaction() as engine:
        fresh = router_engine(engine).current_config(NY, "Trading_VPN").vpns[0].replication
    assert after.transaction_replication_mode == "async" and after.bridge_client_username == ""
    assert after == fresh.__class__(**{**fresh.__dict__, "bridge_client_username": "", "bridge_password_set": False,
                                       "bridge_password_hash": ""})


def test_the_codelab_scripts_run_through_dash_s(tmp_path: Path) -> None:
    """The codelab's five scripts, one file, through `solace-shell -s` (the `cli -A -s` framing):
    exit status 0, no error line."""
    script = tmp_path / "codelab.cli"
    script.write_text(CODELAB_SERVICE + CODELAB)
    result = subprocess.run([sys.executable, "-m", "solace_shell.cli", "--db", str(tmp_path / "lab.sqlite"),
                             "-s", str(script)], capture_output=True, text=True, timeout=120, check=False)
    assert result.returncode == 0, result.stdout
    assert "ERROR" not in result.stdout and "Invalid command" not in result.stdout
    assert "Outgoing Connections (up):         3" in result.stdout


def _consumer_config(lab: Lab) -> RestConsumerInfo:
    with lab.store.transaction() as engine:
        return router_engine(engine).current_config(NY, "default").vpns[0].rest_delivery_points[0].consumers[0]


def test_rejecting_status_codes_and_secrets_print_replay_and_reset() -> None:
    """A list of status codes (codes added one at a time, `no status-codes rejected` empties it) and
    the three secrets (printed as their salted hashes) re-run on a fresh lab to the same consumer,
    and the dump's `no` lines reset them."""
    lab = Lab.fresh()
    _run(lab, "enable", "configure", "message-vpn default", "rest", "create rest-delivery-point r",
         "create rest-consumer c", "status-codes rejected 503", "status-codes rejected 404",
         "status-codes rejected 503", "authentication", "aws secret-access-key k1", "oauth-client client-secret k2",
         "oauth-jwt secret-key k3", "end")
    text = lab.execute(NY, "show current-config message-vpn default").text
    assert "        status-codes rejected 404\n        status-codes rejected 503\n" in text
    assert text.count("encrypted-") == 3
    replayed = Lab.fresh()
    assert run_script(replayed, NY, script_lines(text), io.StringIO()) == 0
    assert _consumer_config(replayed) == _consumer_config(lab)
    assert _consumer_config(lab).rejected_status_codes == (404, 503)
    _run(lab, "configure", "message-vpn default", "rest", "rest-delivery-point r", "rest-consumer c",
         "no status-codes rejected", "authentication", "no aws secret-access-key", "no oauth-client client-secret",
         "no oauth-jwt secret-key", "end")
    after = lab.execute(NY, "show current-config message-vpn default").text
    assert "status-codes" not in after and "encrypted-" not in after
