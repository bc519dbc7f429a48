"""Which show layouts rest on a capture, and the blank lines that frame each (grammar/data/layouts.yaml).

Why data: the framing of output (solace_shell/framing.py) and the command reference's authority
column must say the same thing, so both read this one file; a show handler without an entry is a
load error, so no new layout can slip in unmarked.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache

from .loader import DATA_DIR
from .parse_cache import cached
from .yaml_source import load_located

LAYOUTS_FILE = DATA_DIR / "layouts.yaml"
_KEYS = {"evidence", "authoritative", "leading", "trailing"}


@dataclass(frozen=True)
class Layout:
    handler: str
    evidence: str
    authoritative: bool
    leading: bool = True
    trailing: bool = False


class LayoutError(Exception):
    pass


@lru_cache(maxsize=1)
def load_layouts() -> dict[str, Layout]:
    """The layouts by handler id, kept between processes as the grammar is (`parse_cache`): the
    first command printed by a one-shot start needs them, and reading YAML costs far more."""
    return cached("layouts", [LAYOUTS_FILE], _read_layouts)


def _read_layouts() -> dict[str, Layout]:
    doc = load_located(LAYOUTS_FILE.read_text(encoding="utf-8"))
    out: dict[str, Layout] = {}
    problems: list[str] = []
    for handler, entry in (doc.get("layouts") or {}).items():
        unknown = set(entry) - _KEYS
        if unknown or not isinstance(entry.get("evidence"), str) or not isinstance(entry.get("authoritative"), bool):
            problems.append(f"{LAYOUTS_FILE.name}: {handler}: needs evidence (text) and authoritative (true/false)"
                            + (f"; unknown keys {sorted(unknown)}" if unknown else ""))
            continue
        out[handler] = Layout(handler, entry["evidence"], entry["authoritative"],
                              bool(entry.get("leading", True)), bool(entry.get("trailing", False)))
    if problems:
        raise LayoutError("\n".join(problems))
    return out
