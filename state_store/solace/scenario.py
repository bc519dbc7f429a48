"""YAML scenario files: building a lab from them (loading and checking: scenario_schema.py).

Why: scenarios are written by hand by people practising runbooks; a typo must be reported with its
file and line, and ALL problems at once (``ScenarioError.problems``, each ``file:line: message``),
instead of one at a time or as a Python traceback. The default lab (scenarios/default.yaml) is
loaded by this same code.

Format (every key optional unless marked *):
  scenario: <name>
  settings: {software_version, layout: A|B, replication_drain_rate (entries/s),
             default_message_size (bytes), ssh_max_auth_tries, ssh_auth_delay_ms,
             ssh_auth_delay_max_ms, ssh_lockout_failures, ssh_lockout_seconds, ssh_max_startups, and the
             other ssh_ limits of docs/ssh.md}
  sites: - name*: NY
            routers*: - {name*, message_id_seed, max_spool_usage (MB), down: bool, ssh_port,
                         replication: {interface, mate, connect_via, port_plain, port_compressed,
                                       port_ssl}}
            redundancy: {primary*, backup*, monitor*, auto_revert: bool, addresses: {node: address}}
  links: - {sites*: [A, B], up: bool}
  cli_scripts: - {name*, lines*: [..]}   (in every router's script directory: `source script`)
  vpns: - name*: Trading_VPN
          routers: [..]               (default: every router; config is synced)
          replication_group_msg_id_seed: int
          max_spool_usage: MB         (the VPN's spool quota; default 60000, the lab's)
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
                     egress: bool, shutdown: bool, durable: bool,
                     reject_msg_to_sender_on_discard: bool (default true),
                     reject_including_when_shutdown: bool (default false)}
          clients: - {name*, username, hosts*: [router..], connected: bool}
  users: - {name*, password | password_hash, scope: global|vpn, level, vpn, lab_admin: bool,
            ssh_keys: [OpenSSH public key lines, for `solace-shell serve`]}
         (at least one global admin with lab_admin: true: the trainer, who may open the console)
  messages: - {client*, topic*, count, size}           (published at load, in order)
  transactions: - {client*, type*: local|xa, xid, state: active|suspended|idle|prepared,
                   publish: - {topic*, count, size}, consume: - {queue*, count}}
  advance_ms: int                                     (clock advanced after loading)
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from grammar.yaml_source import LocatedDict

from ..errors import ScenarioError
from ..scenario_files import DEFAULT_SCENARIO, ROOT_DIR, resolve_scenario
from .leaves import scenario_values
from .scenario_schema import SCHEMA, load_scenario

if TYPE_CHECKING:
    from .engine import Engine

__all__ = ["DEFAULT_SCENARIO", "ROOT_DIR", "SCHEMA", "ScenarioError", "build_section", "load_scenario",
           "resolve_scenario"]

MDict = LocatedDict  # a checked scenario document (scenario_schema.load_scenario)


# ------------------------------------------------------------------ building a lab
def build_section(eng: Engine, doc: MDict) -> None:
    """Add every record of this model the scenario describes to ``eng.state`` (an empty section of
    a root the lab's settings and users are on already), then replay its initial traffic through
    the Engine (so initial messages and transactions follow exactly the runtime rules). The root
    (``state_store.lab_root.model.build_lab``) then builds the HA systems' groups and advances
    the clock."""
    from ..passwords import hash_password
    from . import records as m
    from .lookups import REPL_QUEUE

    state = eng.state

    site_rows: dict[str, m.Site] = {}
    router_rows: dict[str, m.Router] = {}
    for s in doc.get("sites") or []:
        site = state.add(m.Site(name=s["name"]))
        site_rows[s["name"]] = site
        for r in s["routers"]:
            rep = r.get("replication") or {}
            seed = r.get("message_id_seed", 1)
            router_rows[r["name"]] = state.add(m.Router(
                name=r["name"], site_id=site.id, up=not r.get("down", False),
                next_msg_id=seed, msg_id_seed=seed,
                repl_interface=rep.get("interface", ""),
                mate_name=f"v:{rep['mate']}" if rep.get("mate") else "",
                connect_via=rep.get("connect_via", ""),
                port_plain=rep.get("port_plain", 55555),
                port_compressed=rep.get("port_compressed", 55003),
                port_ssl=rep.get("port_ssl", 55443),
                max_spool_mb=r.get("max_spool_usage", 60000),
                ssh_port=r.get("ssh_port", 0),
            ))
    for s in doc.get("sites") or []:  # intra-site redundancy groups, on the HA kernel
        red = s.get("redundancy")
        if red is not None:
            from . import redundancy

            redundancy.build(state.kernel, s["name"], red["primary"], red["backup"], red["monitor"],
                             red.get("addresses") or {}, red.get("auto_revert", False))
    for link in doc.get("links") or []:
        a, b = link["sites"]
        state.add(m.Link(site_a_id=site_rows[a].id, site_b_id=site_rows[b].id, up=link.get("up", True)))

    for seq, script in enumerate(doc.get("cli_scripts") or [], start=1):
        for router in router_rows.values():
            state.add(m.ConfigObject(router_id=router.id, kind="cli-script", name=script["name"],
                                     attrs={"text": "\n".join(script["lines"])}, created_seq=seq))

    # the internal #config-sync VPN on every router (shown by `show message-vpn *`)
    cs_group = state.add(m.HaGroup(name="#config-sync", system="internal"))
    for router in router_rows.values():
        state.add(m.Vpn(router_id=router.id, group_id=cs_group.id, name="#config-sync",
                        internal=True, repl_enabled=False, role="standby"))

    for vpn in doc.get("vpns") or []:
        seed = vpn.get("replication_group_msg_id_seed", 1)
        group = state.add(m.HaGroup(name=vpn["name"], next_rgmid=seed, rgmid_seed=seed))
        rep = vpn.get("replication") or {}
        q = rep.get("queue") or {}
        ack = rep.get("ack_propagation") or {}
        br = rep.get("bridge") or {}
        pw_hash = ""
        if br.get("password") is not None:
            pw_hash = hash_password(br["password"])  # (load_scenario has hashed it already)
        elif br.get("password_hash") is not None:
            pw_hash = br["password_hash"]
        for rn in vpn.get("routers") or list(router_rows):
            router = router_rows[rn]
            vpn_row = state.add(m.Vpn(
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
                **scenario_values("message-spool", vpn),
            ))
            state.add(m.Queue(vpn_id=vpn_row.id, name=REPL_QUEUE,
                              kind="replication", max_spool_mb=vpn_row.rq_max_spool_mb,
                              access_type="exclusive", owner="#replication",
                              permission="no-access", max_bind_count=1))
            for t in rep.get("replicated_topics") or []:
                state.add(m.ReplicatedTopic(vpn_id=vpn_row.id, topic=t["topic"], mode=t.get("mode", "async")))
            for qd in vpn.get("queues") or []:
                settings = scenario_values("queue", qd)
                # including-when-shutdown only refines rejecting on discard
                settings["reject_when_shutdown"] = settings["reject_when_shutdown"] and settings["reject_on_discard"]
                qr = state.add(m.Queue(
                    vpn_id=vpn_row.id, name=qd["name"], durable=qd.get("durable", True),
                    ingress_up=qd.get("ingress", True), egress_up=qd.get("egress", True),
                    shutdown=qd.get("shutdown", False), **settings,
                ))
                for sub in qd.get("subscriptions") or []:
                    state.add(m.Subscription(queue_id=qr.id, topic=sub))
        for i, c in enumerate(vpn.get("clients") or []):
            state.add(m.Client(
                name=c["name"], vpn_name=vpn["name"], username=c.get("username", c["name"]),
                hosts=",".join(c["hosts"]), wants_connection=c.get("connected", True),
                client_num=i + 1,
            ))
    eng.sv.replication.refresh()
    eng.sv.clients.reconnect_all()
    for msg in doc.get("messages") or []:
        eng.publish(msg["client"], msg["topic"], count=msg.get("count", 1), size=msg.get("size"))
    for t in doc.get("transactions") or []:
        _build_txn(eng, t)


def _build_txn(eng: Engine, t: MDict) -> None:
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
