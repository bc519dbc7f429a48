"""The common key, handled without a redraw: a printable character typed at the end of a plain line.

Why: prompt_toolkit handles every key by looking it up in the combined key bindings and then
redrawing the whole prompt, which costs a server milliseconds of CPU per key; a class of trainees
typing is almost only such keys. Here such a key is inserted into the prompt's buffer directly and
its echo written as the one character it is, while prompt_toolkit's record of the screen (the
renderer's last screen and cursor) is updated to match, so the next full redraw draws only what
differs from what the client's terminal shows.

A key takes this path only when all of these hold, and the full path otherwise:

- the key is one printable ASCII character with no key binding of its own (only prompt_toolkit's
  self-insert for any key: not `?`, which lists help);
- the prompt is running in emacs mode, reading, with no key sequence, argument, macro recording,
  redraw or screen-position request pending;
- its buffer is the focused one, with the cursor at the end of its text, not empty (the style of
  the character before is the style of the new one), no completion menu, selection, search,
  suggestion or validation error, and neither completion while typing nor a suggester;
- the screen shows the cursor where the buffer's cursor is, with only blanks at or right of it on its
  row, and the new character does not reach the last column (no wrap).
"""

from __future__ import annotations

from typing import Any
from weakref import WeakKeyDictionary

from prompt_toolkit.application import Application
from prompt_toolkit.auto_suggest import AutoSuggest, DynamicAutoSuggest
from prompt_toolkit.buffer import Buffer
from prompt_toolkit.data_structures import Point
from prompt_toolkit.enums import EditingMode
from prompt_toolkit.key_binding import KeyPress
from prompt_toolkit.key_binding.bindings.basic import load_basic_bindings
from prompt_toolkit.key_binding.key_bindings import Binding
from prompt_toolkit.keys import Keys
from prompt_toolkit.layout.controls import BufferControl
from prompt_toolkit.layout.screen import Char

_SELF_INSERT = next(binding.handler for binding in load_basic_bindings().bindings
                    if binding.keys == (Keys.Any,))


_Found = tuple[tuple[Binding, ...], tuple[Binding, ...]]


def _suggester(buffer: Buffer) -> AutoSuggest | None:
    """The buffer's auto-suggester now (a prompt's is dynamic: it may hold none)."""
    suggester = buffer.auto_suggest
    if isinstance(suggester, DynamicAutoSuggest):
        return suggester.get_auto_suggest()
    return suggester


def _plain(char: str) -> bool:
    return len(char) == 1 and " " <= char <= "~"


class FastEcho:
    """Per prompt application: which characters have no binding of their own (looked up once per
    character and application), and the fast path itself (`take`)."""

    def __init__(self) -> None:
        # per (application, character): the bindings naming it (or any key), and those that start
        # a longer sequence with it
        self._bindings: WeakKeyDictionary[Application[Any], dict[str, _Found]] = WeakKeyDictionary()

    def _only_self_insert(self, app: Application[Any], char: str) -> bool:
        """Would the key processor run only prompt_toolkit's self-insert for `char` now, at once?
        (The bindings are looked up once; their filters are evaluated each time, as the key
        processor does.)"""
        known = self._bindings.setdefault(app, {})
        found = known.get(char)
        if found is None:
            bindings = app.key_processor._bindings
            found = (tuple(bindings.get_bindings_for_keys((char,))),
                     tuple(bindings.get_bindings_starting_with_keys((char,))))
            known[char] = found
        exact, longer = found
        if any(binding.filter() for binding in longer):
            return False
        active = [binding for binding in exact if binding.filter()]
        return bool(active) and all(binding.handler is _SELF_INSERT for binding in active)

    def take(self, app: Application[Any], char: str) -> bool:
        """Insert and echo `char` if the fast path applies (module docstring); False: it did not,
        nothing was changed, and the key goes the full way."""
        if not _plain(char) or not app.is_running or app.is_done or app.invalidated:
            return False
        processor = app.key_processor
        if processor.input_queue or processor.key_buffer or processor.arg is not None:
            return False
        if app.editing_mode != EditingMode.EMACS or app.emacs_state.is_recording:
            return False
        renderer = app.renderer
        screen = renderer._last_screen
        size = renderer._last_size
        attrs_cache = renderer._attrs_for_style
        has_style = renderer._style_string_has_style
        if screen is None or size is None or attrs_cache is None or has_style is None or renderer.waiting_for_cpr:
            return False
        layout = app.layout
        window = layout.current_window
        control = layout.current_control
        if not isinstance(control, BufferControl) or layout.is_searching:
            return False
        buffer = control.buffer
        if buffer.complete_while_typing() or _suggester(buffer) is not None:
            return False
        if (buffer.complete_state is not None or buffer.selection_state is not None or buffer.read_only()
                or buffer.suggestion is not None or buffer.validation_error is not None or not buffer.text
                or buffer.cursor_position != len(buffer.text)):
            return False
        cursor = renderer._cursor_pos
        if screen.cursor_positions.get(window) != cursor or cursor.x < 1 or cursor.x + 2 >= size.columns:
            return False
        row = screen.data_buffer[cursor.y]
        if any(row[column].char != " " for column in list(row) if column >= cursor.x):
            return False
        if not self._only_self_insert(app, char):
            return False
        style = row[cursor.x - 1].style
        if row[cursor.x - 1].char != buffer.text[-1]:
            return False
        # The buffer, as prompt_toolkit's self-insert changes it (an undo point before a run of
        # inserted characters), without scheduling a redraw.
        if processor._previous_handler is None or processor._previous_handler.handler is not _SELF_INSERT:
            buffer.save_to_undo_stack()
            processor._previous_handler = next(b for b in self._bindings[app][char][0]
                                               if b.handler is _SELF_INSERT and b.filter())
        processor._previous_key_sequence = [KeyPress(char, char)]
        app._invalidated = True  # the text change's invalidate: nothing to redraw
        try:
            # Without the insert event's work: no completion while typing and no suggester here
            # (checked above), which would only schedule a task and a redraw.
            buffer.insert_text(char, fire_event=False)
            buffer.on_text_insert.fire()
        finally:
            app._invalidated = False
        # The echo, and prompt_toolkit's record of the screen, alike.
        output = app.output
        if has_style[style]:
            output.set_attributes(attrs_cache[style], app.color_depth)
            output.write(char)
            output.reset_attributes()
        else:
            output.write(char)
        output.flush()
        row[cursor.x] = Char(char, style)
        moved = Point(x=cursor.x + 1, y=cursor.y)
        screen.cursor_positions[window] = moved
        renderer._cursor_pos = moved
        return True
