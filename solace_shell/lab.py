"""An open lab: the broker state plus one session per router and the lab console.

Everything that drives the emulator (REPL, scripts, one-shot commands, transcript replay, Spark)
goes through `Lab.execute(target, line)`, so they cannot drift apart.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any

from grammar import Grammar, GrammarError, Parser, load_grammar
from state_store.lab_store import LabStore
from state_store.tuning import DEFAULT_TUNING, StoreTuning

from . import loader
from .access import UserAccess
from .line_event import LineEvent
from .live_names import COMPLETION_SOURCES
from .personalities.base import LineWatch, Personality
from .personalities.plugin import shell
from .registries import RegistryError, own_handler_problems, registry_problems
from .results import Outcome
from .session import Session
from .session_log import SessionLog, join_class

if TYPE_CHECKING:
    from state_store.lab_root.model import RootStore

LAB_TARGET = "lab"
# Transcript headers and the command line say `version`; the engine stores `software_version`.
SETTING_ALIASES = {"version": "software_version"}
_PARSERS: dict[int, Parser] = {}
_CHECKED = False   # the registries are checked once per process
_GRAMMAR: Grammar | None = None  # the grammar they were checked with (a fresh lab per transcript asks again)
# `lab> grade` and `lab> progress` lines: not part of the sessions they grade
_GRADE_NODES = frozenset({"lab: grade [<runbook>]", "lab: progress [<runbook>]"})


def shell_grammar() -> Grammar:
    """The grammar, checked against the handlers and completion sources that exist, plus the shell's
    other registries (solace_shell.registries); every problem is reported at once."""
    global _CHECKED, _GRAMMAR
    if _CHECKED and _GRAMMAR is not None:
        return _GRAMMAR
    problems: list[str] = []
    grammar: Grammar | None = None
    try:
        loader.load_own()
        grammar = load_grammar(completion_sources=COMPLETION_SOURCES)
        problems += own_handler_problems(grammar)
    except GrammarError as exc:
        problems += exc.problems
    if not _CHECKED:
        problems += registry_problems()
    if problems or grammar is None:
        raise RegistryError(problems)
    _CHECKED = True
    _GRAMMAR = grammar
    return grammar


def _parser(grammar: Grammar) -> Parser:
    parser = _PARSERS.get(id(grammar))
    if parser is None:
        parser = _PARSERS[id(grammar)] = Parser(grammar)
    return parser


class UnknownUser(Exception):
    def __init__(self, name: str) -> None:
        super().__init__(name)
        self.name = name


class EntryRefused(Exception):
    """A terminal may not open this target (the lab console without the lab-administration
    right); str() is the one line that says so."""


class Lab:
    def __init__(self, store: RootStore, user: str = "admin") -> None:
        self.grammar = shell_grammar()
        self.parser = _parser(self.grammar)
        self.store = store
        self.user, self.lab_admin = self._load_user(user)
        self._sessions: dict[str, Session] = {}
        # target name -> what runs its lines, for the targets used so far (every line asks)
        self._by_target: dict[str, Personality] = {}
        self._console: Session | None = None
        self._routers = self._load_routers()
        # the lines of this session, for `lab> grade` and the trainer's `lab> progress`
        self.session_log = SessionLog()
        self._observers: list[Callable[[LineEvent], None]] = []
        join_class(self)

    # -- construction ------------------------------------------------------------------------
    @classmethod
    def open(cls, path: str | Path, user: str = "admin", scenario: str | Path | None = None,
             tuning: StoreTuning = DEFAULT_TUNING) -> Lab:
        """Open a lab file; a missing file is created from `scenario` (default: the two-site lab)."""
        return cls(LabStore.open(path, scenario=scenario, tuning=tuning), user=user)

    @classmethod
    def fresh(cls, scenario: str | Path | None = None, settings: dict[str, Any] | None = None) -> Lab:
        """An in-memory lab (copied from a cached template), for replay and tests."""
        settings = dict(settings or {})
        user = str(settings.pop("user", "admin"))
        store: RootStore = LabStore.in_memory(scenario)
        if settings:
            with store.transaction() as engine:
                for name, value in settings.items():
                    engine.set_setting(SETTING_ALIASES.get(name, name), str(value))
        lab = cls(store, user=user)
        again = {**settings, "user": user}
        lab.session_log.start = lambda: cls.fresh(scenario, again)
        return lab

    def _load_user(self, name: str) -> tuple[UserAccess, bool]:
        """The user's CLI access, and whether it holds the lab-administration right."""
        info = self.store.run(lambda engine: engine.user(name))
        if info is None:
            raise UnknownUser(name)
        if info.scope == "global":
            return UserAccess(info.name, info.level), info.lab_admin
        # A VPN-scoped user can look at the router but acts only within its VPN.
        return UserAccess(info.name, "read-only", "none", {info.vpn or "": info.level}), info.lab_admin

    def console_refusal(self) -> str | None:
        """None when the logged-in user may open the lab console from a terminal, else the one
        line that refuses it.

        Why: the console can fail sites, publish and `reset` the lab (even to a scenario that
        makes the user admin), so it is the trainer's. `execute(LAB_TARGET, ...)` itself stays open
        because `lab>` lines in transcripts and drills are the harness, not the trainee."""
        if self.lab_admin:
            return None
        from .messages import shell_error_text
        return shell_error_text("console_denied", user=self.user.name)

    def enter(self, target: str) -> Personality:
        """What a user's terminal talks to next at `target`: the one access check every way in
        goes through (a start at a target with or without -c, -s or piped input, the REPL's F2
        and `connect`, an SSH shell or exec). Raises EntryRefused (its one line) when `target` is
        the lab console and the user has no lab-administration right; nothing is changed."""
        if target == LAB_TARGET:
            refusal = self.console_refusal()
            if refusal is not None:
                raise EntryRefused(refusal)
        return self.target(target)

    def _load_routers(self) -> list[str]:
        routers: list[str]
        self._systems, routers = self.store.run(
            lambda engine: (engine.system_names(), [r.name for r in engine.routers()]))
        loader.load_systems(self._systems)   # every system this lab holds, registered and checked
        self._targets = (*routers, *self._systems, LAB_TARGET)
        return routers

    def reset(self, scenario: str | Path | None = None) -> None:
        """`lab> reset`: the store starts again from the scenario (default lab), then reload."""
        self.store.reset(scenario)
        self.reload()

    def reload(self) -> None:
        """After `lab> reset`: the routers may differ; every session starts again at its top level."""
        self._routers = self._load_routers()
        self._sessions.clear()
        self._by_target.clear()

    def observe(self, callback: Callable[[LineEvent], None]) -> None:
        """Call `callback(event)` after every line `execute` runs, before its outcome is returned
        (so an observer that stores the line has stored it before anyone sees the output). The line
        is masked (grammar.masking) in the mode it was typed in; the clock is the one the line's
        store command read (read anew when the line ran none). An observer's exception is not
        caught: an observer that must not cost the user their line guards itself."""
        self._observers.append(callback)

    def _notify(self, target: str, outcome: Outcome) -> Outcome:
        """Tell the observers; the outcome with the clock they were told."""
        clock = outcome.clock_ms
        if clock is None:   # the line ran no store command (or changed the lab after it)
            clock = self.read_clock()
            outcome = outcome._replace(clock_ms=clock)
        event = LineEvent(target, outcome.masked, outcome, clock)
        for callback in list(self._observers):
            callback(event)
        return outcome

    def read_clock(self) -> int | None:
        """The lab's simulated clock, in a store command of its own (None when the lab cannot be
        read: the clock is a courtesy, never a reason to fail). A line's Outcome carries the
        clock its own store command read: ask this only when it has none."""
        try:
            with self.store.transaction() as engine:
                return int(engine.now_ms())
        except Exception:  # noqa: BLE001
            return None

    # -- sessions ----------------------------------------------------------------------------
    def routers(self) -> list[str]:
        return list(self._routers)

    def targets(self) -> list[str]:
        """Routers, the CLI of each HA system the lab holds (named after the system), and the lab
        console."""
        return list(self._targets)

    def systems(self) -> list[str]:
        """The HA systems this lab holds (state_store.systems), each a CLI target."""
        return list(self._systems)

    def start_target(self) -> str:
        """Where a shell starts: the first router, else the first HA system's CLI, else the lab console."""
        return self._targets[0]

    def banner(self, router_banner: str) -> str:
        """The start banner: the routers' when the lab has routers, else its first HA system's."""
        if self._routers or not self._systems:
            return router_banner
        from .banner import system_lab_banner

        return system_lab_banner(self._systems[0])

    @property
    def console(self) -> Session:
        """The lab console's session (as admin, whatever the user: `console_refusal` decides
        whether a terminal may open it), made when first used."""
        if self._console is None:
            self._console = Session(self, host=LAB_TARGET, router=None, start_mode="lab",
                                    user=UserAccess(self.user.name, "admin", "read-write"))
        return self._console

    def session(self, router: str) -> Session:
        session = self._sessions.get(router)
        if session is None:
            if router not in self._routers:
                raise KeyError(router)
            session = self._sessions[router] = Session(self, host=router, router=router, start_mode="exec",
                                                       user=self.user)
        return session

    def target(self, name: str) -> Personality:
        found = self._by_target.get(name)
        if found is None:
            if name in self._systems:
                found = shell(name).personality(self, self.user)
            else:
                found = self.console if name == LAB_TARGET else self.session(name)
            self._by_target[name] = found
        return found

    def prompt(self, target: str) -> str:
        """The prompt as a transcript writes it: a personality's prompt has no host, so it is
        prefixed with the target (`<system>:<prompt>`; docs/transcripts.md)."""
        found = self._by_target.get(target)  # (asked before every replayed command)
        prompt = (found if found is not None else self.target(target)).prompt
        return f"{target}:{prompt}" if target in self._systems else prompt

    def execute(self, target: str, line: str, watch: LineWatch | None = None) -> Outcome:
        """Run `line` on `target` (every way in goes through here). `watch` (grading) sees the
        line as its CLI read it and looks at the lab inside the line's own store command
        (``personalities.base.LineWatch``)."""
        found = self._by_target.get(target)
        if found is None:
            if target not in self._targets:
                from .messages import shell_error_text
                return Outcome(shell_error_text("unknown_target", target=target), False, "", "invalid")
            found = self.target(target)
        log = self.session_log
        if log.start is None:
            log.keep_start(self)
        outcome = found.execute(line, watch)
        if outcome.node not in _GRADE_NODES:
            log.add(target, line)
        if self._observers:
            outcome = self._notify(target, outcome)
        return outcome

    def close(self) -> None:
        """Close the store and let go of the sessions. Why the sessions: each refers back to this
        lab, so an open lab is a reference cycle; cut here (as the store cuts its services'), a
        closed lab and its whole state are freed at once by reference counting, not left to the
        cyclic collector, which cost a replay (a lab per transcript) about 4% of its time."""
        self.store.close()
        self._sessions.clear()
        self._by_target.clear()
        self._console = None
