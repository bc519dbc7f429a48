"""How a level's path appears in the prompt, including the broker's truncation of long paths."""

from __future__ import annotations

# A level path longer than this is shown as "..." plus its last 37 characters (reference 1.3:
# every real example keeps 40 characters between the parentheses).
MAX_PATH = 40
KEPT_TAIL = 37


def shown_path(path: str) -> str:
    return path if len(path) <= MAX_PATH else "..." + path[-KEPT_TAIL:]


def prompt_text(host: str, path: str, char: str) -> str:
    """`NY_Appliance1(configure/message-vpn)#`, without the trailing space the CLI prints."""
    suffix = f"({shown_path(path)})" if path else ""
    return f"{host}{suffix}{char}"
