"""Colours of the interactive REPL: the bottom toolbar, the completion menu and `?` help only.

Emulated CLI output is never coloured (it must read exactly as the broker prints it).
"""

from __future__ import annotations

from prompt_toolkit.styles import Style

STYLE_RULES: dict[str, str] = {
    # bottom toolbar
    "bottom-toolbar": "noreverse bg:#1c1c1c #bcbcbc",
    "bottom-toolbar.target": "bold #5fd7ff",
    "bottom-toolbar.lab": "bold #ffaf00",
    "bottom-toolbar.clock": "#87d787",
    "bottom-toolbar.key": "bold #ffffff",
    "bottom-toolbar.sep": "#6c6c6c",
    # completion menu
    "completion-menu.completion": "bg:#303030 #d0d0d0",
    "completion-menu.completion.current": "bg:#5f87af #ffffff",
    "completion-menu.meta.completion": "bg:#262626 #8a8a8a",
    "completion-menu.meta.completion.current": "bg:#5f87af #eeeeee",
    # `?` help
    "help.echo": "",
    "help.name": "bold #5fd7ff",
    "help.text": "",
    "help.error": "#ff8787",
}


def repl_style() -> Style:
    return Style.from_dict(STYLE_RULES)
