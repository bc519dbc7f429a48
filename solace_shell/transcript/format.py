"""The transcript file format: lines, prompts, header, comments; text in, `Transcript` out.

A transcript is what an operator sees at the terminal, so it can be pasted from a real session and
still be a test. Everything that is *not* terminal text (header, comments) uses the prefixes `#:`
and `#|`, which the Solace CLI never prints at the start of a line; an output line that happens to
start with them (or would otherwise be misread) is written as an escaped `(re)` line, see
`literal_line`. docs/transcripts.md is the user-facing description of these rules.
"""

from __future__ import annotations

import re
from array import array
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from functools import lru_cache

from state_store import systems

HEADER_PREFIX = "#:"
COMMENT_PREFIX = "#|"
ANY_LINES = "..."
ANY_RUN = "[..]"
REGEX_SUFFIX = " (re)"
LAB_HOST = "lab"
TRANSCRIPT_SUFFIX = ".cli.txt"

# host, optional mode path in parentheses (may start with "..." when truncated), then > or #,
# then either nothing or exactly one space and the command (kept verbatim).
PROMPT_RE = re.compile(
    r"(?P<prompt>(?P<host>[A-Za-z0-9_.-]+)(?P<suffix>\([^()\s]+\))?(?P<char>[>#]))"
    r"(?: (?P<command>.*))?"
)
# An HA system's CLI has no host in its prompt: it is addressed as `<system>:<prompt>`, the
# system's name from the registry (state_store.systems) (docs/transcripts.md).
PERSONALITY_PREFIXES = systems.names()
PERSONALITY_RE = re.compile(
    r"(?P<prompt>(?P<host>" + "|".join(PERSONALITY_PREFIXES) + r"):(?:[^\s>]+)?>)(?: (?P<command>.*))?"
)
_HEADER_RE = re.compile(r"#:\s*(?P<key>[A-Za-z][A-Za-z0-9_-]*)\s*(?::\s*(?P<value>.*))?")
_SURROGATE_RE = re.compile("[\udc80-\udcff]")

HEADER_KEYS = ("scenario", "version", "layout", "user", "strict-blank-lines")
LAYOUTS = ("A", "B")
_TRUE = ("", "yes", "true", "on")
_FALSE = ("no", "false", "off")


@dataclass(frozen=True)
class Problem:
    """One thing wrong with a transcript, located by 1-based line (0 when it concerns the file)."""

    line: int
    message: str


class TranscriptError(ValueError):
    """A transcript cannot be replayed; `problems` lists every problem found, not just the first."""

    def __init__(self, name: str, problems: Iterable[Problem]) -> None:
        self.name = name
        self.problems = sorted(problems, key=lambda p: p.line)
        super().__init__("\n".join(f"{name}:{p.line}: {p.message}" for p in self.problems))


@dataclass(frozen=True)
class Header:
    """Settings written at the top of a transcript with `#: key: value` lines."""

    scenario: str | None = None
    version: str | None = None
    layout: str | None = None
    user: str | None = None
    strict_blank_lines: bool = True
    lines: dict[str, int] = field(default_factory=dict, compare=False)  # key -> line it was set on

    def settings(self) -> dict[str, str]:
        """The Lab settings this header asks for; unset keys are left to the Lab's defaults."""
        out = {"version": self.version, "layout": self.layout, "user": self.user}
        return {k: v for k, v in out.items() if v is not None}


@dataclass(frozen=True)
class Step:
    """One input line and the output block expected after it.

    `start`/`end` delimit the raw block (0-based indexes into `Transcript.raw_lines`, input line
    excluded) so `accept` can rewrite exactly that region and leave the rest of the file alone.
    """

    line: int                      # 1-based line of the input line
    host: str
    prompt: str                    # as written, without the trailing space
    command: str
    expected: tuple[str, ...]      # normalised expected lines (comments dropped, edges per header)
    expected_lines: tuple[int, ...]  # 1-based file line of each expected entry
    start: int                     # raw index of the first block line
    end: int                       # raw index one past the last block line


@dataclass(frozen=True)
class Transcript:
    name: str
    header: Header
    steps: tuple[Step, ...]
    raw_lines: tuple[str, ...]     # the file split after each "\n", line endings kept


@dataclass(frozen=True)
class PromptLine:
    prompt: str
    host: str
    command: str


def split_raw(text: str) -> list[str]:
    """Split after every "\\n" only (never on other Unicode breaks), keeping the line endings."""
    parts = text.split("\n")
    out = [p + "\n" for p in parts[:-1]]
    if parts[-1]:
        out.append(parts[-1])
    return out


def clean(raw: str) -> str:
    """The comparable form of a line: line ending and trailing spaces/tabs removed."""
    return raw.rstrip("\n").rstrip("\r").rstrip(" \t\r")


_CACHED_PROMPT_LINE = 200  # longer lines are matched afresh: the cache holds short lines only


def match_prompt(line: str) -> PromptLine | None:
    """Parse a cleaned line as `<prompt>[ <command>]`, ignoring whether the host exists.

    Short lines are answered from a bounded cache: transcripts repeat their input lines (`lab>
    advance 1m`, `NY_Appliance1# configure`), and a replay matches each input line twice (when the
    file is checked, then when its step is made)."""
    if len(line) > _CACHED_PROMPT_LINE:
        return _match_prompt(line)
    return _match_prompt_cached(line)


def _match_prompt(line: str) -> PromptLine | None:
    m = PROMPT_RE.fullmatch(line) or PERSONALITY_RE.fullmatch(line)
    if m is None:
        return None
    return PromptLine(m["prompt"], m["host"], m["command"] or "")


_match_prompt_cached = lru_cache(maxsize=4096)(_match_prompt)


def is_reserved(line: str) -> bool:
    return line.startswith(HEADER_PREFIX) or line.startswith(COMMENT_PREFIX)


def is_plain_literal(line: str) -> bool:
    """True when `line`, written as is in an output block, matches exactly itself and nothing else
    that could change its meaning (matcher, comment, header or prompt syntax)."""
    return not (
        line == ANY_LINES
        or ANY_RUN in line
        or line.endswith(REGEX_SUFFIX)
        or is_reserved(line)
        or match_prompt(line) is not None
    )


def literal_line(line: str) -> str:
    """How to write an actual output line so that it matches exactly that line.

    Lines that would be read as syntax are written as `re.escape(line) + " (re)"`; when the escaped
    text would still look like a prompt (first character is a host character), that character is
    wrapped in a class, e.g. `[N]Y_Appliance1> (re)`.
    """
    line = clean(line)
    if is_plain_literal(line):
        return line
    pattern = re.escape(line)
    written = pattern + REGEX_SUFFIX
    if match_prompt(written) is not None:
        written = f"[{pattern[0]}]{pattern[1:]}{REGEX_SUFFIX}"
    return written


def format_input_line(prompt: str, command: str) -> str:
    command = command.rstrip(" \t\r")
    return f"{prompt} {command}" if command else prompt


def _parse_header_line(line: str, lineno: int, values: dict[str, str], lines: dict[str, int],
                       problems: list[Problem]) -> None:
    m = _HEADER_RE.fullmatch(line)
    if m is None:
        problems.append(Problem(lineno, f"malformed header line {line!r} (expected '#: key: value')"))
        return
    key, value = m["key"].lower(), (m["value"] or "").strip()
    if key not in HEADER_KEYS:
        problems.append(Problem(lineno, f"unknown header key {key!r} (known: {', '.join(HEADER_KEYS)})"))
        return
    if key in values:
        problems.append(Problem(lineno, f"header key {key!r} given twice (first on line {lines[key]})"))
        return
    if key == "layout" and value not in LAYOUTS:
        problems.append(Problem(lineno, f"layout must be A or B, not {value!r}"))
        return
    if key == "strict-blank-lines" and value.lower() not in _TRUE + _FALSE:
        problems.append(Problem(lineno, f"strict-blank-lines takes no value or yes/no, not {value!r}"))
        return
    if key in ("scenario", "version", "user") and not value:
        problems.append(Problem(lineno, f"header key {key!r} needs a value"))
        return
    values[key] = value
    lines[key] = lineno


def _header_from(values: dict[str, str], lines: dict[str, int]) -> Header:
    # Blank lines count by default (the captures frame output with them); `no` is the leniency.
    strict = values.get("strict-blank-lines", "yes").lower() in _TRUE
    return Header(
        scenario=values.get("scenario"),
        version=values.get("version"),
        layout=values.get("layout"),
        user=values.get("user"),
        strict_blank_lines=strict,
        lines=dict(lines),
    )


def parse_header(text: str, name: str) -> Header:
    """Read only the header (the `#:` lines before the first non-comment, non-blank line).

    Replay needs the header before it can build the lab, and the lab before it knows which hosts
    are addressable, so the header is readable on its own. Raises TranscriptError on bad header lines.
    """
    values: dict[str, str] = {}
    lines: dict[str, int] = {}
    problems: list[Problem] = []
    for lineno, raw in enumerate(iter_lines(text), start=1):
        line = clean(raw)
        if line.startswith(HEADER_PREFIX):
            _parse_header_line(line, lineno, values, lines, problems)
        elif line and not line.startswith(COMMENT_PREFIX):
            break
    if problems:
        raise TranscriptError(name, problems)
    return _header_from(values, lines)


def _strip_blank_edges(entries: list[tuple[str, int]]) -> list[tuple[str, int]]:
    lo, hi = 0, len(entries)
    while lo < hi and entries[lo][0] == "":
        lo += 1
    while hi > lo and entries[hi - 1][0] == "":
        hi -= 1
    return entries[lo:hi]


_CHUNK = 1 << 16  # characters split into lines at once: no list of every line of a long file


def _chunks(text: str) -> Iterator[tuple[int, list[str]]]:
    """The lines `split_raw` gives, without their "\\n", a list per chunk of about `_CHUNK`
    characters (a longer line is a chunk of its own), each with the offset of its first line in
    `text`: bounded memory, C-speed splitting."""
    pos, size = 0, len(text)
    while pos < size:
        cut = text.rfind("\n", pos, pos + _CHUNK)
        if cut < 0:
            cut = text.find("\n", pos + _CHUNK)
        if cut < 0:
            yield pos, text[pos:].split("\n")
            return
        yield pos, text[pos:cut].split("\n")
        pos = cut + 1


def iter_lines(text: str) -> Iterator[str]:
    """The lines `split_raw` gives, without their "\\n", one at a time: a reader that stops early
    (`parse_header`, at the first input line) splits no more of the text than it reads."""
    pos, size = 0, len(text)
    while pos < size:
        end = text.find("\n", pos)
        if end < 0:
            yield text[pos:]
            return
        yield text[pos:end]
        pos = end + 1


def _may_be_syntax(line: str) -> bool:
    """Whether a line can be a comment, header, prompt or ` (re)` line: all of these contain `#`,
    `>` or `(re)`, so the (many) plain output lines skip the prompt grammar."""
    return "#" in line or ">" in line or "(re)" in line


# One step as `ScannedTranscript.blocks()` gives it: the input line's number, its prompt, its raw
# block (the text of the lines after it, see `read_block`) and the line number of the block's last
# line. A plain tuple: `blocks()` makes one per command.
Block = tuple[int, PromptLine, str, int]


@dataclass(frozen=True)
class ScannedTranscript:
    """A transcript checked whole (no problem anywhere), whose steps are made one at a time from
    its text: what replay needs, in memory bounded by the text itself plus one step.

    `inputs` holds the 1-based line number of every input line, `offsets` where each starts in
    `text` (a few bytes each) and `prompts` its prompt as the scan read it (mostly shared: short
    input lines repeat), so `steps()` slices each block out of the text instead of reading it line
    by line again, and yields the same `Step`s `parse_transcript` gives."""

    name: str
    header: Header
    text: str
    inputs: array[int]
    line_count: int
    offsets: array[int]
    prompts: tuple[PromptLine, ...]

    def blocks(self) -> Iterator[Block]:
        """Per input line, the raw makings of its step: all `replay_text` needs, which reads and
        compiles each distinct raw block once (`steps()` makes the `Step`s)."""
        text, inputs, offsets, prompts = self.text, self.inputs, self.offsets, self.prompts
        count, size = len(inputs), len(text)
        for n in range(count):
            start = offsets[n]
            stop = offsets[n + 1] if n + 1 < count else size
            eol = text.find("\n", start, stop)
            if eol < 0:            # the input line is the file's last line, without "\n"
                eol = stop
            yield inputs[n], prompts[n], text[eol + 1:stop], inputs[n + 1] - 1 if n + 1 < count else self.line_count

    def steps(self) -> Iterator[Step]:
        """The steps `parse_transcript` gives, one at a time."""
        strict = self.header.strict_blank_lines
        for line, prompt, raw, end in self.blocks():
            expected, kept = read_block(raw, strict)
            yield Step(line=line, host=prompt.host, prompt=prompt.prompt, command=prompt.command,
                       expected=expected, expected_lines=_numbers(line + 1, kept), start=line, end=end)


def _numbers(first: int, kept: range | tuple[int, ...]) -> tuple[int, ...]:
    """File line numbers of the kept block lines, the block's first line being `first`."""
    if isinstance(kept, range):
        return tuple(range(first + kept.start, first + kept.stop))
    return tuple([first + index for index in kept])


def read_block(raw: str, strict: bool) -> tuple[tuple[str, ...], range | tuple[int, ...]]:
    """The expected lines of a raw block (`raw`: the text of its lines, each ending in "\\n" but
    maybe the file's last) and the 0-based indexes of the block lines they come from."""
    lines = raw.split("\n")
    if not raw or raw.endswith("\n"):
        lines.pop()            # the text after the last "\n" is no line
    if COMMENT_PREFIX not in raw:
        # the usual block, without comments: the kept lines are one run
        cleaned = [line.rstrip(" \t\r") for line in lines]
        lo, hi = 0, len(cleaned)
        if not strict:
            while lo < hi and cleaned[lo] == "":
                lo += 1
            while hi > lo and cleaned[hi - 1] == "":
                hi -= 1
        return tuple(cleaned[lo:hi]), range(lo, hi)
    entries = [(line.rstrip(" \t\r"), index) for index, line in enumerate(lines)
               if not line.startswith(COMMENT_PREFIX)]
    if not strict:
        entries = _strip_blank_edges(entries)
    if not entries:
        return (), ()
    expected, kept = zip(*entries, strict=True)
    return expected, kept


class _Scan:
    """What `scan_transcript` learns line by line: problems, header values, input lines."""

    def __init__(self, known: frozenset[str] | None) -> None:
        self.known = known
        self.problems: list[Problem] = []
        self.values: dict[str, str] = {}
        self.header_lines: dict[str, int] = {}
        self.inputs: array[int] = array("I")
        self.offsets: array[int] = array("Q")
        self.prompts: list[PromptLine] = []

    def any_line(self, raw: str, lineno: int) -> PromptLine | None:
        """Check a line that may be anything (before the first input line, or in a file with
        undecodable bytes); its prompt when it is an input line."""
        if _SURROGATE_RE.search(raw):
            self.problems.append(Problem(lineno, "undecodable bytes (the file must be UTF-8)"))
            return None
        if not _may_be_syntax(raw):
            if not self.inputs and raw.strip(" \t\r"):
                self.problems.append(Problem(lineno, "output before the first input line"))
            return None
        return self.syntax_line(raw, lineno)

    def syntax_line(self, raw: str, lineno: int) -> PromptLine | None:
        """Check a line that may be syntax (`_may_be_syntax`); its prompt when it is an input line."""
        problems = self.problems
        line = raw.rstrip(" \t\r")
        if line.startswith(COMMENT_PREFIX):
            return None
        if line.startswith(HEADER_PREFIX):
            if self.inputs:
                problems.append(Problem(lineno, "header line after the first input line "
                                                "(write output starting with '#:' as an escaped (re) line)"))
            else:
                _parse_header_line(line, lineno, self.values, self.header_lines, problems)
            return None
        prompt = match_prompt(line)
        known = self.known
        if prompt is not None and (known is None or prompt.host in known):
            return prompt
        if prompt is not None and (not self.inputs or "(" in prompt.prompt):
            hosts_text = ", ".join(sorted(known or ()))
            problems.append(Problem(lineno, f"unknown host {prompt.host!r} in prompt "
                                            f"{prompt.prompt!r} (addressable: {hosts_text})"))
            return None
        if not self.inputs and line:
            problems.append(Problem(lineno, "output before the first input line"))
            return None
        if line.endswith(REGEX_SUFFIX):
            from solace_shell.transcript.match import (  # local: match imports format
                BadPattern,
                compile_line,
            )

            try:
                compile_line(line)
            except BadPattern as exc:
                problems.append(Problem(lineno, f"bad regular expression: {exc}"))
        return None


def scan_transcript(text: str, name: str, *, hosts: Iterable[str] | None = None) -> ScannedTranscript:
    """Check a whole transcript; raise TranscriptError listing every problem with its line.

    `hosts` are the addressable prompt hosts (the lab's routers and "lab"). Only a line matching
    the prompt grammar *with one of these hosts* is an input line; any other line after the first
    input line is output. With `hosts=None` every syntactically valid prompt counts (for tools that
    check structure without building a lab).

    Every line is looked at until the first input line (or everywhere in a file with undecodable
    bytes); after it, only the lines that may be syntax are, picked out by a comprehension: most
    lines are output, and a Python step per line was most of the scan's cost.
    """
    scan = _Scan(None if hosts is None else frozenset(hosts))
    # isascii: a C pass that answers for nearly every file, without the regular expression
    every_line = not text.isascii() and _SURROGATE_RE.search(text) is not None
    inputs, offsets, prompts = scan.inputs, scan.offsets, scan.prompts
    lineno = 0                     # line number of the line before the chunk's first
    for chunk_offset, lines in _chunks(text):
        # `at`, `at_offset`: a line of the chunk and its offset in `text`, to count on from
        at, at_offset = 0, chunk_offset
        index, count = 0, len(lines)
        while index < count and (every_line or not inputs):
            prompt = scan.any_line(lines[index], lineno + index + 1)
            if prompt is not None:
                at_offset += index - at + sum(map(len, lines[at:index]))
                at = index
                inputs.append(lineno + index + 1)
                offsets.append(at_offset)
                prompts.append(prompt)
            index += 1
        candidates = [i for i, line in enumerate(lines[index:] if index else lines, index)
                      if "#" in line or ">" in line or "(re)" in line]  # _may_be_syntax, inlined
        for i in candidates:
            prompt = scan.syntax_line(lines[i], lineno + i + 1)
            if prompt is not None:
                at_offset += i - at + sum(map(len, lines[at:i]))
                at = i
                inputs.append(lineno + i + 1)
                offsets.append(at_offset)
                prompts.append(prompt)
        lineno += count

    problems = scan.problems
    if not inputs and not problems:
        problems.append(Problem(1 if text else 0, "no input lines (a prompt followed by a command)"))
    if problems:
        raise TranscriptError(name, problems)
    return ScannedTranscript(name, _header_from(scan.values, scan.header_lines), text, inputs, lineno,
                             offsets, tuple(prompts))


def parse_transcript(text: str, name: str, *, hosts: Iterable[str] | None = None) -> Transcript:
    """Parse a whole transcript (`scan_transcript`, every step made at once, and the raw lines
    `accept` rewrites); raise TranscriptError listing every problem with its line."""
    scanned = scan_transcript(text, name, hosts=hosts)
    return Transcript(name=name, header=scanned.header, steps=tuple(scanned.steps()),
                      raw_lines=tuple(split_raw(text)))
