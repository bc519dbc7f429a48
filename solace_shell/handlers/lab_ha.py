"""The lab console's failure verbs, shared by every HA system and by the replication lab's routers:
`ha start|kill|hang|replace <ha-node>`, `ha partition|heal <ha-network>`
(grammar/data/commands/lab-ha.yaml).

Why here and not in a system's package: the failure vocabulary is the kernel's
(state_store/kernel/failures.py), so every system gets the same verbs. The engine resolves the
target (``Engine.fail``): a kernel node or group runs the journaled operation `<system>.<failure>`
of its system, a router or the inter-site link the same calls as the lab's own verbs for them; the
view that comes back is printed by its own renderer. A failure the target's system does not model
is refused in one line."""

from __future__ import annotations

from dataclasses import dataclass

from . import Args, HandlerContext, handler


@dataclass(frozen=True)
class FailureApplied:
    """What the failure returned (one of its system's views, rendered by its renderer)."""

    view: object


def _on_node(ctx: HandlerContext, args: Args, failure: str) -> FailureApplied:
    return FailureApplied(ctx.engine.fail(failure, str(args["ha-node"])))


def _on_network(ctx: HandlerContext, args: Args, failure: str) -> FailureApplied:
    return FailureApplied(ctx.engine.fail(failure, str(args["ha-network"])))


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
    return _on_network(ctx, args, "partition")


@handler("lab_ha.heal")
def heal(ctx: HandlerContext, args: Args) -> FailureApplied:
    return _on_network(ctx, args, "heal")
