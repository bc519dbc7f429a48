"""The lab console (`lab>`): time, traffic, transactions, failures, connect, status, audit, reset, set.

Handlers here run with `ctx.router is None`: they act on the whole lab through the engine's lab
methods and return small result dataclasses; renderers/lab_console.py prints each one in the fixed
form docs/lab.md documents (drills and golden transcripts assert on it).
"""

from __future__ import annotations

import textwrap
from dataclasses import dataclass
from pathlib import Path

from grammar.types import duration_ms
from state_store.errors import EngineError, ScenarioError
from state_store.scenario_files import DEFAULT_SCENARIO
from state_store.solace.frozen import statically_frozen
from state_store.solace.views import Audit, ConsumeResult, LabStatus, LinkChange, PublishResult, SiteChange

from ..results import BACK_TO_ROUTER, Lines, Refused, ResetLab, SwitchTarget
from . import Args, HandlerContext, handler


# ---------------------------------------------------------------- results
@statically_frozen
@dataclass(frozen=True)
class Advanced:
    now_ms: int
    step_ms: int
    drained: int
    reconnected: tuple[str, ...]


@statically_frozen
@dataclass(frozen=True)
class Published:
    result: PublishResult


@statically_frozen
@dataclass(frozen=True)
class Consumed:
    result: ConsumeResult


@statically_frozen
@dataclass(frozen=True)
class TransactionState:
    kind: str                  # local | xa
    xid: str | None
    client: str
    state: str                 # ACTIVE IDLE SUSPENDED PREPARED COMMITTED ROLLED-BACK
    router: str | None


@statically_frozen
@dataclass(frozen=True)
class LabStatusView:
    status: LabStatus
    settings: dict[str, str]
    routers: bool = True    # the lab holds Solace routers: their sites, VPNs and clients are shown
    # each HA node not drawn as a router: (system, group, node, process, native state)
    nodes: tuple[tuple[str, str, str, str, str], ...] = ()


@statically_frozen
@dataclass(frozen=True)
class AuditView:
    audit: Audit
    limit: int
    # activity moves inside a site's redundancy group: (site, ms, from member or None, to member)
    local_failovers: tuple[tuple[str, int, str | None, str], ...] = ()


@statically_frozen
@dataclass(frozen=True)
class SettingChanged:
    name: str                  # as typed: layout, software-version, ...
    value: str


# ---------------------------------------------------------------- time and traffic
@handler("lab.advance")
def advance(ctx: HandlerContext, args: Args) -> Advanced:
    try:
        ms = duration_ms(str(args["duration"]))
    except ValueError:
        raise EngineError("invalid_value", name="duration", value=args["duration"],
                          allowed="250ms, 5s, 2m, 1h") from None
    res = ctx.engine.advance(ms)
    return Advanced(now_ms=res.to_ms, step_ms=ms, drained=res.drained, reconnected=tuple(res.reconnected))


@handler("lab.publish")
def publish(ctx: HandlerContext, args: Args) -> Published | Refused:
    count = int(args.get("count", 1))
    size = int(args["size"]) if "size" in args else None
    res = ctx.router_engine.publish(str(args["client-name"]), str(args["topic"]), count=count, size=size)
    if res.accepted == 0 and res.rejected:
        # Refused, but recorded: the rejection counts (stats, audit) persist, so no exception.
        return Refused(res.reject_reason or "publish_rejected", {
            "client": res.client, "vpn": res.vpn, "router": res.router, "rejected": res.rejected,
            "requested": res.requested})
    return Published(res)


@handler("lab.consume")
def consume(ctx: HandlerContext, args: Args) -> Consumed:
    count = int(args.get("count", 1))
    return Consumed(ctx.router_engine.consume(str(args["client-name"]), str(args["queue-name"]), count=count))


# ---------------------------------------------------------------- transactions
_LOCAL = {
    "start": ("tx_local_start", "ACTIVE"),
    "commit": ("tx_local_commit", "COMMITTED"),
    "rollback": ("tx_local_rollback", "ROLLED-BACK"),
}
_XA = {
    "start": ("tx_xa_start", "ACTIVE"),
    "end": ("tx_xa_end", "IDLE"),
    "suspend": ("tx_xa_suspend", "SUSPENDED"),
    "resume": ("tx_xa_resume", "ACTIVE"),
    "prepare": ("tx_xa_prepare", "PREPARED"),
    "rollback": ("tx_xa_rollback", "ROLLED-BACK"),
    "commit": ("tx_xa_commit", "COMMITTED"),
}


def _verb(args: Args, table: dict[str, tuple[str, str]]) -> tuple[str, str]:
    return next(table[word] for word in table if args.get(word) is True)


@handler("lab.transaction_local")
def transaction_local(ctx: HandlerContext, args: Args) -> TransactionState:
    client = str(args["client-name"])
    method, state = _verb(args, _LOCAL)
    getattr(ctx.router_engine, method)(client)
    return TransactionState("local", None, client, state, ctx.router_engine.client(client).router)


@handler("lab.transaction_xa")
def transaction_xa(ctx: HandlerContext, args: Args) -> TransactionState:
    client, xid = str(args["client-name"]), str(args["xid"])
    method, state = _verb(args, _XA)
    if method == "tx_xa_commit":
        ctx.router_engine.tx_xa_commit(client, xid, one_phase=bool(args.get("one-phase")))
    else:
        getattr(ctx.router_engine, method)(client, xid)
    return TransactionState("xa", xid, client, state, ctx.router_engine.client(client).router)


# ---------------------------------------------------------------- failures
# The engine's site and link changes, as the shared `ha` verbs make them too (Engine.fail), so a
# failure prints, journals and audits the same whichever verb injected it.
@handler("lab.fail_site")
def fail_site(ctx: HandlerContext, args: Args) -> SiteChange:
    view: SiteChange = ctx.router_engine.site_change(str(args["site-name"]), "down")
    return view


@handler("lab.restore_site")
def restore_site(ctx: HandlerContext, args: Args) -> SiteChange:
    view: SiteChange = ctx.router_engine.site_change(str(args["site-name"]), "up")
    return view


@handler("lab.replace_site")
def replace_site(ctx: HandlerContext, args: Args) -> SiteChange:
    view: SiteChange = ctx.router_engine.site_change(str(args["site-name"]), "replaced")
    return view


@handler("lab.fail_link")
def fail_link(ctx: HandlerContext, args: Args) -> LinkChange:
    view: LinkChange = ctx.router_engine.link_change(False)
    return view


@handler("lab.restore_link")
def restore_link(ctx: HandlerContext, args: Args) -> LinkChange:
    view: LinkChange = ctx.router_engine.link_change(True)
    return view


# ---------------------------------------------------------------- moving, looking
@handler("lab.exit")
def exit_console(ctx: HandlerContext, args: Args) -> SwitchTarget:
    return SwitchTarget(BACK_TO_ROUTER)


HELP_WIDTH = 80        # `help` fits an 80-column terminal (the CLI's own width), on any terminal
HELP_COLUMN = 34       # where the help text starts; a longer syntax gets lines of its own
# The Solace routers' console verbs: listed by `help` only when the lab holds routers (an HA
# system's own verbs carry their system in the grammar).
HA_FAILURE_VERBS = "lab_ha."   # the shared failure verbs (`ha kill` ...): HA systems' nodes and routers
SOLACE_VERBS = {"lab.publish", "lab.consume", "lab.transaction_local", "lab.transaction_xa", "lab.fail_site",
                "lab.restore_site", "lab.replace_site", "lab.fail_link", "lab.restore_link", "lab.audit",
                "lab.connect", "lab.set", "lab_redundancy.fail_router", "lab_redundancy.restore_router",
                "lab_redundancy.fail_mate_link", "lab_redundancy.restore_mate_link"}


def _help_entry(syntax: str, text: str) -> list[str]:
    """One command's lines: the syntax (wrapped at its words, continued 4 columns in), the help
    text from HELP_COLUMN (wrapped at its words, continued in the same column)."""
    indent = " " * HELP_COLUMN
    helps = textwrap.wrap(text, HELP_WIDTH - HELP_COLUMN) or [""]
    if len(syntax) + 2 <= HELP_COLUMN:
        first, rest = [f"{syntax:<{HELP_COLUMN}}{helps[0]}".rstrip()], helps[1:]
    else:
        first, rest = textwrap.wrap(syntax, HELP_WIDTH, subsequent_indent="    ", break_on_hyphens=False), helps
    return first + [indent + line for line in rest]


@handler("lab.help")
def console_help(ctx: HandlerContext, args: Args) -> Lines:
    """The console commands of the lab and of the HA systems this lab holds (each system's grammar
    namespace), each with its help, from the grammar (docs/lab.md has the forms); the Solace
    traffic and failure verbs only in a lab with Solace routers, the shared failure verbs in a lab
    with either."""
    lab = ctx.session.lab
    held, solace = set(lab.systems()), bool(lab.routers())
    shown = [c for c in lab.grammar.by_mode.get("lab", [])
             if (not c.system or c.system in held) and (solace or c.handler not in SOLACE_VERBS)
             and (held or solace or not c.handler.startswith(HA_FAILURE_VERBS))]
    return Lines(tuple(line for c in shown for line in _help_entry(c.syntax, c.help)))


@handler("lab.connect")
def connect(ctx: HandlerContext, args: Args) -> SwitchTarget:
    router = str(args["router-name"])
    if router not in (r.name for r in ctx.router_engine.routers()):
        raise EngineError("router_not_found", router=router)
    return SwitchTarget(router)


@handler("lab.status")
def status(ctx: HandlerContext, args: Args) -> LabStatusView:
    """Sites in scenario order; VPN rows by router (scenario order), then VPN name: the order
    `Engine.status` gives. Then every HA node the router rows do not show (a redundancy pair's
    members are routers), from the kernel, by group in scenario order; a lab without routers
    shows only its clock, its scenario and those nodes."""
    kernel = ctx.engine.kernel()
    status = ctx.router_engine.status()
    routers = {r.name for r in status.routers}
    nodes = tuple((group.system, group.name, name, node.proc, node.state or "-")
                  for group in kernel.groups.values() if not (group.nodes and routers.issuperset(group.nodes))
                  for name in group.nodes for node in (kernel.node(group.name, name),))
    return LabStatusView(status, ctx.engine.settings(), bool(routers), nodes)


AUDIT_LINES = 20   # per-message lines before `... N more`


@handler("lab.audit")
def audit(ctx: HandlerContext, args: Args) -> AuditView:
    vpn = args.get("vpn-name")
    if vpn is not None:
        if vpn not in ctx.router_engine.user_vpn_names():
            raise EngineError("vpn_not_found", vpn=vpn, router="")
    return AuditView(ctx.router_engine.audit(vpn=None if vpn is None else str(vpn), limit=1000), AUDIT_LINES,
                     tuple(ctx.router_engine.local_failovers()))


# ---------------------------------------------------------------- reset, settings
def scenario_path(name: str) -> Path:
    """A scenario as typed: a bundled scenario's name (`default`, `bare`, `swiftmq-ha`) or a file
    that looks like a scenario; while a transcript replays, only one inside its directory tree
    (solace_shell/transcript/scenario_path.py)."""
    from ..transcript.scenario_path import ScenarioRefused, console_scenario

    try:
        found = console_scenario(name)
    except ScenarioRefused as refused:
        raise EngineError("scenario_refused", reason=str(refused)) from None
    if found is None:
        raise EngineError("scenario_not_found", scenario=name if len(name) <= 64 else name[:64] + "...")
    return found


@handler("lab.reset")
def reset(ctx: HandlerContext, args: Args) -> ResetLab:
    """Validates the scenario now (so a bad file changes nothing); the session resets the lab
    after this command's transaction has ended."""
    given = args.get("scenario")
    path = scenario_path(str(given)) if given is not None else DEFAULT_SCENARIO
    try:
        from state_store.solace.scenario_schema import load_scenario  # only here: see state_store/scenario_files.py

        doc = load_scenario(path)
    except ScenarioError as exc:
        raise EngineError("scenario_invalid", scenario=str(given), problems=len(exc.problems),
                          first=exc.problems[0] if exc.problems else "") from None
    return ResetLab(None if given is None else str(path), str(doc.get("scenario") or path.stem))


# Each `set` entry has its own parameter: parameter -> (the word typed, the engine's setting key).
_SETTINGS = {
    "version": ("software-version", "software_version"),
    "layout": ("layout", "layout"),
    "count": ("replication-drain-rate", "replication_drain_rate"),
    "size": ("default-message-size", "default_message_size"),
}


@handler("lab.set")
def set_setting(ctx: HandlerContext, args: Args) -> SettingChanged:
    param = next(p for p in _SETTINGS if p in args)
    name, key = _SETTINGS[param]
    value = str(args[param])
    if key == "layout":
        value = value.upper()
    ctx.engine.set_setting(key, value)
    return SettingChanged(name, ctx.engine.settings()[key])
