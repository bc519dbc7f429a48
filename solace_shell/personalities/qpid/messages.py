"""The texts of the Qpid HA lab's refusals (merged into the message table, messages.py)."""

MESSAGES: dict[str, str] = {
    # the lab console's `qpid ...` / `amqp ...` verbs
    "qpid_broker_not_found": "ERROR: Qpid broker '{broker}' not found (write <cluster>.<broker>, e.g. c1.b1).",
    "qpid_cluster_not_found": "ERROR: Qpid cluster '{cluster}' not found.",
    "qpid_broker_running": "ERROR: Qpid broker '{broker}' is running ({process}); kill it first.",
    "qpid_broker_down": "ERROR: Qpid broker '{broker}' is down.",
    "qpid_broker_hung": "ERROR: Qpid broker '{broker}' is already hung.",
    "qpid_already_isolated": "ERROR: Qpid broker '{broker}' is already cut off from the other brokers.",
    "qpid_not_isolated": "ERROR: Qpid broker '{broker}' is not cut off from the other brokers.",
    "qpid_network_cut": "ERROR: The network between the brokers of Qpid cluster '{cluster}' is already cut.",
    "qpid_network_whole": "ERROR: The network between the brokers of Qpid cluster '{cluster}' is already whole.",
    "qpid_client_not_found": "ERROR: AMQP client '{client}' not found.",
    "qpid_client_disconnected": "ERROR: AMQP client '{client}' is not connected (retrying its address list).",
    "qpid_client_stalled": "ERROR: AMQP client '{client}' is stalled: broker {broker} does not answer (without a "
                           "client heartbeat nothing notices).",
    "qpid_host_unknown": "ERROR: No broker host '{host}' in Qpid cluster '{cluster}'.",
    "qpid_no_cluster": "ERROR: This lab has no Qpid HA cluster (reset qpid-ha).",
    # what the tools and the client library print
    "qpid_tool_error": "{text}",
    "qpid_agent_error": "Exception from Agent: {error}: {name}",
}
