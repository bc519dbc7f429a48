"""gfsh's commands (grammar/data/systems/geode/commands/gfsh.yaml) on the lab's Geode cluster.

Reads build the views gfsh prints (cli_renderers.py) from the kernel; `alter runtime`, `start
server` and `stop server` change the cluster through journaled calls. A refusal is an
`EngineError` whose text (messages.py) is gfsh's own where Geode has one."""

from __future__ import annotations

from dataclasses import dataclass

from state_store.errors import EngineError
from state_store.geode import SYSTEM, members
from state_store.geode import operations as gf
from state_store.geode import queues as q
from state_store.geode.views import RuntimeAltered, ServerStartStop
from state_store.kernel import Kernel
from state_store.kernel import ranges as rg

from ...handlers import Args, HandlerContext, handler

CATEGORIES = ("cacheserver", "notification")
MAX_ECHO = 80   # characters of a user's value an error text repeats


def clip(value: object) -> str:
    text = str(value)
    return text if len(text) <= MAX_ECHO else text[:MAX_ECHO] + "..."


@dataclass(frozen=True)
class GfshTable:
    """A gfsh table: an optional title line, then the columns."""

    title: str
    header: tuple[str, ...]
    rows: tuple[tuple[str, ...], ...]
    blank_before: bool = True


@dataclass(frozen=True)
class ClientDescription:
    fields: tuple[tuple[str, str], ...]
    pool: str
    pool_row: tuple[str, ...]


@dataclass(frozen=True)
class MemberConfig:
    member: str
    cache: tuple[tuple[str, str], ...]
    cache_server: tuple[tuple[str, str], ...]


@dataclass(frozen=True)
class GfshHelp:
    entries: tuple[tuple[str, str], ...]


@dataclass(frozen=True)
class Bye:
    pass


def _cluster(ctx: HandlerContext) -> tuple[Kernel, str]:
    return ctx.engine.kernel(), ctx.context["cluster"]


def _member(core: Kernel, group: str, name: str) -> str:
    """A server by name or member id."""
    for n in core.groups[group].nodes:
        info = q.data(core, group)["members"][n]
        if name == n or (info.get("started") and name == members.server_id(core, group, n)):
            return n
    raise EngineError("gfsh_member_not_found", member=clip(name))


@handler("geode.list_members")
def list_members(ctx: HandlerContext, args: Args) -> GfshTable:
    core, group = _cluster(ctx)
    loc = q.data(core, group)["locator"]
    lid = members.locator_id(core, group)
    rows = [("Coordinator:", lid), (str(loc["name"]), lid)]
    rows += [(n.name, members.server_id(core, group, n.name)) for n in core.group_nodes(group) if n.proc != "down"]
    return GfshTable("", ("Name", "Id"), tuple(rows), blank_before=False)


@handler("geode.list_clients")
def list_clients(ctx: HandlerContext, args: Args) -> GfshTable:
    core, group = _cluster(ctx)
    if not any(n.proc == "up" for n in core.group_nodes(group)):
        raise EngineError("gfsh_no_servers")
    rows = []
    for name, p in sorted(q.pools(core, group).items(), key=lambda i: members.client_text(core, group, i[0])):
        if not p.get("connected") or not q.holders(p):
            continue
        servers = ";  ".join(f"member={s},port={members.cache_port(core, group, s)}" for s in q.holders(p))
        rows.append((members.client_text(core, group, name), servers))
    if not rows:
        raise EngineError("gfsh_no_clients")
    return GfshTable("ClientList", ("Client Name / ID", "Server Name / ID"), tuple(rows))


@handler("geode.describe_client")
def describe_client(ctx: HandlerContext, args: Args) -> ClientDescription:
    core, group = _cluster(ctx)
    wanted = str(args["clientid"])
    name = next((c for c in q.pools(core, group) if members.client_text(core, group, c) == wanted), None)
    if name is None or not q.pool(core, group, name).get("connected"):
        raise EngineError("gfsh_client_not_present", client=clip(wanted))
    p = q.pool(core, group, name)
    pp = q.pool_params(p)
    primary = p.get("primary")
    queue = 0 if primary is None else rg.size(q.held(core, group, primary, name))
    puts = int(p["stats"].get("puts", 0))
    up = (core.now_ms - int(p.get("connected_ms", 0))) // 1000
    fields = (
        ("Primary Servers", members.server_id(core, group, primary) if primary else ""),
        ("Secondary Servers", ", ".join(members.server_id(core, group, s) for s in p.get("secondaries", []))),
        ("CPU", "0"),
        ("Number of Cache Listner Calls", "0"),
        ("Number of Gets", "0"),
        ("Number of Misses", "0"),
        ("Number of Puts", str(puts)),
        ("Number of Threads", "0"),
        ("Process CPU Time (nanoseconds)", "0"),
        ("Queue size", str(queue)),
        ("UP Time (seconds)", str(up)),
        ("Is Durable", "Yes" if pp.durable_client_id else "No"),
    )
    pool_row = (str(pp.min_connections), str(pp.max_connections), str(pp.subscription_redundancy), "0")
    return ClientDescription(fields, "DEFAULT", pool_row)


@handler("geode.describe_config")
def describe_config(ctx: HandlerContext, args: Args) -> MemberConfig:
    core, group = _cluster(ctx)
    name = _member(core, group, str(args["member"]))
    if core.node(group, name).proc == "down":
        raise EngineError("gfsh_member_not_found", member=clip(args["member"]))
    sp = q.server_params(core, group, name)
    cache = (("message-sync-interval", str(sp.message_sync_interval_s)),)
    server = (("maximum-message-count", str(sp.maximum_message_count)),
              ("maximum-time-between-pings", str(sp.maximum_time_between_pings_ms)),
              ("message-time-to-live", str(sp.message_time_to_live_s)),
              ("port", str(members.cache_port(core, group, name))))
    return MemberConfig(name, cache, server)


@handler("geode.show_queue_size")
def show_queue_size(ctx: HandlerContext, args: Args) -> GfshTable:
    core, group = _cluster(ctx)
    durable = str(args["durable-client-id"])
    chosen = [_member(core, group, m) for m in str(args["members"]).split(",")] if args.get("members") else \
        list(core.groups[group].nodes)
    running = [n for n in chosen if core.node(group, n).proc == "up"]
    client = next((c for c, p in q.pools(core, group).items()
                   if q.pool_params(p).durable_client_id == durable and q.holders(p)), None)
    if client is None:
        listed = "\n".join(f"{i}.{n}" for i, n in enumerate(running, 1))
        raise EngineError("gfsh_no_durable_client", client=clip(durable), members=listed)
    rows = tuple((n, str(rg.size(q.held(core, group, n, client)))) for n in running)
    header = f'subcription-queue-size for durable-client : "{durable}".'
    return GfshTable("", ("member", header), rows, blank_before=False)


@handler("geode.show_metrics")
def show_metrics(ctx: HandlerContext, args: Args) -> GfshTable:
    core, group = _cluster(ctx)
    name = _member(core, group, str(args["member"]))
    if core.node(group, name).proc == "down":
        raise EngineError("gfsh_member_not_found", member=clip(args["member"]))
    wanted = [c.strip().lower() for c in str(args.get("categories") or ",".join(CATEGORIES)).split(",") if c.strip()]
    bad = [c for c in wanted if c not in CATEGORIES]
    if bad:
        raise EngineError("gfsh_invalid_categories", categories="\n".join(clip(b) for b in bad[:10]))
    pools = q.pools(core, group).values()
    clients = sum(1 for p in pools if p.get("connected") and name in q.holders(p))
    queues = sum(1 for p in pools if name in q.holders(p))
    stats = q.data(core, group).get("stats", {}).get(name, {})
    rows: list[tuple[str, str, str]] = []
    if "cacheserver" in wanted:
        values = [("clientConnectionCount", str(clients)), ("hostedQueueCount", str(queues)),
                  ("queueLoad", f"{float(queues):.1f}"), ("loadPerQueue", "1.0")]
        rows += [("cacheserver" if i == 0 else "", k, v) for i, (k, v) in enumerate(values)]
    if "notification" in wanted:
        values = [("numClientNotificationRequests", str(int(stats.get("eventsQueued", 0)))),
                  ("clientNotificationRate", "0.0"), ("clientNotificationAvgLatency", "0.0")]
        rows += [("notification" if i == 0 else "", k, v) for i, (k, v) in enumerate(values)]
    return GfshTable("Member Metrics", ("Category", "Metric", "Value"), tuple(rows))


@handler("geode.alter_runtime")
def alter_runtime(ctx: HandlerContext, args: Args) -> RuntimeAltered:
    core, group = _cluster(ctx)
    names = [_member(core, group, m) for m in str(args["members"]).split(",")] if args.get("members") else []
    raw = args.get("message-sync-interval")
    if raw is None or raw == "":
        chosen = names or list(core.groups[group].nodes)
        return RuntimeAltered(tuple(members.server_id(core, group, n) for n in chosen
                                    if core.node(group, n).proc != "down"))
    text = str(raw).strip()
    if not (text.isdigit() and len(text) <= 4 and 1 <= int(text) <= 3600):
        raise EngineError("gfsh_invalid_option_value", option="message-sync-interval", value=clip(raw))
    value = int(text)
    return ctx.engine.kernel_call(f"{SYSTEM}.alter_runtime", group, names, value)  # type: ignore[no-any-return]


def _server_name(core: Kernel, group: str, args: Args) -> str:
    name = str(args.get("name") or str(args.get("dir", "")).rstrip("/").rsplit("/", 1)[-1])
    if name not in core.groups[group].nodes:
        raise EngineError("gfsh_unknown_server", name=clip(name), servers=", ".join(core.groups[group].nodes))
    return name


@handler("geode.start_server")
def start_server(ctx: HandlerContext, args: Args) -> ServerStartStop:
    core, group = _cluster(ctx)
    return ctx.engine.kernel_call(f"{SYSTEM}.start_server", group, _server_name(core, group, args))  # type: ignore[no-any-return]


@handler("geode.stop_server")
def stop_server(ctx: HandlerContext, args: Args) -> ServerStartStop:
    core, group = _cluster(ctx)
    return ctx.engine.kernel_call(f"{SYSTEM}.stop_server", group, _server_name(core, group, args))  # type: ignore[no-any-return]


@handler("geode.help")
def help_(ctx: HandlerContext, args: Args) -> GfshHelp:
    grammar = ctx.session.lab.grammar
    return GfshHelp(tuple((c.syntax, c.help) for c in grammar.commands if SYSTEM in c.modes))


@handler("geode.exit")
def exit_(ctx: HandlerContext, args: Args) -> Bye:
    return Bye()


__all__ = ["gf"]
