"""The refusal codes of the Qpid HA system, with the parameters each is raised with (their texts:
solace_shell/personalities/qpid/messages.py)."""

from ..kernel.terms import SystemTerms
from .params import SYSTEM

CODES: dict[str, tuple[str, ...]] = {
    "qpid_broker_not_found": ("broker",),
    "qpid_cluster_not_found": ("cluster",),
    "qpid_broker_running": ("broker", "process"),
    "qpid_broker_down": ("broker",),
    "qpid_broker_hung": ("broker",),
    "qpid_already_isolated": ("broker",),
    "qpid_not_isolated": ("broker",),
    "qpid_network_cut": ("cluster",),
    "qpid_network_whole": ("cluster",),
    "qpid_client_not_found": ("client",),
    "qpid_client_disconnected": ("client",),
    "qpid_client_stalled": ("client", "broker"),
    "qpid_host_unknown": ("host", "cluster"),
    "qpid_no_cluster": (),
    # what the tools and the client library raise, as `<ExceptionType>: <message>`
    "qpid_tool_error": ("text",),
    # what the broker's management agent answers a method with: the broker's exception (`error`,
    # one of AGENT_ERRORS) about `name` (the object, or the exception's own text for "exception")
    "qpid_agent_error": ("error", "name"),
}

AGENT_ERRORS = ("exception", "object-exists", "queue-not-found", "exchange-not-found", "bind-no-queue", "bind-default",
                "invalid-exchange-type")

# which of the codes above are the refusals every system shares (kernel.lookup, kernel.inject)
TERMS = SystemTerms(SYSTEM, "cluster", "broker", "qpid_cluster_not_found", "qpid_broker_not_found",
                    "qpid_broker_running", "qpid_broker_down", "qpid_broker_hung", "qpid_network_whole",
                    "qpid_network_cut")
