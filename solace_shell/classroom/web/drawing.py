"""The lab drawn on a trainee's page: boxes and links, and the HA systems' part of it.

Why the HA systems are drawn from the kernel: every HA system keeps its groups, its nodes (their
process, native state, whether they serve), the links between them and its clients' connections on
the lab's kernel in one neutral form, so one drawing serves each system the registry holds, and
the class view names none of them.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from state_store.kernel import Kernel

MAX_CLIENTS_SHOWN = 4
LINE_HEIGHT = 16.0


@dataclass(frozen=True)
class Box:
    x: float
    y: float
    w: float
    h: float
    title: str
    lines: tuple[str, ...]
    css: str


@dataclass(frozen=True)
class Drawing:
    width: float
    height: float
    boxes: list[Box]
    links: list[tuple[float, float, float, float, str, str]]  # x1 y1 x2 y2 css label
    clock: str
    problem: str = ""


def node_lines(kernel: Kernel, group: str, name: str) -> tuple[str, ...]:
    """What a node's box says: its native state, whether it serves and is preferred, the nodes it
    is cut from, and the clients connected to it (the first few, then how many more)."""
    node = kernel.node(group, name)
    lines = [f"state: {node.state or 'down'}" + (", serving" if node.serving else "")
             + (", preferred" if node.preferred else "")]
    cut = sorted(other for link in kernel.links if not link.up
                 for key, other in ((link.a, link.b), (link.b, link.a)) if key == node.key)
    if cut:
        lines.append("cut from: " + ", ".join(kernel.nodes[key].name for key in cut if key in kernel.nodes))
    clients = sorted(c.name for c in kernel.clients.values() if c.group == group and c.node == name)
    if clients:
        shown = ", ".join(clients[:MAX_CLIENTS_SHOWN])
        more = len(clients) - MAX_CLIENTS_SHOWN
        lines.append(f"clients: {shown}" + (f" and {more} more" if more > 0 else ""))
    return tuple(lines)


def kernel_boxes(kernel: Kernel, left: float, top: float, width: float, gap: float,
                 drawn: frozenset[str] = frozenset()) -> tuple[list[Box], float, float]:
    """A box per HA group side by side from `left` (its title the system and group, its lines the
    clients between nodes), holding a box per node (down and hung nodes marked); returns the
    boxes, the right edge of the last group and the bottom of the tallest. A group whose nodes are
    all `drawn` already (routers of a redundancy pair, drawn in their sites) is left out."""
    boxes: list[Box] = []
    x, right, bottom = left, left, top
    for group in kernel.groups.values():
        if group.nodes and drawn.issuperset(group.nodes):
            continue
        waiting = sorted(c.name for c in kernel.clients.values() if c.group == group.name and c.node is None)
        group_lines = (f"not connected: {', '.join(waiting[:MAX_CLIENTS_SHOWN])}"
                       + (f" and {len(waiting) - MAX_CLIENTS_SHOWN} more" if len(waiting) > MAX_CLIENTS_SHOWN else ""),
                       ) if waiting else ()
        y = top + 30 + LINE_HEIGHT * len(group_lines)
        inner: list[Box] = []
        for name in group.nodes:
            node = kernel.node(group.name, name)
            lines = node_lines(kernel, group.name, name)
            h = 30 + LINE_HEIGHT * len(lines)
            suffix = "" if node.proc == "up" else f" ({node.proc})"
            inner.append(Box(x + 10, y, width - 20, h, f"{name}{suffix}", lines,
                             "node" if node.proc == "up" else "router down"))
            y += h + 10
        boxes.append(Box(x, top, width, y - top, f"{group.system} {group.name}", group_lines, "site"))
        boxes.extend(inner)
        right = x + width
        bottom = max(bottom, y)
        x += width + gap
    return boxes, right, bottom
