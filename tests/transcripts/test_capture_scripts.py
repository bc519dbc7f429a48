"""Real scripts run through the `-s` machinery with the captured framing (captures T15, T16)."""

from __future__ import annotations

import io

from solace_shell.banner import banner, script_banner
from solace_shell.lab import Lab
from solace_shell.script import run_script, script_lines

from tests.cli.test_cli_entry import T16

# T15 verbatim, but for the host (solace -> NY_Appliance1) and the spooled count (10 -> 0: this lab
# publishes nothing to the queue).
T15 = """Solace PubSub+ Standard Version 9.1.0.77

The Solace PubSub+ Standard is proprietary software of
Solace Corporation. By accessing the Solace PubSub+ Standard
you are agreeing to the license terms and conditions located at
http://www.solace.com/license-software

Copyright 2004-2019 Solace Corporation. All rights reserved.

To purchase product support, please contact Solace at:
https://solace.com/contact-us/

Operating Mode: Message Routing Node


solace> enable

solace# show

solace(show)> queue connector-quickstart

Flags Legend:
I - Ingress Admin State (U=Up, D=Down)
E - Egress  Admin State (U=Up, D=Down)
A - Access-Type         (E=Exclusive, N=Non-Exclusive)
S - Selector            (Y=Yes, N=No)
R - Redundancy          (P=Primary, B=Backup)
D - Durability          (D=Durable, N=Non-Durable)
P - Priority            (Y=Yes, N=No)

Queue Name                   Messages      Spool             Bind Status
Message VPN                   Spooled  Usage(MB)   HWM (MB) Count I E A S R D P
------------------------- ----------- ---------- ---------- ----- -------------
connector-quickstart
default                            10       0.00       0.00     0 U U E N P D N
"""


def test_t16_then_t15_scripts_print_the_t15_capture() -> None:
    lab = Lab.fresh(settings={"version": "9.1.0.77"})
    try:
        assert run_script(lab, "NY_Appliance1", script_lines(T16), io.StringIO()) == 0
        lab.session("NY_Appliance1").restart()
        out = io.StringIO()
        code = run_script(lab, "NY_Appliance1", script_lines("enable\nshow\nqueue connector-quickstart\n"), out,
                          banner=banner("standard", "9.1.0.77") + "\n")
        assert code == 0
        expected = T15.replace("solace", "NY_Appliance1").replace("NY_Appliance1.com", "solace.com") \
            .replace("                            10 ", "                             0 ")
        assert out.getvalue() == expected
    finally:
        lab.close()


def test_the_lab_banner_follows_its_version_setting() -> None:
    lab = Lab.fresh(settings={"version": "9.0.0.17"})
    try:
        with lab.store.transaction() as engine:
            text = script_banner(engine.settings())
        assert text.startswith("Solace PubSub+ Enterprise Version 9.0.0.17\n\nThe Solace PubSub+ Enterprise is")
    finally:
        lab.close()
