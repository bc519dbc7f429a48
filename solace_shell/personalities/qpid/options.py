"""The tools' command lines, parsed by optparse as the tools themselves do: options anywhere,
unique prefixes of long options, `-bHOST`, `--opt=value`, and optparse's own texts for every
mistake (`<prog>: error: <message>` after the usage, exit 2) and for `--help`.

Why optparse: the tools are optparse programs, so the same library gives their exact behaviour
and texts; the parser only writes to the buffer it is given and raises instead of exiting. The
tools run on Python 2, whose optparse says "requires an argument" where Python 3's says "requires
1 argument"; help is formatted for an 80-column terminal whatever the lab's environment."""

from __future__ import annotations

import io
import optparse
from collections.abc import Iterator
from contextlib import contextmanager
from typing import NoReturn

BROKER_HELP = ("Address of qpidd broker with syntax: [username/password@] hostname | ip-address [:<port>]")
HA_DEFAULTS = {"broker": "0.0.0.0", "timeout": 10.0}


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
                        formatter=optparse.IndentedHelpFormatter(width=80))

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
        super().__init__(width=80)

    def format_usage(self, usage: str) -> str:
        return usage

    def format_description(self, description: str | None) -> str:
        return description + "\n" if description else ""


def config_parser(usage: str) -> ToolParser:
    """qpid-config's options (names, kinds and values as the tool takes them)."""
    parser = ToolParser(usage=usage, formatter=_Verbatim(), prog="qpid-config")
    add = parser.add_option
    add("-t", "--timeout", action="store", type="int", default=10, metavar="<secs>")
    add("-r", "--recursive", action="store_true")
    add("-b", "--broker", action="store", type="string", metavar="<address>")
    add("-a", "--broker-addr", action="store", type="string", metavar="<address>")
    for name in ("--sasl-mechanism", "--sasl-service-name", "--ssl-certificate", "--ssl-key",
                 "--alternate-exchange", "--replicate", "--lvq-key", "--group-header", "--start-replica"):
        add(name, action="store", type="string")
    for name in ("--ha-admin", "--ignore-default", "--durable", "--shared-groups", "--sequence", "--ive", "--force",
                 "--force-if-not-empty", "--force-if-used"):
        add(name, action="store_true")
    for name in ("--file-count", "--file-size", "--efp-partition-num", "--efp-pool-file-size", "--wcache-page-size",
                 "--wcache-num-pages", "--max-queue-size", "--max-queue-count", "--flow-stop-size",
                 "--flow-resume-size", "--flow-stop-count", "--flow-resume-count"):
        add(name, action="store", type="int")
    add("--limit-policy", action="store", choices=["none", "reject", "ring", "ring-strict"])
    add("--argument", dest="extra_arguments", action="append", default=[])
    add("-f", "--file", action="store", type="string")
    add("--show-property", dest="list_properties", action="append", default=[])
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
