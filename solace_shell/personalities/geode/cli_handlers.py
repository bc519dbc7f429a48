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
from .gfsh_interceptors import MEMBER_CATEGORIES, MEMBER_PORT_CATEGORIES, SYSTEM_CATEGORIES
from .gfsh_layout import Data, GfshResult, Info, Section, Table, java_hash_set_order

MAX_ECHO = 80   # characters of a user's value an error text repeats


def clip(value: object) -> str:
    text = str(value)
    return text if len(text) <= MAX_ECHO else text[:MAX_ECHO] + "..."


@dataclass(frozen=True)
class GfshHelp:
    entries: tuple[tuple[str, str], ...]


@dataclass(frozen=True)
class Bye:
    pass


def _cluster(ctx: HandlerContext) -> tuple[Kernel, str]:
    return ctx.engine.kernel(), ctx.context["cluster"]


def _names(value: object) -> list[str]:
    return [str(v) for v in value] if isinstance(value, tuple) else []


def _running(core: Kernel, group: str) -> list[str]:
    return [n.name for n in core.group_nodes(group) if n.proc != "down"]


def _find_member(core: Kernel, group: str, name: str, locator: bool = True) -> str | None:
    """GfshCommand.findMember: a running member (the locator too) by name or id, ignoring case."""
    for n in _running(core, group):
        if name.lower() in (n.lower(), members.server_id(core, group, n).lower()):
            return n
    loc = q.data(core, group)["locator"]
    if locator and name.lower() in (str(loc["name"]).lower(), members.locator_id(core, group).lower()):
        return LOCATOR
    return None


def _get_member(core: Kernel, group: str, name: str) -> str:
    found = _find_member(core, group, name)
    if found is None:
        raise EngineError("gfsh_member_not_found", member=clip(name))
    return found


def _find_members(core: Kernel, group: str, args: Args) -> list[str]:
    """ManagementUtils.findMembers: the running servers (never the locator) named by --member or
    in --group (the lab has no groups); refuses both at once."""
    named, groups = _names(args.get("member")), _names(args.get("group"))
    if named and groups:
        raise EngineError("gfsh_member_or_group")
    if groups:
        return []
    if not named:
        return _running(core, group)
    return [n for n in _running(core, group)
            if any(m.lower() in (n.lower(), members.server_id(core, group, n).lower()) for m in named)]


LOCATOR = ""   # _find_member's answer for the locator


def _membership_port(member_id: str) -> int:
    return int(member_id.rsplit(":", 1)[1])


@handler("geode.list_members")
def list_members(ctx: HandlerContext, args: Args) -> GfshResult:
    """ListMembersCommand: the count, then every member (locator included) ordered as Geode
    orders member ids (membership port first), the coordinator (the locator) marked."""
    core, group = _cluster(ctx)
    if _names(args.get("group")):
        return GfshResult((Info(("No Members Found",)),))
    loc = q.data(core, group)["locator"]
    found = [(str(loc["name"]), members.locator_id(core, group), True)]
    found += [(n, members.server_id(core, group, n), False) for n in _running(core, group)]
    found.sort(key=lambda m: (_membership_port(m[1]), m[0]))
    rows = tuple((name, f"{ident} [Coordinator]" if coordinator else ident) for name, ident, coordinator in found)
    return GfshResult((Info((f"Member Count : {len(found)}",)), Table(("Name", "Id"), rows)))


@handler("geode.list_clients")
def list_clients(ctx: HandlerContext, args: Args) -> GfshResult:
    """ListClientCommand: each client (in the order of Java's HashMap of client ids) and the
    servers it is connected to."""
    core, group = _cluster(ctx)
    servers = _running(core, group)
    if not servers:
        return GfshResult((Info(("No cache-servers were observed.",)),))
    found: dict[str, list[str]] = {}
    for name, p in q.pools(core, group).items():
        if not p.get("connected"):
            continue
        for s in servers:
            if s in q.holders(p):
                found.setdefault(members.client_text(core, group, name), []).append(
                    f"member={s},port={members.cache_port(core, group, s)}")
    if not found:
        return GfshResult((Info(("No clients were retrieved for cache-servers.",)),))
    rows = tuple((client, ";  ".join(found[client])) for client in java_hash_set_order(list(found)))
    return GfshResult((Table(("Client Name / ID", "Server Name / ID"), rows, header="Client List"),))


@handler("geode.describe_client")
def describe_client(ctx: HandlerContext, args: Args) -> GfshResult:
    """DescribeClientCommand: the client's statistics, then a table per pool."""
    core, group = _cluster(ctx)
    wanted = str(args["clientID"])
    if wanted.startswith('"'):
        wanted = wanted[1:]
    if wanted.endswith('"'):
        wanted = wanted[:-2]
    if wanted.endswith('";'):
        wanted = wanted[:-2]
    if not _running(core, group):
        raise EngineError("gfsh_no_servers")
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
        ("Secondary Servers", " ,".join(members.server_id(core, group, s) for s in p.get("secondaries", []))),
        ("CPU", "0"),
        ("Number of Cache Listener Calls", "0"),
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
    table = Table(("Minimum Connections", "Maximum Connections", "Redundancy", "Num of CQs"), (pool_row,),
                  header=f"Pool Stats For Pool Name = {POOL}")
    return GfshResult((Data(fields), table))


POOL = "DEFAULT"
# GetMemberConfigInformationFunction's attributes and Geode's defaults for those the lab does not model
CACHE_DEFAULTS = {"copy-on-read": "false", "is-server": "false", "lock-lease": "120", "lock-timeout": "60",
                  "message-sync-interval": "1", "pdx-disk-store": "", "pdx-ignore-unread-fields": "false",
                  "pdx-persistent": "false", "pdx-read-serialized": "false", "search-timeout": "300"}
SERVER_DEFAULTS = {"bind-address": "", "hostname-for-clients": "", "load-poll-interval": "5000",
                   "max-connections": "800", "max-threads": "0", "maximum-message-count": "230000",
                   "maximum-time-between-pings": "60000", "message-time-to-live": "180",
                   "notify-by-subscription": "true", "port": "40404", "socket-buffer-size": "32768",
                   "tcp-no-delay": "true"}


@handler("geode.describe_config")
def describe_config(ctx: HandlerContext, args: Args) -> GfshResult:
    """DescribeConfigCommand: the member's cache and cache-server attributes (with
    --hide-defaults, the default, those at Geode's default value left out)."""
    core, group = _cluster(ctx)
    given = str(args["member"])
    name = _get_member(core, group, given)
    hide = bool(args.get("hide-defaults", True))
    cache = dict(CACHE_DEFAULTS)
    server: dict[str, str] | None = None
    if name != LOCATOR:
        sp = q.server_params(core, group, name)
        cache.update({"is-server": "true", "message-sync-interval": str(sp.message_sync_interval_s)})
        server = dict(SERVER_DEFAULTS)
        server.update({"maximum-message-count": str(sp.maximum_message_count),
                       "maximum-time-between-pings": str(sp.maximum_time_between_pings_ms),
                       "message-time-to-live": str(sp.message_time_to_live_s),
                       "port": str(members.cache_port(core, group, name))})

    def shown(values: dict[str, str], defaults: dict[str, str]) -> tuple[tuple[str, str], ...]:
        return tuple((k, v) for k, v in sorted(values.items()) if not (hide and defaults.get(k) == v))

    sections: list[Section] = [Table(("JVM command line arguments",), ())]
    if shown(cache, CACHE_DEFAULTS):
        sections.append(Data(shown(cache, CACHE_DEFAULTS), header="Cache attributes"))
    if server is not None and shown(server, SERVER_DEFAULTS):
        sections.append(Data(shown(server, SERVER_DEFAULTS), header="Cache-server attributes"))
    return GfshResult(tuple(sections), header=f'Configuration of member : "{given}"')


@handler("geode.show_queue_size")
def show_queue_size(ctx: HandlerContext, args: Args) -> GfshResult:
    """CountDurableCQEventsCommand: one row per member the function ran on; a member without the
    durable client's queue answers ERROR. gfsh gives the whole result ERROR status when any row
    is ERROR; the lab counts it failed only when no member found the queue, so a check that
    found the queue counts as run (docs/lab-geode.md, lab choices)."""
    core, group = _cluster(ctx)
    durable = str(args["durable-client-id"])
    targets = _find_members(core, group, args)
    if not targets:
        raise EngineError("gfsh_no_members")
    client = next((c for c, p in q.pools(core, group).items() if q.pool_params(p).durable_client_id == durable), None)
    rows = []
    for n in targets:
        if client is None or n not in q.holders(q.pool(core, group, client)):
            rows.append((n, "ERROR", f"No client found with client-id : {clip(durable)}"))
        elif args.get("durable-cq-name"):      # the lab's clients register no continuous query
            rows.append((n, "ERROR", f"No cq found on server for client with durable-client-id : {clip(durable)} "
                                     f"with cq-name : {clip(args['durable-cq-name'])}."))
        else:
            rows.append((n, "OK", str(rg.size(q.held(core, group, n, client)))))
    found = any(status == "OK" for _, status, _ in rows)
    return GfshResult((Table(("Member", "Status", "Queue Size"), tuple(rows)),), error=not found)


# ShowMetricsCommand's metrics per category, in the order it writes them, with their Java types
# (long and int print as integers, float and double as 0.0); String[] metrics print a row per
# element and none for an empty list, so the lab's empty lists print nothing
CLUSTER_METRICS = (
    ("cluster", (("totalHeapSize", "long"),)),
    ("cache", (("totalRegionEntryCount", "long"), ("totalRegionCount", "int"), ("totalMissCount", "int"),
               ("totalHitCount", "int"))),
    ("diskstore", (("totalDiskUsage", "long"), ("diskReadsRate", "float"), ("diskWritesRate", "float"),
                   ("flushTimeAvgLatency", "long"), ("totalBackupInProgress", "int"))),
    ("query", (("activeCQCount", "long"), ("queryRequestRate", "float"))),
)
MEMBER_METRICS = (
    ("member", (("upTime", "long"), ("cpuUsage", "float"), ("currentHeapSize", "long"), ("maximumHeapSize", "long"))),
    ("jvm", (("jvmThreads ", "int"), ("fileDescriptorLimit", "long"), ("totalFileDescriptorOpen", "long"))),
    ("region", (("totalRegionCount ", "int"), ("listOfRegions", "String[]"), ("rootRegions", "String[]"),
                ("totalRegionEntryCount", "int"), ("totalBucketCount", "int"), ("totalPrimaryBucketCount", "int"),
                ("getsAvgLatency", "long"), ("putsAvgLatency", "long"), ("createsRate", "float"),
                ("destroyRate", "float"), ("putAllAvgLatency", "long"), ("totalMissCount", "int"),
                ("totalHitCount", "int"), ("getsRate", "float"), ("putsRate", "float"),
                ("cacheWriterCallsAvgLatency", "long"), ("cacheListenerCallsAvgLatency", "long"),
                ("totalLoadsCompleted", "int"))),
    ("serialization", (("serializationRate", "float"), ("serializationLatency", "float"),
                       ("deserializationRate", "float"), ("deserializationLatency", "long"),
                       ("deserializationAvgLatency", "long"), ("PDXDeserializationAvgLatency", "long"),
                       ("PDXDeserializationRate", "float"))),
    ("communication", (("bytesSentRate", "float"), ("bytesReceivedRate", "float"),
                       ("connectedGatewayReceivers", "String[]"), ("connectedGatewaySenders", "String[]"))),
    ("function", (("numRunningFunctions", "int"), ("functionExecutionRate", "float"),
                  ("numRunningFunctionsHavingResults", "int"))),
    ("transaction", (("totalTransactionsCount", "int"), ("transactionCommitsAvgLatency", "long"),
                     ("transactionCommittedTotalCount", "int"), ("transactionRolledBackTotalCount", "int"),
                     ("transactionCommitsRate", "float"))),
    ("diskstore", (("totalDiskUsage", "long"), ("diskReadsRate", "float"), ("diskWritesRate", "float"),
                   ("flushTimeAvgLatency", "long"), ("totalQueueSize", "int"), ("totalBackupInProgress", "int"))),
    ("lock", (("lockWaitsInProgress", "int"), ("totalLockWaitTime", "long"), ("totalNumberOfLockService", "int"),
              ("requestQueues", "int"))),
    ("eviction", (("lruEvictionRate", "float"), ("lruDestroyRate", "float"))),
    ("distribution", (("getInitialImagesInProgress", "int"), ("getInitialImageTime", "long"),
                      ("getInitialImageKeysReceived", "int"))),
    ("offheap", (("maxMemory", "long"), ("freeMemory", "long"), ("usedMemory", "long"), ("objects", "int"),
                 ("fragmentation", "int"), ("largestFragment", "int"), ("fragments", "long"),
                 ("freedChunks", "long"), ("compactionTime", "long"))),
)
SERVER_METRICS = (
    ("cacheserver", (("clientConnectionCount", "int"), ("hostnameForClients", "String"),
                     ("getRequestAvgLatency", "long"), ("putRequestAvgLatency", "long"),
                     ("totalConnectionsTimedOut", "int"), ("threadQueueSize", "long"), ("connectionThreads", "int"),
                     ("connectionLoad", "double"), ("loadPerConnection", "double"), ("queueLoad", "double"),
                     ("loadPerQueue", "double"), ("getRequestRate", "float"), ("putRequestRate", "float"))),
    ("notification", (("numClientNotificationRequests", "int"), ("clientNotificationRate", "float"),
                      ("clientNotificationAvgLatency", "long"))),
    ("query", (("activeCQCount", "long"), ("queryRequestRate", "float"), ("indexCount", "int"),
               ("index list", "String[]"), ("totalIndexMaintenanceTime", "long"))),
)
MAX_CONNECTIONS = 800          # CacheServer.DEFAULT_MAX_CONNECTIONS, the load probe's divisor


def java_float(value: float) -> str:
    """String.valueOf of a Java float widened to double (the load probe's figures)."""
    import struct

    widened = struct.unpack("f", struct.pack("f", value))[0]
    return repr(float(widened))


def _metric_rows(table: tuple[tuple[str, tuple[tuple[str, str], ...]], ...], wanted: set[str],
                 values: dict[str, str]) -> list[tuple[str, str, str]]:
    rows: list[tuple[str, str, str]] = []
    for category, metrics in table:
        if category not in wanted:
            continue
        first = True
        for metric, kind in metrics:
            if kind == "String[]":
                continue          # the lab's lists are empty: no row
            default = "0.0" if kind in ("float", "double") else "" if kind == "String" else "0"
            rows.append((category if first else "", metric, values.get(metric, default)))
            first = False
    return rows


@handler("geode.show_metrics")
def show_metrics(ctx: HandlerContext, args: Args) -> GfshResult:
    """ShowMetricsCommand: cluster-wide without --member; a member's metrics with it, and its
    cache server's with --port; the default categories are all those that apply."""
    core, group = _cluster(ctx)
    member, region, port = args.get("member"), args.get("region"), args.get("port")
    name = None if member is None else _get_member(core, group, str(member))
    wanted = set(_names(args.get("categories")))
    if region is not None:
        raise EngineError("gfsh_region_metrics")
    if name is None:
        rows = _metric_rows(CLUSTER_METRICS, wanted or set(SYSTEM_CATEGORIES), {})
        return GfshResult((Table(("Category", "Metric", "Value"), tuple(rows), header="Cluster-wide Metrics"),))
    server = name != LOCATOR and port is not None and int(str(port)) == members.cache_port(core, group, name)
    if port is not None and not server:
        raise EngineError("gfsh_metrics_no_cache_server", port=f"{int(str(port)):,}", member=name or clip(member))
    values: dict[str, str] = {}
    if server:
        # the lab counts a connection per connected client whose queue the server hosts
        clients = sum(1 for p in q.pools(core, group).values() if p.get("connected") and name in q.holders(p))
        stats = q.data(core, group).get("stats", {}).get(name, {})
        values = {"clientConnectionCount": str(clients), "connectionLoad": java_float(clients / MAX_CONNECTIONS),
                  "loadPerConnection": java_float(1 / MAX_CONNECTIONS), "queueLoad": f"{float(clients)}",
                  "loadPerQueue": "1.0", "numClientNotificationRequests": str(int(stats.get("eventsQueued", 0)))}
    chosen = wanted or set(MEMBER_PORT_CATEGORIES if server else MEMBER_CATEGORIES)
    rows = _metric_rows(MEMBER_METRICS, chosen, values)
    if server:
        rows += _metric_rows(SERVER_METRICS, chosen, values)
    return GfshResult((Table(("Category", "Metric", "Value"), tuple(rows), header="Member Metrics"),))


@handler("geode.alter_runtime")
def alter_runtime(ctx: HandlerContext, args: Args) -> GfshResult:
    """AlterRuntimeConfigCommand: the running servers named (all without --member/--group); an
    option counts only with a value it accepts (an interval > 0); the success lists member ids in
    string order. The lab changes only message-sync-interval; the other options are accepted and
    change nothing."""
    core, group = _cluster(ctx)
    targets = _find_members(core, group, args)
    if not targets:
        raise EngineError("gfsh_no_members")
    relevant = False
    for key in ("archive-disk-space-limit", "archive-file-size-limit", "log-disk-space-limit", "log-file-size-limit",
                "statistic-sample-rate", "enable-statistics", "copy-on-read"):
        relevant = relevant or args.get(key) is not None
    for key in ("log-level", "statistic-archive-file"):
        relevant = relevant or bool(args.get(key))
    for key in ("lock-lease", "lock-timeout", "search-timeout", "message-sync-interval"):
        value = args.get(key)
        relevant = relevant or (isinstance(value, int) and 0 < value < 2**31 - 1)
    if not relevant:
        raise EngineError("gfsh_relevant_parameter")
    interval = args.get("message-sync-interval")
    if isinstance(interval, int) and 0 < interval < 2**31 - 1:
        if interval > 3600:
            raise EngineError("gfsh_invalid_option_value", option="message-sync-interval", value=interval)
        altered: RuntimeAltered = ctx.engine.kernel_call(f"{SYSTEM}.alter_runtime", group, targets, interval)
        ids = altered.members
    else:
        ids = tuple(members.server_id(core, group, n) for n in targets)
    text = "Runtime configuration altered successfully for the following member(s)\n"
    text += "".join(f"{i}\n" for i in sorted(ids))
    return GfshResult((Info((text,)),))


def _server_name(core: Kernel, group: str, args: Args) -> str:
    """The lab's server a `start server`/`stop server` names by --name or --dir (gfsh would make up
    a name, or use the current directory, which the lab cannot)."""
    name = str(args.get("name") or str(args.get("dir") or "").rstrip("/").rsplit("/", 1)[-1])
    if not name:
        raise EngineError("gfsh_server_which", servers=", ".join(core.groups[group].nodes))
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
    entries = tuple((c.syntax, c.help) for c in grammar.commands if SYSTEM in c.modes)
    wanted = args.get("command")
    if isinstance(wanted, str) and wanted:
        entries = tuple(e for e in entries if e[0].startswith(wanted)) or entries
    return GfshHelp(entries)


@handler("geode.exit")
def exit_(ctx: HandlerContext, args: Args) -> Bye:
    return Bye()


__all__ = ["gf"]
