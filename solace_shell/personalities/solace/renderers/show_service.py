"""`show message-vpn <exact-name>`, `show service` and `show message-vpn <v> service`.

`show service` is capture C06 (10.25, exact, trailing blanks kept: rows with an empty Failed
Reason end in one space, so do the threshold rows); the SMF ports are the router's, the other
services print the broker defaults C06 shows. The VPN detail block follows C08 (`show
message-vpn * stats` without its counters) and the codelab solace-event-enable-rest (`show
message-vpn default`, first lines): labels padded to 37. `show message-vpn <v> service` prints the
port table of the codelab's capture (an older layout, cut by its author before and after the
table): non-authoritative.
"""

from __future__ import annotations

from ....renderers import renderer
from ..handlers.show_service import ServiceShow, SmfPorts, VpnDetail, VpnDetailShow, VpnPorts, VpnServiceShow
from .tables import enabled_disabled, join_blocks

DETAIL_WIDTH = 37
AUTH_TYPES = {"internal": "Internal database authentication", "ldap": "LDAP authentication",
              "radius": "RADIUS authentication", "none": "No authentication"}
SERVICES = ("SMF", "Web-Transport", "REST", "MQTT", "AMQP")


def _line(label: str, value: object = "") -> str:
    text = str(value)
    return f"{label:<{DETAIL_WIDTH}}{text}" if text else label


def _vpn_detail(v: VpnDetail) -> list[str]:
    services = {name: 0 for name in SERVICES}
    services["SMF"] = v.smf_connections
    return [
        _line("Message VPN:", v.name),
        _line("Configuration Status:", enabled_disabled(v.enabled)),
        _line("Local Status:", v.local_status),
        _line("Distributed Cache Management:", "Enabled"),
        _line("SSL to plain text downgrade allowed:", "No"),
        _line("REST mode:", v.rest_mode.capitalize()),
        _line("Total Local Unique Subscriptions:", v.unique_subscriptions),
        _line("Total Remote Unique Subscriptions:", 0),
        _line("Total Unique Subscriptions:", v.unique_subscriptions),
        _line("Maximum Subscriptions:", 50000),
        _line("Configured Maximum Subscriptions:", 500000),
        _line("Export Subscriptions:", "No (100% complete)"),
        _line("Preferred Ip Version:", "N/A"),
        _line("Active Incoming Connections:", v.smf_connections),
        *(_line(f"  Service {name}:", count) for name, count in services.items()),
        _line("Active Outgoing Connections:"),
        _line("  Service REST:", v.rest_outgoing),
        _line("Max Incoming Connections:", 100),
        *(_line(f"  Service {name}:", 100) for name in SERVICES),
        _line("Max Outgoing Connections:"),
        _line("  Service REST:", 100),
        "",
        _line("Basic Authentication :", "Disabled" if v.auth_type == "none" else "Enabled"),
        _line("    Auth Type:", AUTH_TYPES[v.auth_type]),
        _line("    Auth Profile:"),
        _line("    Radius Domain:"),
        _line("Client Certificate Authentication :", "Enabled"),
        _line("    Maximum Chain Depth:", 3),
        _line("    Validate Certificate Dates:", "Enabled"),
        _line("    Allow API Provided Username:", "Enabled"),
        _line("    Username Source:", "common-name"),
        _line("    Revocation Check Mode:", "allow-valid"),
        _line("Kerberos Authentication :", "Disabled"),
        _line("    Allow API Provided Username:", "Disabled"),
    ]


@renderer(VpnDetailShow)
def vpn_detail(result: VpnDetailShow) -> str:
    return "\n".join(join_blocks(_vpn_detail(v) for v in result.rows))


_SERVICE_HEAD = """\
Msg-Backbone:       Enabled
  VRF:              management
  SMF:              Enabled
    Web-Transport:  Enabled
  REST Incoming:    Enabled
  REST Outgoing:    Enabled
  MQTT:             Enabled
  AMQP:             Enabled
  Health-check:     Enabled
  Health-check SSL: Enabled
  Mate-link:        Enabled
  Redundancy:       Enabled

Max Incoming Connections:       100
  Service SMF:                  100
  Service Web-Transport:        100
  Service REST:                 100
  Service MQTT:                 100
  Service AMQP:                 100
Max Outgoing Connections:
  Service REST:                 100
Max SSL Connections:            100
"""


def _threshold(label: str, set_value: str = "", clear_value: str = "") -> str:
    if not set_value:
        return label
    return f"{label:<34} {set_value:>16} {clear_value:>16} "


_THRESHOLDS = [
    f"{'Event Threshold':<34} {'Set Value':>16} {'Clear Value':>16}",
    "---------------------------------- ---------------- ----------------",
    _threshold("Incoming Connections", "80%(80)", "60%(60)"),
    _threshold("  Service SMF", "80%(80)", "60%(60)"),
    _threshold("Outgoing Connections"),
    _threshold("  Service REST", "80%(80)", "60%(60)"),
    _threshold("SSL Connections", "80%(80)", "60%(60)"),
]

_LEGEND = [
    "Flags Legend:",
    "TP - Transport",
    "T+U - TCP and UDP",
    "S - SSL (Y=Yes, N=No, -=not-applicable)",
    "C - Compressed (Y=Yes, N=No, -=not-applicable)",
    "R - Routing Ctrl (Y=Yes, N=No, -=not-applicable)",
    "VRF - VRF (Mgmt=management, MsgBB=msg-backbone)",
    "A - Admin State (U=Up, D=Down, -=not-applicable)",
    "O - Oper State (U=Up, D=Down, -=not-applicable)",
]

# (service, transport, S C R, VRF, VPN, port, admin+oper, failed reason); port 0 = none.
Port = tuple[str, str, str, str, str, int, str, str]


def _vpn_ports(v: VpnPorts) -> list[Port]:
    """A VPN's MQTT and AMQP listeners (the broker's defaults, `default` VPN only) and its REST
    listeners (the plain-text one as configured; TLS without a certificate stays down)."""
    out: list[Port] = []
    if v.default_ports:
        out += [
            ("MQTT", "TCP", "N - -", "Mgmt", v.vpn, 1883, "U U", ""),
            ("MQTT", "TCP", "Y - -", "Mgmt", v.vpn, 8883, "U D", "No Cert"),
            ("MQTT", "WEB", "N - -", "Mgmt", v.vpn, 8000, "U U", ""),
            ("MQTT", "WEB", "Y - -", "Mgmt", v.vpn, 8443, "U D", "No Cert"),
            ("AMQP", "TCP", "Y - -", "Mgmt", "", 0, "U D", "No Cert"),
            ("AMQP", "TCP", "N - -", "MsgBB", v.vpn, 5672, "U U", ""),
            ("AMQP", "TCP", "Y - -", "MsgBB", v.vpn, 5671, "U D", "No Cert"),
        ]
    if v.rest.listen_port:
        state = "U U" if v.rest.plain_text_enabled else "D D"
        out.append(("REST", "WEB", "N - -", "Mgmt", v.vpn, v.rest.listen_port, state, ""))
    if v.default_ports:
        out.append(("REST", "WEB", "Y - -", "Mgmt", v.vpn, 9443, "U D", "No Cert"))
    return out


def _ports(smf: SmfPorts, vpns: tuple[VpnPorts, ...]) -> list[Port]:
    return [
        ("SEMP", "TCP", "N - -", "Mgmt", "", 8080, "U U", ""),
        ("SEMP", "TCP", "Y - -", "Mgmt", "", 1943, "U D", "No Cert"),
        ("SMF", "TCP", "N N N", "Mgmt", "", smf.plain, "U U", ""),
        ("SMF", "TCP", "N Y N", "Mgmt", "", smf.compressed, "U U", ""),
        ("SMF", "TCP", "N N Y", "Mgmt", "", 55556, "U D", ""),
        ("SMF", "TCP", "Y N N", "Mgmt", "", smf.ssl, "U U", "No Cert"),
        ("SMF", "WEB", "N - -", "Mgmt", "", 8008, "U U", ""),
        ("SMF", "WEB", "Y - -", "Mgmt", "", 1443, "U D", "No Cert"),
        *(port for v in vpns for port in _vpn_ports(v)),
        ("MATELINK", "TCP", "Y N -", "Mgmt", "", 8741, "U U", ""),
        ("HEALTHCHK", "TCP", "N N -", "Mgmt", "", 5550, "U U", ""),
        ("HEALTHCHK", "TCP", "Y N -", "Mgmt", "", 5553, "U D", "No Cert"),
        ("REDUNDANCY", "TCP", "Y N -", "Mgmt", "", 8300, "U U", ""),
        ("REDUNDANCY", "T+U", "Y N -", "Mgmt", "", 8301, "U U", ""),
        ("REDUNDANCY", "T+U", "Y N -", "Mgmt", "", 8302, "U U", ""),
    ]


@renderer(ServiceShow)
def service(result: ServiceShow) -> str:
    rows = [f"{svc:<10} {tp:<3} {flags} {vrf:<5} {vpn:<15} {port or '':>5} {state} {reason}"
            for svc, tp, flags, vrf, vpn, port, state, reason in _ports(result.smf, result.vpns)]
    return "\n".join([
        _SERVICE_HEAD, *_THRESHOLDS, "", "", *_LEGEND, "",
        " " * 46 + "Status",
        "Service    TP  S C R VRF   MsgVpn          Port  A O Failed Reason",
        "---------- --- ----- ----- --------------- ----- --- --------------------------",
        *rows,
    ])


# The codelab's row order: SMF over TCP, REST, SMF over the web transport, MQTT.
_VPN_SERVICE_ORDER = (("SMF", "TCP"), ("REST", "WEB"), ("SMF", "WEB"), ("MQTT", "TCP"), ("MQTT", "WEB"))


@renderer(VpnServiceShow)
def vpn_service(result: VpnServiceShow) -> str:
    lines = ["Service TP  S C VRF    Port A O Failed Reason",
             "------- --- --- ----- ----- --- ------------------------------"]
    rows = [row for row in _ports(result.smf, (result.ports,)) if (row[0], row[1]) in _VPN_SERVICE_ORDER
            and row[2].split()[2] != "Y" and row[5]]
    rows.sort(key=lambda row: _VPN_SERVICE_ORDER.index((row[0], row[1])))
    for svc, tp, flags, _vrf, _vpn, port, state, reason in rows:
        if reason:
            state = "U D"  # the codelab's SSL rows are down for want of a certificate
        lines.append(f"{svc:<7} {tp:<3} {flags[:3]} MsgBB {port:>5} {state} {reason}".rstrip())
    return "\n".join(lines)
