"""The lab's one failure vocabulary (``state_store.kernel.failures``) on every target a lab holds.

Why here: the lab console's shared verbs (`ha start|kill|hang|replace <node>`, `ha
partition|heal <network>`) name a failure and a target; what the target is decides what fails. An
HA node or group on the kernel runs its system's operation `<system>.<failure>`; a router of the
replication lab and the inter-site link run the same journaled Engine calls as the lab's own
verbs for them (`fail router`, `fail|restore|replace site`, `fail|restore link`), so the
consequences, the journal, the audit and the printed line are the same whichever verb a trainee
types. The shell names no system: it hands the failure and the target to the
lab's root engine (``state_store.lab_root.engine.RootEngine.fail``), which runs a kernel node's or
group's operation itself and hands any other target to ``fail_node`` / ``fail_network`` here.

What a router's failure means (docs/lab.md, "Failures"):
- a member or monitor of a redundancy group is its kernel node (`fail router` and `ha kill
  NY.NY_Appliance1` do the same), so every failure the group's policy models applies;
- the one router of a site is its site: ``kill`` fails the site, ``restart`` restores it,
  ``replace`` replaces it, only once it is down (the kernel's rule: only a stopped node is
  replaced), and the replacement comes up at once, as `replace site` does;
- ``hang`` of such a router is refused: the replication model knows a router up or down, not one
  that holds its connections without answering, and faking it as a failure would teach the
  wrong timing;
- a router that shares its site with other routers outside a redundancy group is refused: the
  replication lab fails whole sites.
The inter-site link between sites A and B is named `A-B` (either order is accepted); a kernel group
of that name would come first.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from ..errors import EngineError
from ..kernel import ops as kernel_ops
from . import redundancy
from .views import LinkChange, SiteChange

if TYPE_CHECKING:
    from .engine import Engine

# a node failure of a site's one router as the site's change (SiteChange.change)
SITE_CHANGE = {"kill": "down", "restart": "up", "replace": "replaced"}


def fail_node(engine: Engine, failure: str, target: str) -> object | None:
    """Apply the node ``failure`` (one of ``FAILURES``, checked by the root) to a router, or to a
    member of a redundancy group named by its router; returns the view the verb prints, None when
    the lab has no routers (the target is then none of this model's). A target that is neither a
    kernel node (the root's own), a member nor a router of a lab with routers is refused here.
    Every refusal comes before the journaled call, so a refused failure changes nothing."""
    kernel = engine.kernel()
    member = redundancy.member_of(kernel, target)
    if member is not None:
        group, node = member
        return _kernel(engine, group.system, failure, node.key)
    routers = engine.routers()
    router = next((r for r in routers if r.name == target), None)
    if router is None:
        if routers:
            raise EngineError("ha_target_not_found", target=target)
        return None
    site = next(s for s in engine.sites() if s.name == router.site)
    if len(site.routers) > 1:
        raise EngineError("router_shares_site", router=target, site=site.name)
    if failure == "hang":
        raise EngineError("router_hang_not_modelled", router=target)
    if failure == "replace" and router.up:
        raise EngineError("router_running", router=target)
    return site_change(engine, site.name, SITE_CHANGE[failure])


def _kernel(engine: Engine, system: str, failure: str, target: str) -> object:
    op = f"{system}.{failure}"
    if kernel_ops.find(op) is None:
        raise EngineError("ha_failure_not_supported", system=system, failure=failure)
    return engine.kernel_call(op, target)


def fail_network(engine: Engine, failure: str, target: str) -> object | None:
    """Fail or heal (``failure`` in ``LINK_FAILURES``) the inter-site link ``target``; None when
    the lab has no routers, refused when it has and ``target`` is no link."""
    sites = link_sites(engine).get(target)
    if sites is None:
        if engine.routers():
            raise EngineError("ha_network_not_found", target=target)
        return None
    return link_change(engine, failure == "heal", *sites)


def link_sites(engine: Engine) -> dict[str, tuple[str, str]]:
    """Every inter-site link by name (`A-B` and `B-A`), as the pair of its sites."""
    st = engine.state
    out: dict[str, tuple[str, str]] = {}
    for link in st.links.values():
        a, b = st.sites[link.site_a_id].name, st.sites[link.site_b_id].name
        out.setdefault(f"{a}-{b}", (a, b))
        out.setdefault(f"{b}-{a}", (a, b))
    return out


def link_names(engine: Engine) -> list[str]:
    """Completion: each inter-site link once, its sites in scenario order (`NY-NJ`)."""
    st = engine.state
    return [f"{st.sites[link.site_a_id].name}-{st.sites[link.site_b_id].name}" for link in st.links.values()]


def _connected(engine: Engine) -> dict[str, str | None]:
    return {c.name: c.router for c in engine.clients()}


def site_change(engine: Engine, site: str, change: str) -> SiteChange:
    """Fail (``down``), restore (``up``) or replace (``replaced``) a site through its journaled
    Engine call; the view lists its routers and the clients the change disconnected."""
    calls = {"down": engine.fail_site, "up": engine.restore_site, "replaced": engine.replace_site}
    call = calls.get(change)
    if call is None:
        raise EngineError("invalid_value", name="change", value=str(change)[:80], allowed="|".join(calls))
    before = _connected(engine)
    call(site)
    after = _connected(engine)
    routers = next(s.routers for s in engine.sites() if s.name == site)
    lost = tuple(sorted(n for n, r in before.items() if r is not None and after.get(n) is None))
    return SiteChange(site, change, tuple(routers), lost)


def link_change(engine: Engine, up: bool, site_a: str | None = None, site_b: str | None = None) -> LinkChange:
    """Restore (``up``) or fail the inter-site links (all of them, or the one between two sites)
    through the journaled Engine call."""
    call = engine.restore_link if up else engine.fail_link
    if site_a is None and site_b is None:
        call()   # journaled as `fail link` has always journaled it: every link
    else:
        call(site_a, site_b)
    return LinkChange(up=up)
