"""Random keys at the interactive shell through a pseudo-terminal, for tests/repl/test_repl_fuzz.py and
bench/bench_repl_fuzz.py.

One run (`fuzz_once`): a lab file is made, `solace-shell --db LAB` starts in a pty of a random size,
and a seeded `random.Random` types bursts of keys: command words, Enter, Tab, `?`, every control
key, Ctrl-V followed by any character (controls, bidi overrides, surrogates' bytes, emoji),
escape sequences (arrows, function keys, F2, bracketed pastes, cut-off and hostile CSI/OSC
sequences), bytes that are not UTF-8, and window resizes (down to one cell), reading the
terminal only now and then (output left unread for a while). Optionally one bracketed paste of
`paste_bytes` bytes, or, half the time, a pasted script: lines, which the shell runs one by one as
if typed, so it is cut to `SCRIPT_PASTE_BYTES` (what runs in a few seconds). Then it asks the
shell to answer: Ctrl-Q, `q`, Ctrl-C and `?` must bring the help list within `timeout` seconds,
and Ctrl-C, Ctrl-D must end it with status 0.

A run is clean when: the shell answered and ended in time, the whole terminal output holds no
"Traceback" and no "Unhandled exception", and the lab file afterwards holds exactly the state it
held before (`LabStore.dump()`): the words typed are read-only ones, so any change is damage.

Ctrl-Z and Ctrl-\\ are not typed: while a command runs the terminal is in its normal mode, where
the terminal driver turns them into SIGTSTP and SIGQUIT (suspend, quit), as for every program.
"""

from __future__ import annotations

import io
import os
import random
import select
import sys
import time
from dataclasses import dataclass, field
from pathlib import Path

import pexpect

from state_store.lab_store import LabStore

ROOT = Path(__file__).resolve().parents[2]

WORDS = ["show ", "hostname", "queue ", "* ", "message-vpn ", "Trading_VPN ", "replication ", "detail",
         "enable", "configure", "exit", "end", "home", "show current-config", "show queue *",
         "show hostname", "status", "help", "sr ha1", "lsc", "cc ..", '"', "'", "*", "-", "!", ";"]
CONTROL_KEYS = [chr(c) for c in range(0x20) if c not in (0x1A, 0x1C)] + ["\x7f"]
CTRL_V_TARGETS = [chr(c) for c in range(0x20)] + ["\x7f", "\x85", "\x9b", "\u202e", "\u202d", "\u2066",
                                                  "\u2067", "\u2068", "\u2069", "\u200b", "\u200f", "\ufeff",
                                                  "\u2028", "\U000e0041", "😀", "中", "\u0301"]
ESCAPES = ["\x1b[A", "\x1b[B", "\x1b[C", "\x1b[D", "\x1b[H", "\x1b[F", "\x1bOP", "\x1bOQ", "\x1bOR", "\x1bOS",
           "\x1b[15~", "\x1b[3~", "\x1b[2~", "\x1b[5~", "\x1b[6~", "\x1b[1;5C", "\x1b[", "\x1b[999;999H",
           "\x1b[12;5R", "\x1b]0;title\x07", "\x1b]8;;http://x\x1b\\", "\x1bP+q\x1b\\", "\x1b[M !!",
           "\x1b[<0;10;10M", "\x1bx", "\x1b\x1b", "\x1b[?2004l", "\x1b[200~pasted\rtext\x1b[201~",
           "\x1b[201~", "\x1bc"]
RAW_BYTES = [b"\xff", b"\xfe\xfe", b"\xc3", b"\xe2\x80", b"\xed\xa0\x80", b"\xf4\x90\x80\x80"]
# `?` answered: the echoed line ends in `?`, then help or a caret line (both start with blanks)
_ANSWER = rb"\?\r*\n(\x1b\[[0-9;]*m)*  "
SIZES = [(24, 80), (1, 1), (2, 10), (5, 20), (300, 1000), (40, 3), (24, 120)]


@dataclass
class FuzzResult:
    seed: int
    clean: bool
    problems: list[str] = field(default_factory=list)
    seconds: float = 0.0


def random_key(rng: random.Random) -> bytes:
    kind = rng.random()
    if kind < 0.30:
        return rng.choice(WORDS).encode()
    if kind < 0.45:
        return rng.choice(["\r", "\t", "?", " "]).encode()
    if kind < 0.60:
        return rng.choice(CONTROL_KEYS).encode()
    if kind < 0.72:
        return ("\x16" + rng.choice(CTRL_V_TARGETS)).encode("utf-8")
    if kind < 0.84:
        return rng.choice(ESCAPES).encode()
    if kind < 0.90:
        return rng.choice(RAW_BYTES)
    return "".join(chr(rng.randrange(0x20, 0x30000)) for _ in range(rng.randrange(1, 6))).encode(
        "utf-8", "replace")


SCRIPT_PASTE_BYTES = 32 * 1024


def _paste(rng: random.Random, size: int) -> bytes:
    chunk = ("show queue * " + "x" * 50 + " \u202e\u200b 中文 \t").encode("utf-8")
    if rng.random() < 0.5:  # a pasted script: lines, each run as typed
        size = min(size, SCRIPT_PASTE_BYTES)
        chunk = chunk.replace(b"\t", b"\n")
    body = (chunk * (size // len(chunk) + 1))[:size]
    return b"\x1b[200~" + body + b"\x1b[201~"


def _send(child: pexpect.spawn, data: bytes, timeout: float) -> None:
    """Write `data` as a terminal does: reading the shell's output while writing (a shell blocked
    on a full output buffer stops reading its input). pexpect.TIMEOUT when the shell takes no
    input for `timeout` seconds; pexpect.EOF when it has ended."""
    view = memoryview(data)
    while view:
        readable, writable, _ = select.select([child.child_fd], [child.child_fd], [], timeout)
        if not readable and not writable:
            raise pexpect.TIMEOUT(f"the shell took no input for {timeout} s")
        if readable and not _drain(child):
            raise pexpect.EOF("ended")
        if writable:
            os.set_blocking(child.child_fd, False)  # a write never waits on a shell that stopped reading
            try:
                written = os.write(child.child_fd, view[:4096])
            except BlockingIOError:
                written = 0
            except OSError:
                raise pexpect.EOF("ended") from None
            finally:
                os.set_blocking(child.child_fd, True)
            view = view[written:]
            if not written:
                if not child.isalive():
                    raise pexpect.EOF("ended")
                time.sleep(0.01)


def _drain(child: pexpect.spawn) -> bool:
    """Read what the terminal holds now, without waiting; False when the shell has ended."""
    try:
        while True:
            child.read_nonblocking(65536, timeout=0)
    except pexpect.TIMEOUT:
        return True
    except pexpect.EOF:
        return False


def make_lab(path: Path) -> None:
    """A lab file in the default scenario, as the shell creates it."""
    child = spawn(["--db", str(path), "-c", "show hostname"])
    child.expect(pexpect.EOF, timeout=120)
    child.close()


def spawn(args: list[str], size: tuple[int, int] = (24, 80)) -> pexpect.spawn:
    env = dict(os.environ, PYTHONPATH=str(ROOT), TERM="xterm", PROMPT_TOOLKIT_NO_CPR="1")
    child = pexpect.spawn(sys.executable, ["-c", "from solace_shell.cli import main; main()", *args], env=env,
                          timeout=30, dimensions=size)
    child.delaybeforesend = None  # keys as fast as a paste or a held-down key sends them
    return child


def _dump(path: Path) -> str:
    store = LabStore.open(path)
    try:
        return store.dump()
    finally:
        store.close()


def _traceback_at(text: bytes, at: int) -> bytes:
    """The end of the traceback starting at `at`: its last frames and the exception line."""
    lines = text[at:at + 50000].split(b"\r\n")
    for n, line in enumerate(lines[1:], 1):
        if line and not line.startswith(b" ") and not line.startswith((b"Traceback", b"Unhandled")):
            return b"\r\n".join(lines[max(0, n - 6):n + 1])
    return text[at:at + 3000]


def _start(lab: Path, seen: io.BytesIO, timeout: float) -> pexpect.spawn:
    child = spawn(["--db", str(lab)])
    child.logfile_read = seen
    child.expect(rb"NY_Appliance1>", timeout=timeout)
    return child


def _check_status(child: pexpect.spawn, problems: list[str]) -> None:
    if child.exitstatus not in (0, None) or child.signalstatus is not None:
        problems.append(f"exit status {child.exitstatus}, signal {child.signalstatus}")


def _restart(child: pexpect.spawn, lab: Path, seen: io.BytesIO, timeout: float,
             problems: list[str]) -> pexpect.spawn:
    """The shell ended (`exit`, Ctrl-D): it must have ended with status 0; a new one goes on."""
    child.expect(pexpect.EOF, timeout=timeout)  # (it may still be closing its lab)
    child.close()
    _check_status(child, problems)
    return _start(lab, seen, timeout)


def _ask(child: pexpect.spawn, timeout: float) -> None:
    """The shell must answer. As a person would, with pauses: output resumed (Ctrl-Q), a reverse
    search left (Ctrl-G), the pager quit (q), the line cleared (Ctrl-C), then `?` answers: the words
    that may come, or the caret and the error when the line is wrong (a key typed ahead while the
    terminal was in its normal mode may still be on it). pexpect.EOF when the shell has ended."""
    child.setwinsize(24, 80)
    time.sleep(0.6)  # prompt_toolkit takes a cut-off escape sequence as keys after a pause
    for key in (b"\x11", b"\x07", b"q", b"\x03", b"\x03", b"?"):
        if not child.isalive():
            raise pexpect.EOF("ended")
        if key == b"?":
            _drain(child)
        _send(child, key, timeout)
        if key != b"?":
            time.sleep(0.15)
    child.expect(_ANSWER, timeout=timeout)


def fuzz_once(seed: int, workdir: Path, *, keys: int = 150, paste_bytes: int = 0,
              timeout: float = 30.0) -> FuzzResult:
    """One run in `workdir` (a fresh directory); see the module docstring."""
    rng = random.Random(seed)
    started = time.monotonic()
    lab = workdir / "fuzz.lab"
    make_lab(lab)
    before = _dump(lab)
    problems: list[str] = []
    seen = io.BytesIO()
    child = _start(lab, seen, timeout)
    try:
        paste_at = rng.randrange(keys) if paste_bytes else -1
        for n in range(keys):
            if not child.isalive():  # `exit` or Ctrl-D ended it, as they may: it must have ended well
                child = _restart(child, lab, seen, timeout, problems)
            if rng.random() < 0.03:
                child.setwinsize(*rng.choice(SIZES))
            data = random_key(rng) if n != paste_at else _paste(rng, paste_bytes) + random_key(rng)
            try:
                _send(child, data, timeout)
            except pexpect.EOF:  # it ended between the check above and this key
                pass
            if rng.random() < 0.2:
                _drain(child)  # otherwise the output stays unread for a while
        _drain(child)
        time.sleep(0.2)
        _drain(child)
        if not child.isalive():
            child = _restart(child, lab, seen, timeout, problems)
        try:
            _ask(child, timeout)
        except pexpect.EOF:  # the last keys ended it (`exit`, Ctrl-D) as they may: a new one must answer
            child = _restart(child, lab, seen, timeout, problems)
            _ask(child, timeout)
        for _ in range(20):
            _send(child, b"\x03\x04", timeout)
            try:
                child.expect(pexpect.EOF, timeout=timeout / 20)
                break
            except pexpect.TIMEOUT:
                continue
        else:
            problems.append("the shell did not end on Ctrl-D")
    except pexpect.TIMEOUT:
        problems.append(f"no answer in time (a hang); the terminal's last output: {seen.getvalue()[-300:]!r}")
    except pexpect.EOF:
        problems.append(f"the shell ended unasked; the terminal's last output: {seen.getvalue()[-300:]!r}")
    finally:
        child.close(force=True)
    _check_status(child, problems)
    text = seen.getvalue()
    for bad in (b"Traceback", b"Unhandled exception", b"Press ENTER to continue"):
        if bad in text:
            problems.append(f"{bad.decode()}: {_traceback_at(text, text.find(bad))!r}")
    try:
        if _dump(lab) != before:
            problems.append("the lab's state changed")
    except Exception as exc:  # noqa: BLE001 - a damaged lab file is what this looks for
        problems.append(f"the lab does not open: {type(exc).__name__}: {exc}")
    return FuzzResult(seed, not problems, problems, time.monotonic() - started)
