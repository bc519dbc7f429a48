"""Geode members as gfsh names them: member ids of servers and the locator, client ids, ports.

Why deterministic ids: a drill's expected output shows them, so they derive from the scenario
(names and order) and the member's restarts, never from the wall clock or a random source.
A member id is `<host>(<name>:<pid>)<v<view>>:<port>` as in the gfsh samples; a restarted
server is a new member (new pid, next view number).
"""

from __future__ import annotations

import zlib
from typing import Any

from ..kernel import Kernel
from .params import HOST


def member_id(info: dict[str, Any], name: str, locator: bool = False) -> str:
    kind = ":locator" if locator else ""
    ec = "<ec>" if locator else ""
    return f"{HOST}({name}:{info['pid']}{kind}){ec}<v{info['view']}>:{info['port']}"


def server_id(core: Kernel, group: str, server: str) -> str:
    return member_id(core.groups[group].data["members"][server], server)


def locator_id(core: Kernel, group: str) -> str:
    loc = core.groups[group].data["locator"]
    return member_id(loc, str(loc["name"]), locator=True)


def cache_port(core: Kernel, group: str, server: str) -> int:
    return int(core.groups[group].data["members"][server]["cache_port"])


def client_id(name: str, index: int) -> dict[str, Any]:
    """The parts of a client's distributed member id (a loner): pid, port and an 8-hex-digit tag."""
    crc = zlib.crc32(name.encode())
    return {"pid": 4987 + 78 * index, "port": 58922 + 1000 * index, "tag": f"{crc:08x}"}


def client_text(core: Kernel, group: str, client: str) -> str:
    """`192.0.2.0(4987:loner):58922:7b3398cf` (a durable client's id carries its durable id)."""
    pool = core.groups[group].data["pools"][client]
    ident = pool["id"]
    durable = pool["params"].get("durable_client_id") or ""
    if durable:
        return f"{HOST}({ident['pid']}:loner):{ident['port']}:{ident['tag']}:{durable}"
    return f"{HOST}({ident['pid']}:loner):{ident['port']}:{ident['tag']}"


def new_server_member(index: int, view: int) -> dict[str, Any]:
    return {"pid": 5764 + 127 * index, "view": view, "port": 15189 + 1111 * index, "cache_port": 40404 + index}


def restarted(info: dict[str, Any], view: int) -> dict[str, Any]:
    out = dict(info)
    out["pid"] = int(info["pid"]) + 1
    out["view"] = view
    out["port"] = int(info["port"]) + 1
    return out
