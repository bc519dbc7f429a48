"""Named configuration objects (client usernames, profiles, telemetry, REST delivery points).

Nothing prints on success. Each kind's create/enter/delete handler is registered from one table
(`_ADDRESS`): which parameter names the object, where its VPN comes from (the line's
`message-vpn <vpn>` or the level's) and which level keys name its parents. The engine validates
and config-syncs; see state_store.solace.config_objects.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from state_store.passwords import HashedSecret
from state_store.solace.config_objects import REST_AUTH_SCHEMES, AttrValue, ObjectKind

from ....handlers import Args, HandlerContext, chosen_keyword, handler


@dataclass(frozen=True)
class _Address:
    """How a line names an object of one kind."""

    param: str                      # the parameter (or level key) that names the object
    parents: tuple[str, ...] = ()   # level context keys naming its parents, top first
    vpn_on_line: bool = False       # `... message-vpn <vpn-name>` on the line (configure level)


_ADDRESS: dict[ObjectKind, _Address] = {
    "client-username": _Address("client-username", vpn_on_line=True),
    "client-profile": _Address("client-profile", vpn_on_line=True),
    "acl-profile": _Address("acl-profile", vpn_on_line=True),
    "telemetry-profile": _Address("telemetry-profile"),
    "telemetry-filter": _Address("filter-name", ("telemetry-profile",)),
    "telemetry-subscription": _Address("topic", ("telemetry-profile", "filter")),
    "rest-delivery-point": _Address("rdp-name"),
    "rest-consumer": _Address("rest-consumer-name", ("rest-delivery-point",)),
    "queue-binding": _Address("queue-name", ("rest-delivery-point",)),
    "connection-factory": _Address("connection-factory-name"),
}


def _target(ctx: HandlerContext, args: Args, kind: ObjectKind) -> tuple[str, str, tuple[str, ...]]:
    """(router, vpn, path) of the object the line names."""
    address = _ADDRESS[kind]
    vpn = str(args["vpn-name"]) if address.vpn_on_line else ctx.router_and_vpn()[1]
    path = tuple(ctx.context[key] for key in address.parents) + (str(args[address.param]),)
    return ctx.router or "", vpn, path


def _register(kind: ObjectKind) -> None:
    suffix = kind.replace("-", "_")

    def create(ctx: HandlerContext, args: Args) -> None:
        router, vpn, path = _target(ctx, args, kind)
        ctx.router_engine.create_object(router, vpn, kind, path)

    def enter(ctx: HandlerContext, args: Args) -> None:
        router, vpn, path = _target(ctx, args, kind)
        ctx.router_engine.require_object(router, vpn, kind, path)

    def delete(ctx: HandlerContext, args: Args) -> None:
        router, vpn, path = _target(ctx, args, kind)
        ctx.router_engine.delete_object(router, vpn, kind, path)

    handler(f"config_objects.create_{suffix}")(create)
    handler(f"config_objects.enter_{suffix}")(enter)
    handler(f"config_objects.delete_{suffix}")(delete)


for _kind in _ADDRESS:
    _register(_kind)


# ------------------------------------------------------------------ settings at an object's level
# The level context key that names the object of each kind (modes.yaml `carries`).
_LEVEL_KEY: dict[ObjectKind, str] = {
    "client-username": "client-username", "client-profile": "client-profile", "acl-profile": "acl-profile",
    "telemetry-profile": "telemetry-profile", "telemetry-filter": "filter",
    "rest-delivery-point": "rest-delivery-point", "rest-consumer": "rest-consumer",
    "queue-binding": "queue-binding", "connection-factory": "connection-factory",
}


def level_object(ctx: HandlerContext, kind: ObjectKind) -> tuple[str, tuple[str, ...]]:
    """(vpn, path) of the object whose level the session is at (the VPN's singleton for
    `message-vpn`)."""
    if kind not in _LEVEL_KEY:  # a singleton: one unnamed object of the level's VPN
        return ctx.router_and_vpn()[1], ("",)
    address = _ADDRESS[kind]
    path = tuple(ctx.context[key] for key in address.parents) + (ctx.context[_LEVEL_KEY[kind]],)
    return ctx.router_and_vpn()[1], path


def _setter(handler_id: str, kind: ObjectKind, attr: str, value: Callable[[Args], AttrValue]) -> None:
    def set_attr(ctx: HandlerContext, args: Args) -> None:
        vpn, path = level_object(ctx, kind)
        ctx.router_engine.set_object_attr(ctx.router or "", vpn, kind, path, attr, value(args))

    handler(handler_id)(set_attr)


def _enabled(args: Args) -> AttrValue:
    """`shutdown` disables; `no shutdown` enables."""
    return bool(args.get("no"))


def _negatable(param: str) -> Callable[[Args], AttrValue]:
    return lambda args: None if args.get("no") else args[param]


def _password(args: Args) -> AttrValue:
    if args.get("no"):
        return None
    if "encrypted-password" in args:
        return HashedSecret(str(args["encrypted-password"]))
    return str(args["password"])


_setter("config_objects.telemetry_receiver_acl", "telemetry-profile", "receiver-acl-connect-default-action",
        lambda args: chosen_keyword(args, "allow", "disallow"))
_setter("config_objects.rdp_shutdown", "rest-delivery-point", "enabled", _enabled)
_setter("config_objects.rdp_client_profile", "rest-delivery-point", "client-profile", _negatable("client-profile"))
_setter("config_objects.rest_consumer_auth_scheme", "rest-consumer", "auth-scheme",
        lambda args: chosen_keyword(args, *REST_AUTH_SCHEMES))
_setter("config_objects.rest_consumer_shutdown", "rest-consumer", "enabled", _enabled)


@handler("config_objects.rest_consumer_rejected_status_codes")
def rest_consumer_rejected_status_codes(ctx: HandlerContext, args: Args) -> None:
    """Adds one code to the consumer's list of rejecting status codes; `no` empties the list."""
    vpn, path = level_object(ctx, "rest-consumer")
    codes: set[int] = set()
    if not args.get("no"):
        rdp, consumer = path
        found = [c for p in ctx.router_engine.rest_delivery_points(ctx.router or "", vpn, rdp) if p.name == rdp
                 for c in p.consumers if c.name == consumer]
        codes = {*(found[0].rejected_status_codes if found else ()), int(str(args["http-status-code"]))}
    ctx.router_engine.set_object_attr(ctx.router or "", vpn, "rest-consumer", path, "rejected-status-codes",
                               " ".join(str(code) for code in sorted(codes)))


@handler("config_objects.acl_default_action")
def acl_default_action(ctx: HandlerContext, args: Args) -> None:
    which = chosen_keyword(args, "client-connect", "publish-topic", "subscribe-topic", "subscribe-share-name")
    path = (ctx.context["acl-profile"],)
    ctx.router_engine.set_object_attr(ctx.router or "", ctx.router_and_vpn()[1], "acl-profile", path,
                               f"{which}-default-action", chosen_keyword(args, "allow", "disallow"))


@handler("config_objects.vpn_auth_type")
def vpn_auth_type(ctx: HandlerContext, args: Args) -> None:
    auth = chosen_keyword(args, "internal", "ldap", "radius", "none")
    ctx.router_engine.set_object_attr(ctx.router or "", ctx.router_and_vpn()[1], "message-vpn", ("",),
                               "authentication-basic-auth-type", auth)



@handler("config_objects.vpn_rest_mode")
def vpn_rest_mode(ctx: HandlerContext, args: Args) -> None:
    ctx.router_engine.set_object_attr(ctx.router or "", ctx.router_and_vpn()[1], "message-vpn", ("",), "rest-mode",
                               chosen_keyword(args, "messaging", "gateway"))


@handler("config_objects.vpn_rest_plain_text_shutdown")
def vpn_rest_plain_text_shutdown(ctx: HandlerContext, args: Args) -> None:
    ctx.router_engine.set_object_attr(ctx.router or "", ctx.router_and_vpn()[1], "message-vpn", ("",),
                               "rest-incoming-plain-text-enabled", bool(args.get("no")))


@handler("config_objects.vpn_rest_listen_port")
def vpn_rest_listen_port(ctx: HandlerContext, args: Args) -> None:
    port = None if args.get("no") else int(str(args["port"]))
    ctx.router_engine.set_rest_listen_port(ctx.router or "", ctx.router_and_vpn()[1], port)


@handler("config_objects.vpn_shutdown")
def vpn_shutdown(ctx: HandlerContext, args: Args) -> None:
    ctx.router_engine.set_vpn_enabled(ctx.router or "", ctx.router_and_vpn()[1], bool(args.get("no")))
