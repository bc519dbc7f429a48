"""docs/tutorial.md is the session of transcripts/tutorial/first-hour.cli.txt, and that session is
what a newcomer gets by typing the tutorial into the interactive shell.

Three checks keep the tutorial true: the corpus test replays the transcript (its output); here the
tutorial's `transcript` blocks, joined, must be the transcript line for line (comments aside), and
the tutorial's commands typed into the REPL exactly as the tutorial says to (F2 to the lab console
and back, `lab> connect` to another router) must record that same transcript. A tutorial that
skips a step, shows a stale output or asks for an impossible move between routers fails here.
"""

from __future__ import annotations

import io
import re
from pathlib import Path

from prompt_toolkit.input import create_pipe_input
from prompt_toolkit.output import DummyOutput

from solace_shell.lab import Lab
from solace_shell.repl import run_repl
from solace_shell.transcript.format import match_prompt
from solace_shell.transcript.record import Recorder

ROOT = Path(__file__).resolve().parents[2]
TUTORIAL = ROOT / "docs" / "tutorial.md"
TRANSCRIPT = ROOT / "transcripts" / "tutorial" / "first-hour.cli.txt"
F2 = "\x1bOQ"
ROUTERS = ("NY_Appliance1", "NJ_Appliance1")


def _session_lines(text: str) -> list[str]:
    """The lines of a session, comments and trailing blanks dropped."""
    return [line.rstrip() for line in text.splitlines() if not line.startswith("#|")]


def transcript_blocks(markdown: str) -> list[str]:
    return re.findall(r"^```transcript\n(.*?)^```", markdown, flags=re.S | re.M)


def _host(line: str) -> str | None:
    prompt = match_prompt(line)
    if prompt is None or prompt.host not in (*ROUTERS, "lab"):
        return None
    return prompt.host


def keys_for(lines: list[str]) -> str:
    """What a user types for these session lines, starting at NY_Appliance1: each command, F2 to
    reach `lab>` and F2 to go back to the router the console was opened from. Reaching any other
    router needs a `lab> connect` line of the session itself (connect leaves the console)."""
    typed: list[str] = []
    here, opened_from = "NY_Appliance1", "NY_Appliance1"
    for line in lines:
        host = _host(line)
        if host is None:
            continue
        prompt = match_prompt(line)
        assert prompt is not None
        if host != here:
            if host == "lab":
                opened_from = here
            else:
                assert here == "lab" and host == opened_from, f"the tutorial never shows how to reach {host}: {line}"
            typed.append(F2)
            here = host
        typed.append(prompt.command + "\r")
        connected = re.fullmatch(r"connect (\S+)", prompt.command)
        if host == "lab" and connected:
            here = opened_from = connected.group(1)
    return "".join(typed)


def test_the_tutorial_shows_the_whole_transcript() -> None:
    blocks = transcript_blocks(TUTORIAL.read_text(encoding="utf-8"))
    assert blocks, "docs/tutorial.md has no transcript block"
    shown = [line for block in blocks for line in _session_lines(block)]
    assert shown == _session_lines(TRANSCRIPT.read_text(encoding="utf-8"))


def test_typing_the_tutorial_records_the_transcript() -> None:
    lines = _session_lines(TRANSCRIPT.read_text(encoding="utf-8"))
    recorded = io.StringIO()
    lab = Lab.fresh()
    try:
        with create_pipe_input() as pipe:
            pipe.send_text(keys_for(lines))
            pipe.close()
            run_repl(lab, "NY_Appliance1", history_path=None, recorder=Recorder(recorded),
                     input=pipe, output=DummyOutput(), stdout=io.StringIO(), paging=False)
    finally:
        lab.close()
    assert _session_lines(recorded.getvalue()) == lines


def test_typing_the_readme_drill_records_it() -> None:
    """README's first drill, typed as the README says (F2, `connect`), records itself."""
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    (block,) = transcript_blocks(readme)
    lines = _session_lines(block)
    recorded = io.StringIO()
    lab = Lab.fresh()
    try:
        with create_pipe_input() as pipe:
            pipe.send_text(keys_for(lines))
            pipe.close()
            run_repl(lab, "NY_Appliance1", history_path=None, recorder=Recorder(recorded),
                     input=pipe, output=DummyOutput(), stdout=io.StringIO(), paging=False)
    finally:
        lab.close()
    assert _session_lines(recorded.getvalue()) == lines
