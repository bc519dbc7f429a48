"""gfsh's output layouts. Quoted exactly from Geode's docs: the `list clients`, `list members`
and `show subscription-queue-size` tables, the `describe client` fields, the `alter runtime`
success text. A gfsh table: columns as wide as their widest cell, headers centred, cells
left-aligned, ` | ` between columns, a dash rule under the header, no trailing blanks. The pool
stats table of `describe client`, `show metrics`, `describe config`, `start server`, `stop server`
and `help` follow that style and are marked synthesized in docs/lab-geode.md."""

from __future__ import annotations

from state_store.geode.params import HOST
from state_store.geode.views import RuntimeAltered, ServerStartStop

from ...renderers import renderer
from .cli_handlers import Bye, ClientDescription, GfshHelp, GfshTable, MemberConfig

DESCRIBE_RULE = "-" * 67
LABEL_WIDTH = 30
CONFIG_RULE = "-" * 54


def gfsh_table(header: tuple[str, ...], rows: tuple[tuple[str, ...], ...]) -> list[str]:
    widths = [max(len(x) for x in column) for column in zip(header, *rows, strict=True)]

    def centred(text: str, width: int) -> str:
        left = (width - len(text)) // 2
        return (" " * left + text).ljust(width)

    lines = [" | ".join(centred(h, w) for h, w in zip(header, widths, strict=True)).rstrip(),
             " | ".join("-" * w for w in widths)]
    lines += [" | ".join(c.ljust(w) for c, w in zip(row, widths, strict=True)).rstrip() for row in rows]
    return lines


@renderer(GfshTable)
def table(r: GfshTable) -> str:
    lines = ([""] if r.blank_before and r.title else []) + ([r.title, ""] if r.title else [])
    return "\n".join(lines + gfsh_table(r.header, r.rows))


def fields(pairs: tuple[tuple[str, str], ...], width: int = LABEL_WIDTH) -> list[str]:
    return [f"{k.ljust(width)} : {v}".rstrip() for k, v in pairs]


@renderer(ClientDescription)
def describe_client(r: ClientDescription) -> str:
    lines = [DESCRIBE_RULE, *fields(r.fields), "", f"Pool Stats For Pool Name = {r.pool}"]
    lines += gfsh_table(("Minimum Connections", "Maximum Connections", "Redundancy", "Num of CQs"), (r.pool_row,))
    return "\n".join(lines)


@renderer(MemberConfig)
def describe_config(r: MemberConfig) -> str:
    width = max(len(k) for k, _ in r.cache + r.cache_server)
    lines = [f'Configuration of member : "{r.member}"', "", "Cache attributes", CONFIG_RULE,
             *fields(r.cache, width), "", "Cache-server attributes", CONFIG_RULE, *fields(r.cache_server, width)]
    return "\n".join(lines)


@renderer(RuntimeAltered)
def runtime_altered(r: RuntimeAltered) -> str:
    return "\n".join(["Runtime configuration altered successfully for the following member(s)", *r.members])


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
