"""Failures the lab can inject: a site down/up, the inter-site link down/up, a site replaced.

Why: the four failover types of seed 004 differ only in which of these happen and for how long;
the engine keeps the consequences (spool kept on disk, bridge unbound, queue buffering, history
lost on replacement) so the operator's runbook steps can be judged by the audit.
"""

from __future__ import annotations

from sqlalchemy import select

from .base import EngineBase
from .errors import EngineError
from .models import Link, Queue, Txn


class FailuresMixin(EngineBase):
    def fail_site(self, site: str) -> None:
        """Every router of the site goes down: its clients disconnect; its bridge and its
        replication queue become unreachable; its spool and configuration stay on disk."""
        s = self._site(site)
        routers = self._routers_of_site(s)
        if all(not r.up for r in routers):
            raise EngineError("site_already_down", site=site)
        for r in routers:
            r.up = False
            self._disconnect_router_clients(r, "router down")
        self._refresh()

    def restore_site(self, site: str) -> None:
        """The site comes back with the configuration it had (roles included: a site that was
        active comes back active, so both sites may be active; fixing that is the operator's
        job)."""
        s = self._site(site)
        routers = self._routers_of_site(s)
        if all(r.up for r in routers):
            raise EngineError("site_already_up", site=site)
        for r in routers:
            r.up = True
        self._refresh()

    def _links(self, site_a: str | None, site_b: str | None) -> list[Link]:
        links = list(self.topo.links)
        if site_a is None and site_b is None:
            return links
        ids = {self._site(n).id for n in (site_a, site_b) if n is not None}
        out = [link for link in links if ids <= {link.site_a_id, link.site_b_id}]
        if not out:
            raise EngineError("link_not_found", site_a=site_a, site_b=site_b)
        return out

    def fail_link(self, site_a: str | None = None, site_b: str | None = None) -> None:
        """The inter-site link goes down (all links, or the one between the given sites): the
        replication bridge unbinds and the active side's replication queue buffers."""
        links = self._links(site_a, site_b)
        if all(not link.up for link in links):
            raise EngineError("link_already_down")
        for link in links:
            link.up = False
        self._refresh()

    def restore_link(self, site_a: str | None = None, site_b: str | None = None) -> None:
        links = self._links(site_a, site_b)
        if all(link.up for link in links):
            raise EngineError("link_already_up")
        for link in links:
            link.up = True
        self._refresh()

    def replace_site(self, site: str) -> None:
        """Complete failure: each router of the site is replaced by a new one with the same
        configuration, replication-enabled VPNs in role standby, and no messages, no
        transactions, no statistics, message IDs back at their seed. The ledger keeps what
        was lost (note "site replaced"; "not replicated, site replaced" for messages that
        were still waiting on its replication queue)."""
        s = self._site(site)
        for r in self._routers_of_site(s):
            self._disconnect_router_clients(r, "router replaced")
            vpns = list(self.topo.vpns_by_router.get(r.id, []))
            vids = ",".join(str(v.id) for v in vpns) or "NULL"
            qsel = f"SELECT id FROM queue WHERE vpn_id IN ({vids})"
            self._sql(
                "UPDATE message SET note = CASE WHEN note IS NULL THEN 'site replaced' "
                "ELSE note || '; site replaced' END WHERE id IN "
                f"(SELECT message_id FROM spooled WHERE queue_id IN ({qsel}))")
            self._sql(
                "UPDATE message SET replicated=0, note = CASE WHEN note IS NULL THEN 'site replaced' "
                "ELSE note || '; site replaced' END WHERE id IN "
                f"(SELECT message_id FROM repl_entry WHERE kind='msg' AND vpn_id IN ({vids}))")
            self._sql(f"DELETE FROM spooled WHERE queue_id IN ({qsel})")
            self._sql(f"DELETE FROM repl_entry WHERE vpn_id IN ({vids})")
            for t in self.s.scalars(select(Txn).where(Txn.router_id == r.id)):
                self._sql("DELETE FROM txn_op WHERE txn_id=:t", {"t": t.id})
                self._sql("DELETE FROM meta WHERE key=:k", {"k": f"txn-sync:{t.id}"})
                self.s.delete(t)
            for q in self.s.scalars(select(Queue).where(Queue.vpn_id.in_([v.id for v in vpns]))):
                q.msg_count = q.bytes = q.hwm_bytes = 0
            now = self.now_ms()
            for v in vpns:
                self._drop_pending_acks(v)
                if v.repl_enabled and not v.internal:
                    if v.role != "standby":
                        v.role_since_ms = now
                    v.role = "standby"
                for attr in dir(v):
                    if attr.startswith("st_"):
                        setattr(v, attr, 0)
                v.drain_carry = 0
                v.bridge_up_since_ms = None
                v.sync_eligible = False
            r.up = True
            r.generation += 1
            r.next_msg_id = r.msg_id_seed
            r.spool_hwm_bytes = 0
        self.s.flush()
        self._refresh()
