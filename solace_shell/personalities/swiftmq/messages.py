"""The texts of the SwiftMQ HA lab's refusals (merged into the message table, messages.py)."""

MESSAGES: dict[str, str] = {
    # SwiftMQ HA routers (lab console `ha ...` / `jms ...`)
    "no_ha_router": "ERROR: This lab has no SwiftMQ HA router (reset swiftmq-ha).",
    "ha_instance_running": "ERROR: HA instance '{instance}' is running ({process}); kill it first.",
    "ha_instance_down": "ERROR: HA instance '{instance}' is down.",
    "ha_instance_hung": "ERROR: HA instance '{instance}' is already hung.",
    "ha_link_already_down": "ERROR: The network between the instances of HA router '{router}' is already down.",
    "ha_link_already_up": "ERROR: The network between the instances of HA router '{router}' is already up.",
    "ha_file_not_found": "ERROR: HA instance '{instance}' has no {file} file.",
    "ha_queue_not_found": "ERROR: Queue '{queue}' not found on HA router '{router}'.",
    "swift_no_instance": "ERROR: HA router '{router}' has no running {role} instance.",
    # the SwiftMQ admin CLI prints its errors as the bare message line
    "swift_router_unknown": "Router '{router}' is unknown.",
    "swift_no_router": "Invalid command, please try 'sr <router>'",
    "swift_unknown_context": "Unknown context",
    "swift_unknown_property": "Unknown property: {property}",
    "swift_read_only": "Property '{property}' is read-only",
    "swift_invalid_value": "Invalid value '{value}' for property '{property}'",
    # `new`/`delete` in an entity list: the router's own texts (its management tree's entity lists)
    "swift_entity_defined": "Entity '{entity}' is already defined.",
    "swift_unknown_entity": "Unknown Entity: {entity}",
    "swift_unknown_entity_property": "Unknown Property: {property}",
    "swift_mandatory_property": "Mandatory Property '{property}' must be set.",
    "swift_not_a_list": "Invalid command, please try 'help'",
    "jms_client_not_found": "ERROR: JMS client '{client}' not found.",
    "jms_client_reconnecting": "ERROR: JMS client '{client}' is reconnecting: no instance of HA router "
                               "'{router}' serves.",
}
