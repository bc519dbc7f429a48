"""The lab's system-neutral engine: the one clock, the HA kernel and the systems it holds.

Why apart from any system's engine: a gfsh, qpid-ha or SwiftMQ command changes only its own
groups on the kernel, through one journaled call (``kernel_call``), and reads the kernel; none
of that is any system's business but its own. The root model's engine extends this class (its
journaled calls are inherited, so a journal records and replays ``kernel_call`` the same way),
and a system that must bring its own records in line after an operation of some kernel system
says so in ``after_kernel_op`` (the Solace model keeps each site's router in step with its
redundancy group's activity); an operation of any other system runs none of it.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from .errors import EngineError
from .journal import journaled
from .kernel import ops as kernel_ops
from .loader import held

if TYPE_CHECKING:
    from .kernel import Kernel
    from .lab_model import LabState


class KernelEngine:
    """The kernel's part of the lab's engine over one state (``state.kernel``)."""

    def __init__(self, state: LabState) -> None:
        self.state = state
        # kernel system name -> what runs after each journaled operation of that system
        self.after_kernel_op: dict[str, Callable[[], None]] = {}

    def now_ms(self) -> int:
        """The lab's one clock (the kernel's)."""
        return self.state.kernel.now_ms

    def kernel(self) -> Kernel:
        """The HA kernel, to read (views of the HA systems are built from it). Changing it other
        than through ``kernel_call`` would be lost across shells: only journaled calls persist."""
        return self.state.kernel

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
