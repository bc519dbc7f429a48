"""The interactive shell in a real terminal (pty): the start banner of T17/C05, and `--record`
refusing a lab that replay would not start from."""

from __future__ import annotations

import os
import sys
from pathlib import Path

import pexpect

ROOT = Path(__file__).resolve().parents[2]


def spawn(*args: str) -> pexpect.spawn:
    env = dict(os.environ, PYTHONPATH=str(ROOT), TERM="xterm", PROMPT_TOOLKIT_NO_CPR="1")
    return pexpect.spawn(sys.executable, ["-c", "from solace_shell.cli import main; main()", *args], env=env,
                         encoding="utf-8", timeout=60, dimensions=(24, 120))


def test_banner_then_prompt_as_t17(tmp_path: Path) -> None:
    child = spawn("--db", str(tmp_path / "lab.sqlite"))
    child.expect("NY_Appliance1>")
    text = child.before.replace("\r\n", "\n")
    # T17/C05: a blank line, the banner, a blank line, the prompt
    banner = text[text.index("\nSolace PubSub+"):]
    assert banner.startswith("\nSolace PubSub+ Enterprise Version 10.4.1.52\n\nThis Solace product")
    assert "Operating Mode: Message Routing Node\n\n" in banner
    child.sendeof()
    child.close(force=True)


def test_record_refuses_a_lab_that_is_not_fresh(tmp_path: Path) -> None:
    db = tmp_path / "lab.sqlite"
    child = spawn("--db", str(db), "-c", "enable")
    child.expect(pexpect.EOF)
    fresh = spawn("--db", str(db), "--record", str(tmp_path / "a.cli.txt"))
    fresh.expect("NY_Appliance1>")          # `enable` changed nothing in the lab: recording starts
    fresh.sendeof()
    fresh.close(force=True)
    assert (tmp_path / "a.cli.txt").exists()
    # change the lab, then try to record on it
    with open(tmp_path / "advance.cli", "w", encoding="utf-8") as f:
        f.write("enable\nconfigure\nmessage-vpn Trading_VPN\nreplication state standby\n")
    spawn("--db", str(db), "-s", str(tmp_path / "advance.cli")).expect(pexpect.EOF)
    refused = spawn("--db", str(db), "--record", str(tmp_path / "b.cli.txt"))
    refused.expect(pexpect.EOF)
    assert "cannot record on lab" in refused.before and "record on a new --db file" in refused.before
    refused.close()
    assert refused.exitstatus == 2
    assert not (tmp_path / "b.cli.txt").exists()
