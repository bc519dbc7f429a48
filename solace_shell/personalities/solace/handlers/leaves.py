"""The generic handler of every leaf whose command only sets it (grammar/data/leaves.yaml).

One handler per such leaf, registered as ``leaf.<object>.<name>`` from the declaration: it reads
the value from the line as the leaf's words put it (a bool from the words or their `no` form, an
enum's chosen keyword, a parameter's value, a secret's salted hash from its `encrypted-` form; the
`no` form restores the default) and sets it on
the object whose level the session is at. Nothing prints on success; the engine checks the value
against the same declaration.
"""

from __future__ import annotations

from typing import cast, get_args

from grammar.leaves import Leaf, with_words
from state_store.passwords import HashedSecret
from state_store.solace.config_objects import AttrValue, ObjectKind

from ....handlers import Args, HandlerContext, chosen_keyword, handler
from .config_objects import level_object

_OBJECT_KINDS: tuple[str, ...] = get_args(ObjectKind)


def leaf_value(leaf: Leaf, args: Args) -> AttrValue:
    """The value the line gives ``leaf`` (None: the `no` form of a valued leaf, the default)."""
    negated = bool(args.get("no"))
    if leaf.type == "bool":
        return negated == leaf.inverted
    if negated:
        return None
    if leaf.type == "enum":
        return chosen_keyword(args, *leaf.values)
    if leaf.type == "secret" and "encrypted-password" in args:
        return HashedSecret(str(args["encrypted-password"]))
    if leaf.type == "threshold":
        form = "percent" if "clear-percent" in args else "value"
        return leaf.threshold(form, args[f"threshold-clear-{form}"], args[f"threshold-set-{form}"])
    value: AttrValue = args[leaf.param_name]
    return value


def _register(leaf: Leaf) -> None:
    def set_leaf(ctx: HandlerContext, args: Args) -> None:
        value = leaf_value(leaf, args)
        router = ctx.router or ""
        if leaf.kind == "queue":
            ctx.router_engine.set_queue_option(router, ctx.router_and_vpn()[1], ctx.context["queue"], leaf.name, value)
        elif leaf.kind == "replication":
            ctx.router_engine.set_replication_option(router, ctx.router_and_vpn()[1], leaf.name, value)
        else:
            kind = cast(ObjectKind, leaf.kind)
            vpn, path = level_object(ctx, kind)
            ctx.router_engine.set_object_attr(router, vpn, kind, path, leaf.name, value)

    if leaf.kind not in (*_OBJECT_KINDS, "queue", "replication"):
        raise RuntimeError(f"leaf {leaf.id}: no object of kind {leaf.kind} takes generic settings")
    handler(leaf.handler_id)(set_leaf)


for _leaf in with_words():
    _register(_leaf)
