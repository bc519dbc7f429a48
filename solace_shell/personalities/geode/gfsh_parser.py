"""gfsh 1.15's reading of a command line, as its parser (Geode's `GfshParser` on Spring Shell
1.2's `SimpleParser` and `Tokenizer`) does it, with the texts it prints for a line it refuses.

Why a parser of its own: gfsh's rules are not the grammar's. The line is split at blanks (not
inside quotes) and each word at its first `=`; the words, joined by single blanks, must begin
with a command's words, or be a prefix of exactly one command's words reaching into its last
word (`list mem` runs `list members`, only with no options after it); option names are compared
as typed (case-sensitive), an option may be given under any of its declared aliases but once,
values are converted by type (Integer, Boolean, a comma-separated list), and the refusals are
Spring Shell's warnings followed by gfsh's mini help. Prefixes are unique or ambiguous against
every command of gfsh 1.15 (`GFSH_COMMANDS`), not only those the lab emulates.

Each emulated command's options are its grammar entry's (``grammar.model.CommandOption``,
declared in grammar/data/systems/geode/commands/gfsh.yaml): the parser is handed them with the
command's words, so the grammar is the one place a command's options are written.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from grammar.model import CommandOption

# Every command of gfsh 1.15.1 (the @CliCommand values of its distribution's command classes).
GFSH_COMMANDS: tuple[str, ...] = (
    "alter async-event-queue", "alter disk-store", "alter gateway-sender", "alter query-service",
    "alter region", "alter runtime", "backup disk-store", "change loglevel", "clear defined indexes",
    "close durable-client", "close durable-cq", "compact disk-store", "compact offline-disk-store",
    "configure pdx", "connect", "create async-event-queue", "create data-source",
    "create defined indexes", "create disk-store", "create gateway-receiver", "create gateway-sender",
    "create index", "create jdbc-mapping", "create jndi-binding", "create lucene index",
    "create region", "debug", "define index", "deploy", "deregister driver", "describe client",
    "describe config", "describe connection", "describe data-source", "describe disk-store",
    "describe jdbc-mapping", "describe jndi-binding", "describe lucene index", "describe member",
    "describe offline-disk-store", "describe query-service", "describe region",
    "destroy async-event-queue", "destroy data-source", "destroy disk-store", "destroy function",
    "destroy gateway-receiver", "destroy gateway-sender", "destroy index", "destroy jdbc-mapping",
    "destroy jndi-binding", "destroy lucene index", "destroy region", "disconnect", "echo",
    "execute function", "exit", "export cluster-configuration", "export config", "export data",
    "export logs", "export offline-disk-store", "export stack-traces", "gc", "get", "help", "hint",
    "history", "import cluster-configuration", "import data", "list async-event-queues",
    "list clients", "list data-source", "list deployed", "list disk-stores", "list drivers",
    "list durable-cqs", "list functions", "list gateways", "list indexes", "list jdbc-mappings",
    "list jndi-binding", "list lucene indexes", "list members", "list regions",
    "load-balance gateway-sender", "locate entry", "netstat", "pause gateway-sender", "pdx rename",
    "put", "query", "quit", "rebalance", "register driver", "remove", "restore redundancy",
    "resume async-event-queue-dispatcher", "resume gateway-sender", "revoke missing-disk-store",
    "run", "search lucene", "set variable", "sh", "show dead-locks", "show log", "show metrics",
    "show missing-disk-stores", "show subscription-queue-size", "shutdown", "sleep",
    "start gateway-receiver", "start gateway-sender", "start jconsole", "start jvisualvm",
    "start locator", "start pulse", "start server", "start vsd", "status cluster-config-service",
    "status gateway-receiver", "status gateway-sender", "status locator", "status redundancy",
    "status server", "stop gateway-receiver", "stop gateway-sender", "stop locator", "stop server",
    "undeploy", "upgrade offline-disk-store", "validate offline-disk-store", "version",
    "wan-copy region",
)

MAX_ECHO = 80              # characters of a refused word the lab repeats (gfsh repeats it whole)

NOT_FOUND = "Command '{input}' not found (for assistance press TAB)"
AMBIGUOUS = "Ambigious command '{input}' (for assistance press TAB or type \"hint\" then hit ENTER)"
NOT_EMULATED = "Command '{command}' is a gfsh 1.15 command this lab does not emulate."   # the lab's
OPTION_NOT_EMULATED = "Option '{option}' of '{command}' is not emulated by this lab."     # the lab's
UNAVAILABLE_ONE = "Option '{option}' is not available for this command. "
UNAVAILABLE_MANY = "Options {options} are not available for this command. "
LEGAL = "Use tab assist or the \"help\" command to see the legal options"
TWICE = "You cannot specify option '{key}' when you have also specified '{other}' in the same command"
CONVERT = "{exception}: Failed to convert '{value}' to type {type} for option '{keys}'"
MINI_REQUIRED = "  --{option}{eq}  is required"
MINI_USE = "Use \"help {command}\" (without the quotes) for detailed usage information."


ALIASES = {"geode.exit": ("quit",)}     # further command words of one method (ExitCommand: exit, quit)


class GfshRefusal(Exception):
    """A line gfsh refuses before running anything: the lines it prints (`lines`), `node` the
    grammar node of the command it found ("" when none)."""

    def __init__(self, lines: list[str], node: str = "") -> None:
        super().__init__("\n".join(lines))
        self.lines = lines
        self.node = node


@dataclass(frozen=True)
class Reading:
    """A line gfsh accepts: the command's handler, its converted option values (by first key, None
    when not given and without default) and the values as typed (by first key, only those given)."""

    handler: str
    values: dict[str, object] = field(default_factory=dict)
    given: dict[str, str] = field(default_factory=dict)


def split_user_input(line: str) -> list[str]:
    """GfshParser.splitUserInput: words split at whitespace outside quotes, then each word not
    starting with a quote or `-D` split at its first `=` (empty halves dropped)."""
    words: list[str] = []
    token, quote = "", ""
    for ch in line:
        if ch.isspace():
            if quote:
                token += ch
            elif token:
                words.append(token)
                token = ""
            continue
        token += ch
        if ch in "'\"":
            if not quote:
                quote = ch
            elif quote == ch:
                quote = ""
    if token:
        words.append(token)
    out: list[str] = []
    for word in words:
        if word.startswith(("'", '"', "-D")) or "=" not in word:
            out.append(word)
            continue
        left, _, right = word.partition("=")
        out += [part for part in (left, right) if part]
    return out


def is_match(buffer: str, command: str) -> str | None:
    """SimpleParser.isMatch (strict): the rest of `buffer` after `command`'s words, "" for a
    prefix that reaches into the command's last word, None when the buffer is not this command."""
    if not buffer.strip():
        return ""
    if len(buffer) <= len(command):
        last_space = command.rfind(" ")
        if last_space >= 0 and len(buffer) < last_space + 2:
            return None
        return "" if command.startswith(buffer) else None
    if not buffer.startswith(command):
        return None
    rest = buffer[len(command):]
    if rest and rest[0] != " ":
        return None
    return rest[1:]


class TokenizingError(Exception):
    def __init__(self, offset: int, reason: str) -> None:
        super().__init__(reason)
        self.offset = offset
        self.reason = reason


def tokenize(text: str) -> dict[str, str]:
    """Spring Shell's Tokenizer: `--key value` pairs (a value quoted with ' or ", `\\` escapes),
    a valueless `--key` as "", words outside options under the key "" (the default option)."""
    buf, pos = text, 0
    result: dict[str, str] = {}

    def ahead(*chars: str) -> bool:
        return buf[pos:pos + len(chars)] == "".join(chars)

    def store(key: str, value: str, offset: int) -> None:
        if key in result:
            if key == "":
                reason = (f"You cannot specify '{value}' as another value for the default ('') option in a single "
                          f"command.\nYou already provided '{result[key]}' earlier.\nDid you forget to add quotes "
                          "around the value of another option?")
            else:
                reason = (f"You cannot specify '{value}' as another value for the '--{key}' option in a single "
                          f"command.\nYou already provided '{result[key]}' earlier.")
            raise TokenizingError(offset, reason)
        result[key] = value

    def value(empty_key: bool) -> str:
        nonlocal pos
        out, end = "", " "
        if buf[pos] in "'\"":
            end = buf[pos]
            pos += 1
        while pos < len(buf) and buf[pos] != end:
            if buf[pos] == "\\":
                out += escape(end)
                continue
            out += buf[pos]
            pos += 1
        if empty_key and end == " ":
            while not ahead("-", "-") and pos < len(buf):
                out += buf[pos]
                pos += 1
            return out.rstrip()
        if end != " " and pos == len(buf) and (buf[pos - 1] != end or not out):
            raise TokenizingError(pos, "Cannot have an unbalanced number of quotation marks")
        pos += 1
        return out

    def escape(end: str) -> str:
        nonlocal pos
        pos += 1
        if pos >= len(buf):
            raise TokenizingError(len(buf), "Ran out of input in escape sequence")
        ch = buf[pos]
        simple = {"\\": "\\", "t": "\t", "r": "\r", "n": "\n", "f": "\f"}
        if ch in simple:
            pos += 1
            return simple[ch]
        if ch == "u":
            if pos + 5 > len(buf):
                raise TokenizingError(len(buf), "Ran out of input in unicode escape sequence")
            hexa = buf[pos + 1:pos + 5]
            if not re.fullmatch(r"[+-]?[0-9a-fA-F]+", hexa):
                raise TokenizingError(pos - 1, "Illegal unicode escape sequence: \\u" + hexa)
            pos += 5
            return chr(int(hexa, 16) & 0xFFFF)
        if ch == end:
            pos += 1
            return end
        return "\\"

    while pos < len(buf):
        while ahead(" "):
            pos += 1
        if pos >= len(buf):
            break
        if ahead("-", "-"):
            pos += 2
            offset = pos - 2
            start = pos
            while pos < len(buf) and buf[pos] != " ":
                pos += 1
            key = buf[start:pos]
            while ahead(" "):
                pos += 1
            val = "" if pos >= len(buf) or ahead("-", "-") else value(False)
            if key == "" and val == "":
                continue
            store(key, val, offset)
        else:
            offset = pos
            store("", value(True), offset)
    return result


def java_integer(text: str) -> int:
    """`new Integer(text)`: an optional sign and decimal digits within 32 bits."""
    if re.fullmatch(r"[+-]?[0-9]+", text):
        number = int(text)
        if -2**31 <= number < 2**31:
            return number
    raise ValueError(f'For input string: "{text}"')


def convert(opt: CommandOption, text: str) -> object:
    """The value of an option as its converter gives it; raises GfshRefusal with Spring Shell's
    two lines for a value that does not convert."""
    kind = opt.type
    try:
        if kind == "Integer":
            return java_integer(text)
        if kind in ("Boolean", "boolean"):
            if text.lower() in ("true", "yes") or text == "1":
                return True
            if text.lower() in ("false", "no") or text == "0":
                return False
            raise ValueError(f"Cannot convert {text} to type Boolean.")
    except ValueError as bad:
        exception = "java.lang.NumberFormatException" if kind == "Integer" else "java.lang.IllegalArgumentException"
        raise GfshRefusal([CONVERT.format(exception=exception, value=clip(text), type=kind,
                                          keys=",".join(opt.keys)), clip(str(bad))]) from None
    if kind == "String[]":
        parts = text.split(",")
        while parts and parts[-1] == "":
            parts.pop()
        return tuple(parts)
    return text


def clip(word: str) -> str:
    return word if len(word) <= MAX_ECHO else word[:MAX_ECHO] + "..."


@dataclass(frozen=True)
class Emulated:
    """An emulated command as the parser needs it: its grammar handler and node, and its options
    (None: its method takes no parameters, so gfsh ignores whatever follows its words)."""

    handler: str
    node: str
    options: tuple[CommandOption, ...] | None


class GfshParser:
    """gfsh's parser over the lab's commands: `commands` maps each emulated command's words to
    what the grammar declares of it."""

    def __init__(self, commands: dict[str, Emulated]) -> None:
        self.commands = dict(commands)
        for handler, words in ALIASES.items():
            for command in list(commands.values()):
                if command.handler == handler:
                    self.commands.update({w: command for w in words})
        self.every = tuple(sorted(set(GFSH_COMMANDS) | set(self.commands)))

    def read(self, line: str) -> Reading | None:
        """The line as gfsh reads it; None for a blank line. Raises GfshRefusal."""
        if not line.strip():
            return None
        buffer = " ".join(split_user_input(line)).replace("\\", "\\\\").strip()
        try:
            return self._parse(buffer)
        except GfshRefusal as refused:
            raise GfshRefusal(refused.lines + self.mini_help(line), refused.node) from None

    def _parse(self, buffer: str) -> Reading:
        targets = [(name, rest) for name in self.every if (rest := is_match(buffer, name)) is not None]
        if not targets:
            raise GfshRefusal([NOT_FOUND.format(input=clip(buffer))])
        if len(targets) > 1:
            chosen = [t for t in targets if t[0] == buffer or buffer.startswith(t[0] + " ")]
            if not chosen:
                raise GfshRefusal([AMBIGUOUS.format(input=clip(buffer))])
            targets = chosen[:1]
        name, rest = targets[0]
        if name not in self.commands:
            raise GfshRefusal([NOT_EMULATED.format(command=name)])
        command = self.commands[name]
        try:
            return self._options(name, command, rest)
        except GfshRefusal as refused:
            raise GfshRefusal(refused.lines, command.node) from None

    def _options(self, name: str, command: Emulated, rest: str) -> Reading:
        handler, options = command.handler, command.options
        if options is None:
            return Reading(handler)
        try:
            given = tokenize(rest)
        except TokenizingError as bad:
            caret = " " * (bad.offset + len(name) + 1) + "^"
            raise GfshRefusal([clip(f"{name} {rest}"), caret if len(caret) <= MAX_ECHO + 2 else "^",
                               *bad.reason.split("\n")]) from None
        values: dict[str, object] = {}
        typed: dict[str, str] = {}
        for opt in options:
            value: str | None = None
            source: str | None = None
            for key in opt.keys:
                if key in given:
                    if source is not None:
                        raise GfshRefusal([TWICE.format(key=key, other=source)])
                    source, value = key, given[key]
            specified = source is not None
            without_value = specified and value == ""
            if opt.mandatory and (not specified or without_value):
                raise GfshRefusal([self._hint(options, given)])
            if specified and not opt.emulated:
                raise GfshRefusal([OPTION_NOT_EMULATED.format(option=source, command=name)])
            if without_value:
                value = opt.specified_default
            elif not specified:
                value = opt.unspecified_default
            if specified and source is not None:
                typed[opt.keys[0] or opt.keys[-1]] = str(given[source])
            values[opt.keys[0] or opt.keys[-1]] = None if value is None else convert(opt, value)
        known = {k for opt in options for k in opt.keys}
        unknown = [k for k in given if k not in known]
        if unknown:
            if len(unknown) == 1:
                text = UNAVAILABLE_ONE.format(option=clip(unknown[0]))
            else:
                text = UNAVAILABLE_MANY.format(options=", ".join(f"'{clip(k)}'" for k in unknown[:10]))
            raise GfshRefusal([text + LEGAL])
        return Reading(handler, values, typed)

    @staticmethod
    def _hint(options: tuple[CommandOption, ...], given: dict[str, str]) -> str:
        """SimpleParser.printHintMessage: every option (mandatory or not) not given, or the first
        given without a value."""
        missing: list[str] = []
        empty: list[str] = []
        for opt in options:
            found = next((k for k in opt.keys if k in given), None)
            if found is None:
                missing.append("--" + opt.keys[0])
            elif not given[found]:
                empty.append(found)
        if empty:
            return "You should specify value for option '" + "' for this command".join(empty) + "' for this command"
        return "You should specify option (" + ", ".join(missing) + ") for this command"

    def mini_help(self, line: str) -> list[str]:
        """Helper.getMiniHelp: for a line whose command part names one command, each mandatory
        option its text lacks (as `--name=`), then where to read more; a blank line ends it."""
        if not line.strip():
            return []
        at = line.find(" --")
        part = (line if at < 0 else line[:at]).strip()
        matches = [name for name in self.every if name.startswith(part)]
        if len(matches) != 1 or matches[0] not in self.commands:
            return []
        lines = []
        for opt in self.commands[matches[0]].options or ():
            required = opt.mandatory and opt.unspecified_default in (None, "")
            eq = "=" if opt.specified_default in (None, "") else ""
            primary = next((k for k in opt.keys if k), "")
            if required and f"--{primary}{eq}" not in line:
                lines.append(MINI_REQUIRED.format(option=primary, eq=eq))
        if not lines:
            return []
        return lines + [MINI_USE.format(command=matches[0]), ""]
