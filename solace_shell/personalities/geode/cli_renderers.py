"""gfsh's output: a command's result model laid out as gfsh 1.15 lays it out (gfsh_layout.py:
sections, padding, the blank line after each section); `start server`, `stop server` and
`help` print the lab's lines (synthesized, docs/lab-geode.md)."""

from __future__ import annotations

from state_store.geode.params import HOST
from state_store.geode.views import ServerStartStop

from ...renderers import renderer
from .cli_handlers import Bye, GfshHelp
from .gfsh_layout import GfshResult, render_result


@renderer(GfshResult)
def result(r: GfshResult) -> str:
    return render_result(r)


@renderer(ServerStartStop)
def start_stop(r: ServerStartStop) -> str:
    where = f"./{r.name} on {HOST}[{r.cache_port}] as {r.name}"
    if r.started:
        return "\n".join([f"Starting a Geode Server in ./{r.name}...", f"Server in {where} is currently online.",
                          f"Process ID: {r.pid}"])
    return "\n".join([f"Stopping Cache Server running in {where}...", f"Process ID: {r.pid}"])


@renderer(GfshHelp)
def help_text(r: GfshHelp) -> str:
    return "\n".join(f"{syntax} (Available)\n    {text}" for syntax, text in r.entries)


@renderer(Bye)
def bye(r: Bye) -> str:
    return ""
