"""How what the broker host's shell runs prints (shell_handlers.py): a tool's lines as it printed
them (trailing blanks cut), nothing for a login to another host."""

from __future__ import annotations

from state_store.qpid.views import ToolResult

from ...renderers import renderer
from .shell_handlers import HostChange


@renderer(ToolResult)
def tool_output(result: ToolResult) -> str:
    return "\n".join(line.rstrip() for line in result.lines)


@renderer(HostChange)
def host_change(result: HostChange) -> str:
    return ""
