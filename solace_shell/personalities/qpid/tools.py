"""`qpid-ha` and `qpid-config` as the tools behave (qpid-cpp 1.39.0's management/python/bin):
their option parsing (optparse, options.py), their outputs and exit statuses, and the
`<ExceptionType>: <message>` lines they print on failure (exit 1; qpid-config after `Failed: `),
a broker's refusal as its agent answers it (agent_texts.py), qpid-config's listings
(config_lists.py).

Each function runs inside a store command: reads on the kernel, changes through
``engine.kernel_call`` (journaled), a refusal of the model returned as the tool's text."""

from __future__ import annotations

import shlex
from typing import Any

from state_store.errors import EngineError
from state_store.kernel import Kernel, Node
from state_store.qpid import operations as qp
from state_store.qpid import policy as qpol
from state_store.qpid.params import PORT, REPLICATE_LEVELS
from state_store.qpid.views import ToolResult

from ...parsed_command import ParsedCommand
from . import config_lists
from .agent_texts import agent_exception
from .options import ToolExit, ToolParser, config_parser, ha_parser, used_once

HA_COMMANDS = {"ping": ("Check if the broker is alive and responding", ()),
               "status": ("Print HA status", ()),
               "replicate": ("Set up replication from <queue> on <remote-broker> to <queue> on the current broker.",
                             ("<queue>", "<remote-broker>")),
               "query": ("Print HA configuration and status", ())}
PROMOTE_HELP = ("Promote a backup broker to primary. This command should *only* be used by "
                "a cluster manager (such as rgmanager) that ensures only one broker is primary at a time. "
                "Promoting more than one broker to primary at the same time will make the cluster inconsistent "
                "and will cause data loss and unexpected behavior.")
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
def _target(core: Kernel, address: str, here: str, admin: bool) -> Node | str:
    """The broker the tool connects to, or the client library's exception line."""
    name, port = qp.parse_address(address)
    if name in ("0.0.0.0", "localhost", "127.0.0.1", ""):
        name = here
    node = qp.resolve(core, name)
    if node is None and qp.known_host(core, name):   # a virtual IP nobody holds
        return "ConnectError: [Errno 113] No route to host"
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


def _ha_usage(manager: bool) -> list[str]:
    """qpid-ha's `print_usage`: its user commands, and `promote` after them once
    `--cluster-manager` has added the manager commands to the same list."""
    lines = ["usage: qpid-ha <command> [<arguments>]", "", "Commands are:", ""]
    lines += [f"  {name:<12} {_command_help(name).split('.')[0]}." for name in _ha_names(manager)]
    return lines + ["", "For help with a command type: qpid-ha <command> --help", ""]


def _ha_names(manager: bool) -> list[str]:
    return [*HA_COMMANDS, *(("promote",) if manager else ())]


def _command_help(name: str) -> str:
    return HA_COMMANDS[name][0] if name in HA_COMMANDS else "[Cluster manager only] " + PROMOTE_HELP


HaCall = tuple[str, Any, list[str], bool]     # (command, options, positional words, --cluster-manager)


def read_ha(argv: list[str]) -> HaCall | ToolResult:
    """qpid-ha's reading of its words: the command, its options and positional words, and whether
    `--cluster-manager` was given; or what the tool prints and its status when it ends there
    (help, usage, an option error)."""
    args = list(argv)
    manager = "--cluster-manager" in args
    if manager:
        args.remove("--cluster-manager")
    if args and args[0] in ("help", "--help", "-help", "-h", "help-all", "--help-all"):
        if "help-all" in args[0]:    # each command's help, a blank line after each
            return ToolResult(tuple(line for n in _ha_names(manager)
                                    for line in (*_help_text(n).rstrip("\n").split("\n"), "")), 0)
        return ToolResult(tuple(_ha_usage(manager)), 0)
    names = _ha_names(manager)
    command = next((a for a in args if a in names), None)
    if command is None:
        if "promote" in args:
            return ToolResult(tuple(PROMOTE_REFUSAL.split("\n")), 1)
        return ToolResult((*_ha_usage(manager), "Exception: No valid command"), 1)
    with used_once(_parser(command)) as parser:
        try:
            opts, positional = parser.parse_args(args)
        except ToolExit as ended:
            return ToolResult(tuple(ended.text.rstrip("\n").split("\n")), ended.status)
        arg_names = HA_COMMANDS.get(command, ("", ()))[1]
        if len(positional) != len(arg_names) + 1:    # print_help, then the exception's line
            return ToolResult((*parser.help_text().rstrip("\n").split("\n"), "Exception: Wrong number of arguments"),
                              1)
    return command, opts, positional, manager


def qpid_ha(engine: Any, here: str, argv: list[str]) -> ToolResult:
    core: Kernel = engine.kernel()
    read = read_ha(argv)
    if isinstance(read, ToolResult):
        return read
    command, opts, positional, _ = read
    if opts.ssl_key and not opts.ssl_certificate:    # checked as it connects, by its parser
        with used_once(_parser(command)) as parser:
            return _parser_error(parser, "missing '--ssl-certificate' (required by '--ssl-key')")
    address = str(opts.broker or "0.0.0.0")
    node = _target(core, address, here, admin=True)
    if isinstance(node, str):
        return ToolResult((node,), 1)
    if command == "ping":
        return ToolResult((), 0)
    if command == "promote":
        return _change(engine, "qpid.promote", node.name)
    if command == "replicate":
        return _change(engine, "qpid.replicate", node.name, positional[1], positional[2])
    if command == "status":
        return _status(core, node, opts, here)
    return _query(core, node, opts, here)


def _help_text(command: str) -> str:
    with used_once(_parser(command)) as parser:
        return parser.help_text()


def _parser(command: str) -> ToolParser:
    return ha_parser(command, _command_help(command), HA_COMMANDS.get(command, ("", ()))[1])


def _change(engine: Any, op: str, *args: Any) -> ToolResult:
    """Run a change on the broker; a refusal as qpid-ha prints the exception it ends with (the
    client library's, or the agent's answer wrapped by BrokerAgent)."""
    try:
        engine.kernel_call(op, *args)
    except EngineError as refused:
        if refused.code == "qpid_agent_error":
            return ToolResult((agent_exception(str(refused.params["error"]), str(refused.params["name"])),), 1)
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


def _status(core: Kernel, node: Node, opts: Any, here: str) -> ToolResult:
    if opts.is_primary:
        return ToolResult((), 0 if node.state in (qpol.ACTIVE, qpol.RECOVERING) else 1)
    if opts.expect:
        return ToolResult((), 0 if opts.expect == node.state else 1)
    if opts.all:
        return ToolResult(tuple(f"{a} {_bare(b) if isinstance(b, str) else b.state}"
                                for a, b in _each(core, node, here)), 0)
    return ToolResult((node.state,), 0)


def _query_block(core: Kernel, node: Node) -> list[str]:
    qpp = qpol.params(core, node.group)
    rows = [("Status:", node.state), ("Broker ID:", qpol.system_id(node)),
            ("Brokers URL:", qpol.brokers_url(core, node.group)), ("Public URL:", qpp.ha_public_url),
            ("Replicate: ", qpp.ha_replicate)]
    return [f"{k:<20} {v}" for k, v in rows]


def _query(core: Kernel, node: Node, opts: Any, here: str) -> ToolResult:
    if not opts.all:
        return ToolResult(tuple(_query_block(core, node)), 0)
    lines: list[str] = []
    for a, b in _each(core, node, here):
        if isinstance(b, str):
            lines += [f"{a} {_bare(b)}", ""]
        else:
            lines += [f"{'Address:':<20} {a}", *_query_block(core, b), ""]
    return ToolResult(tuple(lines), 0)


# ---------------------------------------------------------------- qpid-config
def read_config(argv: list[str]) -> tuple[Any, list[str]] | ToolResult:
    """qpid-config's reading of its words: its options and positional words, or what the tool
    prints and its status when it ends there (help, an option error)."""
    try:
        with used_once(config_parser(CONFIG_USAGE)) as parser:
            opts, args = parser.parse_args(argv)
    except ToolExit as ended:
        return ToolResult(tuple(ended.text.rstrip("\n").split("\n")), ended.status)
    return opts, args


def _replicate_traceback(level: str) -> ToolResult:
    """qpid-config checks --replicate before its `try`, so a bad level ends it with Python's
    traceback (qpid-config 1.39.0 installed as /usr/bin/qpid-config), exit 1."""
    lines = ["Traceback (most recent call last):",
             '  File "/usr/bin/qpid-config", line 893, in <module>', "    sys.exit(main())",
             '  File "/usr/bin/qpid-config", line 776, in main', "    args = OptionsAndArguments(argv)",
             '  File "/usr/bin/qpid-config", line 305, in OptionsAndArguments',
             "    raise Exception(\"Invalid replication level '%s', should be one of: %s\" % (opts.replicate, "
             "\", \".join(REPLICATE_LEVELS)))",
             f"Exception: Invalid replication level '{level}', should be one of: {', '.join(REPLICATE_LEVELS)}"]
    return ToolResult(tuple(lines), 1)


def qpid_config(engine: Any, here: str, argv: list[str]) -> ToolResult:
    """qpid-config's main: its options, the connection, then the subcommand; every exception
    after connecting printed as ``Failed: <type>: <message>`` (exit 1), usage for words it does
    not take (exit 1, its `Usage()` exits -1 into the `SystemExit` branch)."""
    core: Kernel = engine.kernel()
    read = read_config(argv)
    if isinstance(read, ToolResult):
        return read
    opts, args = read
    level = opts.replicate
    if level and level not in REPLICATE_LEVELS:
        return _replicate_traceback(level)
    if opts.ssl_key and not opts.ssl_certificate:
        return _config_error("missing '--ssl-certificate' (required by '--ssl-key')")
    address = str(opts.broker_addr or opts.broker or "localhost:5672")
    node = _target(core, address, here, admin=bool(opts.ha_admin))
    if isinstance(node, str):
        return ToolResult((f"Failed: {node}",), 1)
    modifier = args[1] if len(args) > 1 else ""
    if args[:1] == ["queues"]:
        listed = config_lists.queues(core, node)
        if opts.recursive:
            lines = config_lists.queue_binding_lines(core, node, listed, modifier, bool(opts.ignore_default))
            return ToolResult(tuple(lines), 0)
        lines = config_lists.queue_lines(listed, modifier)
        return ToolResult(tuple(lines), 0 if lines else 1)
    if not args:
        return ToolResult(tuple(config_lists.overview_lines(core, node)), 0)
    if args[:1] == ["exchanges"]:
        if opts.recursive:
            lines = config_lists.exchange_binding_lines(core, node, modifier, bool(opts.ignore_default))
            return ToolResult(tuple(lines), 0)
        lines = config_lists.exchange_lines(config_lists.exchanges(core, node), modifier, bool(opts.ignore_default))
        return ToolResult(tuple(lines), 0 if lines else 1)
    if args[:2] == ["add", "queue"] and len(args) >= 3:
        replica = opts.start_replica
        result = _change(engine, "qpid.add_queue", node.name, args[2], level or None, replica, bool(opts.durable))
        if not result.status and replica is not None:
            result = _change(engine, "qpid.replicate", node.name, replica, args[2])
        return _failed(result)
    if args[:2] == ["add", "exchange"] and len(args) >= 4:
        return _failed(_change(engine, "qpid.add_exchange", node.name, args[2], args[3], level or None))
    if args[:1] == ["bind"] and len(args) >= 3:
        return _failed(_change(engine, "qpid.bind", node.name, args[1], args[2], args[3] if len(args) > 3 else ""))
    return ToolResult(tuple(CONFIG_USAGE.split("\n")), 1)


def _failed(result: ToolResult) -> ToolResult:
    """qpid-config's `except Exception`: ``Failed: `` before the exception's line."""
    return ToolResult(tuple(f"Failed: {line}" for line in result.lines), result.status)


def _config_error(message: str) -> ToolResult:
    with used_once(config_parser(CONFIG_USAGE)) as parser:
        return _parser_error(parser, message)


def _parser_error(parser: ToolParser, message: str) -> ToolResult:
    """optparse's error for a check a tool makes after parsing: its usage, then the line (exit 2)."""
    try:
        parser.error(message)
    except ToolExit as ended:
        return ToolResult(tuple(ended.text.rstrip("\n").split("\n")), ended.status)


# ---------------------------------------------------------------- the shell's lines, for grading
# qpid-config's subcommands (the words that name them) and the names of their positional words
CONFIG_COMMANDS: dict[tuple[str, ...], tuple[str, ...]] = {
    ("add", "queue"): ("name",), ("del", "queue"): ("name",), ("add", "exchange"): ("type", "name"),
    ("del", "exchange"): ("name",), ("queues",): ("filter-string",), ("exchanges",): ("filter-string",),
    ("bind",): ("exchange-name", "queue-name", "binding-key"),
    ("unbind",): ("exchange-name", "queue-name", "binding-key"),
}
SHELL_ARGS = {"ssh": ("destination",)}      # other words: arg1, arg2, ...


def shell_words(line: str) -> list[str] | str:
    """The words of a shell line as a POSIX shell splits them, a comment cut off; or bash's
    syntax error."""
    try:
        words = shlex.split(line)
    except ValueError as bad:
        return f"-bash: syntax error: {bad}"
    cut = next((i for i, w in enumerate(words) if w.startswith("#")), len(words))
    return words[:cut]


def _named(values: Any, defaults: dict[str, Any]) -> dict[str, object]:
    """optparse's values that differ from the defaults, by option name (`is_primary` ->
    `is-primary`): what the line gave."""
    return {k.replace("_", "-"): v for k, v in vars(values).items() if v is not None and v != defaults.get(k)}


def _positional(names: tuple[str, ...], words: list[str]) -> dict[str, object]:
    return {(names[i] if i < len(names) else f"arg{i + 1}"): w for i, w in enumerate(words)}


def parse_command(grammar: Any, line: str) -> ParsedCommand | str | None:
    """A broker host's shell line as a `ParsedCommand`: `qpid-ha <command>` with its options
    (and `cluster-manager`), `qpid-config <subcommand>` with its options and named positional
    words, any other command by its first word; the tool's or the shell's error text for a line
    it refuses; None for a blank line. (`grammar` is not used: the tools parse their own words.)"""
    words = shell_words(line)
    if isinstance(words, str):
        return words
    if not words:
        return None
    first, rest = words[0], words[1:]
    if first == "qpid-ha":
        read = read_ha(rest)
        if isinstance(read, ToolResult):
            return ParsedCommand("qpid-ha help") if read.status == 0 else read.lines[-1].strip()
        command, opts, positional, manager = read
        with used_once(_parser(command)) as parser:
            args = _named(opts, parser.defaults)
        arg_names = tuple(n.strip("<>") for n in HA_COMMANDS.get(command, ("", ()))[1])
        words = list(positional)
        words.remove(command)
        args |= _positional(arg_names, words)
        if manager:
            args["cluster-manager"] = True
        return ParsedCommand(f"qpid-ha {command}", args)
    if first == "qpid-config":
        read_c = read_config(rest)
        if isinstance(read_c, ToolResult):
            return ParsedCommand("qpid-config help") if read_c.status == 0 else read_c.lines[-1].strip()
        opts, positional = read_c
        with used_once(config_parser(CONFIG_USAGE)) as parser:
            args = _named(opts, parser.defaults)
        sub = next((k for k in sorted(CONFIG_COMMANDS, key=len, reverse=True)
                    if tuple(positional[:len(k)]) == k), tuple(positional[:1]))
        args |= _positional(CONFIG_COMMANDS.get(sub, ()), positional[len(sub):])
        return ParsedCommand(" ".join(("qpid-config", *sub)), args)
    return ParsedCommand(first, _positional(SHELL_ARGS.get(first, ()), rest))
