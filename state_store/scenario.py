"""YAML scenario files: strict validation with line numbers, then building a lab from them.

Why: scenarios are written by hand by people practising runbooks; a typo must be reported with its
file and line, and ALL problems at once (``ScenarioError.problems``, each ``file:line: message``),
instead of one at a time or as a Python traceback. The default lab (scenarios/default.yaml) is
loaded by this same code.

Format (every key optional unless marked *):
  scenario: <name>
  settings: {software_version, layout: A|B, replication_drain_rate (entries/s),
             default_message_size (bytes)}
  sites*: - name*: NY
            routers*: - {name*, message_id_seed, max_spool_usage (MB), down: bool,
                         replication: {interface, mate, connect_via, port_plain, port_compressed,
                                       port_ssl}}
  links: - {sites*: [A, B], up: bool}
  vpns: - name*: Trading_VPN
          routers: [..]               (default: every router; config is synced)
          replication_group_msg_id_seed: int
          replication: {enabled: bool, roles: {router: active|standby},
                        transaction_replication_mode: sync|async,
                        reject_msg_when_sync_ineligible: bool,
                        queue: {max_spool_usage: MB, reject_msg_to_sender_on_discard: bool},
                        ack_propagation: {enabled: bool, interval: int},
                        bridge: {auth_scheme: basic|client-certificate, client_username,
                                 password | password_hash, compressed, ssl, retry_delay,
                                 window_size, client_profile},
                        replicated_topics: - {topic*, mode: sync|async}}
          queues: - {name*, subscriptions: [..], access_type: exclusive|non-exclusive,
                     owner, permission, max_spool_usage, max_bind_count, ingress: bool,
                     egress: bool, shutdown: bool, durable: bool}
          clients: - {name*, username, hosts*: [router..], connected: bool}
  users: - {name*, password | password_hash, scope: global|vpn, level, vpn}
  messages: - {client*, topic*, count, size}           (published at load, in order)
  transactions: - {client*, type*: local|xa, xid, state: active|suspended|idle|prepared,
                   publish: - {topic*, count, size}, consume: - {queue*, count}}
  advance_ms: int                                     (clock advanced after loading)
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import yaml

ROOT_DIR = Path(__file__).parent / "scenarios"
DEFAULT_SCENARIO = ROOT_DIR / "default.yaml"


class ScenarioError(Exception):
    """A scenario file is invalid; ``problems`` lists every problem as ``file:line: message``."""

    def __init__(self, path: str, problems: list[str]) -> None:
        super().__init__(f"{path}: {len(problems)} problem(s):\n" + "\n".join(problems))
        self.path = path
        self.problems = problems


# ------------------------------------------------------------------ values that remember lines
class MDict(dict[str, Any]):
    line: int = 0
    lines: dict[str, int]


class MList(list[Any]):
    line: int = 0
    lines: list[int]


# ------------------------------------------------------------------ schema
# spec forms: "str" "int" "bool" "num" "any-str-list"; ("enum", (...)); ("list", spec);
# ("map", {key: (spec, required)}); ("dict", value_spec)  (free keys, typed values)
def _m(**fields: Any) -> tuple[Any, ...]:
    return ("map", fields)


REQ, OPT = True, False
ROLE = ("enum", ("active", "standby"))
MODE = ("enum", ("sync", "async"))

SCHEMA = _m(
    scenario=("str", OPT),
    settings=(_m(
        software_version=("str", OPT),
        layout=(("enum", ("A", "B")), OPT),
        replication_drain_rate=("int", OPT),
        default_message_size=("int", OPT),
    ), OPT),
    sites=(("list", _m(
        name=("str", REQ),
        routers=(("list", _m(
            name=("str", REQ),
            message_id_seed=("int", OPT),
            max_spool_usage=("int", OPT),
            down=("bool", OPT),
            replication=(_m(
                interface=("str", OPT), mate=("str", OPT), connect_via=("str", OPT),
                port_plain=("int", OPT), port_compressed=("int", OPT), port_ssl=("int", OPT),
            ), OPT),
        )), REQ),
    )), REQ),
    links=(("list", _m(sites=(("list", "str"), REQ), up=("bool", OPT))), OPT),
    vpns=(("list", _m(
        name=("str", REQ),
        routers=(("list", "str"), OPT),
        replication_group_msg_id_seed=("int", OPT),
        replication=(_m(
            enabled=("bool", OPT),
            roles=(("dict", ROLE), OPT),
            transaction_replication_mode=(MODE, OPT),
            reject_msg_when_sync_ineligible=("bool", OPT),
            queue=(_m(max_spool_usage=("int", OPT),
                      reject_msg_to_sender_on_discard=("bool", OPT)), OPT),
            ack_propagation=(_m(enabled=("bool", OPT), interval=("int", OPT)), OPT),
            bridge=(_m(
                auth_scheme=(("enum", ("basic", "client-certificate")), OPT),
                client_username=("str", OPT), password=("str", OPT), password_hash=("str", OPT),
                compressed=("bool", OPT), ssl=("bool", OPT), retry_delay=("int", OPT),
                window_size=("int", OPT), client_profile=("str", OPT),
            ), OPT),
            replicated_topics=(("list", _m(topic=("str", REQ), mode=(MODE, OPT))), OPT),
        ), OPT),
        queues=(("list", _m(
            name=("str", REQ), subscriptions=(("list", "str"), OPT),
            access_type=(("enum", ("exclusive", "non-exclusive")), OPT),
            owner=("str", OPT), permission=("str", OPT), max_spool_usage=("int", OPT),
            max_bind_count=("int", OPT), ingress=("bool", OPT), egress=("bool", OPT),
            shutdown=("bool", OPT), durable=("bool", OPT),
        )), OPT),
        clients=(("list", _m(
            name=("str", REQ), username=("str", OPT), hosts=(("list", "str"), REQ),
            connected=("bool", OPT),
        )), OPT),
    )), OPT),
    users=(("list", _m(
        name=("str", REQ), password=("str", OPT), password_hash=("str", OPT),
        scope=(("enum", ("global", "vpn")), OPT),
        level=(("enum", ("none", "read-only", "read-write", "admin", "mesh-manager")), OPT),
        vpn=("str", OPT),
    )), OPT),
    messages=(("list", _m(client=("str", REQ), topic=("str", REQ), count=("int", OPT),
                          size=("int", OPT))), OPT),
    transactions=(("list", _m(
        client=("str", REQ), type=(("enum", ("local", "xa")), REQ), xid=("str", OPT),
        state=(("enum", ("active", "suspended", "idle", "prepared")), OPT),
        publish=(("list", _m(topic=("str", REQ), count=("int", OPT), size=("int", OPT))), OPT),
        consume=(("list", _m(queue=("str", REQ), count=("int", OPT))), OPT),
    )), OPT),
    advance_ms=("int", OPT),
)

_TYPE_NAMES = {"str": "a string", "int": "an integer", "bool": "true or false", "num": "a number"}


class _Validator:
    def __init__(self, path: str) -> None:
        self.path = path
        self.problems: list[str] = []

    def err(self, node: yaml.Node | int, msg: str) -> None:
        line = node if isinstance(node, int) else node.start_mark.line + 1
        self.problems.append(f"{self.path}:{line}: {msg}")

    def scalar(self, node: yaml.Node, kind: str, where: str) -> Any:
        if not isinstance(node, yaml.ScalarNode):
            self.err(node, f"{where}: expected {_TYPE_NAMES[kind]}")
            return None
        tag = node.tag.rsplit(":", 1)[-1]
        v = node.value
        if kind == "str":
            if tag in ("str", "int", "float") and not (tag == "str" and node.style is None and v == ""):
                return v
            if tag == "null":
                self.err(node, f"{where}: expected a string, got nothing")
                return None
            if tag == "bool":
                self.err(node, f"{where}: expected a string, got {v!r} (quote it)")
                return None
            return v
        if kind == "int":
            if tag == "int":
                return int(v, 0) if not v.lstrip("+-").isdigit() else int(v)
            self.err(node, f"{where}: expected an integer, got {v!r}")
            return None
        if kind == "bool":
            if tag == "bool":
                return v.lower() in ("true", "yes", "on", "y")
            self.err(node, f"{where}: expected true or false, got {v!r}")
            return None
        return v

    def check(self, node: yaml.Node, spec: Any, where: str) -> Any:
        if isinstance(spec, str):
            if spec in _TYPE_NAMES:
                return self.scalar(node, spec, where)
            raise AssertionError(spec)
        kind = spec[0]
        if kind == "enum":
            v = self.scalar(node, "str", where)
            if v is not None and v not in spec[1]:
                self.err(node, f"{where}: {v!r} is not one of {', '.join(spec[1])}")
                return None
            return v
        if kind == "list":
            if not isinstance(node, yaml.SequenceNode):
                self.err(node, f"{where}: expected a list")
                return MList()
            out = MList()
            out.line = node.start_mark.line + 1
            out.lines = []
            for i, item in enumerate(node.value):
                out.append(self.check(item, spec[1], f"{where}[{i}]"))
                out.lines.append(item.start_mark.line + 1)
            return out
        if kind in ("map", "dict"):
            mapping = MDict()
            mapping.line = node.start_mark.line + 1
            mapping.lines = {}
            if not isinstance(node, yaml.MappingNode):
                self.err(node, f"{where}: expected a mapping")
                return mapping
            for knode, vnode in node.value:
                key = knode.value if isinstance(knode, yaml.ScalarNode) else None
                if key is None:
                    self.err(knode, f"{where}: keys must be plain names")
                    continue
                sub = f"{where}.{key}" if where else key
                if key in mapping:
                    self.err(knode, f"{sub}: duplicate key")
                    continue
                if kind == "dict":
                    mapping[key] = self.check(vnode, spec[1], sub)
                    mapping.lines[key] = knode.start_mark.line + 1
                    continue
                if key not in spec[1]:
                    self.err(knode, f"{where or 'top level'}: unknown key {key!r}"
                             f" (expected one of: {', '.join(sorted(spec[1]))})")
                    continue
                mapping[key] = self.check(vnode, spec[1][key][0], sub)
                mapping.lines[key] = knode.start_mark.line + 1
            if kind == "map":
                for key, (_, required) in spec[1].items():
                    if required and key not in mapping:
                        self.err(node, f"{where or 'top level'}: missing required key {key!r}")
            return mapping
        raise AssertionError(spec)


def _line(obj: Any, key: Any = None) -> int:
    """The line of `obj[key]` (of `obj` itself without a key); 0 for a value that kept no lines."""
    if not isinstance(obj, (MDict, MList)):
        return 0
    if key is not None:
        try:
            return int(obj.lines[key])
        except (KeyError, IndexError, TypeError):
            pass
    return obj.line


def _semantic_checks(v: _Validator, doc: MDict) -> None:
    """Cross-references: everything a name points to must exist; names must be unique."""
    routers: dict[str, str] = {}
    sites: set[str] = set()
    for site in doc.get("sites") or []:
        if not isinstance(site, dict) or site.get("name") is None:
            continue
        if site["name"] in sites:
            v.err(_line(site, "name"), f"site {site['name']!r} defined twice")
        sites.add(site["name"])
        for r in site.get("routers") or []:
            if isinstance(r, dict) and r.get("name") is not None:
                if r["name"] in routers:
                    v.err(_line(r, "name"), f"router {r['name']!r} defined twice")
                routers[r["name"]] = site["name"]
    for r_site in doc.get("sites") or []:
        for r in (r_site or {}).get("routers") or []:
            mate = ((r or {}).get("replication") or {}).get("mate")
            if mate is not None and mate not in routers:
                v.err(_line(r["replication"], "mate"), f"mate {mate!r} is not a router")
    for link in doc.get("links") or []:
        ss = (link or {}).get("sites") or []
        if len(ss) != 2:
            v.err(_line(link, "sites"), "a link joins exactly two sites")
        for i, s in enumerate(ss):
            if s is not None and s not in sites:
                v.err(_line(ss, i), f"link site {s!r} is not a site")
    vpn_queues: dict[str, set[str]] = {}
    clients: dict[str, str] = {}
    for vpn in doc.get("vpns") or []:
        if not isinstance(vpn, dict) or vpn.get("name") is None:
            continue
        name = vpn["name"]
        if name in vpn_queues:
            v.err(_line(vpn, "name"), f"VPN {name!r} defined twice")
        vpn_queues[name] = set()
        vrouters = vpn.get("routers")
        for i, rn in enumerate(vrouters or []):
            if rn is not None and rn not in routers:
                v.err(_line(vrouters, i), f"VPN {name!r}: router {rn!r} is not a router")
        on = set(vrouters) if vrouters is not None else set(routers)
        repl = vpn.get("replication") or {}
        roles = repl.get("roles") or {}
        for rn in roles:
            if rn not in routers:
                v.err(_line(roles, rn), f"VPN {name!r}: role for {rn!r}, which is not a router")
            elif rn not in on:
                v.err(_line(roles, rn), f"VPN {name!r} is not on router {rn!r}")
        b = repl.get("bridge") or {}
        if "password" in b and "password_hash" in b:
            v.err(_line(b, "password_hash"), "give password or password_hash, not both")
        for q in vpn.get("queues") or []:
            if isinstance(q, dict) and q.get("name") is not None:
                if q["name"] in vpn_queues[name]:
                    v.err(_line(q, "name"), f"queue {q['name']!r} defined twice in {name!r}")
                if q["name"].startswith("#"):
                    v.err(_line(q, "name"), f"queue {q['name']!r}: names starting with # are reserved")
                vpn_queues[name].add(q["name"])
        for c in vpn.get("clients") or []:
            if not isinstance(c, dict) or c.get("name") is None:
                continue
            if c["name"] in clients:
                v.err(_line(c, "name"), f"client {c['name']!r} defined twice")
            clients[c["name"]] = name
            hosts = c.get("hosts") or []
            for i, h in enumerate(hosts):
                if h is not None and h not in routers:
                    v.err(_line(hosts, i), f"client {c['name']!r}: host {h!r} is not a router")
                elif h is not None and h not in on:
                    v.err(_line(hosts, i), f"client {c['name']!r}: VPN {name!r} is not on {h!r}")
    for u in doc.get("users") or []:
        if not isinstance(u, MDict):
            continue
        if "password" in u and "password_hash" in u:
            v.err(_line(u, "password_hash"), "give password or password_hash, not both")
        elif "password" not in u and "password_hash" not in u:
            v.err(u.line, f"user {u.get('name')!r}: needs password or password_hash")
        if u.get("password_hash") is not None:
            from .passwords import is_hashed
            if not is_hashed(u["password_hash"]):
                v.err(_line(u, "password_hash"), "password_hash is not scrypt$n$salt$hash")
        if u.get("scope") == "vpn":
            if u.get("vpn") is None:
                v.err(u.line, f"user {u.get('name')!r}: a vpn-scoped user needs 'vpn'")
            elif u["vpn"] not in vpn_queues:
                v.err(_line(u, "vpn"), f"user {u.get('name')!r}: VPN {u['vpn']!r} is not defined")
    for m in doc.get("messages") or []:
        if isinstance(m, dict) and m.get("client") is not None and m["client"] not in clients:
            v.err(_line(m, "client"), f"message: client {m['client']!r} is not defined")
    xids: set[str] = set()
    for t in doc.get("transactions") or []:
        if not isinstance(t, MDict):
            continue
        cl = t.get("client")
        if cl is not None and cl not in clients:
            v.err(_line(t, "client"), f"transaction: client {cl!r} is not defined")
        if t.get("type") == "xa":
            if t.get("xid") is None:
                v.err(t.line, "an xa transaction needs 'xid'")
            elif t["xid"] in xids:
                v.err(_line(t, "xid"), f"xid {t['xid']!r} used twice")
            else:
                xids.add(t["xid"])
        elif t.get("type") == "local" and t.get("state") not in (None, "active"):
            v.err(_line(t, "state"), "a local transaction can only be 'active'")
        for c in t.get("consume") or []:
            if isinstance(c, dict) and cl in clients and c.get("queue") is not None:
                if c["queue"] not in vpn_queues.get(clients[cl], set()):
                    v.err(_line(c, "queue"), f"transaction consume: no queue {c['queue']!r}"
                                             f" in VPN {clients[cl]!r}")


def load_scenario(path: str | Path) -> MDict:
    """Parse and validate; raise ScenarioError listing every problem."""
    p = Path(path)
    try:
        text = p.read_text(encoding="utf-8")
    except OSError as e:
        raise ScenarioError(str(p), [f"{p}:0: cannot read: {e.strerror or e}"]) from e
    except UnicodeDecodeError as e:
        raise ScenarioError(str(p), [f"{p}:0: not UTF-8 text"]) from e
    try:
        node = yaml.compose(text, Loader=yaml.SafeLoader)
    except yaml.YAMLError as e:
        mark = getattr(e, "problem_mark", None)
        line = mark.line + 1 if mark else 0
        raise ScenarioError(str(p), [f"{p}:{line}: YAML syntax: {getattr(e, 'problem', e)}"]) from e
    if node is None:
        raise ScenarioError(str(p), [f"{p}:1: empty scenario"])
    v = _Validator(str(p))
    doc = v.check(node, SCHEMA, "")
    assert isinstance(doc, MDict)  # the top-level spec is a map: check() always returns one
    _semantic_checks(v, doc)
    if v.problems:
        raise ScenarioError(str(p), v.problems)
    return doc


# ------------------------------------------------------------------ building a lab
DEFAULT_SETTINGS = {
    "software_version": "10.4.1.52",
    "layout": "B",
    "replication_drain_rate": "1000",
    "default_message_size": "600",
}


def build_lab(session: Any, doc: MDict) -> None:
    """Create every row the scenario describes, then replay its initial traffic through the
    Engine (so initial messages and transactions follow exactly the runtime rules)."""
    from . import models as m
    from .passwords import hash_password, is_hashed

    settings = dict(DEFAULT_SETTINGS)
    for k, val in (doc.get("settings") or {}).items():
        settings[k] = str(val)
    settings["scenario"] = str(doc.get("scenario") or "unnamed")
    for k, val in settings.items():
        session.add(m.Setting(key=k, value=val))
    session.add(m.Meta(key="now_ms", value="0"))

    site_rows: dict[str, m.Site] = {}
    router_rows: dict[str, m.Router] = {}
    for s in doc["sites"]:
        site = m.Site(name=s["name"])
        session.add(site)
        session.flush()
        site_rows[s["name"]] = site
        for r in s["routers"]:
            rep = r.get("replication") or {}
            seed = r.get("message_id_seed", 1)
            row = m.Router(
                name=r["name"], site_id=site.id, up=not r.get("down", False),
                next_msg_id=seed, msg_id_seed=seed,
                repl_interface=rep.get("interface", ""),
                mate_name=f"v:{rep['mate']}" if rep.get("mate") else "",
                connect_via=rep.get("connect_via", ""),
                port_plain=rep.get("port_plain", 55555),
                port_compressed=rep.get("port_compressed", 55003),
                port_ssl=rep.get("port_ssl", 55443),
                max_spool_mb=r.get("max_spool_usage", 60000),
            )
            session.add(row)
            router_rows[r["name"]] = row
    session.flush()
    for link in doc.get("links") or []:
        a, b = link["sites"]
        session.add(m.Link(site_a_id=site_rows[a].id, site_b_id=site_rows[b].id,
                           up=link.get("up", True)))

    # the internal #config-sync VPN on every router (shown by `show message-vpn *`)
    cs_group = m.HaGroup(name="#config-sync", system="internal")
    session.add(cs_group)
    session.flush()
    for r in router_rows.values():
        session.add(m.Vpn(router_id=r.id, group_id=cs_group.id, name="#config-sync",
                          internal=True, repl_enabled=False, role="standby"))

    for vpn in doc.get("vpns") or []:
        seed = vpn.get("replication_group_msg_id_seed", 1)
        group = m.HaGroup(name=vpn["name"], next_rgmid=seed, rgmid_seed=seed)
        session.add(group)
        session.flush()
        rep = vpn.get("replication") or {}
        q = rep.get("queue") or {}
        ack = rep.get("ack_propagation") or {}
        br = rep.get("bridge") or {}
        pw_hash = ""
        if br.get("password") is not None:
            pw_hash = hash_password(br["password"], salt=f"bridge:{vpn['name']}".encode())
        elif br.get("password_hash") is not None:
            pw_hash = br["password_hash"]
        for rn in vpn.get("routers") or list(router_rows):
            router = router_rows[rn]
            vpn_row = m.Vpn(
                router_id=router.id, group_id=group.id, name=vpn["name"],
                repl_enabled=rep.get("enabled", False),
                role=(rep.get("roles") or {}).get(rn, "standby"),
                trm=rep.get("transaction_replication_mode", "async"),
                reject_sync_ineligible=rep.get("reject_msg_when_sync_ineligible", False),
                rq_max_spool_mb=q.get("max_spool_usage", 60000),
                rq_reject_on_discard=q.get("reject_msg_to_sender_on_discard", True),
                ack_prop_enabled=ack.get("enabled", True),
                ack_interval=ack.get("interval", 20),
                bridge_auth_scheme=br.get("auth_scheme", "basic"),
                bridge_username=br.get("client_username", ""),
                bridge_password_hash=pw_hash,
                bridge_compressed=br.get("compressed", False),
                bridge_retry_delay=br.get("retry_delay", 3),
                bridge_ssl=br.get("ssl", False),
                bridge_window_size=br.get("window_size", 255),
                bridge_client_profile=br.get("client_profile", "#client-profile"),
            )
            session.add(vpn_row)
            session.flush()
            session.add(m.Queue(vpn_id=vpn_row.id, name="#MSGVPN_REPLICATION_DATA_QUEUE",
                                kind="replication", max_spool_mb=vpn_row.rq_max_spool_mb,
                                access_type="exclusive", owner="#replication",
                                permission="no-access", max_bind_count=1))
            for t in rep.get("replicated_topics") or []:
                session.add(m.ReplicatedTopic(vpn_id=vpn_row.id, topic=t["topic"],
                                              mode=t.get("mode", "async")))
            for qd in vpn.get("queues") or []:
                qr = m.Queue(
                    vpn_id=vpn_row.id, name=qd["name"],
                    access_type=qd.get("access_type", "exclusive"),
                    durable=qd.get("durable", True), owner=qd.get("owner", ""),
                    permission=qd.get("permission", "no-access"),
                    max_spool_mb=qd.get("max_spool_usage", 5000),
                    max_bind_count=qd.get("max_bind_count", 1000),
                    ingress_up=qd.get("ingress", True), egress_up=qd.get("egress", True),
                    shutdown=qd.get("shutdown", False),
                )
                session.add(qr)
                session.flush()
                for sub in qd.get("subscriptions") or []:
                    session.add(m.Subscription(queue_id=qr.id, topic=sub))
        for i, c in enumerate(vpn.get("clients") or []):
            session.add(m.Client(
                name=c["name"], vpn_name=vpn["name"], username=c.get("username", c["name"]),
                hosts=",".join(c["hosts"]), wants_connection=c.get("connected", True),
                client_num=i + 1,
            ))
    for u in doc.get("users") or []:
        stored = u.get("password_hash")
        if stored is None:
            pw = u["password"]
            stored = pw if is_hashed(pw) else hash_password(pw, salt=f"user:{u['name']}".encode())
        session.add(m.User(name=u["name"], password_hash=stored, scope=u.get("scope", "global"),
                           level=u.get("level", "read-only"), vpn=u.get("vpn")))
    session.flush()

    from .engine import Engine

    eng = Engine(session)
    eng._refresh()
    eng._reconnect_all()
    for msg in doc.get("messages") or []:
        eng.publish(msg["client"], msg["topic"], count=msg.get("count", 1),
                    size=msg.get("size"))
    for t in doc.get("transactions") or []:
        _build_txn(eng, t)
    if doc.get("advance_ms"):
        eng.advance(doc["advance_ms"])
    session.flush()


def _build_txn(eng: Any, t: MDict) -> None:
    client = t["client"]
    state = t.get("state", "active")
    if t["type"] == "local":
        eng.tx_local_start(client)
    else:
        eng.tx_xa_start(client, t["xid"])
    for p in t.get("publish") or []:
        eng.publish(client, p["topic"], count=p.get("count", 1), size=p.get("size"))
    for c in t.get("consume") or []:
        eng.consume(client, c["queue"], count=c.get("count", 1))
    if t["type"] == "xa":
        if state == "suspended":
            eng.tx_xa_suspend(client, t["xid"])
        elif state in ("idle", "prepared"):
            eng.tx_xa_end(client, t["xid"])
            if state == "prepared":
                eng.tx_xa_prepare(client, t["xid"])
