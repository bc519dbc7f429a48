"""SwiftMQ admin CLI output. `lc` follows RouterConfigInstance's layout (column width 40, 62
dashes; entity lists: 32 dashes; sub-entities: 28 dashes); `ar` is the CLI's own form. The help
listing is the lab's (no capture of the real one)."""

from __future__ import annotations

from state_store.swiftmq.mgmt import EntityListView, EntityView

from ...renderers import renderer
from .cli_handlers import (
    AvailableRouters,
    Bye,
    ChangeContext,
    CliHelp,
    SwitchRouter,
)

NAME_WIDTH = 40


@renderer(EntityView)
def entity(r: EntityView) -> str:
    lines = ["", f"Entity:      {r.name}", f"Description: {r.description}", ""]
    if r.properties:
        lines += ["Properties for this Entity:", "", "Name".ljust(NAME_WIDTH) + "Current Value", "-" * 62]
        for prop in r.properties:
            name = prop.name + (" (R/O)" if prop.read_only else "")
            lines.append(name.ljust(NAME_WIDTH) + prop.value)
    else:
        lines.append("Entity contains no Properties.")
    lines.append("")
    if r.sub_entities:
        lines += ["Sub-Entities of this Entity:", "-" * 28, *r.sub_entities]
    else:
        lines.append("Entity contains no Sub-Entities.")
    return "\n".join(lines)


@renderer(EntityListView)
def entity_list(r: EntityListView) -> str:
    lines = ["", f"Entity List: {r.name}", f"Description: {r.description}", ""]
    if r.entities:
        lines += [f"Number of Entities in this List: {len(r.entities)}", "-" * 32, *r.entities]
    else:
        lines.append("List contains no Entities.")
    return "\n".join(lines)


@renderer(AvailableRouters)
def available(r: AvailableRouters) -> str:
    return "\n".join(["Available Routers:", "", *r.routers, ""])


@renderer(CliHelp)
def cli_help(r: CliHelp) -> str:
    width = max(len(s) for s, _ in r.entries) + 2
    return "\n".join(s.ljust(width) + h for s, h in r.entries)


@renderer(Bye)
def bye(r: Bye) -> str:
    return "Bye."


@renderer(SwitchRouter)
def switch_router(r: SwitchRouter) -> str:
    return ""


@renderer(ChangeContext)
def change_context(r: ChangeContext) -> str:
    return ""
