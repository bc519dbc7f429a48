"""The lab console's failure verbs, shared by every HA system on the kernel: `ha start|kill|hang|
replace <node>`, `ha partition|heal <group>` (grammar/data/commands/lab-ha.yaml).

Why here and not in a system's package: the failure vocabulary is the kernel's
(state_store/kernel/failures.py), so every system gets the same verbs. Each runs the journaled
operation `<system>.<failure>` of the node's (or group's) system; the system's own view comes back
and its own renderer prints it. A system without that operation refuses the verb in one line."""

from __future__ import annotations

from dataclasses import dataclass

from state_store.errors import EngineError
from state_store.kernel import ops as kernel_ops

from . import Args, HandlerContext, handler


@dataclass(frozen=True)
class FailureApplied:
    """What the system's operation returned (one of its views, rendered by its renderer)."""

    view: object


def _run(ctx: HandlerContext, system: str, failure: str, target: str) -> FailureApplied:
    op = f"{system}.{failure}"
    if kernel_ops.find(op) is None:
        raise EngineError("ha_failure_not_supported", system=system, failure=failure)
    return FailureApplied(ctx.engine.kernel_call(op, target))


def _on_node(ctx: HandlerContext, args: Args, failure: str) -> FailureApplied:
    key = str(args["ha-instance"])
    kernel = ctx.engine.kernel()
    node = kernel.nodes.get(key)
    if node is None:
        raise EngineError("ha_instance_not_found", instance=key)
    return _run(ctx, kernel.groups[node.group].system, failure, key)


def _on_group(ctx: HandlerContext, args: Args, failure: str) -> FailureApplied:
    name = str(args["ha-router"])
    group = ctx.engine.kernel().groups.get(name)
    if group is None:
        raise EngineError("ha_router_not_found", router=name)
    return _run(ctx, group.system, failure, name)


@handler("lab_ha.restart")
def restart(ctx: HandlerContext, args: Args) -> FailureApplied:
    return _on_node(ctx, args, "restart")


@handler("lab_ha.kill")
def kill(ctx: HandlerContext, args: Args) -> FailureApplied:
    return _on_node(ctx, args, "kill")


@handler("lab_ha.hang")
def hang(ctx: HandlerContext, args: Args) -> FailureApplied:
    return _on_node(ctx, args, "hang")


@handler("lab_ha.replace")
def replace(ctx: HandlerContext, args: Args) -> FailureApplied:
    return _on_node(ctx, args, "replace")


@handler("lab_ha.partition")
def partition(ctx: HandlerContext, args: Args) -> FailureApplied:
    return _on_group(ctx, args, "partition")


@handler("lab_ha.heal")
def heal(ctx: HandlerContext, args: Args) -> FailureApplied:
    return _on_group(ctx, args, "heal")
