"""The lines of a real 10.26 `show current-config message-vpn default remove` dump
(github hafio/solace-cnt-scripts, internal/broker/testdata/currentconfig_remove_default.cli)
that the lab supports run unchanged. The excerpt below is written out by hand from the dump's
lines, in its order and indentation; `python -m tests.support.real_dump FILE` counts the failing lines
of a whole dump."""

from __future__ import annotations

from tests.support.real_dump import NY, failing_lines, prepared_lab

SUPPORTED = """\
home
enable
configure
message-vpn "default"
  replication
    shutdown
    state "standby"
    exit
  rest
    rest-delivery-point "test"
      shutdown
      no client-profile
      exit
    exit
  shutdown
  exit
jndi message-vpn "default"
  shutdown
  no connection-factory "/jms/cf/default"
  exit
client-username "default" message-vpn "default"
  shutdown
  no acl-profile
  no client-profile
  no guaranteed-endpoint-permission-override
  no password
  no subscription-manager
  exit
message-vpn "default"
  no alias
  no bridging ssl server-certificate-validation enforce-trusted-common-name
  bridging ssl server-certificate-validation max-certificate-chain-depth 3
  bridging ssl server-certificate-validation validate-certificate-date
  bridging ssl server-certificate-validation validate-server-name
  no event connections thresholds
  no event service smf connections thresholds
  no event service web-transport connections thresholds
  no event service rest incoming connections thresholds
  no event service mqtt connections thresholds
  no event egress-message-rate thresholds
  no event ingress-message-rate thresholds
  no event large-message-threshold
  no event log-tag
  no event publish-client
  no event publish-message-vpn
  event publish-topic-format "smf"
  no event publish-subscription
  no event subscriptions thresholds
  authentication
    client-certificate
      no revocation-check-mode
      no username-source
      exit
    oauth
      default-profile ""
      exit
    exit
  authorization
    authorization-type "internal"
    ldap group-membership-attribute-name "memberOf"
    no ldap trim-client-username-domain
    exit
  distributed-cache-management
  no export-policy export-subscriptions
  no max-connections
  no max-subscriptions
  no semp-over-msgbus shutdown
  semp-over-msgbus show-cmds shutdown
  semp-over-msgbus admin-cmds shutdown
  semp-over-msgbus admin-cmds distributed-cache-cmds shutdown
  semp-over-msgbus admin-cmds client-cmds shutdown
  rest
    rest-delivery-point "test"
      no service
      no vendor
      shutdown
      rest-consumer "test-rc"
        shutdown
        authentication
          auth-scheme "none"
          no aws access-key-id
          no aws secret-access-key
          no aws region
          no aws service
          no http-basic username
          no http-header name
          no http-header value
          no oauth-client client-id
          no oauth-client client-secret
          no oauth-client scope
          no oauth-client token-endpoint
          no oauth-client proxy
          no oauth-client token-expiry-default
          no oauth-jwt secret-key
          no oauth-jwt token-endpoint
          no oauth-jwt proxy
          no oauth-jwt token-expiry-default
          exit
        no local interface
        no remote host
        no remote max-post-wait-time
        no remote outgoing-connection-count
        no remote port
        remote proxy ""
        no remote http-method
        no remote retry delay
        no remote ssl
        ssl cipher-suite "default"
        no status-codes rejected
        exit
      no rest-consumer "test-rc"
      no queue-binding "test-rdp"
      exit
    no rest-delivery-point "test"
    no ssl server-certificate-validation enforce-trusted-common-name
    ssl server-certificate-validation max-certificate-chain-depth 3
    ssl server-certificate-validation validate-certificate-date
    ssl server-certificate-validation validate-server-name
    exit
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
  no service smf max-connections
  no service smf plain-text shutdown
  no service smf ssl shutdown
  service web-transport authentication client-certificate request-client-certificate "when-enabled-in-message-vpn"
  service web-transport max-connections 1000
  service rest incoming authentication client-certificate request-client-certificate "when-enabled-in-message-vpn"
  service rest incoming authorization-header-handling "drop"
  no service rest incoming max-connections
  service rest incoming plain-text shutdown
  no service rest incoming listen-port
  service rest incoming ssl shutdown
  no service rest incoming listen-port ssl
  service rest outgoing max-connections 6000
  service mqtt authentication client-certificate request-client-certificate "when-enabled-in-message-vpn"
  service mqtt max-connections 1000
  service mqtt plain-text shutdown
  no service mqtt listen-port
  service mqtt ssl shutdown
  no service mqtt listen-port ssl
  service mqtt websocket shutdown
  no service mqtt listen-port web
  service mqtt websocket-secure shutdown
  no service mqtt listen-port ssl web
  service amqp max-connections 1000
  service amqp plain-text shutdown
  no service amqp listen-port
  service amqp ssl shutdown
  no service amqp listen-port ssl
  no service web-transport plain-text shutdown
  no service web-transport ssl shutdown
  ssl
    no allow-downgrade-to-plain-text
    exit
  dynamic-message-routing
    shutdown
    exit
  mqtt
    retain
      no max-memory
      exit
    exit
  kafka
    max-broker-connections 0
    exit
  exit
client-profile "default" message-vpn "default"
  no event connections-per-client-username thresholds
  no event subscriptions thresholds
  no event client-provisioned-endpoint-spool-usage thresholds
  no event transacted-sessions thresholds
  no event transactions thresholds
  no event endpoints-per-client-username thresholds
  no event egress-flows thresholds
  no event ingress-flows thresholds
  no event service smf connections-per-client-username thresholds
  no event service web-transport connections-per-client-username thresholds
  no allow-bridge-connections
  no allow-shared-subscriptions
  no eliding delay
  no eliding max-topics
  eliding shutdown
  no service min-keepalive-timeout
  no service smf max-connections-per-client-username
  no service smf min-keepalive-enabled
  service web-transport max-connections-per-client-username 1000
  no max-connections-per-client-username
  no max-subscriptions
  no message-spool allow-guaranteed-endpoint-create
  no message-spool allow-guaranteed-endpoint-create-durability
  no message-spool allow-guaranteed-message-receive
  no message-spool allow-guaranteed-message-send
  no message-spool allow-transacted-sessions
  no message-spool max-transacted-sessions
  no message-spool max-transactions
  no message-spool max-messages-per-transaction
  no message-spool max-endpoints-per-client-username
  no message-spool max-egress-flows
  no message-spool max-ingress-flows
  no message-spool api-queue-management copy-from-on-create
  no message-spool api-queue-management copy-from-template-on-create
  no message-spool api-topic-endpoint-management copy-from-on-create
  no message-spool api-topic-endpoint-management copy-from-template-on-create
  no message-spool reject-msg-to-sender-on-no-subscription-match
  queue "G-1"
    no max-depth
    no min-msg-burst
    exit
  queue "D-1"
    no max-depth
    no min-msg-burst
    exit
  queue "D-2"
    no max-depth
    no min-msg-burst
    exit
  queue "D-3"
    no max-depth
    no min-msg-burst
    exit
  queue "C-1"
    no max-depth
    no min-msg-burst
    exit
  no tcp keepalive count
  no tcp keepalive idle
  no tcp keepalive interval
  no tcp mss
  no replication allow-clients-when-standby
  no amqp max-links
  no mqtt full-qos2
  exit
message-spool message-vpn "default"
  queue "test-rdp"
    shutdown
    no max-ttl
    no dead-message-queue
    consumer-ack-propagation
    redelivery
    no delivery-count
    delivery-delay 0
    redelivery-delay shutdown
    redelivery-delay initial-interval 1000
    redelivery-delay max-interval 64000
    redelivery-delay multiplier "2.00"
    no respect-dmq-eligible
    no respect-message-priority
    partition count 0
    partition rebalance delay 5
    partition rebalance max-handoff-time 3
    exit
  no queue "test-rdp"
  exit
message-spool message-vpn "default"
  no event transactions thresholds
  no event spool-usage thresholds
  no event transacted-sessions thresholds
  no event endpoints thresholds
  no event egress-flows thresholds
  no event ingress-flows thresholds
  no max-spool-usage
  no max-transacted-sessions
  no max-transactions
  no max-endpoints
  no max-egress-flows
  no max-ingress-flows
  no max-transactions
  allow-dmq-eligible-endpoint-override
  exit
acl-profile "default" message-vpn "default"
  client-connect default-action "allow"
  publish-topic default-action "allow"
  subscribe-topic default-action "allow"
  subscribe-share-name default-action "allow"
  exit
"""


def test_the_supported_lines_of_the_real_dump_run_unchanged() -> None:
    failed, total = failing_lines(prepared_lab(), SUPPORTED)
    assert (failed, total) == ([], SUPPORTED.count("\n"))


# The lab's settings the real dump shows no reset line for, each printed beside its neighbours
# (solace_shell/personalities/solace/renderers/remove_order.py marks them [INFER]).
LAB_ONLY = (
    "    basic auth-type radius",
    "          no http-basic password",
    "        no ssl trusted-common-name",
    "  service rest mode messaging",
)


def test_the_remove_form_is_the_real_dump_line_for_line() -> None:
    """On the dump's objects, the lab's own `remove` script is the real one: every setting's reset
    line in the broker's order and form, the lab's four settings the dump does not show aside."""
    lab = prepared_lab()
    text = lab.execute(NY, "show current-config message-vpn default remove").text
    lines = [line for line in text.splitlines() if line.strip() and not line.lstrip().startswith("!")]
    for extra in LAB_ONLY:
        lines.remove(extra)
    assert lines == SUPPORTED.splitlines()


def test_the_remove_form_has_the_real_dump_s_sections_in_order() -> None:
    text = prepared_lab().execute(NY, "show current-config message-vpn default remove").text
    titles = [line for line in text.splitlines() if line.startswith("! Disable") or line.startswith("! Remove")]
    assert titles == [
        '! Disable Message Vpn: "default"', '! Remove JNDI: ""', '! Remove Client Username: "default"',
        '! Remove Message Vpn: "default"', '! Remove Client Profile: "default"', '! Remove Endpoints: ""',
        '! Remove Message Spool: ""', "! Remove MQTT Retain Cache:", "! Remove MQTT Sessions:",
        "! Remove Telemetry Profiles:", '! Remove ACL Profile: "default"', '! Remove Replay Log: "default"',
        '! Remove Oauth Providers: "default"', '! Remove Oauth Profiles: "default"',
        '! Remove Queue Templates: "default"', '! Remove Topic Endpoint Templates: "default"']


def test_every_leaf_with_words_stands_in_the_remove_order() -> None:
    """A leaf added to leaves.yaml must be placed in the dump's order, or the remove form would
    leave it set. Not listed: the JNDI level's `shutdown` (it opens the JNDI section) and the
    leaves every queue prints (a queue's deletion takes them)."""
    from grammar import leaves
    from solace_shell.personalities.solace.renderers import remove_order

    for kind, tables in remove_order.TABLES.items():
        placed = [item.leaf if isinstance(item, remove_order.SetDefault) else item
                  for table in tables for item in table if isinstance(item, (str, remove_order.SetDefault))]
        declared = {name for name, leaf in leaves.of(kind).items() if leaf.cli}
        if kind == "message-vpn":
            declared.discard("jndi-enabled")
        if kind == "queue":
            declared -= {name for name, leaf in leaves.of(kind).items() if leaf.always}
        assert set(placed) == declared, kind
        repeated = {name for name in placed if placed.count(name) > 1}
        assert repeated == ({"spool-max-transactions"} if kind == "message-vpn" else set()), kind
