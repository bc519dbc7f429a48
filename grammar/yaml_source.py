"""YAML loading that remembers line numbers, for grammar files.

Grammar problems are reported with file and line, all at once. The loader itself is the project's
one line-tracking, limit-enforcing YAML loader (`located_yaml`), shared with scenario files.
"""

from __future__ import annotations

from located_yaml import LocatedDict, LocatedList, YamlSyntaxError, load_located

__all__ = ["LocatedDict", "LocatedList", "YamlSyntaxError", "load_located"]
