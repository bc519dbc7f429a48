"""The interactive REPL: one prompt_toolkit session over `Lab.execute`.

The loop is deliberately thin; each concern has its own module (pgcli style):
completer.py (Tab, `?` help text), keybindings.py (`?`, F2), toolbar.py, style.py, paging.py (More),
live_names.py (names for Tab). The emulated CLI text is printed exactly as the session returns it,
never coloured; colour appears only in the toolbar and the completion menu.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import signal
import sys
import threading
from collections.abc import Iterator
from pathlib import Path
from typing import TYPE_CHECKING, Any, TextIO

from prompt_toolkit import PromptSession, print_formatted_text
from prompt_toolkit.enums import EditingMode
from prompt_toolkit.formatted_text import FormattedText
from prompt_toolkit.history import History
from prompt_toolkit.shortcuts import CompleteStyle

from grammar.masking import mask_secrets
from grammar.tokens import printable

from .completer import ShellCompleter, help_fragments, help_text, refusal_text
from .escaped_input import EscapeInvisibleProcessor
from .history import open_history
from .keybindings import ConsoleToggled, guard_accept, print_above, repl_key_bindings
from .lab import EntryRefused
from .line_limit import LineLimit
from .live_names import LiveNames
from .paging import (
    more_prompt_reader,
    more_prompt_reader_async,
    needs_paging,
    page_height,
    page_output,
    page_output_async,
)
from .results import BACK_TO_ROUTER, Outcome
from .style import repl_style
from .toolbar import LAB_TARGET, clock_text, read_clock, toolbar_fragments

if TYPE_CHECKING:
    from .lab import Lab
    from .personalities.base import Personality

log = logging.getLogger(__name__)

HISTORY_SUFFIX = ".history"
CONSOLE_HISTORY_SUFFIX = ".lab"


def history_path_for(lab_path: str | Path) -> Path:
    """Command history lives next to the lab file: `labs/drill.lab` -> `labs/drill.lab.history`."""
    lab_path = Path(lab_path)
    return lab_path.with_name(lab_path.name + HISTORY_SUFFIX)


def console_history_path(history_path: str | Path) -> Path:
    """The lab console's history, next to the routers': `drill.lab.history` -> `drill.lab.history.lab`."""
    history_path = Path(history_path)
    return history_path.with_name(history_path.name + CONSOLE_HISTORY_SUFFIX)


def _editing_mode(value: EditingMode | str) -> EditingMode:
    if isinstance(value, EditingMode):
        return value
    return EditingMode.VI if str(value).lower() == "vi" else EditingMode.EMACS


class Repl:
    """State of one interactive run: the current target, the last router, the prompt session."""

    def __init__(self, lab: Lab, start_target: str, *, history_path: Path | None = None, recorder: Any = None,
                 input: Any = None, output: Any = None,  # noqa: A002 - prompt_toolkit's names
                 editing_mode: EditingMode | str = EditingMode.EMACS, stdout: TextIO | None = None,
                 paging: bool | None = None, colour: bool | None = None) -> None:
        self.lab = lab
        lab.enter(start_target)  # EntryRefused: this user may not start here
        self.target = start_target
        self.recorder = recorder
        self.stdout = stdout
        routers = list(lab.routers())
        self.last_router: str | None = start_target if start_target != LAB_TARGET else (
            routers[0] if routers else None)
        self.live = LiveNames(lab)
        self.may_open_console = lab.console_refusal() is None
        self.clock = read_clock(lab)
        self.style = repl_style()
        # Colour (toolbar aside) only when writing to a real terminal.
        self.colour = (stdout is None and sys.stdout.isatty()) if colour is None else colour
        # The routers share one history and the lab console keeps its own, so Up at a router
        # never brings back `fail site NY`, and Up at `lab>` never a CLI command.
        console_history = None if history_path is None else console_history_path(history_path)
        self._prompt_sessions: dict[bool, PromptSession[str]] = {
            at_console: PromptSession(
                message=lambda: self.prompt + " ",
                completer=ShellCompleter(lab.parser, self.session, self.live, lambda: self.last_router),
                complete_while_typing=False,
                # No validator: validating while typing would only schedule a task and a redraw per key.
                validate_while_typing=False,
                complete_style=CompleteStyle.COLUMN,
                key_bindings=repl_key_bindings(self),
                input_processors=[EscapeInvisibleProcessor()],
                history=self._history(console_history if at_console else history_path),
                bottom_toolbar=self._toolbar,
                style=self.style,
                include_default_pygments_style=False,
                editing_mode=_editing_mode(editing_mode),
                input=input,
                output=output,
            )
            for at_console in (False, True)
        }
        for prompt_session in self._prompt_sessions.values():
            LineLimit(lambda text: print_above(self.write, text)).attach(prompt_session.default_buffer)
            guard_accept(prompt_session.default_buffer)
        # The More pager only when writing to a real terminal (a test or a pipe gets everything).
        self.paging_enabled = (stdout is None and sys.stdout.isatty()) if paging is None else paging
        self._read_key = more_prompt_reader(self.prompt_session.input, self.prompt_session.output)
        self._read_key_async = more_prompt_reader_async(self.prompt_session.input, self.prompt_session.output)

    @property
    def prompt_session(self) -> PromptSession[str]:
        """The prompt of the current target: the routers' or the lab console's (own history)."""
        return self._prompt_sessions[self.target == LAB_TARGET]

    @property
    def prompt_sessions(self) -> tuple[PromptSession[str], ...]:
        """Both prompts: the routers' and the lab console's."""
        return tuple(self._prompt_sessions.values())

    # -- targets --------------------------------------------------------------------------------
    def session(self) -> Personality:
        return self.lab.target(self.target)

    @property
    def prompt(self) -> str:
        """The current prompt without the trailing space."""
        return self.session().prompt

    def recorded_prompt(self, target: str) -> str:
        """The prompt as a transcript writes it: an HA system's CLI, whose prompt has no host, is
        prefixed with its name, `<system>:<prompt>` (docs/transcripts.md)."""
        return self.lab.prompt(target)

    def switch(self, target: str) -> str | None:
        """Go to `target`; returns the refusal line (nothing changed) when it is the lab console
        and the user has no lab-administration right."""
        try:
            self.lab.enter(target)
        except EntryRefused as refused:
            return str(refused)
        if target != LAB_TARGET:
            self.last_router = target
        self.target = target
        return None

    def toggle_console(self) -> str | None:
        """F2: the lab console from a router; back to the last router from the console.
        Returns the refusal line when the console is not this user's."""
        if self.target != LAB_TARGET:
            return self.switch(LAB_TARGET)
        if self.last_router is not None:
            targets = self.lab.targets()
            # after `lab> reset <scenario>` the last router may be gone (e.g. to the SwiftMQ lab)
            return self.switch(self.last_router if self.last_router in targets else targets[0])
        return None

    def mask(self, line: str) -> str:
        """`line` as it may be kept (history, recording, logs): passwords masked."""
        return mask_secrets(self.lab.parser, self.session().mode, line)

    def _history(self, path: Path | None) -> History:
        """A private, masked history file; memory when there is none or it cannot be used."""
        if path is not None:
            try:
                return open_history(Path(path), self.mask)
            except OSError:
                log.warning("cannot use history file %s", path)
        return open_history(None, self.mask)

    # -- output ---------------------------------------------------------------------------------
    def write(self, text: str) -> None:
        stream = self.stdout if self.stdout is not None else sys.stdout
        stream.write(text + "\n")
        stream.flush()

    def context_help(self) -> bool:
        """Does `?` ask for help here (a personality without it takes `?` as a character)."""
        return self.session().context_help

    def help_for(self, text: str, cursor: int) -> str:
        try:
            return help_text(self.lab.parser, self.session().mode, self.prompt, text, cursor)
        except Exception as exc:  # help must never end the session
            log.exception("? help failed")
            return f"{self.prompt} {printable(text)}?\n% help unavailable ({type(exc).__name__})"

    def refusal_for(self, text: str) -> str | None:
        """What Tab prints for a line no command line may be (a control or bidi character)."""
        return refusal_text(self.prompt, text)

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
        """`show` in an asyncio shell (the SSH server): the pager's key is awaited."""
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
        return toolbar_fragments(self.target, self.clock, self.last_router, self.may_open_console)

    # -- the loop -------------------------------------------------------------------------------
    def _execute(self, target: str, line: str) -> tuple[str | None, Outcome]:
        """Run `line` on `target`: (the prompt it ran at, its Outcome); the prompt is None after an
        internal error (reported as the Outcome). Touches only the lab, never the terminal, so the
        SSH server can run it off its event loop."""
        try:
            prompt = self.recorded_prompt(target)
            outcome = self.lab.execute(target, line)
        except Exception as exc:  # the lab guards its own commands; this is a last resort
            log.exception("internal error running %r", self.mask(line))
            return None, Outcome(f"ERROR: Internal error while running the command ({type(exc).__name__}).", False,
                                 error_kind="internal")
        self.live.invalidate()
        # the clock the line's own store command read; read anew only when it ran none
        self.clock = read_clock(self.lab) if outcome.clock_ms is None else clock_text(outcome.clock_ms)
        return prompt, outcome

    def _record(self, prompt: str | None, line: str, outcome: Outcome) -> None:
        if self.recorder is not None and prompt is not None and line.strip():
            # masked as the CLI read it, in the mode it was typed in
            self.recorder.record(prompt, outcome.masked or self.mask(line), outcome.text)

    def _after(self, outcome: Outcome) -> bool:
        if outcome.switch_to == BACK_TO_ROUTER:
            refusal = self.toggle_console()
        elif outcome.switch_to:
            refusal = self.switch(outcome.switch_to)
        else:
            refusal = None
        if refusal is not None:
            self.write(refusal)
        return not outcome.ended

    def run_line(self, line: str) -> bool:
        """Run one line on the current target; False when the REPL should end."""
        target = self.target
        prompt, outcome = self._execute(target, line)
        self._record(prompt, line, outcome)
        self.show(outcome.text, prompt is not None and self.lab.target(target).paging)
        return self._after(outcome)

    async def run_line_async(self, line: str) -> bool:
        """`run_line` for an asyncio shell: the command runs in a worker thread, so the event loop
        (other SSH sessions' keys and output) keeps going while it runs."""
        target = self.target
        prompt, outcome = await asyncio.to_thread(self._execute, target, line)
        self._record(prompt, line, outcome)
        await self.show_async(outcome.text, prompt is not None and self.lab.target(target).paging)
        return self._after(outcome)

    def run(self) -> int:
        with _interrupt_only_at_the_prompt():
            return self._run()

    def _run(self) -> int:
        typed = ""
        while True:
            try:
                line = self.prompt_session.prompt(default=typed)
            except ConsoleToggled as toggled:
                typed = self._toggled(toggled)
                continue
            except KeyboardInterrupt:
                typed = ""
                continue
            except EOFError:
                return self._eof()
            typed = ""
            if not self.run_line(line):
                return 0

    async def run_async(self) -> int:
        """`run` inside a running event loop (one SSH session among many): the same shell."""
        typed = ""
        while True:
            try:
                # The server handles a session's exceptions (prompt_toolkit's handler would wait
                # for Enter on the server process's own stdin) and its own SIGINT (prompt_toolkit
                # would take it over while a prompt waits, and leave none behind).
                line = await self.prompt_session.prompt_async(default=typed, set_exception_handler=False,
                                                              handle_sigint=False)
            except ConsoleToggled as toggled:
                typed = self._toggled(toggled)
                continue
            except KeyboardInterrupt:
                typed = ""
                continue
            except EOFError:
                return self._eof()
            typed = ""
            if not await self.run_line_async(line):
                return 0

    def _toggled(self, toggled: ConsoleToggled) -> str:
        """After F2: the prompt left erased itself (no stray prompt line); the next prompts keep
        theirs on screen as usual. Returns the text typed so far, which goes along."""
        for prompt_session in self._prompt_sessions.values():
            prompt_session.app.erase_when_done = False
        return toggled.text

    def _eof(self) -> int:
        farewell = self.session().eof_text   # what the CLI prints on end of input (e.g. "Bye.")
        if farewell:
            self.write(farewell)
        return 0


@contextlib.contextmanager
def _interrupt_only_at_the_prompt() -> Iterator[None]:
    """Ctrl-C clears the line at the prompt (prompt_toolkit takes SIGINT there); while a command
    runs or output prints, the terminal is in its normal mode and turns Ctrl-C into SIGINT, which
    must not cut a command (and its lab transaction) in half or end the shell with a traceback: it
    is ignored there. Only the main thread may set a signal handler (the SSH server has no terminal
    of its own: Ctrl-C always arrives there as a key)."""
    if threading.current_thread() is not threading.main_thread():
        yield
        return
    previous = signal.signal(signal.SIGINT, lambda signum, frame: None)
    try:
        yield
    finally:
        signal.signal(signal.SIGINT, previous)


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
    try:
        repl = Repl(lab, start_target, history_path=history_path, recorder=recorder, input=input, output=output,
                    editing_mode=editing_mode, stdout=stdout, paging=paging)
    except EntryRefused as refused:
        (stdout or sys.stderr).write(f"{refused}\n")
        return 1
    return repl.run()
