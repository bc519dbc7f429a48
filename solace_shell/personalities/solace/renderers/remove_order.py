"""The order and form of the `remove` dump's reset lines, per object: `show current-config
message-vpn <name> remove` as a real 10.26 broker prints it [REAL: github hafio/solace-cnt-scripts,
internal/broker/testdata/currentconfig_remove_default.cli].

The dump resets every setting of the object, not only those that differ from their defaults, in
the broker's own order, which is not the order `show current-config` prints set leaves in. Most
resets are the leaf's `no` form; some the dump writes as the default value set outright
(`bridging ssl server-certificate-validation max-certificate-chain-depth 3`, `event
publish-topic-format "smf"`), with enum and text values quoted (`SetDefault`).

Each table names leaves of `grammar/data/leaves.yaml` by their name within the object; a
`Line` is a command of its own (not a declared leaf) at the object's level, and `REST` and
`REPLICATION` mark where the VPN's REST delivery points and its replication block stand. Every
leaf with words of a listed object must stand in its table exactly once (tests/cli/test_real_dump.py),
so a new leaf cannot be left out of the dump. The lab's leaves the real dump does not show are
placed beside their neighbours and marked [INFER].
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class SetDefault:
    """A leaf the dump resets by setting its default value (`max-certificate-chain-depth 3`)."""

    leaf: str


@dataclass(frozen=True)
class Line:
    """A command that is not a declared leaf, at the object's level or at the levels ``below`` it."""

    command: str
    below: tuple[str, ...] = ()


@dataclass(frozen=True)
class Marker:
    """Where a block of child objects stands in the object's reset lines."""

    name: str


REST = Marker("rest")                  # the REST delivery points, then the `rest` level's own leaves
REPLICATION = Marker("replication")    # the replication level's resets

Item = str | SetDefault | Line | Marker

MESSAGE_VPN: tuple[Item, ...] = (
    "alias",
    "bridging-enforce-trusted-common-name",
    SetDefault("bridging-max-certificate-chain-depth"),
    "bridging-validate-certificate-date",
    "bridging-validate-server-name",
    "event-connections",
    "event-smf-connections",
    "event-web-connections",
    "event-rest-incoming-connections",
    "event-mqtt-connections",
    "event-egress-message-rate",
    "event-ingress-message-rate",
    "event-large-message-threshold",
    "event-log-tag",
    "event-publish-client",
    "event-publish-message-vpn",
    SetDefault("event-publish-topic-format"),
    "event-publish-subscription",
    "event-subscriptions",
    "client-certificate-revocation-check-mode",
    "client-certificate-username-source",
    SetDefault("oauth-default-profile"),
    Line("basic auth-type radius", ("authentication",)),   # [INFER] the lab's basic authentication type
    SetDefault("authorization-type"),
    SetDefault("ldap-group-membership-attribute-name"),
    "ldap-trim-client-username-domain",
    "distributed-cache-management",
    "export-subscriptions",
    "max-connections",
    "max-subscriptions",
    "semp-over-msgbus-enabled",
    "semp-show-cmds-enabled",
    "semp-admin-cmds-enabled",
    "semp-distributed-cache-cmds-enabled",
    "semp-client-cmds-enabled",
    REST,
    "rest-enforce-trusted-common-name",
    SetDefault("rest-max-certificate-chain-depth"),
    "rest-validate-certificate-date",
    "rest-validate-server-name",
    REPLICATION,
    "smf-max-connections",
    "smf-plain-text-enabled",
    "smf-ssl-enabled",
    SetDefault("web-request-client-certificate"),
    SetDefault("web-max-connections"),
    SetDefault("rest-incoming-request-client-certificate"),
    SetDefault("rest-incoming-authorization-header-handling"),
    "rest-incoming-max-connections",
    Line("service rest incoming plain-text shutdown"),
    Line("no service rest incoming listen-port"),
    "rest-incoming-ssl-enabled",
    "rest-incoming-ssl-listen-port",
    Line("service rest mode messaging"),             # [INFER] the lab's REST service mode
    SetDefault("rest-outgoing-max-connections"),
    SetDefault("mqtt-request-client-certificate"),
    SetDefault("mqtt-max-connections"),
    "mqtt-plain-text-enabled",
    "mqtt-listen-port",
    "mqtt-ssl-enabled",
    "mqtt-ssl-listen-port",
    "mqtt-websocket-enabled",
    "mqtt-web-listen-port",
    "mqtt-websocket-secure-enabled",
    "mqtt-ssl-web-listen-port",
    SetDefault("amqp-max-connections"),
    "amqp-plain-text-enabled",
    "amqp-listen-port",
    "amqp-ssl-enabled",
    "amqp-ssl-listen-port",
    "web-plain-text-enabled",
    "web-ssl-enabled",
    "ssl-allow-downgrade-to-plain-text",
    "dynamic-message-routing-enabled",
    "mqtt-retain-max-memory",
    SetDefault("kafka-max-broker-connections"),
)

# The `replication` level's resets, one line each as the dump writes them (their leaves and the
# settings the lab keeps as replication records alike).
REPLICATION_LINES: tuple[str, ...] = (
    "no ack-propagation interval messages", "no ack-propagation shutdown", "no transaction-replication-mode",
    "no reject-msg-when-sync-ineligible", "bridge authentication auth-scheme basic",
    "no bridge authentication basic client-username", "no bridge compressed-data",
    "no bridge message-spool window-size", "no bridge retry-delay", "no bridge ssl",
    "no bridge unidirectional client-profile", "no queue max-spool-usage", "queue reject-msg-to-sender-on-discard")

# The message spool's: the dump resets `max-transactions` twice, as written here.
MESSAGE_SPOOL: tuple[Item, ...] = (
    "spool-event-transactions",
    "spool-event-spool-usage",
    "spool-event-transacted-sessions",
    "spool-event-endpoints",
    "spool-event-egress-flows",
    "spool-event-ingress-flows",
    Line("no max-spool-usage"),
    "spool-max-transacted-sessions",
    "spool-max-transactions",
    "spool-max-endpoints",
    "spool-max-egress-flows",
    "spool-max-ingress-flows",
    "spool-max-transactions",
    "allow-dmq-eligible-endpoint-override",
)

CLIENT_PROFILE: tuple[Item, ...] = (
    "event-connections-per-client-username",
    "event-subscriptions",
    "event-client-provisioned-endpoint-spool-usage",
    "event-transacted-sessions",
    "event-transactions",
    "event-endpoints-per-client-username",
    "event-egress-flows",
    "event-ingress-flows",
    "event-smf-connections-per-client-username",
    "event-web-connections-per-client-username",
    "allow-bridge-connections",
    "allow-shared-subscriptions",
    "eliding-delay",
    "eliding-max-topics",
    "eliding-enabled",
    "min-keepalive-timeout",
    "smf-max-connections-per-client-username",
    "smf-min-keepalive-enabled",
    SetDefault("web-max-connections-per-client-username"),
    "max-connections-per-client-username",
    "max-subscriptions",
    "allow-guaranteed-endpoint-create",
    "allow-guaranteed-endpoint-create-durability",
    "allow-guaranteed-message-receive",
    "allow-guaranteed-message-send",
    "allow-transacted-sessions",
    "max-transacted-sessions",
    "max-transactions",
    "max-messages-per-transaction",
    "max-endpoints-per-client-username",
    "max-egress-flows",
    "max-ingress-flows",
    "queue-copy-from-on-create",
    "queue-copy-from-template-on-create",
    "topic-endpoint-copy-from-on-create",
    "topic-endpoint-copy-from-template-on-create",
    "reject-msg-to-sender-on-no-subscription-match",
    "queue-g-1-max-depth",
    "queue-g-1-min-msg-burst",
    "queue-d-1-max-depth",
    "queue-d-1-min-msg-burst",
    "queue-d-2-max-depth",
    "queue-d-2-min-msg-burst",
    "queue-d-3-max-depth",
    "queue-d-3-min-msg-burst",
    "queue-c-1-max-depth",
    "queue-c-1-min-msg-burst",
    "tcp-keepalive-count",
    "tcp-keepalive-idle",
    "tcp-keepalive-interval",
    "tcp-mss",
    "allow-clients-when-standby",
    "amqp-max-links",
    "mqtt-full-qos2",
)

# A queue's, after its `shutdown` and before it is deleted; the leaves every queue prints
# (access type, owner, permission, quotas) are not reset, as the queue goes with its deletion.
QUEUE: tuple[Item, ...] = (
    "max-ttl",
    "dead-message-queue",
    "consumer-ack-propagation",
    "redelivery",
    "delivery-count",
    SetDefault("delivery-delay"),
    "redelivery-delay-enabled",
    SetDefault("redelivery-delay-initial-interval"),
    SetDefault("redelivery-delay-max-interval"),
    SetDefault("redelivery-delay-multiplier"),
    "respect-dmq-eligible",
    "respect-message-priority",
    SetDefault("partition-count"),
    SetDefault("partition-rebalance-delay"),
    SetDefault("partition-rebalance-max-handoff-time"),
)

REST_DELIVERY_POINT: tuple[Item, ...] = ("service", "vendor")

# A REST consumer's, after its `shutdown`; `auth-scheme "none"` opens its authentication level.
REST_CONSUMER: tuple[Item, ...] = (
    "aws-access-key-id",
    "aws-secret-access-key",
    "aws-region",
    "aws-service",
    "http-basic-username",
    "http-basic-password",          # [INFER] the dump's `no http-basic username` shows no password line
    "http-header-name",
    "http-header-value",
    "oauth-client-id",
    "oauth-client-secret",
    "oauth-client-scope",
    "oauth-client-token-endpoint",
    "oauth-client-proxy",
    "oauth-client-token-expiry-default",
    "oauth-jwt-secret-key",
    "oauth-jwt-token-endpoint",
    "oauth-jwt-proxy",
    "oauth-jwt-token-expiry-default",
    "local-interface",
    "remote-host",
    "max-post-wait-time",
    "outgoing-connection-count",
    "remote-port",
    SetDefault("remote-proxy"),
    "http-method",
    "retry-delay",
    "ssl",
    SetDefault("ssl-cipher-suite"),
    "ssl-trusted-common-name",      # [INFER] the dump sets "empty", a name the lab does not take
    Line("no status-codes rejected"),
)

# Sections the dump prints after the ACL profiles, each titled with the VPN's name; the lab has
# none of their objects, so each is its title alone.
TRAILING_SECTIONS = ("Replay Log", "Oauth Providers", "Oauth Profiles", "Queue Templates",
                     "Topic Endpoint Templates")
# Sections between the message spool and the telemetry profiles, titled with no name.
UNNAMED_SECTIONS = ("MQTT Retain Cache", "MQTT Sessions")

# Every table, by the object kind whose leaves it names (tests/cli/test_real_dump.py checks that
# each leaf with words stands in one, but for the JNDI level's `shutdown`, which opens the JNDI
# section, and the queue leaves every queue prints).
TABLES: dict[str, tuple[tuple[Item, ...], ...]] = {
    "message-vpn": (MESSAGE_VPN, MESSAGE_SPOOL),
    "client-profile": (CLIENT_PROFILE,),
    "queue": (QUEUE,),
    "rest-delivery-point": (REST_DELIVERY_POINT,),
    "rest-consumer": (REST_CONSUMER,),
}
