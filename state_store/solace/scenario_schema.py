"""Loading a scenario file: parse within limits, check every field's type and range, cross-check
names, and report every problem as ``file:line: message`` in one ScenarioError.

Why its own module: scenario files are untrusted input (trainees write them and `lab> reset FILE`
loads them), so nothing reaches the lab builder (`scenario.build_lab`) until the whole document
is known to be buildable: a typo, a huge number, a negative count, a topic the broker refuses or
a 20,000-deep list is one clear report, never a traceback, and a lab nobody could administer is
refused here. The builder can then trust its input.

Ranges follow the broker's own limits where the docs give them (names 1-32 bytes for a VPN, 200
for a queue, 250 for a topic, ports 1-65535) and otherwise bound what a lab may cost to build:
at most 100,000 messages per `messages`/`publish` entry and 200,000 in all, message sizes up
to 30,000,000 bytes, `advance_ms` up to one year.
"""

from __future__ import annotations

import functools
from pathlib import Path
from typing import Any

from grammar.tokens import is_forbidden
from grammar.yaml_source import Limits, LocatedDict, LocatedList, YamlSyntaxError, load_located

from .. import loader, systems
from ..errors import ScenarioError
from ..kernel.plugin import SystemModel
from ..passwords import hash_password, is_hashed
from ..public_keys import PublicKeyError, check_public_key
from ..scenario_spec import OPT, REQ, Bool, Deferred, DictOf, Enum, Int, ListOf, Map, Spec, Str, line_of, spec_map
from ..user_files import SCENARIO_MAX_BYTES, FileRefused, read_bytes
from .leaves import scenario_entry, scenario_fields

MAX_FILE_BYTES = SCENARIO_MAX_BYTES
LIMITS = Limits(max_chars=MAX_FILE_BYTES, max_depth=32, max_nodes=20_000, max_alias_nodes=1_000)
MAX_MESSAGES_PER_ENTRY = 100_000
MAX_MESSAGES_TOTAL = 200_000
MAX_PROBLEMS = 200  # a report longer than this is cut, with a count of the rest




# ------------------------------------------------------------------ the schema
NAME = Str(64)
# What a terminal calls the lab console and each HA system's CLI (solace_shell.lab): a router of that
# name could not be told from them, and would open the console to whoever logs in at its SSH port.
RESERVED_TARGETS = frozenset({"lab", *systems.names()})
VPN_NAME = Str(32)
QUEUE_NAME = Str(200, forbidden="'<>*?&;")
PUBLISH_TOPIC = Str(250, topic="publish")
SUBSCRIPTION = Str(250, topic="subscription")
MB = Int(0, 6_000_000)
PORT = Int(1, 65535)
COUNT = Int(1, MAX_MESSAGES_PER_ENTRY)
SIZE = Int(1, 30_000_000)
MSG_ID = Int(1, 2**62)
ROLE = Enum(("active", "standby"))
MODE = Enum(("sync", "async"))
LEVEL = Enum(("none", "read-only", "read-write", "admin", "mesh-manager"))
SECRET = Str(128, secret=True)
SECRET_HASH = Str(256, secret=True)
# An OpenSSH public key line (a 16,384-bit RSA key is about 2,800 characters). Not shown in errors:
# what was pasted may be the private key.
KEY_LINE = Str(16_384, secret=True)
MAX_KEYS_PER_USER = 32


def _replication(name: str) -> tuple[Spec, bool]:
    """A VPN's replication setting in a scenario, checked as its leaf."""
    return scenario_entry("replication", name)


SOLACE_SCHEMA = spec_map(
    scenario=(NAME, OPT),
    settings=(spec_map(
        software_version=(Str(32), OPT),
        layout=(Enum(("A", "B")), OPT),
        product_line=(Enum(("enterprise", "standard", "appliance")), OPT),
        replication_drain_rate=(Int(1, 10_000_000), OPT),
        default_message_size=(SIZE, OPT),
        # `solace-shell serve`'s limits (solace_shell/ssh/limits.py, guard.py)
        ssh_max_auth_tries=(Int(1, 100), OPT),
        ssh_auth_delay_ms=(Int(0, 60_000), OPT),
        ssh_auth_delay_max_ms=(Int(0, 600_000), OPT),
        ssh_lockout_failures=(Int(1, 1_000_000), OPT),
        ssh_lockout_seconds=(Int(0, 86_400), OPT),
        ssh_max_startups=(Int(1, 100_000), OPT),
        ssh_max_startups_per_source=(Int(1, 100_000), OPT),
        ssh_login_grace_seconds=(Int(1, 3600), OPT),
        ssh_penalty_authfail_seconds=(Int(0, 86_400), OPT),
        ssh_penalty_noauth_seconds=(Int(0, 86_400), OPT),
        ssh_penalty_grace_seconds=(Int(0, 86_400), OPT),
        ssh_penalty_min_seconds=(Int(0, 86_400), OPT),
        ssh_penalty_max_seconds=(Int(0, 86_400), OPT),
        ssh_max_sessions=(Int(1, 1000), OPT),
        ssh_max_user_sessions=(Int(1, 100_000), OPT),
        ssh_max_user_execs=(Int(1, 1000), OPT),
    ), OPT),
    sites=(ListOf(spec_map(
        name=(NAME, REQ),
        routers=(ListOf(spec_map(
            name=(NAME, REQ),
            message_id_seed=(MSG_ID, OPT),
            max_spool_usage=(MB, OPT),
            down=(Bool(), OPT),
            ssh_port=(PORT, OPT),
            replication=(spec_map(
                interface=(NAME, OPT), mate=(NAME, OPT), connect_via=(NAME, OPT),
                port_plain=(PORT, OPT), port_compressed=(PORT, OPT), port_ssl=(PORT, OPT),
            ), OPT),
        ), 16), REQ),
        # an intra-site redundancy group (state_store/solace/redundancy.py): routers of this site
        redundancy=(spec_map(primary=(NAME, REQ), backup=(NAME, REQ), monitor=(NAME, REQ),
                             auto_revert=(Bool(), OPT), addresses=(DictOf(Str(253)), OPT)), OPT),
    ), 16), OPT),   # a lab of HA systems only has none (`sites: []`, as older files write it, too)
    links=(ListOf(spec_map(sites=(ListOf(NAME, 2), REQ), up=(Bool(), OPT)), 64), OPT),
    cli_scripts=(ListOf(spec_map(name=(Str(255), REQ), lines=(ListOf(Str(1024), 10_000), REQ)), 64), OPT),
    vpns=(ListOf(spec_map(
        name=(VPN_NAME, REQ),
        routers=(ListOf(NAME, 64), OPT),
        replication_group_msg_id_seed=(MSG_ID, OPT),
        **scenario_fields("message-spool"),
        # the settings' types and ranges are their leaves' (grammar/data/leaves.yaml), as the CLI's
        replication=(spec_map(
            enabled=(Bool(), OPT),
            roles=(DictOf(ROLE), OPT),
            transaction_replication_mode=_replication("transaction-replication-mode"),
            reject_msg_when_sync_ineligible=_replication("reject-msg-when-sync-ineligible"),
            queue=(spec_map(max_spool_usage=_replication("queue-max-spool-usage"),
                            reject_msg_to_sender_on_discard=_replication("queue-reject-msg-to-sender-on-discard")),
                   OPT),
            ack_propagation=(spec_map(enabled=_replication("ack-propagation-enabled"),
                                      interval=_replication("ack-propagation-interval")), OPT),
            bridge=(spec_map(
                auth_scheme=_replication("bridge-auth-scheme"),
                client_username=_replication("bridge-client-username"), password=(SECRET, OPT),
                password_hash=(SECRET_HASH, OPT), compressed=_replication("bridge-compressed-data"),
                ssl=_replication("bridge-ssl"), retry_delay=_replication("bridge-retry-delay"),
                window_size=_replication("bridge-window-size"), client_profile=_replication("bridge-client-profile"),
            ), OPT),
            replicated_topics=(ListOf(spec_map(topic=(SUBSCRIPTION, REQ), mode=(MODE, OPT))), OPT),
        ), OPT),
        queues=(ListOf(spec_map(
            name=(QUEUE_NAME, REQ), subscriptions=(ListOf(SUBSCRIPTION), OPT), **scenario_fields("queue"),
            ingress=(Bool(), OPT), egress=(Bool(), OPT), shutdown=(Bool(), OPT), durable=(Bool(), OPT),
        )), OPT),
        clients=(ListOf(spec_map(
            name=(Str(160), REQ), username=(Str(189), OPT), hosts=(ListOf(NAME, 64), REQ),
            connected=(Bool(), OPT),
        )), OPT),
    ), 100), OPT),
    users=(ListOf(spec_map(
        name=(Str(32), REQ), password=(SECRET, OPT), password_hash=(SECRET_HASH, OPT),
        scope=(Enum(("global", "vpn")), OPT), level=(LEVEL, OPT), vpn=(VPN_NAME, OPT),
        lab_admin=(Bool(), OPT), ssh_keys=(ListOf(KEY_LINE, MAX_KEYS_PER_USER), OPT),
    ), 100), OPT),
    messages=(ListOf(spec_map(client=(Str(160), REQ), topic=(PUBLISH_TOPIC, REQ), count=(COUNT, OPT),
                        size=(SIZE, OPT))), OPT),
    transactions=(ListOf(spec_map(
        client=(Str(160), REQ), type=(Enum(("local", "xa")), REQ), xid=(Str(128), OPT),
        state=(Enum(("active", "suspended", "idle", "prepared")), OPT),
        publish=(ListOf(spec_map(topic=(PUBLISH_TOPIC, REQ), count=(COUNT, OPT), size=(SIZE, OPT))), OPT),
        consume=(ListOf(spec_map(queue=(QUEUE_NAME, REQ), count=(COUNT, OPT))), OPT),
    )), OPT),
    advance_ms=(Int(0, 366 * 24 * 3600 * 1000), OPT),
)


@functools.cache
def system_model(name: str) -> SystemModel:
    """A registered HA system's model (state_store.systems): its section of a scenario. Imported
    only for a scenario that has the section, so building the default lab imports no system."""
    module = loader.load_model(name)
    assert module is not None
    found: SystemModel = module.MODEL
    return found


def _section_schema(name: str) -> Spec:
    return system_model(name).schema


# the whole file: the Solace lab's keys, then one optional section per registered HA system
SCHEMA = Map({**SOLACE_SCHEMA.fields,
              **{name: (Deferred(functools.partial(_section_schema, name)), OPT) for name in systems.names()}})


# ------------------------------------------------------------------ checking values
def _kind(value: Any) -> str:
    if value is None:
        return "nothing"
    if isinstance(value, bool):
        return "true/false"
    if isinstance(value, int):
        return "an integer"
    if isinstance(value, float):
        return "a number"
    if isinstance(value, str):
        return "a string"
    if isinstance(value, list):
        return "a list"
    if isinstance(value, dict):
        return "a mapping"
    return type(value).__name__


def _short(value: Any) -> str:
    text = repr(value)
    return text if len(text) <= 60 else text[:57] + "..."


class _Checker:
    def __init__(self, path: str) -> None:
        self.path = path
        self.problems: list[str] = []

    def err(self, line: int, message: str) -> None:
        self.problems.append(f"{self.path}:{line}: {message}")

    def string(self, value: Any, raw: str | None, spec: Str, where: str, line: int) -> str | None:
        if isinstance(value, (int, float)) and not isinstance(value, bool) and raw is not None:
            value = raw  # `software_version: 10.40` means the text as written
        if not isinstance(value, str):
            self.err(line, f"{where}: expected a string, got {_kind(value)}"
                           + (" (quote it)" if isinstance(value, bool) else ""))
            return None
        size = len(value.encode("utf-8", "surrogatepass"))
        if size == 0 or size > spec.max_len:
            self.err(line, f"{where}: must be 1 to {spec.max_len} bytes long, is {size}")
            return None
        shown = "the value (not shown)" if spec.secret else _short(value)
        if any(c == "\t" or is_forbidden(c) for c in value):  # what no command line may hold either
            self.err(line, f"{where}: {shown} contains a control character")
            return None
        bad = sorted(set(spec.forbidden) & set(value))
        if bad:
            self.err(line, f"{where}: {shown} may not contain {' '.join(bad)}")
            return None
        if spec.topic and not self.topic(value, spec.topic, where, line):
            return None
        return value

    def topic(self, value: str, kind: str, where: str, line: int) -> bool:
        levels = value.split("/")
        if " " in value or any(level == "" for level in levels):
            self.err(line, f"{where}: {_short(value)} is not a valid topic (empty level or a space)")
            return False
        if kind == "publish" and any(level == ">" or level.endswith("*") for level in levels):
            self.err(line, f"{where}: {_short(value)} has a wildcard; a published topic names one topic")
            return False
        if kind == "subscription" and ">" in levels[:-1]:
            self.err(line, f"{where}: {_short(value)}: '>' may only be the last level")
            return False
        return True

    def check(self, value: Any, raw: str | None, spec: Spec, where: str, line: int) -> Any:
        while isinstance(spec, Deferred):
            spec = spec.load()
        if isinstance(spec, Str):
            return self.string(value, raw, spec, where, line)
        if isinstance(spec, Int):
            if isinstance(value, bool) or not isinstance(value, int):
                self.err(line, f"{where}: expected an integer, got {_kind(value)} {_short(raw or value)}")
                return None
            if not spec.lo <= value <= spec.hi:
                shown = str(value) if len(str(value)) <= 24 else f"{str(value)[:20]}..."
                self.err(line, f"{where}: {shown} is out of range {spec.lo}..{spec.hi:,}")
                return None
            return value
        if isinstance(spec, Bool):
            if not isinstance(value, bool):
                self.err(line, f"{where}: expected true or false, got {_kind(value)} {_short(raw or value)}")
                return None
            return value
        if isinstance(spec, Enum):
            text = self.string(value, raw, Str(64), where, line)
            if text is not None and text not in spec.values:
                self.err(line, f"{where}: {_short(text)} is not one of {', '.join(spec.values)}")
                return None
            return text
        if isinstance(spec, ListOf):
            return self.list_of(value, spec, where, line)
        return self.mapping(value, spec, where, line)

    def list_of(self, value: Any, spec: ListOf, where: str, line: int) -> LocatedList:
        out = LocatedList()
        out.line, out.item_lines, out.raw = line, [], []
        if not isinstance(value, LocatedList):
            self.err(line, f"{where}: expected a list, got {_kind(value)}")
            return out
        if len(value) > spec.max_items:
            self.err(line, f"{where}: {len(value):,} entries, at most {spec.max_items:,} allowed")
            return out
        for i, item in enumerate(value):
            item_line = value.item_lines[i]
            checked = self.check(item, value.raw[i], spec.item, f"{where}[{i}]", item_line)
            out.append(checked)
            out.item_lines.append(item_line)
            out.raw.append(value.raw[i])
        return out

    def mapping(self, value: Any, spec: Map | DictOf, where: str, line: int) -> LocatedDict:
        out = LocatedDict()
        out.line, out.key_lines, out.raw = line, {}, {}
        if not isinstance(value, LocatedDict):
            self.err(line, f"{where or 'top level'}: expected a mapping, got {_kind(value)}")
            return out
        for key, item in value.items():
            key_line = value.key_lines.get(str(key), value.line)
            if not isinstance(key, str):
                self.err(key_line, f"{where or 'top level'}: key {_short(key)} must be a name")
                continue
            sub = f"{where}.{key}" if where else key
            if isinstance(spec, DictOf):
                if self.string(key, None, NAME, f"{where} key", key_line) is None:
                    continue
                item_spec = spec.value
            elif key not in spec.fields and not where:
                self.err(key_line, f"top level: unknown key {_short(key)}: neither a key of the lab nor a "
                                   f"registered HA system (registered systems: {', '.join(systems.names())})")
                continue
            elif key not in spec.fields:
                self.err(key_line, f"{where or 'top level'}: unknown key {_short(key)}"
                                   f" (expected one of: {', '.join(sorted(spec.fields))})")
                continue
            else:
                item_spec = spec.fields[key][0]
            item_line = getattr(item, "line", key_line) or key_line
            out[key] = self.check(item, value.raw.get(key), item_spec, sub, item_line)
            out.key_lines[key] = key_line
        if isinstance(spec, Map):
            for key, (_, required) in spec.fields.items():
                if required and key not in value:
                    self.err(value.line, f"{where or 'top level'}: missing required key {key!r}")
        return out


# ------------------------------------------------------------------ cross-references
def _dict(value: Any) -> LocatedDict:
    if isinstance(value, LocatedDict):
        return value
    empty = LocatedDict()
    empty.line, empty.key_lines, empty.raw = 0, {}, {}
    return empty


def _dicts(value: Any) -> list[LocatedDict]:
    return [item for item in (value or []) if isinstance(item, LocatedDict)]


def _redundancy_backups(doc: LocatedDict) -> dict[str, str]:
    """backup router -> its group's primary, for every site's redundancy group."""
    out: dict[str, str] = {}
    for site in _dicts(doc.get("sites")):
        red = site.get("redundancy")
        if isinstance(red, LocatedDict) and isinstance(red.get("backup"), str):
            out[red["backup"]] = str(red.get("primary"))
    return out


def _check_redundancy(c: _Checker, site: LocatedDict, routers: dict[str, str]) -> None:
    """A site's redundancy group names three distinct routers of that site."""
    red = site.get("redundancy")
    if not isinstance(red, LocatedDict):
        return
    seen: set[str] = set()
    for key in ("primary", "backup", "monitor"):
        name = red.get(key)
        if name is None:
            continue
        if routers.get(name) != site.get("name"):
            c.err(line_of(red, key), f"redundancy {key} {name!r} is not a router of site {site.get('name')!r}")
        elif name in seen:
            c.err(line_of(red, key), f"redundancy {key} {name!r} is named twice in the group")
        seen.add(name)
    for name in red.get("addresses") or {}:
        if name not in seen:
            c.err(line_of(red, "addresses"), f"redundancy address for {name!r}, not a node of the group")


def _cross_checks(c: _Checker, doc: LocatedDict) -> None:
    """Everything a name points to must exist; names must be unique; someone can run the lab."""
    routers: dict[str, str] = {}
    sites: set[str] = set()
    for site in _dicts(doc.get("sites")):
        if site.get("name") is None:
            continue
        if site["name"] in sites:
            c.err(line_of(site, "name"), f"site {site['name']!r} defined twice")
        sites.add(site["name"])
        for r in _dicts(site.get("routers")):
            if r.get("name") is not None:
                if r["name"] in routers:
                    c.err(line_of(r, "name"), f"router {r['name']!r} defined twice")
                elif r["name"] in RESERVED_TARGETS:  # a terminal addresses those, not a router
                    c.err(line_of(r, "name"), f"router {r['name']!r}: the name is the shell's own "
                                              f"({', '.join(sorted(RESERVED_TARGETS))} are reserved)")
                routers[r["name"]] = site["name"]
    ssh_ports: dict[int, str] = {}
    for site in _dicts(doc.get("sites")):
        for r in _dicts(site.get("routers")):
            port = r.get("ssh_port")
            if isinstance(port, int) and r.get("name") is not None:
                if port in ssh_ports:
                    c.err(line_of(r, "ssh_port"), f"router {r['name']!r}: ssh_port {port} is taken by "
                                                  f"router {ssh_ports[port]!r}")
                ssh_ports.setdefault(port, r["name"])
    sections = {name: doc[name] for name in systems.names() if isinstance(doc.get(name), LocatedDict)}
    if not routers and not c.problems and not any(system_model(n).holds_groups(s) for n, s in sections.items()):
        c.err(line_of(doc, "sites"), "the lab needs at least one router")
    for site in _dicts(doc.get("sites")):
        for r in _dicts(site.get("routers")):
            rep = r.get("replication")
            mate = rep.get("mate") if isinstance(rep, LocatedDict) else None
            if mate is not None and mate not in routers:
                c.err(line_of(rep, "mate"), f"mate {mate!r} is not a router")
    for site in _dicts(doc.get("sites")):
        _check_redundancy(c, site, routers)
    for link in _dicts(doc.get("links")):
        ss = link.get("sites") or []
        if len(ss) != 2:
            c.err(line_of(link, "sites"), "a link joins exactly two sites")
        for i, s in enumerate(ss):
            if s is not None and s not in sites:
                c.err(line_of(ss, i), f"link site {s!r} is not a site")
    vpn_queues: dict[str, set[str]] = {}
    clients: dict[str, str] = {}
    serves = _redundancy_backups(doc)  # a backup serves its primary's VPNs
    for vpn in _dicts(doc.get("vpns")):
        name = vpn.get("name")
        if name is None:
            continue
        if name in vpn_queues:
            c.err(line_of(vpn, "name"), f"VPN {name!r} defined twice")
        vpn_queues[name] = set()
        vrouters = vpn.get("routers")
        for i, rn in enumerate(vrouters or []):
            if rn is not None and rn not in routers:
                c.err(line_of(vrouters, i), f"VPN {name!r}: router {rn!r} is not a router")
        on = {rn for rn in vrouters if rn is not None} if vrouters is not None else set(routers)
        repl = _dict(vpn.get("replication"))
        roles = _dict(repl.get("roles"))
        for rn in roles:
            if rn not in routers:
                c.err(line_of(roles, rn), f"VPN {name!r}: role for {rn!r}, which is not a router")
            elif rn not in on:
                c.err(line_of(roles, rn), f"VPN {name!r} is not on router {rn!r}")
        bridge = repl.get("bridge")
        if isinstance(bridge, LocatedDict):
            _secret_pair(c, bridge, f"VPN {name!r} bridge")
        for q in _dicts(vpn.get("queues")):
            if q.get("name") is not None:
                if q["name"] in vpn_queues[name]:
                    c.err(line_of(q, "name"), f"queue {q['name']!r} defined twice in {name!r}")
                if q["name"].startswith("#"):
                    c.err(line_of(q, "name"), f"queue {q['name']!r}: names starting with # are reserved")
                vpn_queues[name].add(q["name"])
        for cl in _dicts(vpn.get("clients")):
            if cl.get("name") is None:
                continue
            if cl["name"] in clients:
                c.err(line_of(cl, "name"), f"client {cl['name']!r} defined twice")
            clients[cl["name"]] = name
            hosts = cl.get("hosts") or []
            for i, h in enumerate(hosts):
                if h is not None and h not in routers:
                    c.err(line_of(hosts, i), f"client {cl['name']!r}: host {h!r} is not a router")
                elif h is not None and h not in on and serves.get(h) not in on:
                    c.err(line_of(hosts, i), f"client {cl['name']!r}: VPN {name!r} is not on {h!r}")
    _check_users(c, doc, set(vpn_queues))
    _check_traffic(c, doc, clients, vpn_queues)
    taken = set(routers) | set(clients)
    for name, section in sections.items():
        system_model(name).check(c.err, section, taken)


def _secret_pair(c: _Checker, entry: LocatedDict, what: str) -> None:
    if "password" in entry and "password_hash" in entry:
        c.err(line_of(entry, "password_hash"), f"{what}: give password or password_hash, not both")
    stored = entry.get("password_hash")
    if stored is not None and not is_hashed(stored):
        c.err(line_of(entry, "password_hash"), f"{what}: password_hash is not a hash this program wrote")


def _check_users(c: _Checker, doc: LocatedDict, vpns: set[str]) -> None:
    names: set[str] = set()
    admins = 0
    for u in _dicts(doc.get("users")):
        who = f"user {u.get('name')!r}"
        if u.get("name") in names:
            c.err(line_of(u, "name"), f"{who} defined twice")
        names.add(u.get("name") or "")
        _secret_pair(c, u, who)
        if "password" not in u and "password_hash" not in u:
            c.err(u.line, f"{who}: needs password or password_hash")
        if u.get("scope") == "vpn":
            if u.get("vpn") is None:
                c.err(u.line, f"{who}: a vpn-scoped user needs 'vpn'")
            elif u["vpn"] not in vpns:
                c.err(line_of(u, "vpn"), f"{who}: VPN {u['vpn']!r} is not defined")
        keys = u.get("ssh_keys")
        for i, line in enumerate(keys or []):
            if isinstance(line, str):
                try:
                    check_public_key(line)
                except PublicKeyError as exc:
                    c.err(line_of(keys, i), f"{who}: ssh_keys[{i}] {exc}")
        if (u.get("lab_admin") and u.get("scope", "global") == "global" and u.get("level") == "admin"
                and (u.get("password") is not None or u.get("password_hash") is not None)):
            admins += 1
    if admins == 0:
        c.err(line_of(doc, "users"), "no usable administrator: the lab needs a user with scope global, "
                                   "level admin, lab_admin: true and a password (the trainer)")


def _check_traffic(c: _Checker, doc: LocatedDict, clients: dict[str, str],
                   vpn_queues: dict[str, set[str]]) -> None:
    total = 0
    for m in _dicts(doc.get("messages")):
        if m.get("client") is not None and m["client"] not in clients:
            c.err(line_of(m, "client"), f"message: client {m['client']!r} is not defined")
        total += m.get("count") or 1
    xids: set[str] = set()
    for t in _dicts(doc.get("transactions")):
        cl = t.get("client")
        if cl is not None and cl not in clients:
            c.err(line_of(t, "client"), f"transaction: client {cl!r} is not defined")
        if t.get("type") == "xa":
            if t.get("xid") is None:
                c.err(t.line, "an xa transaction needs 'xid'")
            elif t["xid"] in xids:
                c.err(line_of(t, "xid"), f"xid {t['xid']!r} used twice")
            else:
                xids.add(t["xid"])
        elif t.get("type") == "local" and t.get("state") not in (None, "active"):
            c.err(line_of(t, "state"), "a local transaction can only be 'active'")
        for p in _dicts(t.get("publish")):
            total += p.get("count") or 1
        for cons in _dicts(t.get("consume")):
            queue = cons.get("queue")
            if cl in clients and queue is not None and queue not in vpn_queues.get(clients[cl], set()):
                c.err(line_of(cons, "queue"), f"transaction consume: no queue {queue!r} in VPN {clients[cl]!r}")
    if total > MAX_MESSAGES_TOTAL:
        c.err(line_of(doc, "messages"), f"{total:,} messages in all; a scenario may publish at most "
                                      f"{MAX_MESSAGES_TOTAL:,}")


# ------------------------------------------------------------------ loading
def _read(p: Path) -> str:
    """The scenario's text, read through `user_files` (a regular file, within the limit); a file
    that cannot be used is one problem that names it and says why, quoting none of it."""
    try:
        data = read_bytes(p, MAX_FILE_BYTES)
    except FileRefused as refused:
        raise ScenarioError(str(p), [f"{refused.shown}:0: {refused.problem}"]) from None
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as e:
        line = data[:e.start].count(b"\n") + 1
        raise ScenarioError(str(p), [f"{p}:{line}: not UTF-8 text"]) from None


def _hash_secrets(doc: LocatedDict) -> None:
    """Clear passwords (CLI users', replication bridges') become hashes with their own random salt,
    so the lab never stores them; hashed here, once per file version (`load_scenario` keeps the
    result), so every lab built from it, after a reset too, holds the same hashes."""
    bridges = [_dict(_dict(vpn.get("replication")).get("bridge")) for vpn in _dicts(doc.get("vpns"))]
    for entry in [*_dicts(doc.get("users")), *bridges]:
        clear = entry.pop("password", None)
        if clear is not None:
            entry["password_hash"] = clear if is_hashed(clear) else hash_password(clear)
            entry.key_lines["password_hash"] = entry.key_lines.get("password", entry.line)


_CACHE: dict[tuple[str, int, int], LocatedDict] = {}
_CACHE_SIZE = 32


def load_scenario(path: str | Path) -> LocatedDict:
    """Parse and validate a scenario file; raise ScenarioError listing every problem.

    The result is the checked document (every value of the right type and range; clear
    passwords already hashed), ready for `scenario.build_lab`; treat it as read-only. It is kept
    per file version (path, mtime, size), so a `lab> reset` rebuilds exactly the lab a fresh
    start of this process builds (same salts), and a reset does not pay for hashing again."""
    p = Path(path)
    try:
        st = p.stat()
        key = (str(p.resolve()), st.st_mtime_ns, st.st_size)
    except (OSError, ValueError, RuntimeError):
        key = None
    if key is not None and key in _CACHE:
        return _CACHE[key]
    doc = _load(p)
    if key is not None:
        if len(_CACHE) >= _CACHE_SIZE:
            _CACHE.pop(next(iter(_CACHE)))
        _CACHE[key] = doc
    return doc


def _load(p: Path) -> LocatedDict:
    text = _read(p)
    try:
        value = load_located(text, LIMITS)
    except YamlSyntaxError as exc:
        raise ScenarioError(str(p), [f"{p}:{line}: YAML syntax: {problem}" for line, problem in exc.problems]) from None
    if value is None:
        raise ScenarioError(str(p), [f"{p}:1: empty scenario"])
    checker = _Checker(str(p))
    doc = checker.mapping(value, SCHEMA, "", getattr(value, "line", 1) or 1)
    _cross_checks(checker, doc)
    if checker.problems:
        problems = checker.problems
        if len(problems) > MAX_PROBLEMS:
            problems = problems[:MAX_PROBLEMS] + [f"{p}:0: ... and {len(problems) - MAX_PROBLEMS} more"]
        raise ScenarioError(str(p), problems)
    _hash_secrets(doc)
    return doc
