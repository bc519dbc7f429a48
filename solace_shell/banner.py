"""What the CLI prints before its first prompt, shared by the local shell and the SSH server.

Why one module: `solace-shell` at a terminal and a trainee's `ssh -p 2222 admin@lab` must greet with
the same text, and the product line (the lab's `product` setting, as `show version` reads it) is also
the line the SSH server shows before asking for the password (captures T20, T21).

The start banner keeps the layout of the real one (version line, blank, operating mode) but not the
vendor's licence, copyright and support paragraphs: the emulator is not Solace software and claims
none of them (non-authoritative: layout only).
"""

from __future__ import annotations

from collections.abc import Mapping

DEFAULT_PRODUCT = "Solace PubSub+ Enterprise"
HINT = "(solace-shell lab: ? for help, Tab to complete, F2 for the lab console)"


def product_line(settings: Mapping[str, str]) -> str:
    """`Solace PubSub+ Enterprise` (or the lab's `product` setting, e.g. `Solace PubSub+ Standard`)."""
    return settings.get("product", DEFAULT_PRODUCT)


def start_banner(settings: Mapping[str, str]) -> str:
    """The banner before the first prompt, ending with its newline (a blank line follows it)."""
    version = settings.get("software_version", "")
    return (f"{product_line(settings)} Version {version}\n\nOperating Mode: Message Routing Node\n"
            f"{HINT}\n")
