"""Blank lines around command output, command by command, as the real CLI prints them.

Why separate from the renderers: the renderers give a layout's lines; where a layout sits between
the echoed command and the next prompt is a property of the command seen in captures, kept with
each layout's evidence in grammar/data/layouts.yaml:
- show output begins with one blank line (T04, T12, T13, T15, T19, T23, C04 show service/system/
  config-sync, C06, C11, C18), except `show redundancy*`, which starts on the next line (C01, C04,
  C05, C22);
- `show replication` ends with one blank line before the prompt (T13); the other captured show
  layouts end on their last row (T12, T15, T19, C05 redundancy group, C06);
- commands without output print nothing (T03, T07, T15 `enable`, T22).
"""

from __future__ import annotations

from grammar import Command
from grammar.layouts import load_layouts

SHOW_PREFIX = "show."


def frame(command: Command, text: str) -> str:
    """`text` as printed after the echoed command line (no final newline; "" prints nothing)."""
    if not text or not command.handler.startswith(SHOW_PREFIX):
        return text
    layout = load_layouts().get(command.handler)
    if layout is None or layout.leading:
        text = "\n" + text
    if layout is not None and layout.trailing:
        text += "\n"
    return text
