"""The pager for long output, as the broker CLI pages it when `paging` is on.

Captures C05 and C06 (10.25) show its line, "---Press any key to continue, or `q' to quit---",
left in the session log between pages, and pages of the terminal height less two lines (22 on a
24-line terminal in C06: the line above the page, the echoed command or the previous pager line,
stays on screen, and the pager line takes the last). Any key shows the next page; `q` stops.

The paging decisions are pure (`split_pages`, `Pager`) so they are testable without a terminal; only
`more_prompt_reader` touches the terminal, reading one key through a tiny prompt_toolkit application.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from prompt_toolkit.application import Application
    from prompt_toolkit.input import Input
    from prompt_toolkit.output import Output

MORE_PROMPT = "---Press any key to continue, or `q' to quit---"

# Keys the More prompt understands, as `Pager.press` takes them.
NEXT_PAGE = "page"
NEXT_LINE = "line"
QUIT = "quit"


def page_height(terminal_rows: int) -> int:
    """Output lines per page: the terminal height less the line kept above and the pager line."""
    return max(1, terminal_rows - 2)


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
        write(MORE_PROMPT)   # part of the session's output, as in the captures
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
        write(MORE_PROMPT)
        chunk = pager.press(await read_key())


def _key_app(input: Input | None = None, output: Output | None = None) -> Application[str]:  # noqa: A002
    """A one-line application that waits for one key (the pager line is already printed): q, Ctrl-C,
    Ctrl-D or Escape stop (QUIT), any other key shows the next page (NEXT_PAGE)."""
    from prompt_toolkit.application import Application
    from prompt_toolkit.key_binding import KeyBindings, KeyPressEvent
    from prompt_toolkit.keys import Keys
    from prompt_toolkit.layout import Layout
    from prompt_toolkit.layout.containers import Window
    from prompt_toolkit.layout.controls import FormattedTextControl

    kb = KeyBindings()

    @kb.add("q")
    @kb.add("Q")
    @kb.add("c-c")
    @kb.add("c-d")
    @kb.add("escape", eager=True)
    def _quit(event: KeyPressEvent) -> None:
        event.app.exit(result=QUIT)

    @kb.add(Keys.Any)
    def _page(event: KeyPressEvent) -> None:
        event.app.exit(result=NEXT_PAGE)

    app: Application[str] = Application(
        layout=Layout(Window(FormattedTextControl(""), height=1, dont_extend_height=True)),
        key_bindings=kb, input=input, output=output, full_screen=False, erase_when_done=True,
    )
    return app


def more_prompt_reader(input: Input | None = None, output: Output | None = None) -> Callable[[], str]:  # noqa: A002
    """A `read_key` for `page_output`: waits for one key (the pager line is already printed)."""

    def read_key() -> str:
        try:
            return _key_app(input, output).run()
        except (EOFError, KeyboardInterrupt):
            return QUIT

    return read_key


def more_prompt_reader_async(input: Input | None = None,  # noqa: A002
                             output: Output | None = None) -> Callable[[], Awaitable[str]]:
    """The `read_key` of `page_output_async`: the same one-key wait, awaited."""

    async def read_key() -> str:
        try:
            # as Repl.run_async: the server handles exceptions and SIGINT itself
            return await _key_app(input, output).run_async(set_exception_handler=False, handle_sigint=False)
        except (EOFError, KeyboardInterrupt):
            return QUIT

    return read_key
