"""Solace topic matching and CLI name wildcards.

Why its own module: both the engine (routing, replication) and validation need the exact Solace
rules, and they are easy to get subtly wrong:
- topic subscriptions: levels split on '/'; '*' alone matches one whole level; 'ord*' (a level
  ending in '*') matches any level starting with 'ord'; '>' as the LAST level matches one or more
  further levels. A '*' or '>' inside a level in any other position is literal.
- CLI name patterns (VPN, queue, client, XID): '*' any run of characters, '?' exactly one.
"""

from __future__ import annotations

import re
from functools import lru_cache


def _level_matches(sub_level: str, level: str) -> bool:
    if sub_level == "*":
        return True
    if sub_level.endswith("*") and len(sub_level) > 1:
        return level.startswith(sub_level[:-1])
    return sub_level == level


@lru_cache(maxsize=4096)
def topic_matches(subscription: str, topic: str) -> bool:
    """True when ``topic`` (a concrete topic) matches the Solace ``subscription``. (Cached: every
    publish and every topic a standby receives matches the same few pairs again.)"""
    sub = subscription.split("/")
    top = topic.split("/")
    for i, s in enumerate(sub):
        if s == ">" and i == len(sub) - 1:
            return len(top) > i
        if i >= len(top) or not _level_matches(s, top[i]):
            return False
    return len(top) == len(sub)


@lru_cache(maxsize=1024)
def _name_regex(pattern: str) -> re.Pattern[str]:
    out = []
    for ch in pattern:
        if ch == "*":
            out.append(".*")
        elif ch == "?":
            out.append(".")
        else:
            out.append(re.escape(ch))
    return re.compile("".join(out) + r"\Z", re.DOTALL)


def name_matches(pattern: str | None, name: str) -> bool:
    """CLI wildcard match; ``None`` matches everything. (A name without wildcards, the usual
    case, and a lone `*` need no regular expression.)"""
    if pattern is None or pattern == "*":
        return True
    if "*" not in pattern and "?" not in pattern:
        return pattern == name
    return _name_regex(pattern).match(name) is not None


def has_wildcard(pattern: str | None) -> bool:
    return pattern is not None and ("*" in pattern or "?" in pattern)
