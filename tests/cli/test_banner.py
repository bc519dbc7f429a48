"""The start banner, byte for byte as the captures print it, by product line and version."""

from __future__ import annotations

import pytest

from solace_shell.banner import banner, interactive_banner, product_name, script_banner

OLD_LICENCE = """The Solace PubSub+ {edition} is proprietary software of
Solace Corporation. By accessing the Solace PubSub+ {edition}
you are agreeing to the license terms and conditions located at
http://www.solace.com/license-software
"""
NEW_LICENCE = """This Solace product is proprietary software of
Solace Corporation. By accessing this Solace product
you are agreeing to the license terms and conditions
located at http://www.solace.com/license-software
"""

CAPTURED = {
    # T15 (cli -A -s, 9.1.0.77)
    ("standard", "9.1.0.77"): "Solace PubSub+ Standard Version 9.1.0.77\n\n" + OLD_LICENCE.format(edition="Standard")
    + "\nCopyright 2004-2019 Solace Corporation. All rights reserved.\n\n"
    "To purchase product support, please contact Solace at:\nhttps://solace.com/contact-us/\n\n"
    "Operating Mode: Message Routing Node\n",
    # T17 (10.x EA build)
    ("standard", "100.0distributed_tracing_1_1.0.261"):
    "Solace PubSub+ Standard Version 100.0distributed_tracing_1_1.0.261\n\n" + NEW_LICENCE
    + "\nCopyright 2004-2022 Solace Corporation. All rights reserved.\n\n"
    "To purchase product support, please contact Solace at:\nhttps://solace.com/contact-us/\n\n"
    "Operating Mode: Message Routing Node\n",
    # T20 (ssh login, 8.10.0.1057)
    ("standard", "8.10.0.1057"): "Solace PubSub+ Standard Version 8.10.0.1057\n\n"
    + OLD_LICENCE.format(edition="Standard")
    + "\nCopyright 2004-2018 Solace Corporation. All rights reserved.\n\n"
    "To purchase product support, please contact Solace at:\nhttp://dev.solace.com/contact-us/\n\n"
    "Operating Mode: Message Routing Node\n",
    # C05 / C06 (10.25.0.217)
    ("enterprise", "10.25.0.217"): "Solace PubSub+ Enterprise Version 10.25.0.217\n\n" + NEW_LICENCE
    + "\nCopyright 2004-2026 Solace Corporation. All rights reserved.\n\nOperating Mode: Message Routing Node\n",
    # C17 (8.13.0.30 on AWS, 9.0.0.17 in Docker)
    ("enterprise", "8.13.0.30"): "Solace PubSub+ Enterprise Version 8.13.0.30\n\n"
    + OLD_LICENCE.format(edition="Enterprise")
    + "\nCopyright 2004-2018 Solace Corporation. All rights reserved.\n\nOperating Mode: Message Routing Node\n",
    ("enterprise", "9.0.0.17"): "Solace PubSub+ Enterprise Version 9.0.0.17\n\n"
    + OLD_LICENCE.format(edition="Enterprise")
    + "\nCopyright 2004-2018 Solace Corporation. All rights reserved.\n\nOperating Mode: Message Routing Node\n",
    # a real 10.26.0.8827 banner (github hafio/solace-cnt-scripts, a test fixture of a 2026 export):
    # the product line renamed
    ("enterprise", "10.26.0.8827"): "Solace Event Broker Software Enterprise Version 10.26.0.8827\n\n" + NEW_LICENCE
    + "\nCopyright 2004-2026 Solace Corporation. All rights reserved.\n\nOperating Mode: Message Routing Node\n",
    # a real PubSub+ 3560 appliance banner, 10.25.0.200 (same source)
    ("appliance", "10.25.0.200"): "Solace PubSub+ 3560 Version 10.25.0.200\n\n"
    "The System Software included in the Solace PubSub+ 3560 is proprietary\n"
    "software of Solace Corporation. By using the Solace PubSub+ 3560\n"
    "you are agreeing to the license terms and conditions located at\n"
    "http://www.solace.com/license-hardware\n\n"
    "Copyright 2004-2026 Solace Corporation. All rights reserved.\n",
    # C17 appliance ssh login (8.3.0.11)
    ("appliance", "8.3.0.11"): "System Software. SolOS-TR Version 8.3.0.11\n\n"
    "Copyright 2004-2017 Solace Corporation. All rights reserved.\n",
}


@pytest.mark.parametrize(("product", "version"), sorted(CAPTURED))
def test_banner_is_the_captured_one(product: str, version: str) -> None:
    assert banner(product, version) == CAPTURED[(product, version)]


def test_interactive_and_script_framing() -> None:
    settings = {"product_line": "enterprise", "software_version": "10.25.0.217"}
    body = CAPTURED[("enterprise", "10.25.0.217")]
    # T17/C05: `cli`, a blank line, the banner, a blank line, the prompt
    assert interactive_banner(settings) == "\n" + body + "\n"
    # T15: the banner, then (with each echoed line's own blank line) two blank lines
    assert script_banner(settings) == body + "\n"


def test_unknown_product_line_falls_back_to_enterprise() -> None:
    assert interactive_banner({"product_line": "nonsense", "software_version": "10.4.1.52"}).startswith(
        "\nSolace PubSub+ Enterprise Version 10.4.1.52\n")


@pytest.mark.parametrize(("product", "version", "name"), [
    ("enterprise", "10.25.0.217", "Solace PubSub+ Enterprise"),
    ("enterprise", "10.26.0.8827", "Solace Event Broker Software Enterprise"),
    ("appliance", "8.3.0.11", "System Software. SolOS-TR"),
    ("appliance", "10.25.0.200", "Solace PubSub+ 3560"),
])
def test_the_product_name_follows_the_version(product: str, version: str, name: str) -> None:
    """`show version` and the SSH login line name the product as the banner does."""
    assert product_name({"product_line": product, "software_version": version}) == name
    assert banner(product, version).startswith(f"{name} Version {version}\n")
