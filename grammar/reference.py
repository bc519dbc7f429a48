"""Generate the command reference (docs/commands.md) from the grammar.

The reference is derived, never written by hand, so it cannot disagree with what the shell
accepts; a test fails when the committed file is stale. Regenerate with
`python -m grammar.reference --write`.
"""

from __future__ import annotations

import sys
from pathlib import Path

from . import load_grammar
from .model import Grammar
from .prompts import prompt_text

REFERENCE_PATH = Path(__file__).resolve().parent.parent / "docs" / "commands.md"


def _prompt(grammar: Grammar, mode_id: str) -> str:
    mode = grammar.modes[mode_id]
    host = "lab" if mode.kind == "lab" else "solace"
    return prompt_text(host, mode.prompt, mode.char)


def generate(grammar: Grammar | None = None) -> str:
    grammar = grammar or load_grammar()
    out = [
        "# Command reference",
        "",
        "Generated from grammar/data by `python -m grammar.reference --write`; do not edit by hand.",
        "Access is `scope/level`; levels rank none < read-only < mesh-manager < read-write < admin.",
        "",
        "## Levels",
        "",
        "| Level | Prompt | What it is |",
        "|---|---|---|",
    ]
    for mode_id in grammar.modes:
        out.append(f"| `{mode_id}` | `{_prompt(grammar, mode_id)}` | {grammar.modes[mode_id].help} |")
    for mode_id in grammar.modes:
        commands = sorted(grammar.by_mode.get(mode_id, []), key=lambda c: c.syntax)
        if not commands:
            continue
        out += ["", f"## `{_prompt(grammar, mode_id)}` ({mode_id})", "",
                "| Command | What it does | Access | Handler |", "|---|---|---|---|"]
        for cmd in commands:
            what = cmd.help + (f" (enters `{cmd.enters}`)" if cmd.enters and not cmd.transit else "")
            syntax = cmd.syntax.replace("|", "\\|")
            out.append(f"| `{syntax}` | {what} | {cmd.access} | `{cmd.handler}` |")
    out += _layouts(grammar)
    return "\n".join(out) + "\n"


def _layouts(grammar: Grammar) -> list[str]:
    """Where each output layout comes from (a command entry's `layout:`): capture ids, or
    non-authoritative when no public capture exists."""
    out = ["", "## Output layouts", "",
           "Layouts reproduced from a capture name it (T.. / C.. in the captures file); the others have no",
           "public capture and are ours: **non-authoritative**.", "",
           "| Command | Layout |", "|---|---|"]
    seen: set[str] = set()
    for cmd in sorted(grammar.commands, key=lambda c: c.syntax):
        if not cmd.layout or cmd.syntax in seen:
            continue
        seen.add(cmd.syntax)
        if cmd.layout.startswith("ours"):
            evidence = "**non-authoritative** (no capture)" + cmd.layout[len("ours"):]
        else:
            evidence = f"as captured: {cmd.layout}"
        out.append(f"| `{cmd.syntax.replace('|', chr(92) + '|')}` | {evidence} |")
    return out


def main(argv: list[str]) -> int:
    text = generate()
    if "--write" in argv:
        REFERENCE_PATH.write_text(text, encoding="utf-8")
        print(f"wrote {REFERENCE_PATH}")
    else:
        sys.stdout.write(text)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
