"""The interactive REPL: one prompt_toolkit session over `Lab.execute`.

The loop is deliberately thin; each concern has its own module (pgcli style):
completer.py (Tab, `?` help text), keybindings.py (`?`, F2), toolbar.py, style.py, paging.py (More),
live_names.py (names for Tab). The emulated CLI text is printed exactly as the session returns it,
never coloured; colour appears only in the toolbar and the completion menu.
"""

from __future__ import annotations

import asyncio
import logging
import sys
from pathlib import Path
from typing import Any, TextIO

from prompt_toolkit import PromptSession
from prompt_toolkit.enums import EditingMode
from prompt_toolkit.history import FileHistory, History, InMemoryHistory
from prompt_toolkit.shortcuts import CompleteStyle

from prompt_toolkit import print_formatted_text
from prompt_toolkit.formatted_text import FormattedText

from .completer import ShellCompleter, help_fragments, help_text
from .keybindings import repl_key_bindings
from .live_names import LiveNames
from .results import Outcome
from .paging import (
    more_prompt_reader,
    more_prompt_reader_async,
    needs_paging,
    page_height,
    page_output,
    page_output_async,
)
from .style import repl_style
from .toolbar import LAB_TARGET, read_clock, toolbar_fragments

log = logging.getLogger(__name__)

HISTORY_SUFFIX = ".history"


def history_path_for(lab_path: str | Path) -> Path:
    """Command history lives next to the lab file: `labs/drill.lab` -> `labs/drill.lab.history`."""
    lab_path = Path(lab_path)
    return lab_path.with_name(lab_path.name + HISTORY_SUFFIX)


def _editing_mode(value: EditingMode | str) -> EditingMode:
    if isinstance(value, EditingMode):
        return value
    return EditingMode.VI if str(value).lower() == "vi" else EditingMode.EMACS


class Repl:
    """State of one interactive run: the current target, the last router, the prompt session."""

    def __init__(self, lab: Any, start_target: str, *, history_path: Path | None = None, recorder: Any = None,
                 input: Any = None, output: Any = None,  # noqa: A002 - prompt_toolkit's names
                 editing_mode: EditingMode | str = EditingMode.EMACS, stdout: TextIO | None = None,
                 paging: bool | None = None, colour: bool | None = None) -> None:
        self.lab = lab
        self.target = start_target
        self.recorder = recorder
        self.stdout = stdout
        routers = list(lab.routers())
        self.last_router: str | None = start_target if start_target != LAB_TARGET else (
            routers[0] if routers else None)
        self.live = LiveNames(lab)
        self.clock = read_clock(lab)
        history: History = InMemoryHistory()
        if history_path is not None:
            try:
                Path(history_path).parent.mkdir(parents=True, exist_ok=True)
                history = FileHistory(str(history_path))
            except OSError:
                log.warning("cannot use history file %s", history_path)
        self.style = repl_style()
        # Colour (toolbar aside) only when writing to a real terminal.
        self.colour = (stdout is None and sys.stdout.isatty()) if colour is None else colour
        self.prompt_session: PromptSession[str] = PromptSession(
            message=lambda: self.prompt + " ",
            completer=ShellCompleter(lab.parser, self.session, self.live, lambda: self.last_router),
            complete_while_typing=False,
            complete_style=CompleteStyle.COLUMN,
            key_bindings=repl_key_bindings(self),
            history=history,
            bottom_toolbar=self._toolbar,
            style=self.style,
            include_default_pygments_style=False,
            editing_mode=_editing_mode(editing_mode),
            input=input,
            output=output,
        )
        # The More pager only when writing to a real terminal (a test or a pipe gets everything).
        self.paging_enabled = (stdout is None and sys.stdout.isatty()) if paging is None else paging
        self._read_key = more_prompt_reader(self.prompt_session.input, self.prompt_session.output)
        self._read_key_async = more_prompt_reader_async(self.prompt_session.input, self.prompt_session.output)

    # -- targets --------------------------------------------------------------------------------
    def session(self) -> Any:
        return self.lab.target(self.target)

    @property
    def prompt(self) -> str:
        """The current prompt without the trailing space."""
        return self.session().prompt

    def switch(self, target: str) -> None:
        if target != LAB_TARGET:
            self.last_router = target
        self.target = target

    def toggle_console(self) -> None:
        """F2: the lab console from a router; back to the last router from the console."""
        if self.target != LAB_TARGET:
            self.switch(LAB_TARGET)
        elif self.last_router is not None:
            self.switch(self.last_router)

    # -- output ---------------------------------------------------------------------------------
    def write(self, text: str) -> None:
        stream = self.stdout if self.stdout is not None else sys.stdout
        stream.write(text + "\n")
        stream.flush()

    def help_for(self, text: str, cursor: int) -> str:
        try:
            return help_text(self.lab.parser, self.session().mode, self.prompt, text, cursor)
        except Exception as exc:  # help must never end the session
            log.exception("? help failed")
            return f"{self.prompt} {text}?\n% help unavailable ({type(exc).__name__})"

    def write_help(self, text: str) -> None:
        """`?` help; coloured only on an interactive terminal (never in tests, pipes or recordings)."""
        if self.colour:
            try:
                print_formatted_text(FormattedText(help_fragments(text)), end="", style=self.style,
                                     output=self.prompt_session.output)
                return
            except Exception:
                log.debug("coloured help failed", exc_info=True)
        self.write(text)

    def show(self, text: str, paging: bool) -> None:
        """Print command output, through the More pager when it is on and the output is long."""
        if self._pages(text, paging):
            page_output(text, page_height(self._rows()), self.write, self._read_key)
        elif text:
            self.write(text)

    async def show_async(self, text: str, paging: bool) -> None:
        """`show` in an asyncio shell (the SSH server): the More prompt is awaited."""
        if self._pages(text, paging):
            await page_output_async(text, page_height(self._rows()), self.write, self._read_key_async)
        elif text:
            self.write(text)

    def _pages(self, text: str, paging: bool) -> bool:
        """Page this output? Sized to the terminal now (an SSH client's window as it is resized)."""
        rows = self._rows()
        return bool(text) and paging and self.paging_enabled and rows > 0 and needs_paging(text, rows)

    def _rows(self) -> int:
        try:
            return int(self.prompt_session.output.get_size().rows)
        except Exception:
            return 0

    def _toolbar(self) -> Any:
        return toolbar_fragments(self.target, self.clock, self.last_router)

    # -- the loop -------------------------------------------------------------------------------
    def _execute(self, target: str, line: str) -> tuple[str | None, Any]:
        """Run `line` on `target`: (the prompt it ran at, its Outcome); the prompt is None after an
        internal error (reported as the Outcome). Touches only the lab, never the terminal, so the
        SSH server can run it off its event loop."""
        try:
            prompt = self.prompt
            outcome = self.lab.execute(target, line)
        except Exception as exc:  # the lab guards its own commands; this is a last resort
            log.exception("internal error running %r", line)
            return None, Outcome(f"ERROR: Internal error while running the command ({type(exc).__name__}).", False,
                                 error_kind="internal")
        self.live.invalidate()
        self.clock = read_clock(self.lab)
        return prompt, outcome

    def _record(self, prompt: str | None, line: str, outcome: Any) -> None:
        if self.recorder is not None and prompt is not None and line.strip():
            self.recorder.record(prompt, line, outcome.text)

    def _after(self, outcome: Any) -> bool:
        switch_to = getattr(outcome, "switch_to", None)
        if switch_to:
            self.switch(switch_to)
        return not getattr(outcome, "ended", False)

    def _paging_on(self, target: str) -> bool:
        return bool(getattr(self.lab.target(target), "paging", False))

    def run_line(self, line: str) -> bool:
        """Run one line on the current target; False when the REPL should end."""
        target = self.target
        prompt, outcome = self._execute(target, line)
        self._record(prompt, line, outcome)
        self.show(outcome.text, prompt is not None and self._paging_on(target))
        return self._after(outcome)

    async def run_line_async(self, line: str) -> bool:
        """`run_line` for an asyncio shell: the command runs in a worker thread, so the event loop
        (other SSH sessions' keys and output) keeps going while it runs."""
        target = self.target
        prompt, outcome = await asyncio.to_thread(self._execute, target, line)
        self._record(prompt, line, outcome)
        await self.show_async(outcome.text, prompt is not None and self._paging_on(target))
        return self._after(outcome)

    def run(self) -> int:
        while True:
            try:
                line = self.prompt_session.prompt()
            except KeyboardInterrupt:
                continue
            except EOFError:
                return 0
            if not self.run_line(line):
                return 0

    async def run_async(self) -> int:
        """`run` inside a running event loop (one SSH session among many): the same shell."""
        while True:
            try:
                line = await self.prompt_session.prompt_async()
            except KeyboardInterrupt:
                continue
            except EOFError:
                return 0
            if not await self.run_line_async(line):
                return 0


def run_repl(lab: Any, start_target: str, *, history_path: Path | None, recorder: Any = None,
             input: Any = None, output: Any = None,  # noqa: A002 - prompt_toolkit's names
             editing_mode: EditingMode | str = EditingMode.EMACS, stdout: TextIO | None = None,
             paging: bool | None = None) -> int:
    """Run the interactive CLI on `lab`, starting at `start_target` (a router or "lab").

    Returns the exit code: 0 after `exit` at a router's top level or Ctrl-D on an empty line.
    `input`/`output` are prompt_toolkit Input/Output (tests pass a pipe input and DummyOutput);
    `stdout` receives the command output and `?` help (default sys.stdout); `paging` forces the More
    pager on or off (default: on when stdout is a terminal); `editing_mode` is "emacs" or "vi".
    """
    if start_target not in lab.targets():
        (stdout or sys.stderr).write(f"ERROR: No router named '{start_target}' in this lab.\n")
        return 1
    repl = Repl(lab, start_target, history_path=history_path, recorder=recorder, input=input, output=output,
                editing_mode=editing_mode, stdout=stdout, paging=paging)
    return repl.run()
