"""The refusal codes of the SwiftMQ HA system, with the parameters each is raised with (their texts:
solace_shell/personalities/swiftmq/messages.py). Part of the system's MODEL, so
``state_store.loader.error_codes`` knows them."""

from ..kernel.terms import SystemTerms
from .params import SYSTEM

CODES: dict[str, tuple[str, ...]] = {
    # the lab verbs (`ha ...`, `jms ...`)
    "ha_file_not_found": ("instance", "file"),
    "ha_instance_down": ("instance",),
    "ha_instance_hung": ("instance",),
    "ha_instance_running": ("instance", "process"),
    "ha_link_already_up": ("router",),
    "ha_link_already_down": ("router",),
    "ha_queue_not_found": ("queue", "router"),
    "jms_client_not_found": ("client",),
    "jms_client_reconnecting": ("client", "router"),
    "no_ha_router": (),
    # the SwiftMQ admin CLI (printed as bare message lines, reference 1.3)
    "swift_invalid_value": ("value", "property"),
    "swift_no_instance": ("router", "role"),
    "swift_read_only": ("property",),
    "swift_unknown_context": ("context",),
    "swift_unknown_property": ("property",),
    "swift_no_router": (),
    "swift_router_unknown": ("router",),
    "swift_entity_defined": ("entity",),
    "swift_unknown_entity": ("entity",),
    "swift_unknown_entity_property": ("property",),
    "swift_mandatory_property": ("property",),
    "swift_not_a_list": (),
}

# which of the codes above are the refusals every system shares (kernel.lookup, kernel.inject)
TERMS = SystemTerms(SYSTEM, "router", "instance", "ha_router_not_found", "ha_instance_not_found",
                    "ha_instance_running", "ha_instance_down", "ha_instance_hung", "ha_link_already_up",
                    "ha_link_already_down")
