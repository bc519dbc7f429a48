"""Solace intra-site redundancy (an active/standby pair plus a monitoring node) on the HA kernel.

Why on the kernel: the three nodes of a redundancy group are kernel nodes (their processes start,
die and hang through the shared failure vocabulary, `lab> ha kill|hang|start <site>.<node>`),
the network between them is kernel links (`ha partition|heal <site>`), and the hello timeout is
a kernel timer on the lab's one clock. This module is the group's state machine: who holds the
Guaranteed Messaging virtual router's activity, whether the standby's spool mirror (the ADB) is
in sync, and the redundancy status with its last failure. It knows no Solace record: what the
activity means for the replication model (the site's message router up or down, the bridge
following the active member) is `state_store.solace.redundancy_sync`, run after every change.

The rules (the product's documented behaviour, kept simple):
- a member holds activity only with a quorum: itself and at least one of its mate and the
  monitor in reach; the member holding it keeps it while it is ready (up, redundancy not shut
  down, activity not released) and has a quorum, so a cut between the members alone moves
  nothing (the monitor's vote keeps the standby from taking over);
- the other member takes activity over only when it is ready, has a quorum and its spool mirror
  is in sync (the ADB link was up when activity was lost): a guaranteed message is acknowledged
  only once mirrored, so a takeover loses none; with the mirror out of sync nobody takes over
  and the site has no service until the member holding the spool returns;
- a hung member is seen alive until its mate's hello timeout (3 s) runs out;
- auto-revert (off by default, the primary's setting) gives activity back to a ready primary;
  `revert-activity` on the backup does it on demand.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from ..errors import EngineError
from ..kernel import Group, Kernel, Link, Node, Timer, node_key, operation, register
from ..kernel.failures import Failure

SYSTEM = "solace-redundancy"
HELLO_INTERVAL_MS = 1000
HELLO_TIMEOUT_MS = 3000
MATE_LINK_PORT = 8741
NODE_OFFLINE = "One or more nodes is offline"          # C05 (real)
SPOOLS_OUT_OF_SYNC = "Message spools out of sync"      # C22 (real)
REDUNDANCY_SHUTDOWN = "Redundancy is shutdown"         # ours: no capture
ACTIVITY_RELEASED = "Activity released"                # ours: no capture
MATE_LINK_DOWN = "Mate Link Down"                      # ours, while the mate link is down
MATE_LINK_RESTART = "Mate Link Restart"                # C05 (real): the link went and came back
HELLO_LOST = "Hello Timeout"                           # ours: no capture
MEMBER_STATES = ("active", "standby", "not-ready")
MONITOR_STATE = "online"
_ALL = frozenset(("", *MEMBER_STATES, MONITOR_STATE))
CONFIG_OPTIONS = ("shutdown", "auto-revert", "release-activity")


class RedundancyPolicy:
    """The kernel's hooks: every process, link and timer change re-settles the group."""

    system = SYSTEM
    transitions: Mapping[str, frozenset[str]] = {state: _ALL - {state} for state in _ALL}

    def on_timer(self, kernel: Kernel, timer: Timer) -> None:
        if timer.kind == "hello-timeout":
            node = kernel.node(timer.group, timer.node)
            data = kernel.groups[timer.group].data
            if node.proc == "hung" and node.name not in data["hello_lost"]:
                data["hello_lost"].append(node.name)
                settle(kernel, timer.group)

    def on_process(self, kernel: Kernel, node: Node, change: str) -> None:
        data = kernel.groups[node.group].data
        if change == "hang":
            kernel.schedule(HELLO_TIMEOUT_MS, node, "hello-timeout")
        else:
            kernel.timers.cancel_where(node.group, frozenset({"hello-timeout"}), node.name)
            if node.name in data["hello_lost"]:
                data["hello_lost"].remove(node.name)
        settle(kernel, node.group)

    def on_link(self, kernel: Kernel, link: Link) -> None:
        settle(kernel, kernel.nodes[link.a].group)

    def allows(self, outcome: str, reason: str) -> bool:
        return outcome in ("delivered",)

    def after_change(self, kernel: Kernel, group: str) -> list[str]:
        return []


register(RedundancyPolicy())


# ---------------------------------------------------------------------------------------------- shape
def groups(kernel: Kernel) -> list[Group]:
    return [g for g in kernel.groups.values() if g.system == SYSTEM]


def build(kernel: Kernel, site: str, primary: str, backup: str, monitor: str,
          addresses: dict[str, str], auto_revert: bool) -> None:
    """A redundancy group named after its site: primary active, backup standby, monitor online."""
    params: dict[str, Any] = {"primary": primary, "backup": backup, "monitor": monitor,
                              "addresses": dict(addresses)}
    config = {m: {"shutdown": False, "auto-revert": auto_revert, "release-activity": False}
              for m in (primary, backup)}
    data: dict[str, Any] = {"active": primary, "config": config, "adb_cable": True, "synced": True,
                            "hello_lost": [], "status_down": None, "red_fail": None, "adb_fail": None,
                            "hello_fail": None, "takeovers": [], "applied": {"active": primary, "up": True}}
    kernel.add_group(Group(site, SYSTEM, [primary, backup, monitor], params, data))
    for name in (primary, backup, monitor):
        kernel.add_node(Node(site, name, proc="up", started_ms=kernel.now_ms))
    keys = [node_key(site, n) for n in (primary, backup, monitor)]
    kernel.links += [Link(keys[0], keys[1]), Link(keys[0], keys[2]), Link(keys[1], keys[2])]
    settle(kernel, site)


def member_of(kernel: Kernel, name: str) -> tuple[Group, Node] | None:
    """The redundancy group and node of a router or monitor named ``name``, or None."""
    for g in groups(kernel):
        if name in g.nodes:
            return g, kernel.node(g.name, name)
    return None


def service_router(group: Group) -> str:
    """The router record that holds the group's Guaranteed Messaging virtual router (the
    replication model's message router of the site): the primary's."""
    return str(group.params["primary"])


def mate(group: Group, name: str) -> str:
    p, b = group.params["primary"], group.params["backup"]
    return str(b if name == p else p)


# ---------------------------------------------------------------------------------------------- rules
def responsive(kernel: Kernel, group: Group, name: str) -> bool:
    """Up, or hung while its peers' hello timeout has not run out yet."""
    node = kernel.node(group.name, name)
    return node.proc == "up" or (node.proc == "hung" and name not in group.data["hello_lost"])


def in_reach(kernel: Kernel, group: Group, a: str, b: str) -> bool:
    link = kernel.link(node_key(group.name, a), node_key(group.name, b))
    return link is not None and link.up and responsive(kernel, group, a) and responsive(kernel, group, b)


def adb_link_up(kernel: Kernel, group: Group) -> bool:
    p, b = group.params["primary"], group.params["backup"]
    return bool(group.data["adb_cable"]) and in_reach(kernel, group, p, b)


def ready(kernel: Kernel, group: Group, name: str) -> bool:
    config = group.data["config"][name]
    return (responsive(kernel, group, name) and not config["shutdown"]
            and not config["release-activity"])


def quorum(kernel: Kernel, group: Group, name: str) -> bool:
    return responsive(kernel, group, name) and (
        in_reach(kernel, group, name, mate(group, name))
        or in_reach(kernel, group, name, str(group.params["monitor"])))


def can_hold(kernel: Kernel, group: Group, name: str) -> bool:
    return ready(kernel, group, name) and quorum(kernel, group, name)


def status_down_reason(kernel: Kernel, group: Group) -> str | None:
    """Why the group's redundancy is Down now (None: Up)."""
    names = list(group.nodes)
    p, b = group.params["primary"], group.params["backup"]
    if not all(responsive(kernel, group, n) for n in names) or not all(
            in_reach(kernel, group, a, c) for i, a in enumerate(names) for c in names[i + 1:]):
        return NODE_OFFLINE
    if not group.data["synced"] or not adb_link_up(kernel, group):
        return SPOOLS_OUT_OF_SYNC
    config = group.data["config"]
    if config[p]["shutdown"] or config[b]["shutdown"]:
        return REDUNDANCY_SHUTDOWN
    if config[p]["release-activity"] or config[b]["release-activity"]:
        return ACTIVITY_RELEASED
    return None


def settle(kernel: Kernel, site: str) -> None:
    """Recompute activity, the mirror's sync and the status after any change (deterministic)."""
    group = kernel.groups[site]
    data = group.data
    p, b = str(group.params["primary"]), str(group.params["backup"])
    now = kernel.now_ms
    adb = adb_link_up(kernel, group)
    if not adb and data.get("adb_was_up", True):
        data["adb_fail"] = [MATE_LINK_DOWN, now]
    data["adb_was_up"] = adb
    hello = in_reach(kernel, group, p, b)
    if not hello and data.get("hello_was_up", True):
        data["hello_fail"] = [HELLO_LOST, now]
    data["hello_was_up"] = hello
    owner = data.get("owner", p)          # the member whose spool is current (the last holder)
    active = data["active"]
    if active is not None and not can_hold(kernel, group, active):
        active = None
    if active is None:
        # only the spool's owner, or a mate whose mirror was in sync, may take activity
        for candidate in (p, b):
            if can_hold(kernel, group, candidate) and (candidate == owner or data["synced"]):
                active = candidate
                break
    if active == b and data["config"][p]["auto-revert"] and can_hold(kernel, group, p) and adb:
        active = p   # (with the ADB link up the primary's mirror is current again at once)
    if active is not None and active != owner:
        data["takeovers"].append([now, owner, active])   # a local failover (not a resumption)
    data["active"] = active
    if active is not None:
        data["owner"] = active
    # the mirror: in sync while the ADB link is up; a member holding activity while it is down
    # writes what the mirror misses, so the mirror stays out of sync until the link is back (the
    # standby then copies the spool again at once); nobody active, nothing goes stale
    if adb:
        data["synced"] = True
    elif active is not None:
        data["synced"] = False
    for name in (p, b):
        node = kernel.node(site, name)
        state = "" if node.proc == "down" else (
            "active" if name == active else "standby" if can_hold(kernel, group, name) else "not-ready")
        kernel.set_state(node, state)
    monitor = kernel.node(site, str(group.params["monitor"]))
    kernel.set_state(monitor, "" if monitor.proc == "down" else MONITOR_STATE)
    reason = status_down_reason(kernel, group)
    if reason is not None and data["status_down"] is None:
        data["red_fail"] = [reason, now]
    data["status_down"] = reason


# ---------------------------------------------------------------------------------------------- operations
@dataclass(frozen=True)
class RedundancyChange:
    """What a lab verb did to a redundancy group: the node or link, and who is active now."""

    site: str
    target: str
    change: str
    active: str | None
    status_down: str | None


def _change(kernel: Kernel, group: Group, target: str, change: str) -> RedundancyChange:
    return RedundancyChange(group.name, target, change, group.data["active"], group.data["status_down"])


def _node(kernel: Kernel, key: str) -> tuple[Group, Node]:
    node = kernel.nodes.get(key)
    if node is None or kernel.groups[node.group].system != SYSTEM:
        raise EngineError("ha_instance_not_found", instance=key)
    return kernel.groups[node.group], node


def _fail_node(kernel: Kernel, key: str, failure: Failure, need: str) -> RedundancyChange:
    group, node = _node(kernel, key)
    if (need == "down") != (node.proc == "down"):
        raise EngineError("redundancy_node_state", node=node.name, state=node.proc)
    if failure == "hang" and node.proc != "up":
        raise EngineError("redundancy_node_state", node=node.name, state=node.proc)
    kernel.fail(failure, node=node)
    return _change(kernel, group, node.name, {"kill": "killed", "hang": "hung", "restart": "started"}[failure])


@operation(f"{SYSTEM}.kill")
def op_kill(kernel: Kernel, key: str) -> RedundancyChange:
    return _fail_node(kernel, key, "kill", "alive")


@operation(f"{SYSTEM}.hang")
def op_hang(kernel: Kernel, key: str) -> RedundancyChange:
    return _fail_node(kernel, key, "hang", "alive")


@operation(f"{SYSTEM}.restart")
def op_restart(kernel: Kernel, key: str) -> RedundancyChange:
    group, node = _node(kernel, key)
    if node.proc == "up":
        raise EngineError("redundancy_node_state", node=node.name, state=node.proc)
    kernel.fail("restart", node=node)
    return _change(kernel, group, node.name, "started")


@operation(f"{SYSTEM}.replace")
def op_replace(kernel: Kernel, key: str) -> RedundancyChange:
    """A stopped member's disk replaced with a blank one: its copy of the spool is gone. The
    mate's copy, when current, becomes the spool the site has (the replaced member copies it
    again over the ADB link once it is back and the link up); a replaced monitor stores nothing.
    Replacing the only current copy (the mirror out of sync) would lose the site's spool: refused,
    as the model keeps one spool per site."""
    group, node = _node(kernel, key)
    if node.proc != "down":
        raise EngineError("redundancy_node_state", node=node.name, state=node.proc)
    data = group.data
    if node.name != group.params["monitor"]:
        owner = data.get("owner", group.params["primary"])
        if node.name == owner:
            if not data["synced"]:
                raise EngineError("redundancy_replace_only_copy", node=node.name)
            data["owner"] = mate(group, node.name)
        data["synced"] = False
    kernel.fail("replace", node=node)
    settle(kernel, group.name)
    return _change(kernel, group, node.name, "replaced")


def _site(kernel: Kernel, site: str) -> Group:
    group = kernel.groups.get(site)
    if group is None or group.system != SYSTEM:
        raise EngineError("ha_router_not_found", router=site)
    return group


def _cut(kernel: Kernel, site: str, up: bool) -> RedundancyChange:
    group = _site(kernel, site)
    keys = {node_key(site, n) for n in group.nodes}
    links = [lk for lk in kernel.links if lk.a in keys]
    if all(lk.up == up for lk in links):
        raise EngineError("redundancy_link_state", site=site, state="healed" if up else "partitioned")
    for lk in links:
        if lk.up != up:
            kernel.fail("heal" if up else "partition", link=lk)
    return _change(kernel, group, site, "healed" if up else "partitioned")


@operation(f"{SYSTEM}.partition")
def op_partition(kernel: Kernel, site: str) -> RedundancyChange:
    return _cut(kernel, site, False)


@operation(f"{SYSTEM}.heal")
def op_heal(kernel: Kernel, site: str) -> RedundancyChange:
    return _cut(kernel, site, True)


@operation(f"{SYSTEM}.mate-link")
def op_mate_link(kernel: Kernel, site: str, up: bool) -> RedundancyChange:
    """The ADB mate link alone (the spool mirror's path; hellos still pass the network)."""
    group = _site(kernel, site)
    if bool(group.data["adb_cable"]) == up:
        raise EngineError("redundancy_link_state", site=site, state="up" if up else "down")
    group.data["adb_cable"] = up
    settle(kernel, site)
    fail = group.data["adb_fail"]
    if up and adb_link_up(kernel, group) and fail is not None and fail[0] == MATE_LINK_DOWN:
        fail[0] = MATE_LINK_RESTART   # back: the last failure reads as the link's restart (C05)
    return _change(kernel, group, "mate-link", "up" if up else "down")


# ---------------------------------------------------------------------------------------------- CLI changes
def _member(kernel: Kernel, router: str) -> tuple[Group, str]:
    found = member_of(kernel, router)
    if found is None:
        raise EngineError("redundancy_not_configured", router=router)
    group, node = found
    if not responsive(kernel, group, node.name):
        raise EngineError("router_down", router=router)
    if node.name == group.params["monitor"]:
        raise EngineError("redundancy_monitor_node", router=router)
    return group, node.name


def configure(kernel: Kernel, router: str, option: str, on: bool) -> None:
    """`[no] shutdown | auto-revert | release-activity` at (configure/redundancy)."""
    if option not in CONFIG_OPTIONS:
        raise EngineError("invalid_value", name="option", value=option, allowed=", ".join(CONFIG_OPTIONS))
    group, name = _member(kernel, router)
    if (option == "release-activity" and on and name == group.params["backup"]
            and group.data["active"] != name):
        raise EngineError("redundancy_release_not_active", router=router)
    group.data["config"][name][option] = on
    settle(kernel, group.name)


def revert_activity(kernel: Kernel, router: str) -> None:
    """`revert-activity` at (admin/redundancy): the backup holding activity gives it back."""
    group, name = _member(kernel, router)
    primary = str(group.params["primary"])
    if name != group.params["backup"] or group.data["active"] != name:
        raise EngineError("redundancy_revert_not_active", router=router)
    if not (can_hold(kernel, group, primary) and group.data["synced"] and adb_link_up(kernel, group)):
        raise EngineError("redundancy_mate_not_ready", router=router, mate=primary)
    group.data["active"] = primary
    group.data["owner"] = primary
    group.data["takeovers"].append([kernel.now_ms, name, primary])
    settle(kernel, group.name)


# ---------------------------------------------------------------------------------------------- views
@dataclass(frozen=True)
class VirtualRouterView:
    """One column of the virtual-router table (None: the row is empty in this column)."""

    activity: str
    routing_interface: str
    interface_status: str | None
    vrrp_status: str | None
    vrrp_priority: int | None
    spool_status: str | None
    mate_priority: str | None


@dataclass(frozen=True)
class RedundancyView:
    router: str
    role: str                      # Primary | Backup | Monitor
    config_status: str             # Enabled | Enabled-Released | Shutdown
    status_up: bool
    last_failure: tuple[str, int] | None
    auto_revert: bool
    mate: str
    mate_address: str
    adb_link_up: bool
    adb_last_failure: tuple[str, int] | None
    hello_up: bool
    hello_last_failure: tuple[str, int] | None
    interface_address: str
    contents_key: str              # the spool's contents key (the primary's address, ADB id)
    ready: bool                    # may hold activity (up, enabled, not released)
    mate_ready: bool
    hello_avg_ms: int
    hello_max_ms: int
    primary_vr: VirtualRouterView
    backup_vr: VirtualRouterView
    local_active: bool
    mate_active: bool


@dataclass(frozen=True)
class GroupNodeView:
    name: str
    node_type: str                 # Message-Router | Monitor
    address: str
    online: bool
    current: bool


@dataclass(frozen=True)
class RedundancyGroupView:
    nodes: tuple[GroupNodeView, ...]


def _pair(value: Any) -> tuple[str, int] | None:
    return None if value is None else (str(value[0]), int(value[1]))


def _found(kernel: Kernel, router: str) -> tuple[Group, Node]:
    found = member_of(kernel, router)
    if found is None:
        raise EngineError("redundancy_not_configured", router=router)
    if not responsive(kernel, found[0], found[1].name):
        raise EngineError("router_down", router=router)
    return found


def view(kernel: Kernel, router: str) -> RedundancyView:
    group, node = _found(kernel, router)
    data, params = group.data, group.params
    p, b, mon = str(params["primary"]), str(params["backup"]), str(params["monitor"])
    name = node.name
    is_monitor = name == mon
    other = p if is_monitor else mate(group, name)
    config = data["config"].get(name, {"shutdown": False, "auto-revert": False, "release-activity": False})
    active = data["active"]
    local_active, mate_active = active == name, active is not None and active != name and not is_monitor
    activity = "Local Active" if local_active else "Mate Active" if mate_active else "Shutdown"
    mate_resp = not is_monitor and in_reach(kernel, group, name, other)
    mate_priority = None if not mate_resp else ("Active" if active == other else "Standby")
    spool = "AD-Active" if local_active else ("AD-Standby" if data["synced"] and not is_monitor else "AD-Disabled")
    live = VirtualRouterView(activity, "intf0:1", "Up", "Initialize", 250 if name == p else 100, spool, mate_priority)
    shut = VirtualRouterView("Shutdown", "intf0:1", None, None, None, None, None)
    addresses = params["addresses"]
    return RedundancyView(
        router=name, role="Monitor" if is_monitor else ("Primary" if name == p else "Backup"),
        config_status="Shutdown" if config["shutdown"] else (
            "Enabled-Released" if config["release-activity"] else "Enabled"),
        status_up=data["status_down"] is None, last_failure=_pair(data["red_fail"]),
        auto_revert=bool(config["auto-revert"]), mate=other, mate_address=str(addresses.get(other, "")),
        adb_link_up=not is_monitor and adb_link_up(kernel, group), adb_last_failure=_pair(data["adb_fail"]),
        hello_up=mate_resp, hello_last_failure=_pair(data["hello_fail"]),
        interface_address=str(addresses.get(name, "")),
        contents_key=f"{addresses.get(p, '')}:2,1", ready=not is_monitor and ready(kernel, group, name),
        mate_ready=mate_resp and ready(kernel, group, other), hello_avg_ms=0, hello_max_ms=0,
        primary_vr=live if name == p else shut, backup_vr=live if name == b else shut,
        local_active=local_active, mate_active=mate_active)


def standalone_view(router: str) -> RedundancyView:
    """`show redundancy` of a router outside any group: redundancy configuration Disabled, status
    Down, no role and no mate, the router holding its primary virtual router's activity and its
    spool alone. The values are SEMP's for such a router (config-status Disabled, role
    Undefined, C16); no capture shows the CLI page, so the lines are the group member's layout."""
    live = VirtualRouterView("Local Active", "intf0:1", "Up", "Initialize", 250, "AD-Active", "None")
    return RedundancyView(
        router=router, role="Undefined", config_status="Disabled", status_up=False, last_failure=None,
        auto_revert=False, mate="", mate_address="", adb_link_up=False, adb_last_failure=None, hello_up=False,
        hello_last_failure=None, interface_address="", contents_key="", ready=False, mate_ready=False,
        hello_avg_ms=0, hello_max_ms=0, primary_vr=live,
        backup_vr=VirtualRouterView("Shutdown", "intf0:1", None, None, None, None, None),
        local_active=True, mate_active=False)


def group_view(kernel: Kernel, router: str) -> RedundancyGroupView:
    group, _ = _found(kernel, router)
    rows = []
    for n in group.nodes:
        online = responsive(kernel, group, n) and (n == router or in_reach(kernel, group, router, n))
        rows.append(GroupNodeView(n, "Monitor" if n == group.params["monitor"] else "Message-Router",
                                  str(group.params["addresses"].get(n, "")), online, n == router))
    return RedundancyGroupView(tuple(sorted(rows, key=lambda r: r.name)))


def member_status(kernel: Kernel, name: str, site_failed: bool) -> tuple[str, str]:
    """(process, activity) of the group's router or monitor ``name``; ``site_failed``: its whole
    site is down (`lab> fail site`), which the group's state machine does not see."""
    found = member_of(kernel, name)
    if found is None:
        raise EngineError("redundancy_not_configured", router=name)
    group, node = found
    if site_failed or node.proc != "up":
        return ("down" if site_failed else str(node.proc)), "-"
    if name == group.params["monitor"]:
        return "up", "monitor"
    config = group.data["config"][name]
    activity = ("active" if group.data["active"] == name else "released" if config["release-activity"]
                else "shutdown" if config["shutdown"] else "standby")
    return "up", activity


def local_failovers(kernel: Kernel) -> list[tuple[str, int, str | None, str]]:
    """Every activity move inside a site from one member to the other: (site, time ms, from
    member, to member); a member resuming its own activity is none."""
    out = []
    for g in groups(kernel):
        out += [(g.name, int(at), old, str(new)) for at, old, new in g.data["takeovers"]]
    return sorted(out, key=lambda t: (t[1], t[0]))
