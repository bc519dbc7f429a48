"""The `--More--` pager for long output, as the broker CLI pages it when `paging` is on.

The paging decisions are pure (`split_pages`, `Pager`) so they are testable without a terminal; only
`page_output` touches the terminal, reading one key at a time through a tiny prompt_toolkit
application (space = next page, Enter = next line, q = stop).
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from prompt_toolkit.application import Application as _Application

MORE_PROMPT = "--More--"

# Keys the More prompt understands, as `Pager.press` takes them.
NEXT_PAGE = "page"
NEXT_LINE = "line"
QUIT = "quit"


def page_height(terminal_rows: int) -> int:
    """Output lines per page: the terminal height less the line the More prompt takes."""
    return max(1, terminal_rows - 1)


def needs_paging(text: str, terminal_rows: int) -> bool:
    return len(text.split("\n")) > page_height(terminal_rows)


def split_pages(text: str, height: int) -> list[list[str]]:
    """Split `text` into pages of at most `height` lines (the last page may be shorter).

    `height` is the number of output lines per page (see `page_height`). Empty text is no page.
    """
    if text == "":
        return []
    height = max(1, height)
    lines = text.split("\n")
    return [lines[i:i + height] for i in range(0, len(lines), height)]


@dataclass
class Pager:
    """What a More pager shows, key by key: `first()`, then `press(key)` until `done`."""

    lines: list[str]
    height: int
    shown: int = field(default=0, init=False)
    stopped: bool = field(default=False, init=False)

    @classmethod
    def of(cls, text: str, height: int) -> Pager:
        return cls(text.split("\n") if text else [], max(1, height))

    @property
    def done(self) -> bool:
        return self.stopped or self.shown >= len(self.lines)

    def _take(self, n: int) -> list[str]:
        out = self.lines[self.shown:self.shown + n]
        self.shown += len(out)
        return out

    def first(self) -> list[str]:
        return self._take(self.height)

    def press(self, key: str) -> list[str]:
        """The lines to print after `key` (NEXT_PAGE, NEXT_LINE or QUIT)."""
        if self.done:
            return []
        if key == QUIT:
            self.stopped = True
            return []
        return self._take(1 if key == NEXT_LINE else self.height)


def page_output(text: str, height: int, write: Callable[[str], None],
                read_key: Callable[[], str]) -> None:
    """Print `text` page by page: `write` prints lines, `read_key` shows the More prompt and returns
    NEXT_PAGE, NEXT_LINE or QUIT."""
    pager = Pager.of(text, height)
    chunk = pager.first()
    while True:
        if chunk:
            write("\n".join(chunk))
        if pager.done:
            return
        chunk = pager.press(read_key())


async def page_output_async(text: str, height: int, write: Callable[[str], None],
                            read_key: Callable[[], Awaitable[str]]) -> None:
    """`page_output` for an asyncio shell (the SSH server): the same pages, the key awaited."""
    pager = Pager.of(text, height)
    chunk = pager.first()
    while True:
        if chunk:
            write("\n".join(chunk))
        if pager.done:
            return
        chunk = pager.press(await read_key())


def _more_app(input: Any = None, output: Any = None) -> _Application[str]:
    """The one-line `--More--` application; its result is NEXT_PAGE, NEXT_LINE or QUIT."""
    from prompt_toolkit.application import Application
    from prompt_toolkit.key_binding import KeyBindings, KeyPressEvent
    from prompt_toolkit.keys import Keys
    from prompt_toolkit.layout import Layout
    from prompt_toolkit.layout.containers import Window
    from prompt_toolkit.layout.controls import FormattedTextControl

    kb = KeyBindings()

    @kb.add(" ")
    def _page(event: KeyPressEvent) -> None:
        event.app.exit(result=NEXT_PAGE)

    @kb.add("enter")
    @kb.add("c-j")
    def _line(event: KeyPressEvent) -> None:
        event.app.exit(result=NEXT_LINE)

    @kb.add("q")
    @kb.add("Q")
    @kb.add("c-c")
    @kb.add("c-d")
    @kb.add("escape", eager=True)
    def _quit(event: KeyPressEvent) -> None:
        event.app.exit(result=QUIT)

    @kb.add(Keys.Any)
    def _ignore(event: KeyPressEvent) -> None:
        pass

    app: Application[str] = Application(
        layout=Layout(Window(FormattedTextControl(MORE_PROMPT), height=1, dont_extend_height=True)),
        key_bindings=kb, input=input, output=output, full_screen=False, erase_when_done=True,
    )
    return app


def more_prompt_reader(input: Any = None, output: Any = None) -> Callable[[], str]:
    """A `read_key` for `page_output` that shows `--More--` and waits for one key."""

    def read_key() -> str:
        try:
            return _more_app(input, output).run()
        except (EOFError, KeyboardInterrupt):
            return QUIT

    return read_key


def more_prompt_reader_async(input: Any = None, output: Any = None) -> Callable[[], Awaitable[str]]:
    """The `read_key` of `page_output_async`: the same `--More--` prompt, awaited."""

    async def read_key() -> str:
        try:
            return await _more_app(input, output).run_async()
        except (EOFError, KeyboardInterrupt):
            return QUIT

    return read_key
