"""Engine errors carry a code and parameters, never display text.

The shell owns every user-facing sentence (solace_shell/messages.py); the engine only says *what*
went wrong, so the same failure can be rendered as CLI text, JSON or a transcript diff.

Every code is declared once, with its parameters, in ``ERROR_CODES`` below (a comment says when
it is raised where the name does not); its text is looked up in the shell's one table. A publish
refused as a whole is not an exception: its code is recorded in PublishResult.reject_reason and
counted in the audit.
"""

from __future__ import annotations


class EngineError(Exception):
    """A broker operation was refused; the enclosing transaction is rolled back."""

    def __init__(self, code: str, **params: object) -> None:
        super().__init__(code, params)
        self.code = code
        self.params = params

    def __repr__(self) -> str:
        return f"EngineError({self.code!r}, {self.params!r})"


class PartialRefusal(EngineError):
    """A refusal found only after the call had changed the state (a transaction's commit whose
    publish the spool quotas refuse midway). Every other EngineError is raised before anything
    changes, so the journal drops a refused call (``state_store.journal``); this one keeps its
    record, and the store rolls the command back as for any exception."""


class LabFileError(Exception):
    """A lab database or scenario file cannot be used (corrupt, foreign, wrong schema version)."""

    def __init__(self, path: str, problem: str) -> None:
        super().__init__(f"{path}: {problem}")
        self.path = path
        self.problem = problem


# Every code an EngineError (or a recorded refusal, see PublishResult.reject_reason) carries, with the
# parameters it is raised with; each HA system declares its own
# (its MODEL.error_codes, see state_store.loader.error_codes). The shell has a text for each one,
# naming only these parameters (checked at start-up by solace_shell.registries).
ERROR_CODES: dict[str, tuple[str, ...]] = {
    # lookups
    "router_not_found": ("router",),
    "site_not_found": ("site",),
    "vpn_not_found": ("vpn", "router"),
    "queue_not_found": ("queue", "vpn"),
    "client_not_found": ("client",),
    "transaction_not_found": ("xid",),
    "message_not_found": ("msg_id", "queue"),
    "replicated_topic_not_found": ("topic", "vpn"),
    "subscription_not_found": ("topic", "queue"),
    "link_not_found": ("site_a", "site_b"),
    # state refusals
    "router_down": ("router",),  # a show or change on a failed router
    "vpn_internal": ("vpn",),  # configuring #config-sync
    "client_not_connected": ("client",),  # no host of its list serves its VPN
    "publish_rejected_standby": ("client", "vpn", "router"),  # its reachable hosts hold the VPN in standby
    "queue_egress_down": ("queue", "vpn"),  # consume from a queue whose egress is shut down
    "queue_reserved": ("queue",),  # #MSGVPN_REPLICATION_DATA_QUEUE
    "queue_not_shutdown": ("queue", "vpn"),  # delete a queue that is not shut down
    "queue_exists": ("queue", "vpn"),
    "client_exists": ("client",),
    "transaction_exists": ("xid",),
    "replicated_topic_exists": ("topic", "vpn"),
    "subscription_exists": ("topic", "queue"),
    "replication_queue_exists": ("vpn", "messages"),  # `no shutdown` (fail-on-existing-queue) with entries left
    "replication_not_shutdown": ("router", "vpns"),  # a mate change while a VPN replicates
    # state and required upper case (e.g. "IDLE or PREPARED"); xid "local:<client>" for a local transaction
    "transaction_wrong_state": ("xid", "state", "required"),
    "transaction_already_open": ("client",),
    "no_transaction": ("client",),
    "transaction_commit_rejected": ("xid", "reason"),  # reason: a recorded refusal code below
    "site_already_down": ("site",),
    "site_already_up": ("site",),
    "link_already_down": (),
    "link_already_up": (),
    # bad input
    "invalid_value": ("name", "value", "allowed"),
    "value_out_of_range": ("name", "value", "min", "max"),
    "invalid_topic": ("topic",),
    "invalid_xid": ("xid",),
    "invalid_queue_name": ("queue", "reason"),  # reason: length | reserved | character
    "unknown_option": ("option",),
    "unknown_setting": ("name",),
    # lab console (raised by the shell's handlers)
    "scenario_not_found": ("scenario",),
    "scenario_invalid": ("scenario", "problems", "first"),
    "scenario_refused": ("reason",),  # a file that may not or cannot be read (state_store.user_files)
    "runbook_invalid": ("runbook", "problems", "first"),
    "runbook_refused": ("reason",),
    "grade_failed": ("reason",),
    # the HA kernel's nodes and groups, and its failure vocabulary (the systems declare their own codes)
    "ha_instance_not_found": ("instance",),
    "ha_router_not_found": ("router",),
    "ha_failure_not_supported": ("system", "failure"),
    # the shared failure verbs on a lab's routers and inter-site links (state_store/solace/lab_failures.py)
    "ha_target_not_found": ("target",),
    "ha_network_not_found": ("target",),
    "router_shares_site": ("router", "site"),
    "router_hang_not_modelled": ("router",),
    "router_running": ("router",),
    # intra-site redundancy groups (state_store/solace/redundancy.py)
    "redundancy_not_configured": ("router",),
    "redundancy_monitor_node": ("router",),
    "redundancy_release_not_active": ("router",),
    "redundancy_revert_not_active": ("router",),
    "redundancy_mate_not_ready": ("router", "mate"),
    "redundancy_node_state": ("node", "state"),
    "redundancy_link_state": ("site", "state"),
    "redundancy_no_group": ("site",),
    "redundancy_replace_only_copy": ("node",),
    # named configuration objects (state_store/solace/config_objects.py)
    "object_not_found": ("kind", "name", "vpn"),
    "object_exists": ("kind", "name", "vpn"),
    "object_builtin": ("kind", "name"),  # delete a VPN's `default` object
    "object_managed": ("kind", "name"),  # change or delete what a telemetry profile created
    "object_in_use": ("kind", "name", "user"),  # delete a profile a client username uses
    "invalid_object_name": ("kind", "name", "reason"),  # reason: length | reserved | character
    "script_not_found": ("name",),  # `source script` of a script the router does not have
    "service_not_shutdown": ("service", "vpn"),  # a listen port changed while its listener is up
    "queue_managed": ("queue",),  # a telemetry profile's #telemetry-<name> queue
    "config_sync_unreachable": ("vpn", "router"),  # assert-leader while a mate is unreachable
    # recorded refusals (not exceptions): a publish rejected as a whole
    "publish_rejected_repl_queue_full": ("client", "vpn", "router", "rejected", "requested"),
    "publish_rejected_spool_full": ("client", "vpn", "router", "rejected", "requested"),
    "publish_rejected_vpn_spool_full": ("client", "vpn", "router", "rejected", "requested"),
    "publish_rejected_queue_full": ("client", "vpn", "router", "rejected", "requested"),
    "publish_rejected_queue_shutdown": ("client", "vpn", "router", "rejected", "requested"),
    "publish_rejected_sync_ineligible": ("client", "vpn", "router", "rejected", "requested"),
}


class CommitUnknown(LabFileError):
    """The connection to a shared database was lost while a transaction that wrote was being
    committed, and the database could not be asked afterwards whether the commit happened: the
    command may or may not have been applied. The store has gone back to its last known row, so
    the next command reads the lab as it is (and the answer to this one must say so: never
    "nothing was changed")."""


class LabBusy(Exception):
    """Another shell kept the lab's write lock for longer than this shell would wait, or
    (``changed_meanwhile``) kept changing the lab while this command ran for longer than that.

    Raised by ``LabStore.run`` after its bounded retries; the command changed nothing."""

    def __init__(self, waited_s: float, *, changed_meanwhile: bool = False) -> None:
        super().__init__(f"lab busy after {waited_s:.1f} s")
        self.waited_s = waited_s
        self.changed_meanwhile = changed_meanwhile


class ScenarioError(Exception):
    """A scenario file is invalid; ``problems`` lists every problem as ``file:line: message``."""

    def __init__(self, path: str, problems: list[str]) -> None:
        super().__init__(f"{path}: {len(problems)} problem(s):\n" + "\n".join(problems))
        self.path = path
        self.problems = problems
