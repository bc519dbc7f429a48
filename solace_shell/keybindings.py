"""Key bindings of the REPL, on top of prompt_toolkit's emacs (default) or vi bindings.

- `?`: IOS-style help. Prints the line with its prompt, then the candidates at the cursor, and
  redraws the prompt with the same text; the `?` itself is not inserted. Inside an open double quote
  `?` is an ordinary character, and Ctrl-V then `?` inserts a literal `?` (the wildcard): Ctrl-V is
  quoted-insert in emacs mode too (prompt_toolkit binds it only in vi insert mode; Ctrl-Q still works).
  A personality without context help (a Unix shell) takes `?` as an ordinary character.
- Tab: completes at once (no waiting for a background completer): a unique candidate is inserted with
  a trailing space, several insert their common part, otherwise the completion menu opens (and Tab
  then cycles through it). A line holding a control or bidi character is refused instead, with the
  caret under it, as Enter refuses it.
- A paste (bracketed, as terminals send it) runs line by line, as if typed: its first line goes
  into the line being edited and Enter is pressed, and the rest waits for the next prompt, where
  the same happens again; text after the last line feed stays on the line. A pasted line that
  would make the line longer than `line_limit.MAX_LINE_CHARS` is refused whole, with one line
  saying so (line_limit.py), and the paste goes on with the next line. (An unbracketed paste is
  keys typed fast: Enter ends each line the same way.)
- F2: switch between the current router and the lab console (each side has its own history; the
  typed text goes along), for users with the lab-administration right; others get one refusal
  line and stay where they are.
- Ctrl-D on an empty line ends the REPL, Ctrl-C clears the line (prompt_toolkit's defaults; the loop
  in repl.py acts on them).

No handler here lets an exception out: prompt_toolkit reports one as "Unhandled exception in event
loop" and waits for Enter (over SSH, inside the server's event loop), so a failure is logged and
the prompt stays as it was. Nor may a key end the prompt twice: after a prefix key (Ctrl-C begins
`Ctrl-C <`, Escape begins every Meta key) prompt_toolkit runs the keys that follow it in the same
read even when the first one ended the prompt, and a second Enter, Ctrl-C, Ctrl-D or F2 there
would raise "Return value already set"; such a key does nothing. So does a SIGINT (Ctrl-C typed
while the terminal was in its normal mode) that prompt_toolkit delivers after its prompt ended, and
so does every other way of accepting the line (Meta-Enter, Ctrl-J, Ctrl-O: `guard_accept`).
"""

from __future__ import annotations

import functools
import logging
from collections.abc import Callable
from typing import Protocol

from prompt_toolkit.application import get_app, run_in_terminal
from prompt_toolkit.buffer import Buffer
from prompt_toolkit.completion import CompleteEvent, get_common_complete_suffix
from prompt_toolkit.filters import Condition, emacs_insert_mode, has_completions, is_searching, vi_insert_mode
from prompt_toolkit.key_binding import KeyBindings, KeyPress, KeyPressEvent
from prompt_toolkit.keys import Keys

from .completer import open_quote
from .line_limit import fits, paste_too_long_text

log = logging.getLogger(__name__)

class ConsoleToggled(Exception):
    """F2 ended the prompt; the REPL prompts again on the other side with `text` already typed."""

    def __init__(self, text: str) -> None:
        super().__init__(text)
        self.text = text


class ReplHooks(Protocol):
    def help_for(self, text: str, cursor: int) -> str: ...
    def context_help(self) -> bool: ...
    def write_help(self, text: str) -> None: ...
    def toggle_console(self) -> str | None: ...
    def write(self, text: str) -> None: ...
    def refusal_for(self, text: str) -> str | None: ...


def guard_accept(buffer: Buffer) -> None:
    """Make accepting `buffer`'s line do nothing once its prompt has ended (module docstring)."""
    accept = buffer.accept_handler
    if accept is None:
        return

    def accept_while_running(buf: Buffer) -> bool:
        if _prompt_ended():
            return True  # the line stays; the next prompt starts afresh
        return accept(buf)

    buffer.accept_handler = accept_while_running


def _guarded(handler: Callable[[KeyPressEvent], None]) -> Callable[[KeyPressEvent], None]:
    """`handler`, logging instead of raising (module docstring)."""
    @functools.wraps(handler)
    def run(event: KeyPressEvent) -> None:
        try:
            handler(event)
        except Exception:
            log.exception("key binding %s failed", handler.__name__)
    return run


def print_above(write: Callable[[str], None], text: str) -> None:
    """Print `text` above the prompt, which is redrawn as it was; a failing write is logged (it
    runs in a task of its own, where an exception would be "unhandled")."""
    def print_text() -> None:
        try:
            write(text)
        except Exception:
            log.exception("printing above the prompt failed")
    try:
        run_in_terminal(print_text)
    except Exception:
        log.exception("printing above the prompt failed")


@Condition
def _in_quoted_insert() -> bool:
    return bool(get_app().quoted_insert)


@Condition
def _prompt_ended() -> bool:
    app = get_app()
    return app.is_done or not app.is_running


def repl_key_bindings(repl: ReplHooks) -> KeyBindings:
    kb = KeyBindings()
    insert = (emacs_insert_mode | vi_insert_mode) & ~is_searching & ~_in_quoted_insert

    @kb.add("enter", filter=_prompt_ended)
    @kb.add("c-c", filter=_prompt_ended)
    @kb.add("c-d", filter=_prompt_ended)
    @kb.add("<sigint>", filter=_prompt_ended)
    @kb.add("f2", filter=_prompt_ended)
    def _after_the_end(event: KeyPressEvent) -> None:
        """The prompt has ended already (module docstring)."""

    @kb.add("?", filter=insert)
    @_guarded
    def _help(event: KeyPressEvent) -> None:
        buf = event.current_buffer
        if open_quote(buf.document.text_before_cursor) or not repl.context_help():
            buf.insert_text("?")
            return
        print_above(repl.write_help, repl.help_for(buf.text, buf.cursor_position))

    @kb.add("c-v", filter=emacs_insert_mode & ~is_searching)
    def _quoted_insert(event: KeyPressEvent) -> None:
        event.app.quoted_insert = True

    @kb.add("tab", filter=insert & ~has_completions)
    @_guarded
    def _tab(event: KeyPressEvent) -> None:
        buf = event.current_buffer
        refusal = repl.refusal_for(buf.text)
        if refusal is not None:
            print_above(repl.write, refusal)
            return
        completer = buf.completer
        if completer is None:
            return
        found = list(completer.get_completions(buf.document, CompleteEvent(completion_requested=True)))
        if not found:
            return
        if len(found) == 1:
            buf.apply_completion(found[0])
            return
        common = get_common_complete_suffix(buf.document, found)
        if common:
            buf.insert_text(common)
        else:
            buf.start_completion(insert_common_part=False)

    @kb.add(Keys.BracketedPaste)
    @_guarded
    def _paste(event: KeyPressEvent) -> None:
        data = event.data.replace("\r\n", "\n").replace("\r", "\n")  # as prompt_toolkit pastes
        line, newline, rest = data.partition("\n")
        if rest:  # each further line a paste of its own, handled next (by the next prompt once
            # this line is accepted: prompt_toolkit keeps them as its typeahead)
            lines = rest.split("\n")
            pieces = [piece + "\n" for piece in lines[:-1]] + ([lines[-1]] if lines[-1] else [])
            event.app.key_processor.feed_multiple([KeyPress(Keys.BracketedPaste, piece) for piece in pieces],
                                                  first=True)
        buffer = event.current_buffer
        refused = not fits(buffer, line)
        if refused:
            print_above(repl.write, paste_too_long_text(len(line)))
        else:
            buffer.insert_text(line)
        if newline and not refused:
            buffer.validate_and_handle()

    @kb.add("f2", filter=~_prompt_ended)
    @_guarded
    def _toggle(event: KeyPressEvent) -> None:
        # The prompt of the other side (its own history) takes over, with the typed text; a user
        # without the lab-administration right gets one line and stays where they are.
        refusal = repl.toggle_console()
        if refusal is not None:
            print_above(repl.write, refusal)
            event.app.invalidate()
            return
        event.app.erase_when_done = True  # the prompt left is not kept on screen (the REPL resets it)
        event.app.exit(exception=ConsoleToggled(event.current_buffer.text))

    return kb
