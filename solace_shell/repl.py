"""The interactive REPL: one prompt_toolkit session over `Lab.execute`.

The loop is deliberately thin; each concern has its own module (pgcli style):
completer.py (Tab, `?` help text), keybindings.py (`?`, F2), toolbar.py, style.py, paging.py (More),
live_names.py (names for Tab). The emulated CLI text is printed exactly as the session returns it,
never coloured; colour appears only in the toolbar and the completion menu.
"""

from __future__ import annotations

import logging
import sys
from pathlib import Path
from typing import TYPE_CHECKING, Any, TextIO

from prompt_toolkit import PromptSession, print_formatted_text
from prompt_toolkit.enums import EditingMode
from prompt_toolkit.formatted_text import FormattedText
from prompt_toolkit.history import FileHistory, History, InMemoryHistory
from prompt_toolkit.shortcuts import CompleteStyle

from .completer import ShellCompleter, help_fragments, help_text
from .keybindings import repl_key_bindings
from .live_names import LiveNames
from .paging import more_prompt_reader, needs_paging, page_height, page_output
from .style import repl_style
from .toolbar import LAB_TARGET, read_clock, toolbar_fragments

if TYPE_CHECKING:
    from .lab import Lab
    from .session import Session

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

    def __init__(self, lab: Lab, start_target: str, *, history_path: Path | None = None, recorder: Any = None,
                 input: Any = None, output: Any = None,  # noqa: A002 - prompt_toolkit's names
                 editing_mode: EditingMode | str = EditingMode.EMACS, stdout: TextIO | None = None,
                 paging: bool | None = None) -> None:
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
        self.colour = stdout is None and sys.stdout.isatty()
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

    # -- targets --------------------------------------------------------------------------------
    def session(self) -> Session:
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
        if not text:
            return
        rows = self._rows()
        if paging and self.paging_enabled and rows and needs_paging(text, rows):
            page_output(text, page_height(rows), self.write, self._read_key)
        else:
            self.write(text)

    def _rows(self) -> int:
        try:
            return int(self.prompt_session.output.get_size().rows)
        except Exception:
            return 0

    def _toolbar(self) -> Any:
        return toolbar_fragments(self.target, self.clock, self.last_router)

    # -- the loop -------------------------------------------------------------------------------
    def run_line(self, line: str) -> bool:
        """Run one line on the current target; False when the REPL should end."""
        target = self.target
        try:
            prompt = self.prompt
            outcome = self.lab.execute(target, line)
        except Exception as exc:  # the lab guards its own commands; this is a last resort
            log.exception("internal error running %r", line)
            self.write(f"ERROR: Internal error while running the command ({type(exc).__name__}).")
            return True
        self.live.invalidate()
        self.clock = read_clock(self.lab)
        if self.recorder is not None and line.strip():
            self.recorder.record(prompt, line, outcome.text)
        self.show(outcome.text, self.lab.target(target).paging)
        if outcome.switch_to:
            self.switch(outcome.switch_to)
        return not outcome.ended

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


def run_repl(lab: Lab, start_target: str, *, history_path: Path | None, recorder: Any = None,
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
