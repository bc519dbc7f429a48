"""`qpid-ha` and `qpid-config` as the tools behave (qpid-cpp 1.39.0's management/python/bin): how
they read their words (optparse, options.py: `read_words`, the one reader of a broker host's
shell line, for the shell and for grading alike), the connection each makes first, the
`<ExceptionType>: <message>` lines they print on failure (exit 1; qpid-config after `Failed: `)
and a broker's refusal as its agent answers it (agent_texts.py). Each command the tools know is a
handler (ha_handlers.py, config_handlers.py) given the tool's reading; what it returns is laid out
by tool_renderers.py.

The handlers run inside a store command: reads on the kernel, changes through
``engine.kernel_call`` (journaled), a refusal of the model returned as the tool's text."""

from __future__ import annotations

import shlex
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from state_store.errors import EngineError
from state_store.kernel import Kernel, Node
from state_store.qpid import operations as qp
from state_store.qpid import policy as qpol
from state_store.qpid.params import PORT, REPLICATE_LEVELS
from state_store.qpid.views import ToolResult

from ...parsed_command import ParsedCommand
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


def connect(core: Kernel, address: str, here: str, admin: bool) -> Node | str:
    """The broker the tool connects to at `address` from the host `here` (`admin`: a connection
    a backup accepts), or the client library's exception line."""
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


@dataclass(frozen=True)
class ToolCall:
    """A broker host's shell line as its program read it: the words that name its command in the
    grammar (`qpid-ha promote`, `qpid-config add queue`, `ssh`; a qpid-config word the tool does
    not know makes a name the grammar lacks), the program's options (optparse's values; None for
    a program without options), its positional words as optparse left them (qpid-ha's include
    the command's own word), and what the line gave by name (options that differ from their
    defaults, `cluster-manager`, the positional words by their names): what grading matches."""

    command: str
    options: Any = None
    words: tuple[str, ...] = ()
    given: Mapping[str, object] = field(default_factory=dict)

    @property
    def program(self) -> str:
        return self.command.split(" ", 1)[0]


def tool_call(args: Mapping[str, Any]) -> ToolCall:
    """The reading a handler of the broker host's shell is given (``args["call"]``)."""
    call: ToolCall = args["call"]
    return call


def read_ha(argv: list[str]) -> ToolCall | ToolResult:
    """qpid-ha's reading of its words: the command with its options and positional words; or what
    the tool prints and its status when it ends there (help, usage, an option error)."""
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
    with used_once(ha_command_parser(command)) as parser:
        try:
            opts, positional = parser.parse_args(args)
        except ToolExit as ended:
            return ToolResult(tuple(ended.text.rstrip("\n").split("\n")), ended.status)
        arg_names = HA_COMMANDS.get(command, ("", ()))[1]
        if len(positional) != len(arg_names) + 1:    # print_help, then the exception's line
            return ToolResult((*parser.help_text().rstrip("\n").split("\n"), "Exception: Wrong number of arguments"),
                              1)
        given = _named(opts, parser.defaults)
    rest = list(positional)
    rest.remove(command)
    given |= _positional(tuple(n.strip("<>") for n in arg_names), rest)
    if manager:
        given["cluster-manager"] = True
    return ToolCall(f"qpid-ha {command}", opts, tuple(positional), given)


def _help_text(command: str) -> str:
    with used_once(ha_command_parser(command)) as parser:
        return parser.help_text()


def ha_command_parser(command: str) -> ToolParser:
    """The option parser of one qpid-ha command (made for one use: see `options.used_once`)."""
    return ha_parser(command, _command_help(command), HA_COMMANDS.get(command, ("", ()))[1])


def change(engine: Any, op: str, *args: Any) -> ToolResult:
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


# ---------------------------------------------------------------- qpid-config
def read_config(argv: list[str]) -> ToolCall | ToolResult:
    """qpid-config's reading of its words: the subcommand its positional words name (the longest
    it knows, else the first word) with its options and positional words, or what the tool prints
    and its status when it ends there (help, an option error)."""
    try:
        with used_once(config_parser(CONFIG_USAGE)) as parser:
            opts, args = parser.parse_args(argv)
            given = _named(opts, parser.defaults)
    except ToolExit as ended:
        return ToolResult(tuple(ended.text.rstrip("\n").split("\n")), ended.status)
    sub = next((k for k in sorted(CONFIG_COMMANDS, key=len, reverse=True) if tuple(args[:len(k)]) == k),
               tuple(args[:1]))
    given |= _positional(CONFIG_COMMANDS.get(sub, ()), args[len(sub):])
    return ToolCall(" ".join(("qpid-config", *sub)), opts, tuple(args), given)


def replicate_traceback(level: str) -> ToolResult:
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


def config_failed(result: ToolResult) -> ToolResult:
    """qpid-config's `except Exception`: ``Failed: `` before the exception's line."""
    return ToolResult(tuple(f"Failed: {line}" for line in result.lines), result.status)


def config_error(message: str) -> ToolResult:
    """qpid-config's optparse error for a check it makes after parsing (usage, the line, exit 2)."""
    with used_once(config_parser(CONFIG_USAGE)) as parser:
        return parser_error(parser, message)


def parser_error(parser: ToolParser, message: str) -> ToolResult:
    """optparse's error for a check a tool makes after parsing: its usage, then the line (exit 2)."""
    try:
        parser.error(message)
    except ToolExit as ended:
        return ToolResult(tuple(ended.text.rstrip("\n").split("\n")), ended.status)


# ---------------------------------------------------------------- the names a reading gives
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


def read_words(words: list[str]) -> ToolCall | ToolResult:
    """The one reading of a broker host's shell line split into `words` (not empty): qpid-ha's
    and qpid-config's through their option parsers, any other program by its first word and its
    arguments; a `ToolResult` when a tool ends while reading them (what it prints, its status)."""
    first, rest = words[0], words[1:]
    if first == "qpid-ha":
        return read_ha(rest)
    if first == "qpid-config":
        return read_config(rest)
    return ToolCall(first, None, tuple(rest), _positional(SHELL_ARGS.get(first, ()), rest))


def described(words: list[str], read: ToolCall | ToolResult) -> ParsedCommand | str:
    """A line's reading (`read_words` of its `words`) as grading matches it: a `ParsedCommand`
    (`qpid-ha <command>` with its options and `cluster-manager`, `qpid-config <subcommand>` with
    its options and named positional words, any other command by its first word; a tool's help
    as `<tool> help`), or the tool's error text when it refused the words."""
    if isinstance(read, ToolResult):
        return ParsedCommand(f"{words[0]} help") if read.status == 0 else read.lines[-1].strip()
    return ParsedCommand(read.command, read.given)


def parse_command(grammar: Any, line: str) -> ParsedCommand | str | None:
    """A runbook's broker host line, read as the shell reads a typed one (`described`): the
    shell's error text for a line it cannot split, None for a blank line. (`grammar` is not used:
    the tools parse their own words.)"""
    words = shell_words(line)
    if isinstance(words, str):
        return words
    return described(words, read_words(words)) if words else None
