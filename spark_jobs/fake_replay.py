"""A small, deterministic stand-in for `solace_shell.transcript.replay` (tests and demos only).

It reads the same shape of transcript as the real replay (a prompt line `HOST[(PATH)]> command` or
`...# command`, then the expected output lines up to the next prompt line; `#` comments and blank
lines before the first prompt are ignored) and "emulates" a handful of commands from a fixed table,
so the Spark pipeline can be tested without depending on the emulator's evolving output.
Unknown commands print the parser's invalid-input error with node "".
"""

from __future__ import annotations

import re
import time

from solace_shell.transcript.results import CommandResult, TranscriptResult

PROMPT = re.compile(r"^(?P<host>[A-Za-z][A-Za-z0-9_.-]*)(?P<path>\([^)]*\))?(?P<char>[>#]) ?(?P<cmd>.*)$")

VPN_REPLICATION = "Message VPN: Trading_VPN\n  Replication State: {state}\n  Admin State: Enabled"

# command -> (node, output)
TABLE: dict[str, tuple[str, str]] = {
    "enable": ("exec: enable", ""),
    "configure": ("privileged: configure", ""),
    "end": ("any: end", ""),
    "exit": ("any: exit", ""),
    "message-vpn Trading_VPN": ("configure: message-vpn <vpn-name>", ""),
    "replication state standby": ("configure/message-vpn/replication: state {active | standby}", ""),
    "replication state active": ("configure/message-vpn/replication: state {active | standby}", ""),
    "show message-vpn Trading_VPN replication": (
        "show: show message-vpn <vpn-pattern> replication [detail | stats]",
        VPN_REPLICATION.format(state="active"),
    ),
    "show clock": ("show: show clock", "Jan  1 00:00:00 UTC 2024"),
    "advance 5s": ("lab: advance <duration>", "Clock advanced 5s"),
    "status": ("lab: status", "NY_Appliance1: active\nNJ_Appliance1: standby"),
}

INVALID = "Invalid command input\n   -> Unknown command, or command not available in current context ({word})"

# Grammar nodes the fake "knows" (for coverage tests): the table's nodes plus two never used.
FAKE_NODES = sorted({node for node, _ in TABLE.values()} | {"lab: audit [<vpn-name>]", "show: show queue <queue-name>"})


class MalformedTranscript(ValueError):
    pass


def _blocks(text: str) -> list[tuple[int, str, str, str, list[str]]]:
    blocks: list[tuple[int, str, str, str, list[str]]] = []
    for number, raw in enumerate(text.splitlines(), start=1):
        match = PROMPT.match(raw)
        if match:
            prompt = f"{match['host']}{match['path'] or ''}{match['char']}"
            blocks.append((number, match["host"], prompt, match["cmd"].rstrip(), []))
        elif blocks:
            blocks[-1][4].append(raw)
        elif raw.strip() and not raw.lstrip().startswith("#"):
            raise MalformedTranscript(f"line {number}: output before the first prompt")
    if not blocks:
        raise MalformedTranscript("no prompt line")
    return blocks


def _signature(node: str, expected: str, actual: str) -> str:
    exp = expected.splitlines() or [""]
    act = actual.splitlines() or [""]
    for e, a in zip(exp + [""] * len(act), act + [""] * len(exp)):
        if e != a:
            norm = lambda s: re.sub(r"\d+", "#", s.strip())[:60]  # noqa: E731
            return f"{node or '<unparsed>'}: {norm(e)!r} -> {norm(a)!r}"
    return f"{node or '<unparsed>'}: output differs"


def replay_text(text: str, name: str) -> TranscriptResult:
    try:
        blocks = _blocks(text)
    except MalformedTranscript as exc:
        return TranscriptResult(transcript=name, error=str(exc))
    result = TranscriptResult(transcript=name)
    for number, host, prompt, cmd, out in blocks:
        start = time.perf_counter()
        while out and out[-1] == "":
            out.pop()
        expected = "\n".join(out)
        node, actual = TABLE.get(cmd, ("", INVALID.format(word=cmd.split()[0] if cmd.split() else "")))
        if cmd == "":
            node, actual = "", ""
        if cmd == "boom":
            verdict, signature, actual = "error", "<unparsed>: engine error", "Traceback: boom"
        elif actual == expected:
            verdict, signature = "pass", ""
        else:
            verdict, signature = "fail", _signature(node, expected, actual)
        result.commands.append(
            CommandResult(
                transcript=name, line=number, router=host, prompt=prompt, command=cmd, node=node,
                verdict=verdict, expected=expected, actual=actual, signature=signature,
                duration_ms=(time.perf_counter() - start) * 1000.0,
            )
        )
    return result


def replay_file(path: str) -> TranscriptResult:
    with open(path, encoding="utf-8") as fh:
        return replay_text(fh.read(), str(path))
