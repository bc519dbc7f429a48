"""What replaying a transcript produces: one record per command, plain data.

The Spark jobs turn these records into Parquet rows unchanged, so every field is a JSON-able scalar
and the field names are the column names.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass, field
from typing import Literal

Verdict = Literal["pass", "fail", "error"]
_set_attribute = object.__setattr__  # how a frozen dataclass sets its own fields


@dataclass(frozen=True, init=False)
class CommandResult:
    transcript: str          # the transcript's path or name as given
    line: int                # 1-based line of the input line in the transcript
    router: str              # the prompt's host ("lab" for the lab console)
    prompt: str              # the prompt written in the file, without the trailing space
    command: str             # the command text after the prompt
    node: str                # grammar node id that parsed it ("" when it did not parse)
    verdict: Verdict         # pass, fail (output or prompt differs), error (could not be run)
    expected: str            # expected output block as written (matchers included)
    actual: str              # what the emulator printed
    signature: str           # normalised divergence signature ("" when it passed)
    duration_ms: float       # wall time of the command (not part of any comparison)

    def __init__(self, transcript: str, line: int, router: str, prompt: str, command: str, node: str,
                 verdict: Verdict, expected: str, actual: str, signature: str, duration_ms: float) -> None:
        # What the generated frozen __init__ does (one object.__setattr__ per field), in one call:
        # replay makes a result per command, and eleven such calls were a tenth of its own cost.
        _set_attribute(self, "__dict__", {
            "transcript": transcript, "line": line, "router": router, "prompt": prompt, "command": command,
            "node": node, "verdict": verdict, "expected": expected, "actual": actual, "signature": signature,
            "duration_ms": duration_ms,
        })

    def to_dict(self) -> dict[str, object]:
        return asdict(self)


@dataclass
class TranscriptResult:
    transcript: str
    commands: list[CommandResult] = field(default_factory=list)
    error: str | None = None  # set when the file could not be parsed at all (quarantine reason)

    @property
    def passed(self) -> bool:
        return self.error is None and all(c.verdict == "pass" for c in self.commands)
