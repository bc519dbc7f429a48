"""What a redundancy group's activity means for the replication model: the Solace side of
``state_store.solace.redundancy``.

Why apart: the group's state machine lives on the HA kernel and knows no Solace record; this
service maps it onto the site's message router (the primary's router record holds the
Guaranteed Messaging virtual router: its VPNs, queues, spool and replication stream, shared by
both members through the mirrored spool). After every change it compares the group's activity
with what it last applied:
- activity gone (nobody can hold it): the site's message router is down, its clients disconnect,
  its replication bridge and queue are unreachable (the failure path of a failed router);
- activity back: the router is up again with the spool as it was (nothing lost: a message was
  acknowledged only once mirrored);
- activity moved to the other member: clients are disconnected and reconnect through their host
  list at the next `advance` (as after any failure), and the
  replication bridge to or from the site drops and is established again (the mate site sees it
  come back with a new uptime); no message is lost or duplicated.
Edge-triggered (what changed since the last application), so `lab> fail site` and `restore
site` keep their own meaning for a site with a redundancy group.
"""

from __future__ import annotations

from . import redundancy as rd
from .service import Service


class RedundancySyncService(Service):
    def sync(self) -> None:
        kernel = self.st.kernel
        if not kernel.groups:
            return
        changed = False
        for group in rd.groups(kernel):
            applied = group.data["applied"]
            active = group.data["active"]
            router = self.lk.router(rd.service_router(group))
            if applied["active"] == active:
                continue
            changed = True
            if active is None:
                if router.up:
                    router.up = False
                    self.sv.clients.disconnect_router_clients(router, "router down")
            elif applied["active"] is None:
                router.up = True
            else:
                self.sv.clients.disconnect_router_clients(router, "activity switched")
                self._bridges_reconnect(router.id)
            group.data["applied"] = {"active": active, "up": active is not None}
        if changed:
            self.sv.replication.refresh()

    def _bridges_reconnect(self, router_id: int) -> None:
        for vpn in self.st.vpns_by_router.get(router_id, {}).values():
            if vpn.internal or not vpn.repl_enabled:
                continue
            vpn.bridge_up_since_ms = None
            mate = self.lk.mate(vpn)
            if mate is not None:
                mate.bridge_up_since_ms = None
