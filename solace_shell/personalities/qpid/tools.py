"""`qpid-ha` and `qpid-config` as the tools behave: their option parsing (optparse: options
anywhere, unique prefixes of long options, `<prog>: error: ...` and exit 2), their outputs and
exit statuses, and the `<ExceptionType>: <message>` lines they print on failure (exit 1).

Each function runs inside a store command: reads on the kernel, changes through
``engine.kernel_call`` (journaled), a refusal of the model returned as the tool's text."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from state_store.errors import EngineError
from state_store.kernel import Kernel, Node
from state_store.qpid import lab as qp
from state_store.qpid import policy as qpol
from state_store.qpid.params import PORT, REPLICATE_LEVELS
from state_store.qpid.views import ToolResult

HA_COMMANDS = {"ping": ("Check if the broker is alive and responding", ()),
               "status": ("Print HA status", ()),
               "replicate": ("Set up replication from <queue> on <remote-broker> to <queue> on the current broker.",
                             ("<queue>", "<remote-broker>")),
               "query": ("Print HA configuration and status", ())}
PROMOTE_HELP = ("[Cluster manager only] Promote a backup broker to primary. This command should *only* be used by "
                "a cluster manager (such as rgmanager) that ensures only one broker is primary at a time. "
                "Promoting more than one broker to primary at the same time will make the cluster inconsistent "
                "and will cause data loss and unexpected behavior.")
COMMON = {"--broker": True, "--timeout": True, "--sasl-mechanism": True, "--sasl-service-name": True,
          "--ssl-certificate": True, "--ssl-key": True, "--config": True}
SHORT = {"-b": "--broker"}
EXTRA = {"status": {"--expect": True, "--is-primary": False, "--all": False}, "query": {"--all": False}}
PROMOTE_REFUSAL = ("Exception: 'promote' should only be called by the cluster manager.\n"
                   "Incorrect use of 'promote' will cause cluster malfunction.\n"
                   "To call from a cluster manager use 'promote --cluster-manager'. ")
CONFIG_USAGE = """
Usage:  qpid-config [OPTIONS]
        qpid-config [OPTIONS] exchanges [filter-string]
        qpid-config [OPTIONS] queues    [filter-string]
        qpid-config [OPTIONS] add exchange <type> <name> [AddExchangeOptions]
        qpid-config [OPTIONS] del exchange <name>
        qpid-config [OPTIONS] add queue <name> [AddQueueOptions]
        qpid-config [OPTIONS] del queue <name> [DelQueueOptions]
        qpid-config [OPTIONS] bind   <exchange-name> <queue-name> [binding-key]
                  <for type xml>     [-f -|filename]
                  <for type header>  [all|any] k1=v1 [, k2=v2...]
        qpid-config [OPTIONS] unbind <exchange-name> <queue-name> [binding-key]
        qpid-config [OPTIONS] reload-acl
        qpid-config [OPTIONS] add <type> <name> [--argument <property-name>=<property-value>]
        qpid-config [OPTIONS] del <type> <name>
        qpid-config [OPTIONS] list <type> [--show-property <property-name>]
        qpid-config [OPTIONS] log [<logstring>]
        qpid-config [OPTIONS] shutdown"""
CONFIG_OPTIONS = {"--timeout": True, "--recursive": False, "--broker": True, "--broker-addr": True,
                  "--sasl-mechanism": True, "--sasl-service-name": True, "--ssl-certificate": True,
                  "--ssl-key": True, "--ha-admin": False, "--ignore-default": False, "--durable": False,
                  "--replicate": True, "--alternate-exchange": True, "--start-replica": True, "--force": False,
                  "--argument": True}
CONFIG_SHORT = {"-t": "--timeout", "-r": "--recursive", "-b": "--broker", "-a": "--broker-addr"}


class OptError(Exception):
    pass


@dataclass
class Parsed:
    opts: dict[str, str | bool] = field(default_factory=dict)
    args: list[str] = field(default_factory=list)


def parse(argv: list[str], options: dict[str, bool], short: dict[str, str]) -> Parsed:
    """optparse's rules: options anywhere, `--opt=value` or `--opt value`, unique prefixes of long
    options, `--` ends the options."""
    out = Parsed()
    i = 0
    while i < len(argv):
        word = argv[i]
        i += 1
        if word == "--":
            out.args += argv[i:]
            break
        if word.startswith("--"):
            name, eq, value = word.partition("=")
            if name not in options:
                found = sorted(o for o in options if o.startswith(name))
                if not found:
                    raise OptError(f"no such option: {name}")
                if len(found) > 1:
                    raise OptError(f"ambiguous option: {name} ({', '.join(found)}?)")
                name = found[0]
            if options[name]:
                if not eq:
                    if i >= len(argv):
                        raise OptError(f"{name} option requires an argument")
                    value = argv[i]
                    i += 1
                out.opts[name] = value
            else:
                if eq:
                    raise OptError(f"{name} option does not take a value")
                out.opts[name] = True
        elif word.startswith("-") and len(word) > 1:
            flag, rest = word[:2], word[2:]
            if flag not in short:
                raise OptError(f"no such option: {flag}")
            name = short[flag]
            if options[name]:
                if not rest:
                    if i >= len(argv):
                        raise OptError(f"{flag} option requires an argument")
                    rest = argv[i]
                    i += 1
                out.opts[name] = rest
            else:
                out.opts[name] = True
        else:
            out.args.append(word)
    return out


def _target(core: Kernel, address: str, here: str, admin: bool) -> Node | str:
    """The broker the tool connects to, or the client library's exception line."""
    name, port = qp.parse_address(address)
    if name in ("0.0.0.0", "localhost", "127.0.0.1", ""):
        name = here
    node = qp.host(core, name)
    if node is None:
        return "ConnectError: [Errno -2] Name or service not known"
    if port not in (None, PORT) or node.proc == "down":
        return "ConnectError: [Errno 111] Connection refused"
    if node.proc == "hung":
        return "Timeout: Connection attach timed out"
    if not admin and node.state not in qpol.PRIMARY:
        return "ConnectionError: connection aborted"
    return node


def _address(core: Kernel, address: str, here: str) -> str:
    name, _ = qp.parse_address(address)
    return here if name in ("0.0.0.0", "localhost", "127.0.0.1", "") else address


def _ha_usage() -> list[str]:
    lines = ["usage: qpid-ha <command> [<arguments>]", "", "Commands are:", ""]
    lines += [f"  {name:<12} {text.split('.')[0]}." for name, (text, _) in HA_COMMANDS.items()]
    return lines + ["", "For help with a command type: qpid-ha <command> --help", ""]


def _cmd_usage(name: str) -> list[str]:
    text, arg_names = HA_COMMANDS.get(name, (PROMOTE_HELP, ()))
    return [f"Usage: {name} [options] {' '.join(arg_names)}", "", text, ""]


def qpid_ha(engine: Any, here: str, argv: list[str]) -> ToolResult:
    core: Kernel = engine.kernel()
    args = list(argv)
    manager = "--cluster-manager" in args
    if manager:
        args.remove("--cluster-manager")
    if args and args[0] in ("help", "--help", "-help", "-h", "help-all", "--help-all"):
        return ToolResult(tuple(_ha_usage()), 0)
    names = list(HA_COMMANDS) + (["promote"] if manager else [])
    command = next((a for a in args if a in names), None)
    if command is None:
        if "promote" in args:
            return ToolResult(tuple(PROMOTE_REFUSAL.split("\n")), 1)
        return ToolResult((*_ha_usage(), "Exception: No valid command"), 1)
    try:
        parsed = parse(args, {**COMMON, **EXTRA.get(command, {}), "--help": False}, {**SHORT, "-h": "--help"})
        timeout = parsed.opts.get("--timeout")
        if isinstance(timeout, str):
            try:
                float(timeout)
            except ValueError:
                raise OptError(f"option --timeout: invalid floating-point value: '{timeout}'") from None
    except OptError as bad:
        return ToolResult((*_cmd_usage(command), f"qpid-ha: error: {bad}"), 2)
    if parsed.opts.get("--help"):
        return ToolResult(tuple(_cmd_usage(command)), 0)
    arg_names = HA_COMMANDS.get(command, ("", ()))[1]
    if len(parsed.args) != len(arg_names) + 1:
        return ToolResult((*_cmd_usage(command), "Exception: Wrong number of arguments"), 1)
    address = str(parsed.opts.get("--broker") or "0.0.0.0")
    node = _target(core, address, here, admin=True)
    if isinstance(node, str):
        return ToolResult((node,), 1)
    if command == "ping":
        return ToolResult((), 0)
    if command == "promote":
        return _change(engine, "qpid.promote", node.name)
    if command == "replicate":
        return _change(engine, "qpid.replicate", node.name, parsed.args[1], parsed.args[2])
    if command == "status":
        return _status(core, node, parsed, here)
    return _query(core, node, parsed, here)


def _change(engine: Any, op: str, *args: Any) -> ToolResult:
    try:
        engine.kernel_call(op, *args)
    except EngineError as refused:
        if refused.code != "qpid_tool_error":
            raise
        return ToolResult(tuple(str(refused.params["text"]).split("\n")), 1)
    return ToolResult((), 0)


def _each(core: Kernel, node: Node, here: str) -> list[tuple[str, Node | str]]:
    out: list[tuple[str, Node | str]] = []
    for name in core.groups[node.group].nodes:
        found = _target(core, qpol.address(name), here, admin=True)
        out.append((qpol.address(name), found if isinstance(found, str) else found))
    return out


def _bare(error: str) -> str:
    """str() of the exception: its message without the type."""
    return error.partition(": ")[2]


def _status(core: Kernel, node: Node, parsed: Parsed, here: str) -> ToolResult:
    if parsed.opts.get("--is-primary"):
        return ToolResult((), 0 if node.state in (qpol.ACTIVE, qpol.RECOVERING) else 1)
    expect = parsed.opts.get("--expect")
    if isinstance(expect, str):
        return ToolResult((), 0 if expect == node.state else 1)
    if parsed.opts.get("--all"):
        return ToolResult(tuple(f"{a} {_bare(b) if isinstance(b, str) else b.state}"
                                for a, b in _each(core, node, here)), 0)
    return ToolResult((node.state,), 0)


def _query_block(core: Kernel, node: Node) -> list[str]:
    qpp = qpol.params(core, node.group)
    rows = [("Status:", node.state), ("Broker ID:", qpol.system_id(node)),
            ("Brokers URL:", qpol.brokers_url(core, node.group)), ("Public URL:", qpp.ha_public_url),
            ("Replicate: ", qpp.ha_replicate)]
    return [f"{k:<20} {v}" for k, v in rows]


def _query(core: Kernel, node: Node, parsed: Parsed, here: str) -> ToolResult:
    if not parsed.opts.get("--all"):
        return ToolResult(tuple(_query_block(core, node)), 0)
    lines: list[str] = []
    for a, b in _each(core, node, here):
        if isinstance(b, str):
            lines += [f"{a} {_bare(b)}", ""]
        else:
            lines += [f"{'Address:':<20} {a}", *_query_block(core, b), ""]
    return ToolResult(tuple(lines), 0)


# ---------------------------------------------------------------- qpid-config
def qpid_config(engine: Any, here: str, argv: list[str]) -> ToolResult:
    core: Kernel = engine.kernel()
    try:
        parsed = parse(argv, CONFIG_OPTIONS, CONFIG_SHORT)
        timeout = parsed.opts.get("--timeout")
        if isinstance(timeout, str) and not timeout.lstrip("-").isdigit():
            raise OptError(f"option --timeout: invalid integer value: '{timeout}'")
    except OptError as bad:
        return ToolResult((*CONFIG_USAGE.split("\n"), f"qpid-config: error: {bad}"), 2)
    level = parsed.opts.get("--replicate")
    if isinstance(level, str) and level not in REPLICATE_LEVELS:
        return ToolResult((f"Exception: Invalid replication level '{level}', should be one of: "
                           f"{', '.join(REPLICATE_LEVELS)}",), 1)
    address = str(parsed.opts.get("--broker-addr") or parsed.opts.get("--broker") or "localhost:5672")
    node = _target(core, address, here, admin=bool(parsed.opts.get("--ha-admin")))
    if isinstance(node, str):
        return ToolResult((f"Failed: {node}",), 1)
    args = parsed.args
    if args[:1] == ["queues"]:
        if parsed.opts.get("--recursive"):
            return _queue_bindings(core, node, args[1] if len(args) > 1 else "")
        return _queues(core, node, args[1] if len(args) > 1 else "")
    if args[:2] == ["add", "queue"] and len(args) >= 3:
        replica = parsed.opts.get("--start-replica")
        result = _change(engine, "qpid.add_queue", node.name, args[2], level if isinstance(level, str) else None,
                         replica if isinstance(replica, str) else None, bool(parsed.opts.get("--durable")))
        if result.status:
            return ToolResult(tuple(f"Failed: {line}" for line in result.lines), 1)
        if isinstance(replica, str):
            return _change(engine, "qpid.replicate", node.name, replica, args[2])
        return result
    if args[:2] == ["add", "exchange"] and len(args) >= 4:
        result = _change(engine, "qpid.add_exchange", node.name, args[2], args[3],
                         level if isinstance(level, str) else None)
        return result
    if args[:1] == ["bind"] and len(args) >= 3:
        return _change(engine, "qpid.bind", node.name, args[1], args[2], args[3] if len(args) > 3 else "")
    return ToolResult(tuple(CONFIG_USAGE.split("\n")), 1)


def _queues(core: Kernel, node: Node, pattern: str) -> ToolResult:
    queues = core.groups[node.group].data["queues"]
    shown = [q for q in queues if qpol.queue_on(core, node, q) and pattern in q]
    if not shown:
        return ToolResult((), 1)
    width = max([len("Queue Name"), *map(len, shown)])
    lines = [f"{'Queue Name':<{width}}  Attributes", "=" * (5 * (width // 5 + 5))]
    for q in shown:
        attrs = []
        if queues[q].get("durable"):
            attrs.append("--durable")
        if queues[q].get("replicate"):
            attrs.append(f"--replicate={queues[q]['replicate']}")
        lines.append(f"{q:<{width}}  {' '.join(attrs)}".rstrip())
    return ToolResult(tuple(lines), 0)


def _queue_bindings(core: Kernel, node: Node, pattern: str) -> ToolResult:
    """``qpid-config -r queues``: each queue with its bindings (the default exchange's first)."""
    lines: list[str] = []
    for q in core.groups[node.group].data["queues"]:
        if qpol.queue_on(core, node, q) and pattern in q:
            lines.append(f"Queue '{q}'")
            lines.append(f"    bind [{q}] => ''")
            for exchange, key in qpol.bindings_on(core, node, q):
                lines.append(f"    bind [{key}] => {exchange or chr(39) * 2}")
    return ToolResult(tuple(lines), 0)
