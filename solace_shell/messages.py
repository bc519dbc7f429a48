"""Every user-facing error text, in one table.

No public capture of the broker's invalid/ambiguous/incomplete input texts exists (reference
section 2), so those three are our own wording and can be swapped here for the real one later.
Engine refusals use the broker's own wording where it is known (`ERROR: Message VPN 'X' not found.`).
"""

from __future__ import annotations

from collections.abc import Mapping

from grammar import ParseError
from state_store.errors import EngineError

PARSE_ERRORS: dict[str, str] = {
    "invalid": "Invalid command input\n   -> Unknown command, or command not available in current context ({word})",
    "ambiguous": "Ambiguous command input\n   -> '{word}' could be: {candidates}",
    "incomplete": "Incomplete command input\n   -> Expected: {candidates}",
    "unterminated": "Incomplete command input\n   -> Unterminated quoted string",
    "control": "Invalid command input\n   -> Control character {word} is not allowed in a command line",
    "invalid-value": "Invalid command input\n   -> Invalid value '{word}' for <{param}>: {reason}",
}

SHELL_ERRORS: dict[str, str] = {
    "access_denied": "ERROR: Permission denied: '{command}' requires {required} access; "
                     "user '{user}' has {actual}.",
    "unknown_target": "ERROR: No router named '{target}' in this lab.",
    "console_denied": "ERROR: The lab console is for lab administrators; "
                      "user '{user}' has no lab-administration right.",
    "internal": "ERROR: Internal error while running the command; nothing was changed ({detail}).",
    "script_nested": "ERROR: A script run by source script cannot run another script.",
    "lab_damaged": "ERROR: The lab file {path} cannot be used: {problem}; nothing was changed.",
    "lab_unknown": "ERROR: Whether the command was applied is unknown: {problem}; the next command reads the "
                   "lab as it is.",
    "lab_busy": "ERROR: The lab is busy: another shell kept it locked for {seconds} s; nothing was changed, "
                "try the command again.",
    "lab_changed_meanwhile": "ERROR: The lab is busy: other shells changed it while this command ran "
                             "({seconds} s); nothing was changed, try the command again.",
}

# Engine refusal codes -> text. Codes and parameters are listed in state_store/errors.py.
ENGINE_ERRORS: dict[str, str] = {
    "vpn_not_found": "ERROR: Message VPN '{vpn}' not found.",
    "queue_not_found": "ERROR: Queue '{queue}' not found in Message VPN '{vpn}'.",
    "router_down": "ERROR: Router '{router}' is down.",
    # configuration and admin refusals (our wording: reference section 2 gives only the reason
    # "not in a valid state" and the words "already exists" that automation looks for)
    "vpn_internal": "ERROR: Message VPN '{vpn}' is not in a valid state for this command "
                    "(it is the internal config-sync Message VPN).",
    "invalid_value": "ERROR: Invalid value '{value}' for {name} (allowed: {allowed}).",
    "value_out_of_range": "ERROR: Value {value} for {name} is out of range ({min} to {max}).",
    "replicated_topic_exists": "ERROR: Replicated topic '{topic}' already exists in Message VPN '{vpn}'.",
    "replicated_topic_not_found": "ERROR: Replicated topic '{topic}' not found in Message VPN '{vpn}'.",
    "replication_queue_exists": "ERROR: Cannot enable replication for Message VPN '{vpn}': the replication queue "
                                "#MSGVPN_REPLICATION_DATA_QUEUE already exists with {messages} messages "
                                "(use force-use-existing-queue or force-recreate-queue).",
    "replication_not_shutdown": "ERROR: Cannot change the replication mate: not in a valid state "
                                "(replication is not shut down on Message VPN {vpns}).",
    "queue_exists": "ERROR: Queue '{queue}' already exists in Message VPN '{vpn}'.",
    "queue_egress_down": "ERROR: Queue '{queue}' in Message VPN '{vpn}' is not in a valid state: "
                         "its egress is shut down.",
    "client_exists": "ERROR: Client '{client}' already exists.",
    "link_not_found": "ERROR: No link between sites '{site_a}' and '{site_b}'.",
    "unknown_option": "ERROR: Unknown option '{option}'.",
    "queue_not_shutdown": "ERROR: Queue '{queue}' in Message VPN '{vpn}' is not in a valid state: "
                          "shut it down before deleting it.",
    "queue_managed": "ERROR: Queue '{queue}' is managed by the broker (created by a telemetry profile) "
                     "and cannot be configured directly.",
    "queue_reserved": "ERROR: Queue '{queue}' is reserved for replication and cannot be configured.",
    "invalid_queue_name": "ERROR: Invalid queue name '{queue}' ({reason}).",
    "invalid_topic": "ERROR: Invalid topic '{topic}'.",
    "subscription_exists": "ERROR: Subscription '{topic}' already exists on queue '{queue}'.",
    "subscription_not_found": "ERROR: Subscription '{topic}' not found on queue '{queue}'.",
    "message_not_found": "ERROR: Message {msg_id} not found in queue '{queue}'.",
    "client_not_found": "ERROR: Client '{client}' not found.",
    "transaction_not_found": "ERROR: No transaction matches XID '{xid}'.",
    "transaction_wrong_state": "ERROR: Transaction '{xid}' is not in a valid state: it is {state}, "
                               "the command requires {required}.",
    "transaction_commit_rejected": "ERROR: Transaction '{xid}' cannot be committed ({reason}).",
    # named configuration objects ({kind} is the CLI keyword: client-username, acl-profile, ...)
    "object_not_found": "ERROR: {kind} '{name}' not found in Message VPN '{vpn}'.",
    "script_not_found": "ERROR: Script '{name}' not found.",
    "service_not_shutdown": "ERROR: Cannot change the listen port of the {service} service of Message VPN '{vpn}': "
                            "not in a valid state (shut it down first).",
    "object_exists": "ERROR: {kind} '{name}' already exists in Message VPN '{vpn}'.",
    "object_builtin": "ERROR: {kind} '{name}' is a default object and cannot be deleted.",
    "object_managed": "ERROR: {kind} '{name}' is managed by the broker (created by a telemetry profile) "
                      "and cannot be changed directly.",
    "object_in_use": "ERROR: {kind} '{name}' is in use by client-username '{user}'.",
    "invalid_object_name": "ERROR: Invalid {kind} name '{name}' ({reason}).",
    "config_sync_unreachable": "ERROR: Cannot assert config-sync leadership of Message VPN '{vpn}': "
                               "router {router} is not reachable.",
    # lab console (time, traffic, failures, transactions as a client, reset)
    "router_not_found": "ERROR: Router '{router}' not found.",
    "site_not_found": "ERROR: Site '{site}' not found.",
    "site_already_down": "ERROR: Site '{site}' is already down.",
    "site_already_up": "ERROR: Site '{site}' is already up.",
    "link_already_down": "ERROR: The inter-site link is already down.",
    "link_already_up": "ERROR: The inter-site link is already up.",
    "client_not_connected": "ERROR: Client '{client}' is not connected: no router of its host list serves its "
                            "Message VPN.",
    "publish_rejected_standby": "ERROR: Client '{client}' is not connected: Message VPN '{vpn}' is replication "
                                "standby on {router}.",
    "publish_rejected_repl_queue_full": "ERROR: Publish rejected: the replication queue of Message VPN '{vpn}' "
                                        "on {router} is full ({rejected} of {requested} rejected; "
                                        "reject-msg-to-sender-on-discard is on).",
    "publish_rejected_spool_full": "ERROR: Publish rejected: the message spool of {router} is full "
                                   "({rejected} of {requested} rejected).",
    "publish_rejected_vpn_spool_full": "ERROR: Publish rejected: the message spool of Message VPN '{vpn}' "
                                       "on {router} is full ({rejected} of {requested} rejected).",
    "publish_rejected_queue_full": "ERROR: Publish rejected: a queue of Message VPN '{vpn}' on {router} is full "
                                   "({rejected} of {requested} rejected; reject-msg-to-sender-on-discard "
                                   "is on).",
    "publish_rejected_queue_shutdown": "ERROR: Publish rejected: a queue of Message VPN '{vpn}' on {router} "
                                       "is shut down ({rejected} of {requested} rejected; "
                                       "reject-msg-to-sender-on-discard including-when-shutdown is on).",
    "publish_rejected_sync_ineligible": "ERROR: Publish rejected: synchronous replication of Message VPN '{vpn}' "
                                        "on {router} is ineligible ({rejected} of {requested} rejected; "
                                        "reject-msg-when-sync-ineligible is on).",
    "transaction_already_open": "ERROR: Client '{client}' already has an open transaction.",
    "no_transaction": "ERROR: Client '{client}' has no open local transaction.",
    "transaction_exists": "ERROR: Transaction '{xid}' already exists.",
    "invalid_xid": "ERROR: Invalid XID '{xid}' (format-gtrid-bqual in hex, e.g. 0021ABC4-00-01).",
    "scenario_not_found": "ERROR: Scenario '{scenario}' not found (give a YAML file or a bundled scenario name).",
    "scenario_invalid": "ERROR: Scenario '{scenario}' is invalid ({problems} problem(s)); first: {first}",
    "scenario_refused": "ERROR: Scenario refused: {reason}",
    "runbook_invalid": "ERROR: Runbook '{runbook}' cannot be used ({problems} problem(s)); first: {first}",
    "runbook_refused": "ERROR: Runbook refused: {reason}",
    "grade_failed": "ERROR: This session cannot be graded: {reason}",
    "unknown_setting": "ERROR: Unknown lab setting '{name}'.",
    # the HA kernel's nodes and groups (lab console `ha ...`)
    "ha_instance_not_found": "ERROR: HA instance '{instance}' not found (write <router>.<instance>, e.g. ha1.A).",
    "ha_router_not_found": "ERROR: HA router '{router}' not found.",
    "ha_failure_not_supported": "ERROR: The HA system '{system}' of this lab does not simulate '{failure}'.",
    "ha_target_not_found": "ERROR: Router or HA instance '{target}' not found (write a router's name or "
                           "<group>.<node>).",
    "ha_network_not_found": "ERROR: Inter-site link or HA router '{target}' not found (write a link as "
                            "<site>-<site>).",
    "router_shares_site": "ERROR: Router '{router}' is not alone in site '{site}'; the replication lab fails "
                          "whole sites (fail site {site}).",
    "router_hang_not_modelled": "ERROR: A hung router is not modelled for replication; 'ha kill {router}' "
                                "fails it.",
    "router_running": "ERROR: Router '{router}' is running; kill it first (only a stopped router is replaced).",
    # intra-site redundancy (no capture shows the broker's texts: our wording)
    "redundancy_not_configured": "ERROR: Router '{router}' is not a member of a redundancy group.",
    "redundancy_monitor_node": "ERROR: Router '{router}' is a monitoring node; it holds no message-routing activity.",
    "redundancy_release_not_active": "ERROR: Cannot release activity: router '{router}' is a backup that is "
                                     "not active.",
    "redundancy_revert_not_active": "ERROR: Cannot revert activity: router '{router}' is not the backup "
                                    "holding activity.",
    "redundancy_mate_not_ready": "ERROR: Cannot revert activity: mate router '{mate}' is not ready.",
    "redundancy_node_state": "ERROR: Node '{node}' is {state}.",
    "redundancy_link_state": "ERROR: The network of redundancy group '{site}' is already {state}.",
    "redundancy_no_group": "ERROR: Site '{site}' has no redundancy group.",
    "redundancy_replace_only_copy": "ERROR: Node '{node}' holds the only current copy of the message spool "
                                    "(its mate's mirror is out of sync); the lab does not simulate losing it.",
}

# The lab console's short form of a recorded publish refusal (`rejected N: <reason>`); every code
# recorded with `rejected` has one (checked at start-up).
REJECT_REASONS: dict[str, str] = {
    "publish_rejected_repl_queue_full": "replication queue full",
    "publish_rejected_sync_ineligible": "sync replication ineligible",
    "publish_rejected_spool_full": "message spool full",  # ours: the router's max-spool-usage
    "publish_rejected_vpn_spool_full": "message-vpn spool full",  # ours: the VPN's max-spool-usage
    "publish_rejected_queue_full": "queue full",  # ours: a queue rejecting to the sender on discard
    "publish_rejected_queue_shutdown": "queue shut down",  # ours: ... including-when-shutdown
}

GENERIC_ENGINE_ERROR = "ERROR: {code_text}"


# each loaded HA system's own refusal texts (also in ENGINE_ERRORS), by system
SYSTEM_TEXTS: dict[str, dict[str, str]] = {}


def add_system_texts(system: str, texts: Mapping[str, str]) -> None:
    """A system's own refusal texts (its shell package's ``messages.MESSAGES``), added to the
    table by the shell's loader (``solace_shell.loader``) when a lab that holds it opens."""
    SYSTEM_TEXTS[system] = dict(texts)
    ENGINE_ERRORS.update(texts)
def parse_error_text(error: ParseError, prompt_width: int) -> str:
    """The caret line (aligned under the typed line, which follows a prompt) and the message."""
    caret = " " * (prompt_width + error.column) + "^"
    if error.reason == "unterminated quote":
        template = PARSE_ERRORS["unterminated"]
    elif error.reason == "control character":
        template = PARSE_ERRORS["control"]
    else:
        template = PARSE_ERRORS[error.kind]
    body = template.format(
        word=error.word, candidates=" ".join(error.candidates) or "<cr>", reason=error.reason, param=error.param,
    )
    return f"{caret}\n{body}"


def shell_error_text(code: str, **params: object) -> str:
    return SHELL_ERRORS[code].format(**params)


def engine_error_text(error: EngineError) -> str:
    template = ENGINE_ERRORS.get(error.code)
    if template is None:
        detail = ", ".join(f"{k}={v}" for k, v in sorted(error.params.items()))
        return GENERIC_ENGINE_ERROR.format(code_text=error.code.replace("_", " ") + (f" ({detail})" if detail else ""))
    try:
        return template.format(**error.params)
    except KeyError:  # a template naming a parameter the engine did not send: still say something useful
        return GENERIC_ENGINE_ERROR.format(code_text=error.code.replace("_", " "))
