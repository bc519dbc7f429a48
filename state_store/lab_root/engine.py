"""RootEngine: the lab's journaled engine, naming no system.

Why a small engine at the root: the lab's clock, its kernel operations, its settings, its users and
the shared failure verbs are the lab's business whatever systems it runs. A gfsh, qpid-ha or
SwiftMQ command changes only its own groups on the kernel, through one journaled call
(``kernel_call``); a system that keeps a section (``state_store.lab_section``) has its own engine
over it, reached with ``system(name)``, whose ``@journaled`` calls the journal records under the
system's name (``<system>.<call>``; ``journal_prefix``) and replays through this engine
(``resolve_call``). Each section's engine may contribute, by these method names:

- ``advance_section(start_ms, ms) -> (drained, reconnected)``: its part of moving the clock, before
  the kernel's timers run; ``after_advance()``: after them;
- ``after_kernel_op``: registered in ``self.after_kernel_op`` (system -> what runs after each
  journaled operation of that kernel system);
- ``fail_node(failure, target)`` / ``fail_network(failure, target)``: the shared failure verbs on a
  target it owns (None: not its target);
- ``ha_node_names_extra()`` / ``ha_network_names_extra()``: completion of those targets;
- ``routers()``: the routers it runs (``LabRouter``s, in the lab's order; none: an empty list).

This engine serves its own calls only: a caller that needs a system's calls asks for that system's
engine, ``system(name)`` / ``system_view(name)`` / ``views[name]``, with the name from the
registry (``state_store.systems``).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from ..errors import EngineError
from ..journal import journaled
from ..kernel import ops as kernel_ops
from ..kernel.failures import FAILURES, LINK_FAILURES
from ..loader import held, section_model
from ..passwords import verify_password as _verify
from .users import AdvanceResult, UserInfo

if TYPE_CHECKING:
    from ..kernel import Kernel
    from .routers import LabRouter
    from .state import RootState


class _Views(dict[str, Any]):
    """System name -> its engine for ``RootEngine.system_view``: one dictionary lookup for a held
    section's; a missing one is made by the engine (an empty section's), then kept."""

    def __init__(self, engine: RootEngine | None, held: dict[str, Any]) -> None:
        super().__init__(held)
        self.engine = engine

    def __missing__(self, name: str) -> Any:
        if self.engine is None:
            raise KeyError(name)
        found = self[name] = self.engine._detached_view(name)
        return found


class RootEngine:
    """The lab's engine over one root state and the engines of its sections."""

    journal_prefix = ""  # the root's calls are recorded unqualified

    def __init__(self, state: RootState) -> None:
        self.state = state
        self._setting_rules: tuple[dict[str, Any], dict[str, str]] | None = None
        self._detached: dict[str, Any] = {}  # system -> its engine over an empty section (system_view)
        # kernel system name -> what runs after each journaled operation of that system
        self.after_kernel_op: dict[str, Callable[[], None]] = {}
        self._systems: dict[str, Any] = {}
        for name, section in state.sections.items():
            model = section_model(name)
            if model is None:
                raise EngineError("invalid_value", name="section", value=name[:80], allowed="a registered system")
            self._systems[name] = model.engine(section, self)
        # system -> its engine: the sections' own, then (made on first use) system_view's others
        self.views = _Views(self, self._systems)

    def system(self, name: str) -> Any:
        """The engine of system ``name``'s section (KeyError when the lab holds none)."""
        return self._systems[name]

    def held_system(self, name: str) -> Any | None:
        """The engine of system ``name``'s section, None when the lab holds none."""
        return self._systems.get(name)

    def sections(self) -> list[str]:
        """The systems whose section the lab holds."""
        return list(self._systems)

    def system_view(self, name: str) -> Any:
        """The engine of system ``name``'s section; in a lab that holds none, the same system's
        engine over an empty section the lab does not hold (never part of its state, never
        written): for reads that every lab answers (a lab console's status and audit show no
        routers, sites or messages then) and for verbs that are refused without that system's
        objects. KeyError for a name no registered system keeps a section under."""
        return self.views[name]

    def _detached_view(self, name: str) -> Any:
        """``system_view`` of a system whose section the lab does not hold (made once)."""
        model = section_model(name)
        if model is None:
            raise KeyError(name)
        hooks = dict(self.after_kernel_op)
        found = self._detached[name] = model.engine(model.new_section(self.state), self)
        self.after_kernel_op.clear()  # its hooks are no business of a lab that holds no such section
        self.after_kernel_op.update(hooks)
        return found

    def close(self) -> None:
        """This engine is done with: so are its sections' engines."""
        for engine in [*self._systems.values(), *self._detached.values()]:
            engine.close()
        self._detached = {}
        self._systems = {}
        self.views = _Views(None, {})
        self.after_kernel_op.clear()

    # ------------------------------------------------------------------ the clock and the kernel
    def now_ms(self) -> int:
        """The lab's one clock (the kernel's)."""
        return self.state.kernel.now_ms

    def kernel(self) -> Kernel:
        """The HA kernel, to read (views of the HA systems are built from it). Changing it other
        than through ``kernel_call`` would be lost across shells: only journaled calls persist."""
        return self.state.kernel

    @journaled
    def advance(self, ms: int) -> AdvanceResult:
        """Move the simulated clock: each section's part first (clients reconnect, replication
        streams drain), then the HA kernel's timers, each at its due time, up to the new time,
        then what each section brings in line after them."""
        if ms < 0:
            raise EngineError("invalid_value", name="duration", value=ms, allowed=">= 0")
        start = self.state.kernel.now_ms
        drained = 0
        reconnected: list[str] = []
        engines = list(self._systems.values())
        for engine in engines:
            d, r = engine.advance_section(start, ms)
            drained += d
            reconnected += [c for c in r if c not in reconnected]
        self.state.kernel.now_ms = start + ms
        core = self.state.kernel
        if core.groups:
            reconnected += [c for c in core.advance_to(start + ms, start) if c not in reconnected]
        for engine in engines:
            engine.after_advance()
        return AdvanceResult(from_ms=start, to_ms=start + ms, drained=drained, reconnected=tuple(reconnected))

    @journaled
    def kernel_call(self, op: str, *args: Any) -> Any:
        """Run the HA system operation ``op`` (``<system>.<verb>``, registered with
        ``state_store.kernel.operation``) on the kernel; returns its view. An operation decides
        its refusals before it changes anything, as every journaled call does."""
        fn = kernel_ops.find(op) if isinstance(op, str) else None
        if fn is None:
            raise EngineError("invalid_value", name="operation", value=str(op)[:80], allowed="a registered operation")
        result = fn(self.state.kernel, *args)
        after = self.after_kernel_op.get(op.partition(".")[0])
        if after is not None:
            after()
        return result

    def routers(self) -> list[LabRouter]:
        """The lab's routers, in the lab's order: each held section's that runs some (none in a
        lab of HA systems only)."""
        out: list[LabRouter] = []
        for engine in self._systems.values():
            out += engine.routers()
        return out

    def system_names(self) -> list[str]:
        """The HA systems this lab holds (groups on the kernel), in the registry's order."""
        return held(self.state)

    # completion sources (never raise)
    def ha_instance_names(self) -> list[str]:
        return list(self.state.kernel.nodes)

    def ha_router_names(self) -> list[str]:
        return list(self.state.kernel.groups)

    def jms_client_names(self) -> list[str]:
        return sorted(self.state.kernel.clients)

    def ha_queue_names(self) -> list[str]:
        out: list[str] = []
        for group in self.state.kernel.groups.values():
            out += [q for q in group.data.get("queues", {}) if q not in out]
        return out

    def ha_node_names(self) -> list[str]:
        """Completion of `ha start|kill|hang|replace`: the kernel's nodes, then the sections' own."""
        out = list(self.state.kernel.nodes)
        for engine in self._systems.values():
            out += engine.ha_node_names_extra()
        return out

    def ha_network_names(self) -> list[str]:
        """Completion of `ha partition|heal`: the kernel's groups, then the sections' own."""
        out = list(self.state.kernel.groups)
        for engine in self._systems.values():
            out += engine.ha_network_names_extra()
        return out

    # ------------------------------------------------------------------ settings
    def _rules(self) -> tuple[dict[str, Any], dict[str, str]]:
        """The setting rules and defaults of the sections held (made once per engine: a lab's
        sections never change under one)."""
        found = self._setting_rules
        if found is None:
            rules: dict[str, Any] = {}
            defaults: dict[str, str] = {}
            for name in self._systems:
                model = section_model(name)
                assert model is not None
                rules.update(model.setting_rules)
                defaults.update(model.setting_defaults)
            found = self._setting_rules = (rules, defaults)
        return found

    def settings(self) -> dict[str, str]:
        """Every setting: the held systems' defaults, overridden by what the lab set."""
        out = dict(self._rules()[1])
        out.update(self.state.settings)
        return out

    @journaled
    def set_setting(self, key: str, value: Any) -> None:
        rule = self._rules()[0].get(key)
        if rule is None:
            raise EngineError("unknown_setting", name=key)
        if isinstance(rule, tuple):
            if str(value) not in rule:
                raise EngineError("invalid_value", name=key, value=value, allowed="|".join(rule))
        elif rule is int:
            try:
                ok = int(value) >= 1
            except (TypeError, ValueError):
                ok = False
            if not ok:
                raise EngineError("invalid_value", name=key, value=value, allowed="integer >= 1")
            value = int(value)
        self.state.settings[key] = str(value)

    # ------------------------------------------------------------------ users
    def user(self, name: str) -> UserInfo | None:
        u = self.state.user_by_name.get(name)
        return UserInfo(u.name, u.scope, u.level, u.vpn, u.lab_admin) if u else None

    def users(self) -> list[UserInfo]:
        return [UserInfo(u.name, u.scope, u.level, u.vpn, u.lab_admin)
                for u in sorted(self.state.users.values(), key=lambda u: u.name)]

    def user_names(self) -> list[str]:
        """Completion: CLI user names."""
        return [u.name for u in self.users()]

    def verify_password(self, name: str, password: str) -> bool:
        u = self.state.user_by_name.get(name)
        return _verify(password, u.password_hash if u is not None else None)  # same work either way

    def ssh_keys(self, name: str) -> tuple[str, ...]:
        """The user's OpenSSH public key lines (none for an unknown user)."""
        u = self.state.user_by_name.get(name)
        return tuple(u.ssh_keys.splitlines()) if u is not None else ()

    # ------------------------------------------------------------------ failures
    def fail(self, failure: str, target: str) -> object:
        """The lab's shared failure verbs (`ha kill ha1.A`, `ha partition g1`, and a section's own
        targets): a node or group on the kernel runs its system's operation ``<system>.<failure>``;
        any other target goes to the section that owns it. Not journaled itself: the journal holds
        exactly the calls it made. Every refusal comes before the journaled call."""
        if failure not in FAILURES:
            raise EngineError("invalid_value", name="failure", value=failure[:80], allowed="|".join(FAILURES))
        kernel = self.state.kernel
        if failure in LINK_FAILURES:
            group = kernel.groups.get(target)
            if group is not None:
                return self._kernel_failure(group.system, failure, target)
            for engine in self._systems.values():
                view = engine.fail_network(failure, target)
                if view is not None:
                    return view
            raise EngineError("ha_router_not_found", router=target)
        node = kernel.nodes.get(target)
        if node is not None:
            return self._kernel_failure(kernel.groups[node.group].system, failure, target)
        for engine in self._systems.values():
            view = engine.fail_node(failure, target)
            if view is not None:
                return view
        system = _system_of_name(kernel, target)
        if system is not None:  # the system refuses the unknown node in its own words
            return self._kernel_failure(system, failure, target)
        raise EngineError("ha_instance_not_found", instance=target)

    def _kernel_failure(self, system: str, failure: str, target: str) -> object:
        op = f"{system}.{failure}"
        if kernel_ops.find(op) is None:
            raise EngineError("ha_failure_not_supported", system=system, failure=failure)
        return self.kernel_call(op, target)


def _system_of_name(kernel: Kernel, target: str) -> str | None:
    """The HA system an unknown node name belongs to: its group's, else the one system the lab
    holds (None when it holds none or several)."""
    group = kernel.groups.get(target.split(".", 1)[0])
    if group is not None:
        return str(group.system)
    systems = {g.system for g in kernel.groups.values()}
    return str(systems.pop()) if len(systems) == 1 else None


def resolve_call(engine: RootEngine, name: str) -> Callable[..., Any] | None:
    """The bound journaled method a recorded call ``name`` replays on: the root's (unqualified) or
    a held section's (``<system>.<call>``). A name of an older journal, unqualified and not the
    root's, is a section's call of that name (they were recorded without their system then).
    None: no such journaled call (a damaged or foreign file)."""
    system, dot, call = name.rpartition(".")
    if dot:
        target = engine._systems.get(system)
        owners = [] if target is None else [target]
    else:
        owners = [engine]
        call = name
    found = None
    for owner in owners:
        fn = getattr(type(owner), call, None)
        if fn is not None and getattr(fn, "__journaled__", False):
            found = fn.__get__(owner)
    if found is None and not dot:
        for owner in engine._systems.values():
            fn = getattr(type(owner), call, None)
            if fn is not None and getattr(fn, "__journaled__", False):
                return fn.__get__(owner)  # type: ignore[no-any-return]
    return found
