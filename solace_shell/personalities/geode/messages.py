"""The texts of the Geode lab's refusals (merged into the message table, messages.py).

The `gfsh_*` texts are gfsh's own where Geode's CliStrings give them (`Specified Client ID {0} not
present`, `No client found with client-id : {0}`, `Member {0} could not be found.  Please verify
the member name or ID and try again.`); the others are the lab's, marked synthesized in
docs/lab-geode.md."""

MESSAGES: dict[str, str] = {
    # lab console `geode ...`
    "gf_cluster_not_found": "ERROR: Geode cluster '{cluster}' not found.",
    "gf_member_not_found": "ERROR: Geode server '{member}' not found (write <cluster>.<server>, e.g. g1.s1).",
    "gf_client_not_found": "ERROR: Geode client '{client}' not found.",
    "gf_server_running": "ERROR: Geode server '{member}' is running ({process}); kill it first.",
    "gf_server_down": "ERROR: Geode server '{member}' is down.",
    "gf_server_hung": "ERROR: Geode server '{member}' is already hung.",
    "gf_not_a_pair": "ERROR: '{a}' and '{b}' are not two servers of one Geode cluster.",
    "gf_link_already_down": "ERROR: The network between the servers of Geode cluster '{cluster}' is already down.",
    "gf_link_already_up": "ERROR: The network between the servers of Geode cluster '{cluster}' is already up.",
    "gf_client_connected": "ERROR: Geode client '{client}' is already connected.",
    "gf_client_not_connected": "ERROR: Geode client '{client}' is not connected.",
    "gf_not_durable": "ERROR: Geode client '{client}' is not a durable client (no durable-client-id).",
    "gf_not_subscribed": "ERROR: Geode client '{client}' has subscription-enabled false.",
    "gf_no_server": "ERROR: No cache server of Geode cluster '{cluster}' is running.",
    "no_gf_cluster": "ERROR: This lab has no Geode cluster (reset geode-ha).",
    # gfsh
    "gfsh_client_not_present": "Specified Client ID {client} not present",
    "gfsh_member_not_found": "Member {member} could not be found.  Please verify the member name or ID and try again.",
    "gfsh_server_running": "A Geode Server named \"{name}\" is already running.",
    "gfsh_server_not_running": "No Geode Server named \"{name}\" is running.",
    "gfsh_invalid_option_value": "Invalid value \"{value}\" for option --{option}.",
}
MESSAGES.update({
    "gfsh_no_servers": "No cache-servers were observed.",
    "gfsh_no_clients": "No clients were retrieved for cache-servers.",
    "gfsh_no_durable_client": "No client found with client-id : {client}\nOccurred on members\n{members}",
    "gfsh_unknown_server": "Server \"{name}\" is not a cache server of this lab's cluster ({servers}).",
    "gfsh_invalid_categories": "Invalid Categories\n{categories}",
})
