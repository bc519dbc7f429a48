"""How gfsh 1.15 lays a command's result out on the screen (Geode's `CommandResult` over its
`Table`, `RowGroup`, `Row` and `Column` builders), reproduced as rules:

- A result is sections (info lines, data `key : value` pairs, tables), each with an optional
  header line; gfsh prints every row group followed by one blank line (the group ends its last
  row with a line break and gfsh prints it with `println`), so a blank line follows each section
  and each header.
- A column is as wide as its widest cell; every cell but the last of its row is padded (left
  aligned, table headers centred, the odd space on the right); the last cell is never padded.
  A table's rule is dashes as wide as each column, joined by ` | `.
- Once a result holds a table, columns wider than the screen in total are cut to fit it
  (`RowGroup.recalculateColSizesForScreen`; a cut cell ends in `..`). gfsh takes the width of its
  terminal; the lab takes gfsh's default width, 100 columns.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field

SCREEN_WIDTH = 100            # Gfsh.DEFAULT_WIDTH
MARGIN = 5                    # RowGroup.SCREEN_WIDTH_MARGIN_BUFFER
LEFT, CENTER = "left", "center"


@dataclass(frozen=True)
class Info:
    """Lines of text (`InfoResultModel`)."""

    lines: tuple[str, ...]
    header: str = ""


@dataclass(frozen=True)
class Data:
    """`key : value` pairs (`DataResultModel`), the keys padded to the widest."""

    pairs: tuple[tuple[str, str], ...]
    header: str = ""


@dataclass(frozen=True)
class Table:
    """Columns (`TabularResultModel`): a header row, a rule, the rows."""

    columns: tuple[str, ...]
    rows: tuple[tuple[str, ...], ...]
    header: str = ""


Section = Info | Data | Table


@dataclass(frozen=True)
class GfshResult:
    """A command's result model; `error` for a result gfsh prints as an error (the same layout)."""

    sections: tuple[Section, ...]
    error: bool = False
    header: str = ""


@dataclass
class _Row:
    cells: list[tuple[str, str]] = field(default_factory=list)
    rule: bool = False
    separator: str | None = None


@dataclass
class _Group:
    rows: list[_Row] = field(default_factory=list)
    separator: str = "   "


def _spaced(groups: list[_Group], text: str) -> None:
    if text.strip():
        groups.append(_Group([_Row([(text, LEFT)])]))


def render_result(result: GfshResult, width: int = SCREEN_WIDTH) -> str:
    """The text gfsh prints for `result`, without the line break that ends it."""
    groups: list[_Group] = []
    tabular = False
    _spaced(groups, result.header)
    for section in result.sections:
        if isinstance(section, Table):
            _spaced(groups, section.header)
            tabular = True
            group = _Group(separator=" | ")
            if section.columns and section.rows:   # an empty table has no header row either
                group.rows.append(_Row([(c, CENTER) for c in section.columns]))
                group.rows.append(_Row(rule=True))
                group.rows += [_Row([(c, LEFT) for c in row]) for row in section.rows]
            else:
                group.rows.append(_Row())
                group.rows.append(_Row(rule=True))
            groups.append(group)
        elif isinstance(section, Data):
            group = _Group(separator=" : ")
            if section.header.strip():
                group.rows.append(_Row([(section.header, LEFT)]))
            for key, value in section.pairs:
                lines = value.split("\n")
                group.rows.append(_Row([(key, LEFT), (lines[0], LEFT)]))
                group.rows += [_Row([("", LEFT), (more, LEFT)], separator="   ") for more in lines[1:]]
            groups.append(group)
        else:
            group = _Group()
            if section.header.strip():
                group.rows.append(_Row([(section.header, LEFT)]))
            group.rows += [_Row([(line, LEFT)]) for line in section.lines]
            groups.append(group)
    text = "".join(_build(g, tabular, width) + "\n" for g in groups)
    return text[:-1] if text.endswith("\n") else text


def _build(group: _Group, tabular: bool, width: int) -> str:
    count = max((len(r.cells) for r in group.rows), default=0)
    sizes = [max((len(r.cells[i][0]) for r in group.rows if i < len(r.cells)), default=0) for i in range(count)]
    if tabular:
        sizes = fit_to_screen(sizes, len(group.separator), width)
    out = ""
    for row in group.rows:
        if row.rule:
            built = group.separator.join("-" * size for size in sizes)
        else:
            cells = [_cell(text, align, sizes[i], i == len(row.cells) - 1) for i, (text, align) in enumerate(row.cells)]
            built = (row.separator or group.separator).join(cells)
        out += built
        if built.strip():
            out += "\n"
    return out


def _cell(text: str, align: str, size: int, last: bool) -> str:
    if len(text) > size:
        return "" if size - 2 < 0 else text[:size - 2] + ".."
    pad = 0 if last else size - len(text)
    if align == CENTER:
        return " " * (pad // 2) + text + " " * (pad - pad // 2)
    return text + " " * pad


def fit_to_screen(sizes: list[int], separator: int, width: int) -> list[int]:
    """RowGroup.recalculateColSizesForScreen: the widest columns share what is left of the screen
    in proportion to their widths."""
    screen = width - (len(sizes) - 1) * separator
    total = sum(sizes)
    if total <= screen:
        return sizes
    order = sorted(range(len(sizes)), key=lambda i: sizes[i])
    marked: set[int] = set()
    running = space_left = extra = 0
    for i in order:
        grown = running + sizes[i]
        if grown + MARGIN > screen:
            marked.add(i)
            extra += sizes[i]
            if space_left == 0:
                space_left = screen - running
        running = grown
    return [math.floor(space_left * (size / extra)) if i in marked else size for i, size in enumerate(sizes)]


def java_hash_set_order(items: list[str]) -> list[str]:
    """The iteration order of `new HashSet<>(items)` in Java (its buckets by String.hashCode)."""
    unique = list(dict.fromkeys(items))
    wanted = max(int(len(items) / 0.75) + 1, 16)
    capacity = 1
    while capacity < wanted:
        capacity *= 2
    while len(unique) > capacity * 0.75:
        capacity *= 2

    def bucket(text: str) -> int:
        h = 0
        for unit in text.encode("utf-16-be").hex(" ", 2).split():
            h = (31 * h + int(unit, 16)) & 0xFFFFFFFF
        return (h ^ (h >> 16)) & (capacity - 1)

    return sorted(unique, key=bucket)
