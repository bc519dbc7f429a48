"""A tiny deterministic stand-in for `solace_shell.lab.Lab`, implementing only the replay surface.

It lets the transcript machinery be tested (and demonstrated) without the grammar and the state
store: two routers with a mode stack each, a lab console with a clock, and an `echo` command that
prints arbitrary text so tests can feed any output through the recorder. It is not an emulator.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from pathlib import Path

DEFAULT_ROUTERS = ("NY_Appliance1", "NJ_Appliance1")


@dataclass(frozen=True)
class FakeOutcome:
    text: str
    ok: bool = True
    node: str = ""
    error_kind: str | None = None


@dataclass
class _Router:
    name: str
    enabled: bool = False
    stack: list[str] = field(default_factory=list)
    vpn: str | None = None

    @property
    def prompt(self) -> str:
        path = f"({'/'.join(self.stack)})" if self.stack else ""
        return f"{self.name}{path}{'#' if self.enabled else '>'}"


class FakeLab:
    """Routers `DEFAULT_ROUTERS` (or `routers`) plus `lab`; `settings` echo through `show version`."""

    def __init__(self, scenario: Path | None = None, settings: dict[str, str] | None = None,
                 routers: tuple[str, ...] = DEFAULT_ROUTERS) -> None:
        self.scenario = scenario
        self.settings = dict(settings or {})
        self.routers = {name: _Router(name) for name in routers}
        self.clock = 0
        self.vars: dict[str, dict[str, str]] = {name: {} for name in routers}
        self.closed = False
        self.executed: list[tuple[str, str]] = []

    @classmethod
    def fresh(cls, scenario: Path | None = None, settings: dict[str, str] | None = None) -> FakeLab:
        return cls(scenario, settings)

    def targets(self) -> list[str]:
        return [*self.routers, "lab"]

    def prompt(self, target: str) -> str:
        return "lab>" if target == "lab" else self.routers[target].prompt

    def close(self) -> None:
        self.closed = True

    def execute(self, target: str, line: str) -> FakeOutcome:
        self.executed.append((target, line))
        if target == "lab":
            return self._lab(line)
        return self._router(self.routers[target], line)

    def _lab(self, line: str) -> FakeOutcome:
        words = line.split()
        if len(words) == 2 and words[0] == "advance" and re.fullmatch(r"\d+s", words[1]):
            self.clock += int(words[1][:-1])
            return FakeOutcome(f"Clock advanced to T+{self.clock}s", node="lab.advance")
        if words == ["status"]:
            rows = [f"{name:<20}{r.prompt}" for name, r in self.routers.items()]
            return FakeOutcome("\n".join([f"Clock: T+{self.clock}s", *rows]), node="lab.status")
        return _invalid(line)

    def _router(self, r: _Router, line: str) -> FakeOutcome:
        words = line.split()
        if not words:
            return FakeOutcome("", node="")
        if words[0] == "echo":
            return FakeOutcome(line.partition("echo")[2][1:].replace("\\n", "\n"), node="echo")
        if words[0] == "boom":
            raise RuntimeError("the fake lab exploded")
        if words == ["enable"] and not r.enabled:
            r.enabled = True
            return FakeOutcome("", node="enable")
        if words == ["configure"] and r.enabled and not r.stack:
            r.stack.append("configure")
            return FakeOutcome("", node="configure")
        if len(words) == 2 and words[0] == "message-vpn" and r.stack == ["configure"]:
            r.stack.append("message-vpn")
            r.vpn = words[1]
            return FakeOutcome("", node="configure.message_vpn")
        if words == ["replication"] and r.stack == ["configure", "message-vpn"]:
            r.stack.append("replication")
            return FakeOutcome("", node="configure.message_vpn.replication")
        if len(words) == 3 and words[:2] == ["state", "set"] and r.stack:
            self.vars[r.name][r.vpn or "-"] = words[2]
            return FakeOutcome("", node="configure.state_set")
        if words == ["exit"] and r.enabled:
            if r.stack:
                r.stack.pop()
            else:
                r.enabled = False
            return FakeOutcome("", node="exit")
        if words == ["end"] and r.enabled:
            r.stack.clear()
            return FakeOutcome("", node="end")
        if words == ["show", "clock"]:
            return FakeOutcome(f"Uptime: {self.clock}s", node="show.clock")
        if words == ["show", "version"]:
            version = self.settings.get("version", "9.1")
            layout = self.settings.get("layout", "A")
            user = self.settings.get("user", "admin")
            return FakeOutcome(f"Version: {version}\nLayout:  {layout}\nUser:    {user}", node="show.version")
        if len(words) == 3 and words[:2] == ["show", "state"]:
            state = self.vars[r.name].get(words[2], "standby")
            return FakeOutcome(f"\nMessage VPN: {words[2]}\nState:       {state}\n", node="show.state")
        return _invalid(line)


def _invalid(line: str) -> FakeOutcome:
    return FakeOutcome(f"Invalid command input\n ->  {line}\n     ^", ok=False, node="",
                       error_kind="invalid-input")
