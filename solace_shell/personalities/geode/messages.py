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
    # gfsh: CliStrings and the command classes (MEMBER_NOT_FOUND_ERROR_MESSAGE, NO_MEMBERS_FOUND_MESSAGE,
    # DESCRIBE_CLIENT__CLIENT__ID__NOT__FOUND__0, ...); an Integer in a CliStrings.format text is
    # formatted by MessageFormat (grouped: 40,404)
    "gfsh_client_not_present": "Specified Client ID {client} not present",
    "gfsh_member_not_found": "Member {member} could not be found.  Please verify the member name or ID and try again.",
    "gfsh_no_members": "No Members Found",
    "gfsh_member_or_group": "Please provide either \"member\" or \"group\" option.",
    "gfsh_relevant_parameter": "Please provide a relevant parameter(s)",
    "gfsh_no_servers": "No cache-servers were observed.",
    "gfsh_invalid_log_level": "Invalid log level: {level}",
    "gfsh_invalid_file_extension": "Invalid file type, the file extension must be \".csv\"",
    "gfsh_metrics_region_port": ("The --region and --port parameters are mutually exclusive. "
                                 "Please only use one or the other."),
    "gfsh_metrics_port_member": ("If the --port parameter is specified, then the --member parameter must also "
                                 "be specified."),
    "gfsh_metrics_no_cache_server": ("Metrics for the Cache Server with port : {port} and member : {member} "
                                     "not found.\n Please check the port number and the member name/id"),
    # the lab's own (synthesized, docs/lab-geode.md)
    "gfsh_invalid_option_value": "Invalid value \"{value}\" for option --{option} (the lab takes 1 .. 3600).",
    "gfsh_server_running": "A Geode Server named \"{name}\" is already running.",
    "gfsh_server_not_running": "No Geode Server named \"{name}\" is running.",
    "gfsh_unknown_server": "Server \"{name}\" is not a cache server of this lab's cluster ({servers}).",
    "gfsh_region_metrics": "Region metrics (show metrics --region) are not emulated by this lab.",
    "gfsh_server_which": "The lab starts and stops the servers it knows by --name (or --dir): {servers}.",
}
