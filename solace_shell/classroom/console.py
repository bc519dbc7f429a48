"""The trainer's class console: the class as a whole, one line per command.

`roster`, `show TRAINEE`, `reset TRAINEE`, `run TRAINEE LAB-LINE`, `extend TRAINEE MINUTES`,
`message TRAINEE TEXT`, `watch TRAINEE` (read-only: the lab's lines as they come, `watch_lines`),
`grades`, `help`. Every command checks the role again (the name is looked up in the class file
at every command, so a console is never trusted beyond its trainer), and a command on a trainee who
is not in the class is one line that changes nothing. Text in, text out: the SSH server draws it.
"""

from __future__ import annotations

import functools
import shlex
from collections.abc import Callable, Sequence
from datetime import datetime, timezone

from grammar.parser import Parsed, Parser

from ..lab import LAB_TARGET
from ..router_cli import router_cli
from .record import RecordedLine, parse_wall
from .room import ClassRoom

MAX_MESSAGE = 500
MAX_EXTEND = 600
HELP = """\
roster                    every trainee: lab, connection, runbook progress, audit, last activity, time left
show TRAINEE              the trainee's grade so far, step by step, and their last lines
reset TRAINEE             start the trainee's lab (their team's) again from the class's scenario
run TRAINEE LAB-LINE      run a lab-console line in the trainee's lab (e.g. run alice fail site NY)
extend TRAINEE MINUTES    give the trainee's lab more time for the drill
message TRAINEE TEXT      shown to the trainee after their next command
watch TRAINEE             follow the trainee's lab, read-only (Enter stops)
grades                    the grade of every trainee
exit                      log out"""


class TrainerConsole:
    """One trainer's console. `connected(name)` says how many sessions a trainee has open."""

    def __init__(self, room: ClassRoom, trainer: str, connected: Callable[[str], int] = lambda _: 0) -> None:
        self.room = room
        self.trainer = trainer
        self.connected = connected

    @property
    def prompt(self) -> str:
        return "class> "

    def run(self, line: str) -> tuple[str, bool]:
        """(the output, whether the command succeeded). Control characters a trainee typed (an
        escape sequence aimed at the trainer's terminal) are shown as `?`."""
        text, ok = self._run(line)
        return _printable(text), ok

    def _run(self, line: str) -> tuple[str, bool]:
        if not self.room.class_file.is_trainer(self.trainer):
            return "% only a trainer of this class may use the class console", False
        try:
            words = shlex.split(line)
        except ValueError as exc:
            return f"% {exc}", False
        if not words:
            return "", True
        verb, args = words[0], words[1:]
        command = _COMMANDS.get(verb)
        if command is None:
            return f"% unknown command '{_shown(verb)}' (help lists them)", False
        need, usage = command[1], command[2]
        if (verb in _FREE and len(args) < need) or (verb not in _FREE and len(args) != need):
            return f"% usage: {usage}", False
        if verb in _TRAINEE_FIRST and self.room.class_file.trainee(args[0]) is None:
            return f"% no trainee '{_shown(args[0])}' in this class", False
        return command[0](self, args)

    # -- commands -----------------------------------------------------------------------------------
    def help(self, args: list[str]) -> tuple[str, bool]:
        return HELP, True

    def roster(self, args: list[str]) -> tuple[str, bool]:
        rows = [("trainee", "lab", "conn", "steps", "audit lost/dup/stranded", "last activity", "time left")]
        now = datetime.now(timezone.utc)
        last = self.room.record.last_activity()
        for member in self.room.class_file.trainees:
            lab = member.lab
            graded = self.room.grade(lab)
            steps = "-" if graded.grade is None else " ".join(
                f"{s.id}:{_STATUS.get(s.status, s.status)}" for s in graded.grade.steps)
            seen = last.get(lab)
            ago = "-" if seen is None else f"{int((now - parse_wall(seen)).total_seconds())}s ago"
            left = self.room.seconds_left(lab, now)
            rows.append((member.name, lab, str(self.connected(member.name)), steps, self.audit(lab), ago,
                         "-" if left is None else f"{max(0, int(left)) // 60}m{max(0, int(left)) % 60:02d}s"))
        return _table(rows), True

    def audit(self, lab: str) -> str:
        if not self.room.opened(lab):
            return "-"
        try:
            with self.room.store(lab).transaction() as engine:
                totals = router_cli(engine).audit(None, 0).totals
                return f"{totals.lost}/{totals.duplicated}/{totals.stranded}"
        except Exception:  # noqa: BLE001  a lab without a router audit (an HA system's): nothing to show
            return "-"

    def show(self, args: list[str]) -> tuple[str, bool]:
        from ..grading.report import grade_lines

        member = self.room.class_file.trainee(args[0])
        assert member is not None
        graded = self.room.grade(member.lab)
        out = [f"{member.name} (lab {member.lab}): {graded.lines} line(s), score {graded.score:.2f}"
               + (f", hints: {', '.join(sorted(graded.hinted))}" if graded.hinted else "")]
        out += grade_lines(graded.grade, member.lab) if graded.grade is not None else [f"  {graded.problem}"]
        out.append("last lines:")
        out += [_line_text(line) for line in self.room.record.lines(member.lab)[-10:]]
        return "\n".join(out), True

    def reset(self, args: list[str]) -> tuple[str, bool]:
        member = self.room.class_file.trainee(args[0])
        assert member is not None
        lab = self.room.trainer_lab(member.lab, self.trainer)
        outcome = lab.execute(LAB_TARGET, f"reset {self.room.scenario_ref(member.lab)}")
        if outcome.ok:
            self.room.record.add_note(lab=member.lab, member=member.name, by=self.trainer, kind="reset")
        self.room.changed(member.lab)
        return f"lab {member.lab}: {outcome.text}", outcome.ok

    def run_line(self, args: list[str]) -> tuple[str, bool]:
        member = self.room.class_file.trainee(args[0])
        assert member is not None
        line = " ".join(args[1:])
        parsed = _console_parser().parse(LAB_TARGET, line)
        if isinstance(parsed, Parsed) and parsed.leaf.command.syntax.split()[0] == "reset":
            return "% use 'reset TRAINEE' to start a lab again", False
        lab = self.room.trainer_lab(member.lab, self.trainer)
        outcome = lab.execute(LAB_TARGET, line)
        self.room.record.add_note(lab=member.lab, member=member.name, by=self.trainer, kind="run", text=line[:1024])
        return outcome.text, outcome.ok

    def extend(self, args: list[str]) -> tuple[str, bool]:
        member = self.room.class_file.trainee(args[0])
        assert member is not None
        if not args[1].isdigit() or not 1 <= int(args[1]) <= MAX_EXTEND:
            return f"% MINUTES must be 1 to {MAX_EXTEND}", False
        self.room.record.add_note(lab=member.lab, member=member.name, by=self.trainer, kind="extend",
                                  text=str(int(args[1])))
        self.room.changed(member.lab)
        left = self.room.seconds_left(member.lab)
        shown = "no time limit" if left is None else f"{max(0, int(left)) // 60} min left"
        return f"lab {member.lab}: {shown}", True

    def message(self, args: list[str]) -> tuple[str, bool]:
        member = self.room.class_file.trainee(args[0])
        assert member is not None
        text = " ".join("".join(ch for ch in " ".join(args[1:]) if ch.isprintable()).split())[:MAX_MESSAGE]
        if not text:
            return "% usage: message TRAINEE TEXT", False
        self.room.record.add_note(lab=member.lab, member=member.name, by=self.trainer, kind="message", text=text)
        self.room.changed(member.lab)
        return f"message for {member.name} queued (shown after their next command)", True

    def watch(self, args: list[str]) -> tuple[str, bool]:
        """The lab's last lines; the SSH console then follows with `watch_lines`."""
        member = self.room.class_file.trainee(args[0])
        assert member is not None
        return "\n".join(_line_text(line) for line in self.room.record.lines(member.lab)[-20:]), True

    def watch_lines(self, trainee: str, after: int) -> tuple[list[str], int]:
        """The lab's lines recorded after `after` (a record seq), as text, and the last seq."""
        member = self.room.class_file.trainee(trainee)
        if member is None or not self.room.class_file.is_trainer(self.trainer):
            return [], after
        lines = self.room.record.lines(member.lab, after)
        return [_printable(_line_text(line)) for line in lines], (lines[-1].seq if lines else after)

    def last_seq(self, trainee: str) -> int:
        member = self.room.class_file.trainee(trainee)
        lines = self.room.record.lines(member.lab) if member is not None else []
        return lines[-1].seq if lines else 0

    def grades(self, args: list[str]) -> tuple[str, bool]:
        rows = [("trainee", "lab", "score", "verdict")]
        for member in self.room.class_file.trainees:
            graded = self.room.grade(member.lab)
            verdict = graded.grade.verdict if graded.grade is not None else graded.problem
            rows.append((member.name, member.lab, f"{graded.score:.2f}", verdict))
        return _table(rows), True


_STATUS = {"done": "ok", "missing": "-", "not-applicable": "n/a"}
# verb -> (method, number of arguments (at least, for _FREE), usage)
_COMMANDS: dict[str, tuple[Callable[[TrainerConsole, list[str]], tuple[str, bool]], int, str]] = {
    "help": (TrainerConsole.help, 0, "help"),
    "roster": (TrainerConsole.roster, 0, "roster"),
    "grades": (TrainerConsole.grades, 0, "grades"),
    "show": (TrainerConsole.show, 1, "show TRAINEE"),
    "reset": (TrainerConsole.reset, 1, "reset TRAINEE"),
    "watch": (TrainerConsole.watch, 1, "watch TRAINEE"),
    "extend": (TrainerConsole.extend, 2, "extend TRAINEE MINUTES"),
    "run": (TrainerConsole.run_line, 2, "run TRAINEE LAB-LINE"),
    "message": (TrainerConsole.message, 2, "message TRAINEE TEXT"),
}
_FREE = frozenset({"run", "message"})      # their last argument is the rest of the line
_TRAINEE_FIRST = frozenset({"show", "reset", "watch", "extend", "run", "message"})


@functools.lru_cache(maxsize=1)
def _console_parser() -> Parser:
    from ..lab import shell_grammar

    return Parser(shell_grammar())


def _printable(text: str) -> str:
    return "".join(ch if ch == "\n" or ch.isprintable() else "?" for ch in text)


def _shown(text: str) -> str:
    clean = "".join(ch if ch.isprintable() else "?" for ch in text)
    return clean if len(clean) <= 40 else clean[:37] + "..."


def _line_text(line: RecordedLine) -> str:
    mark = "" if line.ok else f"   [{line.error_kind}]"
    return f"  {line.wall[11:19]} {line.member:<10} {line.prompt} {line.line}{mark}"


def _table(rows: Sequence[tuple[str, ...]]) -> str:
    widths = [max(len(row[i]) for row in rows) for i in range(len(rows[0]))]
    return "\n".join("  ".join(cell.ljust(width) for cell, width in zip(row, widths, strict=True)).rstrip()
                     for row in rows)
