"""The start banner the broker CLI prints, by product line and software version.

Why a table: the banner changed across releases, and each captured form is a fact to reproduce
(captures T15, T17, T20, T21, C05, C06, C17):
- 8.x and 9.x name the product in the licence paragraph ("The Solace PubSub+ Standard is
  proprietary software of"); 10.x and later say "This Solace product" (T17 100.0 EA, C05 10.25).
- Only the Standard edition adds the support paragraph (T15 9.1, T17, T20 8.10, T21 9.4);
  Enterprise builds print none (C05/C06 10.25, C17 8.13 and 9.0).
- The copyright year is the build's year.
- An appliance prints "System Software. SolOS-TR Version ..." and the copyright only (C17 8.3);
  from 9.0 on it names its model ("Solace PubSub+ 3560 Version 10.25.0.200") with a hardware licence
  paragraph (a real 3560 banner kept as a test fixture in github hafio/solace-cnt-scripts; the
  9.x releases are inferred from it).
- 10.26 renamed the software product line "Solace Event Broker Software Enterprise" (a real
  10.26.0.8827 banner, same source); the Standard edition is inferred to follow.
Versions between the captured ones take the nearest captured form; their copyright year is
inferred from the release calendar (non-authoritative, see docs/commands.md).
"""

from __future__ import annotations

import re
from collections.abc import Mapping

PRODUCT_LINES: tuple[str, ...] = ("enterprise", "standard", "appliance")
DEFAULT_PRODUCT_LINE = "enterprise"
APPLIANCE_MODEL = "3560"
RENAMED = (10, 26)  # the first release of the "Solace Event Broker Software" product line

OPERATING_MODE = "Operating Mode: Message Routing Node"

# (major, minor) at or after which a copyright year applies; captured points are marked.
_YEARS: tuple[tuple[tuple[int, int], int], ...] = (
    ((8, 0), 2017),    # C17 8.3.0.11 (appliance)
    ((8, 10), 2018),   # T20 8.10.0.1057, C17 8.13.0.30, C17 9.0.0.17
    ((9, 1), 2019),    # T15 9.1.0.77, T21 9.4.0.105
    ((9, 5), 2020),
    ((9, 10), 2021),
    ((10, 0), 2022),   # T17 100.0 EA build (2022)
    ((10, 3), 2023),
    ((10, 6), 2024),
    ((10, 10), 2025),
    ((10, 22), 2026),  # C05/C06 10.25.0.217
)


def _release(version: str) -> tuple[int, int]:
    """`10.25.0.217` -> (10, 25); early-access builds (`100.0distributed...`) count as 10.0."""
    m = re.match(r"(\d+)(?:\.(\d+))?", version)
    if not m:
        return (10, 0)
    major, minor = int(m.group(1)), int(m.group(2) or 0)
    if major >= 100:
        return (10, 0)
    return (major, minor)


def copyright_year(version: str) -> int:
    release = _release(version)
    year = _YEARS[0][1]
    for start, value in _YEARS:
        if release >= start:
            year = value
    return year


def _support_url(version: str) -> str:
    return "http://dev.solace.com/contact-us/" if _release(version) < (9, 0) else "https://solace.com/contact-us/"


def banner(product_line: str, version: str) -> str:
    """The banner lines, each ending in a newline, up to and including the Operating Mode line."""
    copyright_line = f"Copyright 2004-{copyright_year(version)} Solace Corporation. All rights reserved."
    if product_line == "appliance":
        if _release(version) < (9, 0):
            return f"System Software. SolOS-TR Version {version}\n\n{copyright_line}\n"
        product = f"Solace PubSub+ {APPLIANCE_MODEL}"
        return (f"{product} Version {version}\n\n"
                f"The System Software included in the {product} is proprietary\n"
                f"software of Solace Corporation. By using the {product}\n"
                "you are agreeing to the license terms and conditions located at\n"
                "http://www.solace.com/license-hardware\n\n"
                f"{copyright_line}\n")
    edition = "Standard" if product_line == "standard" else "Enterprise"
    product = _software_product(edition, version)
    if _release(version) < (10, 0):
        licence = (f"The {product} is proprietary software of\n"
                   f"Solace Corporation. By accessing the {product}\n"
                   "you are agreeing to the license terms and conditions located at\n"
                   "http://www.solace.com/license-software\n")
    else:
        licence = ("This Solace product is proprietary software of\n"
                   "Solace Corporation. By accessing this Solace product\n"
                   "you are agreeing to the license terms and conditions\n"
                   "located at http://www.solace.com/license-software\n")
    support = ""
    if edition == "Standard":
        support = f"To purchase product support, please contact Solace at:\n{_support_url(version)}\n\n"
    return f"{product} Version {version}\n\n{licence}\n{copyright_line}\n\n{support}{OPERATING_MODE}\n"


def _software_product(edition: str, version: str) -> str:
    if _release(version) >= RENAMED:
        return f"Solace Event Broker Software {edition}"
    return f"Solace PubSub+ {edition}"


def lab_product_line(settings: Mapping[str, str]) -> str:
    """The lab's product line (`product_line` setting): enterprise, standard or appliance."""
    product_line = settings.get("product_line", DEFAULT_PRODUCT_LINE).lower()
    return product_line if product_line in PRODUCT_LINES else DEFAULT_PRODUCT_LINE


def product_name(settings: Mapping[str, str]) -> str:
    """`Solace PubSub+ Standard` / `Enterprise` (from 10.26 `Solace Event Broker Software ...`): the
    first words of `show version` and the line an SSH login shows before `Password:` (T20, T21).
    An appliance names its software (8.x) or its model instead."""
    product_line = lab_product_line(settings)
    version = settings.get("software_version", "")
    if product_line == "appliance":
        return "System Software. SolOS-TR" if _release(version) < (9, 0) else f"Solace PubSub+ {APPLIANCE_MODEL}"
    return _software_product("Standard" if product_line == "standard" else "Enterprise", version)


def lab_banner(settings: Mapping[str, str]) -> str:
    """The banner of a lab, from its settings (`product_line` and `software_version`)."""
    return banner(lab_product_line(settings), settings.get("software_version", ""))


def interactive_banner(settings: Mapping[str, str]) -> str:
    """`cli` at a terminal (T17, C05): a blank line, the banner, a blank line, then the prompt."""
    return "\n" + lab_banner(settings) + "\n"


def script_banner(settings: Mapping[str, str]) -> str:
    """`cli -A -s` (T15): the banner and one blank line; each echoed prompt line then brings its own."""
    return lab_banner(settings) + "\n"


def swiftmq_lab_banner() -> str:
    """A lab with SwiftMQ HA routers only: the SwiftMQ admin CLI prints no banner of its own that a
    capture shows, so the lab says where the operator is (non-authoritative)."""
    return ("solace-shell lab: SwiftMQ HA routers (SwiftMQ admin CLI; ? for help, Tab to complete, "
            "F2 for the lab console)\n")
