"""`show service` (C06, byte for byte), `show message-vpn <exact-name>` (the detail block of C08 and
the codelab solace-event-enable-rest) and `show message-vpn <v> service`."""

from __future__ import annotations

from pathlib import Path

import pytest

from solace_shell.lab import Lab
from tests.support.router_engine import router_engine

SOLACE = Path(__file__).resolve().parents[2] / "transcripts" / "scenarios" / "solace.yaml"
NY = "NY_Appliance1"

# C06 (10.25.0.217, real), the pager lines left out, the trailing blanks kept (written \x20).
C06_PORTS = """\
                                              Status
Service    TP  S C R VRF   MsgVpn          Port  A O Failed Reason
---------- --- ----- ----- --------------- ----- --- --------------------------
SEMP       TCP N - - Mgmt                   8080 U U\x20
SEMP       TCP Y - - Mgmt                   1943 U D No Cert
SMF        TCP N N N Mgmt                  55555 U U\x20
SMF        TCP N Y N Mgmt                  55003 U U\x20
SMF        TCP N N Y Mgmt                  55556 U D\x20
SMF        TCP Y N N Mgmt                  55443 U U No Cert
SMF        WEB N - - Mgmt                   8008 U U\x20
SMF        WEB Y - - Mgmt                   1443 U D No Cert
MQTT       TCP N - - Mgmt  default          1883 U U\x20
MQTT       TCP Y - - Mgmt  default          8883 U D No Cert
MQTT       WEB N - - Mgmt  default          8000 U U\x20
MQTT       WEB Y - - Mgmt  default          8443 U D No Cert
AMQP       TCP Y - - Mgmt                        U D No Cert
AMQP       TCP N - - MsgBB default          5672 U U\x20
AMQP       TCP Y - - MsgBB default          5671 U D No Cert
REST       WEB N - - Mgmt  default          9000 U U\x20
REST       WEB Y - - Mgmt  default          9443 U D No Cert
MATELINK   TCP Y N - Mgmt                   8741 U U\x20
HEALTHCHK  TCP N N - Mgmt                   5550 U U\x20
HEALTHCHK  TCP Y N - Mgmt                   5553 U D No Cert
REDUNDANCY TCP Y N - Mgmt                   8300 U U\x20
REDUNDANCY T+U Y N - Mgmt                   8301 U U\x20
REDUNDANCY T+U Y N - Mgmt                   8302 U U """

C06_THRESHOLDS = """\
Event Threshold                           Set Value      Clear Value
---------------------------------- ---------------- ----------------
Incoming Connections                        80%(80)          60%(60)\x20
  Service SMF                               80%(80)          60%(60)\x20
Outgoing Connections
  Service REST                              80%(80)          60%(60)\x20
SSL Connections                             80%(80)          60%(60)\x20
"""


def test_show_service_is_c06_byte_for_byte() -> None:
    lab = Lab.fresh(SOLACE)
    text = lab.execute("solace", "show service").text
    assert text.startswith("\nMsg-Backbone:       Enabled\n  VRF:              management\n")
    assert C06_THRESHOLDS in text and text.endswith("\n" + C06_PORTS)


def test_show_service_prints_the_routers_smf_ports() -> None:
    lab = Lab.fresh()
    with lab.store.transaction() as engine:
        system = router_engine(engine).system_replication(NY)
    text = lab.execute(NY, "show service").text
    assert f"SMF        TCP N N N Mgmt                  {system.port_plain:>5} U U " in text.splitlines()


def test_an_exact_name_prints_the_vpn_detail() -> None:
    lab = Lab.fresh()
    lines = lab.execute(NY, "show message-vpn Trading_VPN").text.splitlines()
    assert lines[:4] == ["", "Message VPN:                         Trading_VPN",
                         "Configuration Status:                Enabled", "Local Status:                        Up"]
    assert "Active Incoming Connections:         2" in lines      # the lab's two connected clients
    assert "    Auth Type:                       RADIUS authentication" in lines
    assert lab.execute("NJ_Appliance1", "show message-vpn Trading_VPN").text.splitlines()[3] == \
        "Local Status:                        Standby"
    assert "Message VPN" in lab.execute(NY, "show message-vpn Trading_*").text.splitlines()[2]  # the table


def test_the_vpn_detail_follows_the_configuration() -> None:
    lab = Lab.fresh()
    for line in ("enable", "configure", "message-vpn default", "authentication basic auth-type internal", "end"):
        assert lab.execute(NY, line).ok
    assert "    Auth Type:                       Internal database authentication" in \
        lab.execute(NY, "show message-vpn default").text.splitlines()


def test_vpn_service_lists_the_vpns_ports() -> None:
    lab = Lab.fresh()
    default = lab.execute(NY, "show message-vpn default service").text.splitlines()
    assert "REST    WEB N - MsgBB  9000 U U" in default
    trading = lab.execute(NY, "show message-vpn Trading_VPN service").text.splitlines()
    assert "SMF     TCP N N MsgBB 55555 U U" in trading and not any(line.startswith("REST") for line in trading)


@pytest.mark.parametrize(("line", "error"), [
    ("show message-vpn Nope", "ERROR: Message VPN 'Nope' not found."),
    ("show message-vpn Nope service", "ERROR: Message VPN 'Nope' not found."),
    ("show message-vpn * service", "   -> Unknown command, or command not available in current context (service)"),
    ("show service detail", "   -> Unknown command, or command not available in current context (detail)"),
])
def test_bad_input_is_refused(line: str, error: str) -> None:
    lab = Lab.fresh()
    before = lab.store.dump()
    outcome = lab.execute(NY, line)
    assert not outcome.ok and outcome.text.splitlines()[-1] == error, outcome.text
    assert lab.store.dump() == before
