"""The refusal codes of the Geode system, with the parameters each is raised with (their texts:
solace_shell/personalities/geode/messages.py). Part of the system's MODEL, so
``state_store.loader.error_codes`` knows them. `gf_`: the lab verbs; `gfsh_`: gfsh's texts."""

from ..kernel.terms import SystemTerms
from .params import SYSTEM

CODES: dict[str, tuple[str, ...]] = {
    "gf_cluster_not_found": ("cluster",),
    "gf_member_not_found": ("member",),
    "gf_client_not_found": ("client",),
    "gf_server_running": ("member", "process"),
    "gf_server_down": ("member",),
    "gf_server_hung": ("member",),
    "gf_not_a_pair": ("a", "b"),
    "gf_link_already_down": ("cluster",),
    "gf_link_already_up": ("cluster",),
    "gf_client_connected": ("client",),
    "gf_client_not_connected": ("client",),
    "gf_not_durable": ("client",),
    "gf_not_subscribed": ("client",),
    "gf_no_server": ("cluster",),
    "no_gf_cluster": (),
    "gfsh_client_not_present": ("client",),
    "gfsh_member_not_found": ("member",),
    "gfsh_server_running": ("name",),
    "gfsh_server_not_running": ("name",),
    "gfsh_invalid_option_value": ("option", "value"),
    "gfsh_no_servers": (),
    "gfsh_no_members": (),
    "gfsh_member_or_group": (),
    "gfsh_relevant_parameter": (),
    "gfsh_invalid_log_level": ("level",),
    "gfsh_invalid_file_extension": (),
    "gfsh_metrics_region_port": (),
    "gfsh_metrics_port_member": (),
    "gfsh_region_metrics": (),
    "gfsh_metrics_no_cache_server": ("port", "member"),
    "gfsh_unknown_server": ("name", "servers"),
    "gfsh_server_which": ("servers",),
}

# which of the codes above are the refusals every system shares (kernel.lookup, kernel.inject)
TERMS = SystemTerms(SYSTEM, "cluster", "member", "gf_cluster_not_found", "gf_member_not_found", "gf_server_running",
                    "gf_server_down", "gf_server_hung", "gf_link_already_up", "gf_link_already_down")
