"""`show current-config [message-vpn <vpn-name>]`: the configuration as a CLI script."""

from __future__ import annotations

from solace_shell.access import UserAccess
from solace_shell.lab import Lab

TRADING = """\
home
enable
configure

! Configure Message VPN
! ---------------------
  message-vpn "Trading_VPN"
    authentication basic auth-type radius
    exit

! Configure Queues
! ----------------
  message-spool message-vpn "Trading_VPN"
! pragma:interpreter:ignore-already-exists
    create queue "orders"
! pragma:interpreter:no-ignore-already-exists
      access-type exclusive
      no owner
      permission all no-access
      max-spool-usage 5000
      max-bind-count 1000
      subscription topic "trading/orders/>"
      no shutdown
      exit
    exit

! Configure Replication
! ---------------------
  message-vpn "Trading_VPN"
    replication
      ack-propagation
        interval messages 20
        no shutdown
        exit
      bridge
        authentication auth-scheme basic
        authentication basic client-username "replication" encrypted-password "$scrypt$ln=14,r=8,p=1$0ruPOfmjgtbPdLTwTpDaEQ$54HS1+uHK/WnRIqk4vY9UTh9jSvQRMQhcWdRYzWfDTQ"
        no compressed-data
        message-spool window-size 255
        retry-delay 3
        no ssl
        unidirectional client-profile "#client-profile"
        exit
      queue
        max-spool-usage 60000
        reject-msg-to-sender-on-discard
        exit
      no reject-msg-when-sync-ineligible
      transaction-replication-mode async
! pragma:interpreter:ignore-already-exists
      create replicated-topic "trading/>"
! pragma:interpreter:no-ignore-already-exists
        replication-mode async
        exit
      state {role}
      no shutdown
      exit
    exit"""

SYSTEM = """\
home
enable
configure

! Configure Replication
! ---------------------
  replication
    mate
      virtual-router-name "v:{mate}"
      connect-via "{via}"
      exit
    interface "1/6/lag1"
    config-sync
      bridge
        authentication insecure-upgrade-mode
        no compressed-data
        no ssl
        no shutdown
        exit
      exit
    exit

! Configure Config-Sync
! ---------------------
  config-sync
    no ssl
    no shutdown
    exit

"""


def show(session, line):
    outcome = session.execute(line)
    assert outcome.ok, outcome.text
    assert outcome.text.startswith("\n"), "show output begins with a blank line (solace_shell/framing.py)"
    return outcome.text[1:]


def test_vpn_config_default_lab(ny, nj) -> None:
    assert show(ny, "show current-config message-vpn Trading_VPN") == TRADING.format(role="active")
    assert show(nj, "show current-config message-vpn Trading_VPN") == TRADING.format(role="standby")


def test_router_config_default_lab(ny) -> None:
    text = show(ny, "show current-config")
    assert text.startswith(SYSTEM.format(mate="NJ_Appliance1", via="192.168.160.12"))
    body = TRADING.format(role="active").split("configure\n", 1)[1]
    assert body in text
    assert text.index('message-vpn "Trading_VPN"') < text.index('message-vpn "default"')
    assert '      state standby\n      shutdown\n      exit\n    exit' in text
    assert text.count("! Configure Message VPN") == 2     # the internal #config-sync VPN is not configuration
    assert text == "\n".join(line.rstrip() for line in text.splitlines())


def test_config_follows_state(lab, ny) -> None:
    with lab.store.transaction() as e:
        e.create_queue("NY_Appliance1", "Trading_VPN", "audit")
        e.set_queue_shutdown("NY_Appliance1", "Trading_VPN", "audit", False)
        e.set_replication_option("NY_Appliance1", "Trading_VPN", "transaction-replication-mode", "sync")
    text = show(ny, "show current-config message-vpn Trading_VPN")
    assert '      transaction-replication-mode sync\n' in text
    assert ('  message-spool message-vpn "Trading_VPN"\n'
            "! pragma:interpreter:ignore-already-exists\n"
            '    create queue "audit"\n'
            "! pragma:interpreter:no-ignore-already-exists\n"
            '      access-type exclusive\n') in text
    assert text.index('create queue "audit"') < text.index('create queue "orders"')


def test_errors_and_access(lab, ny) -> None:
    assert ny.execute("show current-config message-vpn Nope").text == "ERROR: Message VPN 'Nope' not found."
    monitor = Lab.fresh(settings={"user": "monitor"})
    try:
        assert monitor.session("NY_Appliance1").execute("show current-config").ok
    finally:
        monitor.close()
    with lab.store.transaction() as e:
        e.fail_site("NY")
    assert ny.execute("show current-config").text == "ERROR: Router 'NY_Appliance1' is down."
    ny.user = UserAccess("nobody", "none")
    assert ny.execute("show current-config").error_kind == "access"
