"""A session's typed lines (solace_shell/session_log.py): every line back in order whatever the
block it is kept in, read whole while another thread types, and a long drill kept in a few bytes
a line."""

from __future__ import annotations

import gc
import threading
import tracemalloc

from solace_shell.session_log import BLOCK, MAX_LINES, SessionLog, TypedLines


def typed(i: int) -> tuple[str, str]:
    """The i-th line of a drill as a trainee types it: a string of its own, a few commands over again."""
    verbs = ["show queue orders", "publish trader trading/orders/new count {}", "advance {}s", "status"]
    return ("lab" if i % 3 else "NY_Appliance1", verbs[i % 4].format(i % 7))


def drill(n: int) -> list[tuple[str, str]]:
    return [typed(i) for i in range(n)]


def test_lines_come_back_in_order_across_blocks() -> None:
    pairs = drill(3 * BLOCK + 5) + [("lab", "odd \\n \\ud800 line \\x00")]
    lines = TypedLines(pairs[:BLOCK - 1])
    lines.extend(pairs[BLOCK - 1:])
    assert list(lines) == pairs and len(lines) == len(pairs)
    lines.clear()
    assert list(lines) == [] and len(lines) == 0


def test_a_reader_gets_every_line_typed_before_it_in_order() -> None:
    lines = TypedLines()
    pairs = drill(20 * BLOCK)
    done = threading.Event()

    def typist() -> None:
        for pair in pairs:
            lines.append(pair)
        done.set()

    thread = threading.Thread(target=typist)
    thread.start()
    while not done.is_set():
        seen = list(lines)
        assert seen == pairs[:len(seen)]
    thread.join()
    assert list(lines) == pairs


def test_a_long_drill_costs_a_few_bytes_a_line() -> None:
    log = SessionLog()
    n = 20 * BLOCK
    gc.collect()
    tracemalloc.start()
    try:
        before = tracemalloc.get_traced_memory()[0]
        for i in range(n):
            log.add(*typed(i))
        gc.collect()
        per_line = (tracemalloc.get_traced_memory()[0] - before) / n
    finally:
        tracemalloc.stop()
    assert per_line < 10, f"{per_line:.1f} bytes a line"
    assert len(log.lines) == n < MAX_LINES and list(log.lines) == drill(n)
