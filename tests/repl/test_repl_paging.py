"""The More pager: pure page splitting, the key-by-key pager, and paging inside the REPL."""

from __future__ import annotations

from solace_shell.lab import Lab
from solace_shell.paging import (
    MORE_PROMPT,
    NEXT_LINE,
    NEXT_PAGE,
    QUIT,
    Pager,
    needs_paging,
    page_height,
    page_output,
    split_pages,
)
from tests.support.repl_driver import drive

ROWS = 40   # DummyOutput's terminal height


def numbered(n: int) -> str:
    return "\n".join(f"line{i}" for i in range(1, n + 1))


def test_split_pages() -> None:
    assert split_pages("", 3) == []
    assert split_pages("a", 3) == [["a"]]
    assert split_pages("a\nb\nc", 3) == [["a", "b", "c"]]
    assert split_pages(numbered(7), 3) == [["line1", "line2", "line3"], ["line4", "line5", "line6"], ["line7"]]
    assert split_pages("a\n\nb", 2) == [["a", ""], ["b"]]
    assert split_pages("a\nb", 0) == [["a"], ["b"]]


def test_page_height_is_the_terminal_less_two_lines_as_in_c06() -> None:
    assert page_height(24) == 22     # C06: 22 lines between pager lines on a 24-line terminal
    assert page_height(32) == 30     # C05: 30
    assert page_height(1) == 1
    assert not needs_paging(numbered(22), 24)
    assert needs_paging(numbered(23), 24)
    assert MORE_PROMPT == "---Press any key to continue, or `q' to quit---"


def test_pager_keys() -> None:
    pager = Pager.of(numbered(10), 3)
    assert pager.first() == ["line1", "line2", "line3"]
    assert pager.press(NEXT_LINE) == ["line4"]
    assert pager.press(NEXT_PAGE) == ["line5", "line6", "line7"]
    assert not pager.done
    assert pager.press(QUIT) == []
    assert pager.done
    assert pager.press(NEXT_PAGE) == []


def test_page_output_until_the_end() -> None:
    written: list[str] = []
    keys = iter([NEXT_PAGE, NEXT_PAGE, NEXT_PAGE])
    page_output(numbered(7), 3, written.append, lambda: next(keys))
    assert written == ["line1\nline2\nline3", MORE_PROMPT, "line4\nline5\nline6", MORE_PROMPT, "line7"]


def test_page_output_short_text_asks_nothing() -> None:
    written: list[str] = []
    page_output("a\nb", 3, written.append, lambda: (_ for _ in ()).throw(AssertionError("asked")))
    assert written == ["a\nb"]


def current_config() -> list[str]:
    """`show current-config` of the default lab: more than two pages."""
    lab = Lab.fresh()
    try:
        lab.execute("NY_Appliance1", "enable")
        return lab.execute("NY_Appliance1", "show current-config").text.split("\n")
    finally:
        lab.close()


def test_repl_pages_long_output(lab: Lab, executed: list[tuple[str, str]]) -> None:
    full = current_config()
    per_page = page_height(ROWS)
    pages = split_pages("\n".join(full), per_page)
    assert len(pages) >= 3   # a pager line after every page but the last
    # any key = next page (space, Enter alike) up to the end; q = stop; then the prompt is back.
    keys = "enable\rshow current-config\r" + " " * (len(pages) - 1) + "show current-config\r\rqshow hostname\r\x04"
    _, out = drive(lab, keys, paging=True)
    lines = out.split("\n")[:-1]
    first_run = [line for page in pages[:-1] for line in (*page, MORE_PROMPT)] + pages[-1]
    assert lines == [*first_run, *pages[0], MORE_PROMPT, *pages[1], MORE_PROMPT, "", "Hostname: NY_Appliance1"]
    assert executed[-2:] == [("NY_Appliance1", "show current-config"), ("NY_Appliance1", "show hostname")]


def test_no_paging_prints_everything(lab: Lab, executed: list[tuple[str, str]]) -> None:
    full = current_config()
    _, out = drive(lab, "no paging\renable\rshow current-config\rshow hostname\r\x04", paging=True)
    assert out.split("\n")[:-1] == [*full, "", "Hostname: NY_Appliance1"]
    assert executed[-1] == ("NY_Appliance1", "show hostname")


def test_not_interactive_prints_everything(lab: Lab) -> None:
    _, out = drive(lab, "enable\rshow current-config\r\x04")   # stdout is not a terminal: no pager
    assert out.split("\n")[:-1] == current_config()
