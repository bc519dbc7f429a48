"""The tools' command lines, parsed by optparse as the tools themselves do: options anywhere,
unique prefixes of long options, `-bHOST`, `--opt=value`, and optparse's own texts for every
mistake (`<prog>: error: <message>` after the usage, exit 2) and for `--help`.

Why optparse: the tools are optparse programs, so the same library gives their exact behaviour
and texts; the parser only writes to the buffer it is given and raises instead of exiting. The
tools run on Python 2, whose optparse says "requires an argument" where Python 3's says "requires
1 argument". Help is wrapped at 78 columns, optparse's own width where COLUMNS is unset (80 less
2), whatever the lab's environment."""

from __future__ import annotations

import io
import optparse
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any, NoReturn

BROKER_HELP = ("Address of qpidd broker with syntax: [username/password@] hostname | ip-address [:<port>]")
HA_DEFAULTS = {"broker": "0.0.0.0", "timeout": 10.0}
HELP_WIDTH = 78


class ToolExit(Exception):
    """The parser ended the tool: what it printed and the exit status."""

    def __init__(self, text: str, status: int) -> None:
        super().__init__(text)
        self.text = text
        self.status = status


class ToolParser(optparse.OptionParser):
    def __init__(self, *args: object, **kwargs: object) -> None:
        super().__init__(*args, **kwargs)  # type: ignore[arg-type]
        self.out = io.StringIO()

    def exit(self, status: int = 0, msg: str | None = None) -> NoReturn:
        raise ToolExit(self.out.getvalue() + (msg or ""), status)

    def error(self, msg: str) -> NoReturn:
        msg = msg.replace("option requires 1 argument", "option requires an argument")
        self.print_usage(self.out)
        self.exit(2, f"{self.get_prog_name()}: error: {msg}\n")

    def print_help(self, file: object = None) -> None:
        super().print_help(self.out)

    def help_text(self) -> str:
        return self.format_help()


def ha_parser(name: str, text: str, arg_names: tuple[str, ...]) -> ToolParser:
    """The parser of one qpid-ha command."""
    parser = ToolParser(f"{name} [options] {' '.join(arg_names)}\n\n{text}", prog="qpid-ha",
                        formatter=optparse.IndentedHelpFormatter(width=HELP_WIDTH))

    def default(what: str) -> str:
        return f" (Default {HA_DEFAULTS[what]})"

    common = optparse.OptionGroup(parser, "Broker connection options")
    common.add_option("-b", "--broker", metavar="<address>", help=BROKER_HELP + default("broker"))
    common.add_option("--timeout", type="float", metavar="<seconds>",
                      help="Give up if the broker does not respond within the timeout. 0 means wait forever"
                           + default("timeout"))
    common.add_option("--sasl-mechanism", metavar="<mech>",
                      help="SASL mechanism for authentication (e.g. EXTERNAL, ANONYMOUS, PLAIN, CRAM-MD5, "
                           "DIGEST-MD5, GSSAPI). SASL automatically picks the most secure available mechanism - "
                           "use this option to override")
    common.add_option("--sasl-service-name", action="store", type="string", help="SASL service name to use")
    common.add_option("--ssl-certificate", metavar="<cert>", help="Client SSL certificate (PEM Format)")
    common.add_option("--ssl-key", metavar="<key>", help="Client SSL private key (PEM Format)")
    common.add_option("--config", metavar="<path/to/qpidd.conf>",
                      help="Read default connection configuration from the qpidd.conf broker configuration "
                           "file. Defaults are overridden by command-line options.)")
    parser.add_option_group(common)
    if name == "status":
        parser.add_option("--expect", metavar="<status>",
                          help="Don't print status. Return 0 if it matches <status>, 1 otherwise")
        parser.add_option("--is-primary", action="store_true", default=False,
                          help="Don't print status. Return 0 if the broker is primary, 1 otherwise")
        parser.add_option("--all", action="store_true", default=False,
                          help="Print status for all brokers in the cluster")
    if name == "query":
        parser.add_option("--all", action="store_true", default=False,
                          help="Print configuration and status for all brokers in the cluster")
    return parser


class _Verbatim(optparse.IndentedHelpFormatter):
    """qpid-config prints its usage and description as written."""

    def __init__(self) -> None:
        super().__init__(width=HELP_WIDTH)

    def format_usage(self, usage: str) -> str:
        return usage

    def format_description(self, description: str | None) -> str:
        return description + "\n" if description else ""


CONFIG_DESCRIPTION = """
Examples:

$ qpid-config add queue q
$ qpid-config add exchange direct d -a localhost:5672
$ qpid-config exchanges -b 10.1.1.7:10000
$ qpid-config queues -b guest/guest@broker-host:10000

Add Exchange <type> values:

    direct     Direct exchange for point-to-point communication
    fanout     Fanout exchange for broadcast communication
    topic      Topic exchange that routes messages using binding keys with wildcards
    headers    Headers exchange that matches header fields against the binding keys
    xml        XML Exchange - allows content filtering using an XQuery


Queue Limit Actions:

    none (default) - Use broker's default policy
    reject         - Reject enqueued messages
    ring           - Replace oldest unacquired message with new

Replication levels:

    none           - no replication
    configuration  - replicate queue and exchange existence and bindings, but not messages.
    all            - replicate configuration and messages

Log <logstring> value:

    Comma separated <module>:<level> pairs, e.g. 'info+,debug+:Broker,trace+:Queue'
"""

_S, _T, _I = "store", "store_true", "int"
# qpid-config's option groups: (title, [(flags, action, type, metavar, help, extra)])
_CONFIG_GROUPS: list[tuple[str, list[tuple[tuple[str, ...], str, str | None, str | None, str | None,
                                          dict[str, Any]]]]] = [
    ("General Options", [
        (("-t", "--timeout"), _S, _I, "<secs>", "Maximum time to wait for broker connection (in seconds)",
         {"default": 10}),
        (("-r", "--recursive"), _T, None, None, "Show bindings in queue or exchange list", {}),
        (("-b", "--broker"), _S, "string", "<address>",
         "Address of qpidd broker with syntax: [username/password@] hostname | ip-address [:<port>]", {}),
        (("-a", "--broker-addr"), _S, "string", "<address>", None, {}),
        (("--sasl-mechanism",), _S, "string", "<mech>",
         "SASL mechanism for authentication (e.g. EXTERNAL, ANONYMOUS, PLAIN, CRAM-MD5, DIGEST-MD5, GSSAPI). "
         "SASL automatically picks the most secure available mechanism - use this option to override.", {}),
        (("--sasl-service-name",), _S, "string", None, "SASL service name to use", {}),
        (("--ssl-certificate",), _S, "string", "<cert>", "Client SSL certificate (PEM Format)", {}),
        (("--ssl-key",), _S, "string", "<key>", "Client SSL private key (PEM Format)", {}),
        (("--ha-admin",), _T, None, None, "Allow connection to a HA backup broker.", {})]),
    ("Options for Listing Exchanges and Queues", [
        (("--ignore-default",), _T, None, None, "Ignore the default exchange in exchange or queue list", {})]),
    ("Options for Adding Exchanges and Queues", [
        (("--alternate-exchange",), _S, "string", "<aexname>",
         "Name of the alternate-exchange for the new queue or exchange. Exchanges route messages to the "
         "alternate exchange if they are unable to route them elsewhere. Queues route messages to the alternate "
         "exchange if they are rejected by a subscriber or orphaned by queue deletion.", {}),
        (("--durable",), _T, None, None, "The new queue or exchange is durable.", {}),
        (("--replicate",), _S, None, "<level>",
         "Enable automatic replication in a HA cluster. <level> is 'none', 'configuration' or 'all').", {})]),
    ("Options for Adding Queues", [
        (("--file-count",), _S, _I, "<n>", "[legacystore] Number of files in queue's persistence journal", {}),
        (("--file-size",), _S, _I, "<n>", "[legactystore] File size in pages (64KiB/page)", {}),
        (("--efp-partition-num",), _S, _I, "<n>", "[linearstore] EFP partition number", {}),
        (("--efp-pool-file-size",), _S, _I, "<n>", "[linearstore] EFP file size (KiB)", {}),
        (("--wcache-page-size",), _S, _I, "<n>",
         "[linearstore] Per-queue buffer page size (kiB), value may be powers of 2 starting at 4 (4, 8, 16, 32...)",
         {}),
        (("--wcache-num-pages",), _S, _I, "<n>", "[linearstore] Per-queue num buffer pages", {}),
        (("--max-queue-size",), _S, _I, "<n>", "Maximum in-memory queue size as bytes", {}),
        (("--max-queue-count",), _S, _I, "<n>", "Maximum in-memory queue size as a number of messages", {}),
        (("--limit-policy",), _S, None, "<policy>", "Action to take when queue limit is reached",
         {"choices": ["none", "reject", "ring", "ring-strict"]}),
        (("--lvq-key",), _S, None, "<key>", "Last Value Queue key", {}),
        (("--flow-stop-size",), _S, _I, "<n>",
         "Turn on sender flow control when the number of queued bytes exceeds this value.", {}),
        (("--flow-resume-size",), _S, _I, "<n>",
         "Turn off sender flow control when the number of queued bytes drops below this value.", {}),
        (("--flow-stop-count",), _S, _I, "<n>",
         "Turn on sender flow control when the number of queued messages exceeds this value.", {}),
        (("--flow-resume-count",), _S, _I, "<n>",
         "Turn off sender flow control when the number of queued messages drops below this value.", {}),
        (("--group-header",), _S, "string", "<header-name>",
         "Enable message groups. Specify name of header that holds group identifier.", {}),
        (("--shared-groups",), _T, None, None, "Allow message group consumption across multiple consumers.", {}),
        (("--argument",), "append", None, "<NAME=VALUE>", "Specify a key-value pair to add to queue arguments",
         {"dest": "extra_arguments", "default": []}),
        (("--start-replica",), _S, None, "<broker-url>",
         "Start replication from the same-named queue at <broker-url>", {})]),
    ("Options for Adding Exchanges", [
        (("--sequence",), _T, None, None, "Exchange will insert a 'qpid.msg_sequence' field in the message header",
         {}),
        (("--ive",), _T, None, None,
         "Exchange will behave as an 'initial-value-exchange', keeping a reference  to the last message "
         "forwarded and enqueuing that message to newly bound queues.", {})]),
    ("Options for Deleting Queues", [
        (("--force",), _T, None, None, "Force delete of queue even if it's currently used or it's not empty", {}),
        (("--force-if-not-empty",), _T, None, None, "Force delete of queue even if it's not empty", {}),
        (("--force-if-used",), _T, None, None, "Force delete of queue even if it's currently used", {})]),
    ("Options for Declaring Bindings", [
        (("-f", "--file"), _S, "string", "<file.xq>",
         "For XML Exchange bindings - specifies the name of a file containing an XQuery.", {})]),
    ("Formatting options for 'list' action", [
        (("--show-property",), "append", None, "<property-name>",
         "Specify a property of an object to be included in output", {"dest": "list_properties", "default": []})]),
]


def config_parser(usage: str) -> ToolParser:
    """qpid-config's options: names, kinds, groups and help texts as the tool declares them, its
    usage and examples printed as written."""
    parser = ToolParser(usage=usage, description=CONFIG_DESCRIPTION, formatter=_Verbatim(), prog="qpid-config")
    for title, options in _CONFIG_GROUPS:
        group = optparse.OptionGroup(parser, title)
        for flags, action, kind, metavar, text, extra in options:
            group.add_option(*flags, action=action, type=kind, metavar=metavar, help=text,
                             **extra)
        parser.add_option_group(group)
    return parser


@contextmanager
def used_once(parser: ToolParser) -> Iterator[ToolParser]:
    """A parser made for one command, destroyed after it: optparse's parser, its formatter and its
    options point at one another, and `destroy` cuts those cycles so the command leaves nothing
    for the cyclic collector (a lab is freed by reference counting)."""
    try:
        yield parser
    finally:
        parser.destroy()
