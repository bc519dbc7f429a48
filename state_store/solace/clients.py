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

Listings follow client name order (the CLI's); a lab holds few clients, so walking them is cheaper
than keeping another index up to date.
"""

from __future__ import annotations

from ..errors import EngineError
from .records import Client, Router, Vpn
from .service import Service
from .topics import name_matches
from .views import ClientInfo


class ClientsService(Service):
    # ------------------------------------------------------------------ connection logic
    @staticmethod
    def _hosts(c: Client) -> list[str]:
        return [h for h in c.hosts.split(",") if h]

    def _client_vpn(self, c: Client) -> Vpn | None:
        if c.router_id is None:
            return None
        return self.st.vpns_by_router.get(c.router_id, {}).get(c.vpn_name)

    def _host_vpn(self, host: str, vpn_name: str) -> tuple[Router, Vpn] | None:
        """The VPN ``vpn_name`` on router ``host`` when that router exists and is up."""
        r = self.lk.reachable_router(host) if self.st.kernel.groups else self.st.router_by_name.get(host)
        if r is None or not r.up:
            return None
        v = self.st.vpns_by_router.get(r.id, {}).get(vpn_name)
        return None if v is None else (r, v)

    def _try_connect(self, c: Client) -> bool:
        """Validate the current connection, else walk the host list. True if connected."""
        if c.router_id is not None:
            v = self._client_vpn(c)
            if v is not None and self.lk.serving(v):
                return True
            self._disconnect(c, "vpn not serving")
        found = self._target(c)  # disconnected now: the first host whose VPN serves
        if found is None:
            return False
        c.router_id = found[0].id
        c.connected_since_ms = self.lk.now_ms()
        if c.last_disconnect_reason:
            c.reconnects += 1
        return True

    def reconnect_all(self) -> list[str]:
        """Let every client (in name order) check its connection and follow its host list;
        returns the names of those that connected somewhere new."""
        if self._all_settled():
            return []  # nobody moves, whatever the order: no need to sort them
        out = []
        for name in sorted(self.st.client_by_name):
            c = self.st.client_by_name[name]
            was = c.router_id
            if self._try_connect(c) and c.router_id != was:
                out.append(c.name)
        return out

    def _all_settled(self) -> bool:
        """True when ``_try_connect`` would change no client: each is connected to a VPN that
        serves, or disconnected and not wanting a connection (the usual case at an advance)."""
        for c in self.st.clients.values():
            if c.router_id is None:
                if c.wants_connection:
                    return False
                continue
            v = self._client_vpn(c)
            if v is None or not self.lk.serving(v):
                return False
        return True

    def _disconnect(self, c: Client, reason: str, end_unprepared: bool = False) -> None:
        """``end_unprepared``: the VPN went standby, which ends the client's XA branches that are
        not PREPARED (seed 000: only prepared transactions are left to the operator)."""
        if c.router_id is None:
            return
        rid = c.router_id
        for t in [t for t in self.st.txns.values() if t.client_name == c.name and t.router_id == rid]:
            if end_unprepared and t.kind == "xa" and not t.mirror and t.state in ("active", "suspended", "idle"):
                self.sv.transactions.end_on_standby(t)
            elif t.kind == "local" or (t.state == "active" and t.associated):
                self.sv.transactions.rollback_txn(t, emit=False)
            else:
                t.associated = False
        c.router_id = None
        c.connected_since_ms = None
        c.last_disconnect_reason = reason

    def disconnect_vpn_clients(self, v: Vpn, reason: str, end_unprepared: bool = False) -> None:
        for c in [c for c in self.st.clients.values() if c.router_id == v.router_id and c.vpn_name == v.name]:
            self._disconnect(c, reason, end_unprepared)

    def disconnect_router_clients(self, r: Router, reason: str) -> None:
        for c in [c for c in self.st.clients.values() if c.router_id == r.id]:
            self._disconnect(c, reason)

    def _target(self, c: Client) -> tuple[Router, Vpn] | None:
        """Where ``_try_connect`` leaves the client, without changing anything: its current
        connection while its VPN serves, else the first host whose VPN serves (when it wants a
        connection), else None. Its disconnect on the way touches only its old router's
        transactions, never whether a VPN serves, so the answer holds after it."""
        if c.router_id is not None:
            v = self._client_vpn(c)
            if v is not None and self.lk.serving(v):
                return self.lk.router_of(v), v
        if not c.wants_connection:
            return None
        for host in self._hosts(c):
            found = self._host_vpn(host, c.vpn_name)
            if found is not None and self.lk.serving(found[1]):
                return found
        return None

    def connection(self, name: str) -> tuple[Client, Vpn, Router]:
        """The client and the VPN and router it is connected to, or would connect to when asked to
        publish or consume; else the refusal explaining why not. Changes nothing: a verb decides
        its own refusals against this before ``connect`` writes (a refused call changes nothing)."""
        c = self.lk.client(name)
        found = self._target(c)
        if found is None:
            for host in self._hosts(c):
                hv = self._host_vpn(host, c.vpn_name)
                if hv is None:
                    continue
                r, v = hv
                if v.repl_enabled and v.role == "standby" and c.wants_connection:
                    raise EngineError("publish_rejected_standby", client=name, vpn=c.vpn_name,
                                      router=self.lk.shown_name(r))
            raise EngineError("client_not_connected", client=name)
        return c, found[1], found[0]

    def connect(self, c: Client, r: Router) -> None:
        """Make the connection to ``r`` that ``connection`` found (nothing to do when the client
        is there already)."""
        if c.router_id != r.id:
            connected = self._try_connect(c)
            assert connected and c.router_id == r.id, "connect() follows connection()"

    def connected_client(self, name: str) -> tuple[Client, Vpn, Router]:
        """The client, connected (reconnecting if needed), or the refusal explaining why not
        (decided before anything changes)."""
        c, v, r = self.connection(name)
        self.connect(c, r)
        return c, v, r

    # ------------------------------------------------------------------ views
    def client_info(self, c: Client) -> ClientInfo:
        r = self.st.routers[c.router_id] if c.router_id is not None else None
        transacted = any(t.client_name == c.name and t.kind == "local" and not t.mirror
                         for t in self.st.txns.values())
        return ClientInfo(
            name=c.name, vpn=c.vpn_name, username=c.username, router=self.lk.shown_name(r) if r else None,
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
            rid = self.lk.router(router, must_be_up=True).id
        out = []
        for name in sorted(self.st.client_by_name):
            c = self.st.client_by_name[name]
            if rid is not None and c.router_id != rid:
                continue
            if name_matches(pattern, c.name) and name_matches(vpn, c.vpn_name):
                out.append(self.client_info(c))
        return out

    def client_names(self, router: str | None = None) -> list[str]:
        """Completion: client names (connected to ``router`` when given)."""
        try:
            return [c.name for c in self.clients(router)]
        except EngineError:
            return []

    def client(self, name: str) -> ClientInfo:
        return self.client_info(self.lk.client(name))

    # ------------------------------------------------------------------ operations
    def add_client(self, name: str, vpn: str, hosts: list[str], username: str | None = None) -> ClientInfo:
        """Lab: create a client application (it connects at once if it can)."""
        if self.lk.find_client(name) is not None:
            raise EngineError("client_exists", client=name)
        if not hosts:
            raise EngineError("invalid_value", name="hosts", value="", allowed="router names")
        for h in hosts:
            self.lk.vpn(self.lk.router(h), vpn)
        num = max((c.client_num for c in self.st.clients.values()), default=0) + 1
        c: Client = self.st.add(Client(name=name, vpn_name=vpn, username=username or name,
                                       hosts=",".join(hosts), client_num=num, wants_connection=True))
        self._try_connect(c)
        return self.client_info(c)

    def remove_client(self, name: str) -> None:
        c = self.lk.client(name)
        self._disconnect(c, "removed")
        self.st.remove(c)

    def set_client_running(self, name: str, running: bool) -> ClientInfo:
        """Lab: stop (disconnect, stays down) or start (connects per host list) a client."""
        c = self.lk.client(name)
        c.wants_connection = running
        if not running:
            self._disconnect(c, "stopped")
        else:
            self._try_connect(c)
        return self.client_info(c)

    def disconnect_client(self, router: str, vpn: str, name: str) -> None:
        """`(admin)# client <name> message-vpn <vpn> disconnect`: it reconnects per its host
        list on the next advance/publish/consume."""
        r = self.lk.router(router, must_be_up=True)
        v = self.lk.vpn(r, vpn)
        c = self.lk.find_client(name)
        if c is None or c.router_id != r.id or c.vpn_name != v.name:
            raise EngineError("client_not_found", client=name)
        self._disconnect(c, "admin disconnect")
