"""Generate the command reference (docs/commands.md) from the grammar.

The reference is derived, never written by hand, so it cannot disagree with what the shell
accepts; a test fails when the committed file is stale. Regenerate with
`python -m grammar.reference --write`.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from . import load_grammar
from .layouts import load_layouts
from .model import Grammar
from .prompts import prompt_text

REFERENCE_PATH = Path(__file__).resolve().parent.parent / "docs" / "commands.md"


def _prompt(grammar: Grammar, mode_id: str) -> str:
    mode = grammar.modes[mode_id]
    return prompt_text(grammar.kinds[mode.kind].host, mode.prompt, mode.char)


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
            what = cmd.help + (f" (enters `{cmd.enters}`)" if cmd.enters and not cmd.transit else "") + (
                " (hidden: accepted only in full, not offered by `?` or Tab)" if cmd.hidden else "")
            syntax = cmd.syntax.replace("|", "\\|")
            out.append(f"| `{syntax}` | {what} | {cmd.access} | `{cmd.handler}` |")
    out += _layouts(grammar)
    return "\n".join(out) + "\n"


def _layouts(grammar: Grammar) -> list[str]:
    """Which output layouts rest on a public capture; the rest are ours (non-authoritative)."""
    layouts = load_layouts()
    handlers = sorted({c.handler for c in grammar.commands if c.handler.startswith("show.")})
    missing = [h for h in handlers if h not in layouts]
    if missing:
        raise ValueError(f"show handlers without an entry in grammar/data/layouts.yaml: {', '.join(missing)}")
    out = ["", "## Output layouts", "",
           "From grammar/data/layouts.yaml. Show output begins with a blank line unless noted; a layout",
           "marked non-authoritative has no public capture and is this project's choice. The lab console's",
           "forms (docs/lab.md), error texts (solace_shell/messages.py) and `?` help are non-authoritative too.",
           "", "| Handler | Authority | Framing | Evidence |", "|---|---|---|---|"]
    for handler in handlers:
        layout = layouts[handler]
        framing = ("blank line before" if layout.leading else "no blank line before") + (
            ", blank line after" if layout.trailing else "")
        authority = "captured" if layout.authoritative else "**non-authoritative**"
        out.append(f"| `{handler}` | {authority} | {framing} | {layout.evidence} |")
    return out


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m grammar.reference",
        description="Print the command reference generated from the grammar (docs/commands.md's text).")
    parser.add_argument("--write", action="store_true", help=f"write it to {REFERENCE_PATH.name} instead")
    args = parser.parse_args(argv)
    text = generate()
    if args.write:
        REFERENCE_PATH.write_text(text, encoding="utf-8")
        print(f"wrote {REFERENCE_PATH}")
    else:
        sys.stdout.write(text)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
