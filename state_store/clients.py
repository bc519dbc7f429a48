"""Messaging clients and their host lists.

Why: failover is only half done when the VPN switches; the clients must find the new active site.
Model (the Solace API host-list behaviour, seed 004 "Reconnecting Clients"):
- a client is disconnected when its VPN goes standby on its router, when its router fails or is
  replaced, or when an admin disconnects it;
- a disconnected client that wants a connection tries its host list IN ORDER and connects to the
  first router that is up and whose VPN is serving (replication-active, or replication shut down);
  it does so at every ``advance`` (before and after time moves) and whenever it is asked to
  publish or consume. A connected client never moves on its own (no preemption);
- a disconnect rolls back the client's open local transaction and any XA branch still ACTIVE
  and associated with it; suspended/idle/prepared XA branches survive.
"""

from __future__ import annotations

from sqlalchemy import select

from .base import EngineBase
from .errors import EngineError
from .models import Client, Router, Txn, Vpn
from .topics import name_matches
from .views import ClientInfo


class ClientsMixin(EngineBase):
    # ------------------------------------------------------------------ connection logic
    def _hosts(self, c: Client) -> list[str]:
        return [h for h in c.hosts.split(",") if h]

    def _client_vpn(self, c: Client) -> Vpn | None:
        if c.router_id is None:
            return None
        return self.topo.vpn_by_router_name.get((c.router_id, c.vpn_name))

    def _try_connect(self, c: Client) -> bool:
        """Validate the current connection, else walk the host list. True if connected."""
        if c.router_id is not None:
            v = self._client_vpn(c)
            if v is not None and self._serving(v):
                return True
            self._disconnect(c, "vpn not serving")
        if not c.wants_connection:
            return False
        for host in self._hosts(c):
            r = self.topo.router_by_name.get(host)
            if r is None or not r.up:
                continue
            v = self.topo.vpn_by_router_name.get((r.id, c.vpn_name))
            if v is None or not self._serving(v):
                continue
            c.router_id = r.id
            c.connected_since_ms = self.now_ms()
            if c.last_disconnect_reason:
                c.reconnects += 1
            return True
        return False

    def _reconnect_all(self) -> list[str]:
        out = []
        for c in self.s.scalars(select(Client).order_by(Client.name)):
            was = c.router_id
            if self._try_connect(c) and c.router_id != was:
                out.append(c.name)
        self.s.flush()
        return out

    def _disconnect(self, c: Client, reason: str) -> None:
        if c.router_id is None:
            return
        for t in self.s.scalars(select(Txn).where(Txn.client_name == c.name, Txn.router_id == c.router_id)):
            if t.kind == "local" or (t.state == "active" and t.associated):
                self._rollback_txn(t, emit=False)
            else:
                t.associated = False
        c.router_id = None
        c.connected_since_ms = None
        c.last_disconnect_reason = reason

    def _disconnect_vpn_clients(self, v: Vpn, reason: str) -> None:
        for c in self.s.scalars(select(Client).where(Client.router_id == v.router_id,
                                                    Client.vpn_name == v.name)):
            self._disconnect(c, reason)
        self.s.flush()

    def _disconnect_router_clients(self, r: Router, reason: str) -> None:
        for c in self.s.scalars(select(Client).where(Client.router_id == r.id)):
            self._disconnect(c, reason)
        self.s.flush()

    def _connected_client(self, name: str) -> tuple[Client, Vpn, Router]:
        """The client, connected (reconnecting if needed), or the refusal explaining why not."""
        c = self._client(name)
        if not self._try_connect(c):
            for host in self._hosts(c):
                r = self.topo.router_by_name.get(host)
                if r is not None and r.up:
                    v = self.topo.vpn_by_router_name.get((r.id, c.vpn_name))
                    if v is not None and v.repl_enabled and v.role == "standby" and c.wants_connection:
                        raise EngineError("publish_rejected_standby", client=name, vpn=c.vpn_name,
                                          router=r.name)
            raise EngineError("client_not_connected", client=name)
        v = self._client_vpn(c)
        assert v is not None
        return c, v, self._router_of(v)

    # ------------------------------------------------------------------ views
    def _client_info(self, c: Client) -> ClientInfo:
        r = self.topo.router_by_id[c.router_id] if c.router_id is not None else None
        transacted = self._scalar(
            "SELECT 1 FROM txn WHERE client_name=:c AND kind='local' AND mirror=0 LIMIT 1",
            {"c": c.name}) is not None
        return ClientInfo(
            name=c.name, vpn=c.vpn_name, username=c.username, router=r.name if r else None,
            status="connected" if r else "disconnected", connected_since_ms=c.connected_since_ms,
            hosts=tuple(self._hosts(c)), transacted=transacted, reconnects=c.reconnects,
            last_disconnect_reason=c.last_disconnect_reason,
        )

    def clients(self, router: str | None = None, pattern: str = "*",
                vpn: str | None = None) -> list[ClientInfo]:
        """Clients connected to ``router`` (all clients when router is None), filtered by
        name pattern and VPN pattern."""
        rid = None
        if router is not None:
            rid = self._router(router, must_be_up=True).id
        out = []
        for c in self.s.scalars(select(Client).order_by(Client.name)):
            if rid is not None and c.router_id != rid:
                continue
            if name_matches(pattern, c.name) and name_matches(vpn, c.vpn_name):
                out.append(self._client_info(c))
        return out

    def client_names(self, router: str | None = None) -> list[str]:
        """Completion: client names (connected to ``router`` when given)."""
        try:
            return [c.name for c in self.clients(router)]
        except EngineError:
            return []

    def client(self, name: str) -> ClientInfo:
        return self._client_info(self._client(name))

    # ------------------------------------------------------------------ operations
    def add_client(self, name: str, vpn: str, hosts: list[str], username: str | None = None) -> ClientInfo:
        """Lab: create a client application (it connects at once if it can)."""
        if self.s.scalars(select(Client).where(Client.name == name)).first() is not None:
            raise EngineError("client_exists", client=name)
        if not hosts:
            raise EngineError("invalid_value", name="hosts", value="", allowed="router names")
        for h in hosts:
            r = self._router(h)
            self._vpn(r, vpn)
        num = (self._scalar("SELECT MAX(client_num) FROM client") or 0) + 1
        c = Client(name=name, vpn_name=vpn, username=username or name, hosts=",".join(hosts),
                   client_num=num, wants_connection=True)
        self.s.add(c)
        self.s.flush()
        self._try_connect(c)
        self.s.flush()
        return self._client_info(c)

    def remove_client(self, name: str) -> None:
        c = self._client(name)
        self._disconnect(c, "removed")
        self.s.delete(c)
        self.s.flush()

    def set_client_running(self, name: str, running: bool) -> ClientInfo:
        """Lab: stop (disconnect, stays down) or start (connects per host list) a client."""
        c = self._client(name)
        c.wants_connection = running
        if not running:
            self._disconnect(c, "stopped")
        else:
            self._try_connect(c)
        self.s.flush()
        return self._client_info(c)

    def disconnect_client(self, router: str, vpn: str, name: str) -> None:
        """`(admin)# client <name> message-vpn <vpn> disconnect`: it reconnects per its host
        list on the next advance/publish/consume."""
        r = self._router(router, must_be_up=True)
        v = self._vpn(r, vpn)
        c = self.s.scalars(select(Client).where(Client.name == name)).first()
        if c is None or c.router_id != r.id or c.vpn_name != v.name:
            raise EngineError("client_not_found", client=name)
        self._disconnect(c, "admin disconnect")
        self.s.flush()
