"""Message-VPN replication: computed flags, configuration, and draining the replication stream.

Why: the flags of `show message-vpn X replication` must always follow from state (role, admin
state, routers, link, bridge binding), never from stored text; and the drain (the standby's bridge
pulling the active's #MSGVPN_REPLICATION_DATA_QUEUE) must be set-based SQL so a million entries
drain in seconds.

Flag rules (reference 3.5, INFER parts decided here):
  A  U replication no-shutdown, D shutdown        C  A active, S standby
  B  standby only: U bound to the mate's queue, Q mate reachable but no queue to bind
     (mate not active and nothing left to drain), D mate router/link down; '-' active or A=D
  R  active only: U when the mate's bridge is bound, else D
  Q  active only: U when the replication queue is bound by the mate's bridge, else D
     (seed: active+bound = 'U U'; Layout B `default` active+unbound = 'D D')
  S  '-' unless A=U and C=A and the VPN has at least one *sync* replicated topic; then Y when
     eligible, N when not (sync transactions, T=S, use the same eligibility without showing it).
     With async-only topics it stays '-' (seed row `U A - U U - N A`), and Layout B's
     `U A - D D N Y A` is a VPN with sync topics whose bridge is down.

Sync eligibility (issue 13 item 5): eligible when the mate's bridge is bound AND the standby has
caught up. When the bridge unbinds (link or mate down) the VPN becomes ineligible ("Transitions
To Ineligible"); when it binds again, everything then waiting on the replication queue is the
backlog, and the VPN stays ineligible until the standby has applied it (meta
``sync-catchup:<vpn id>``: "pending" while unbound, then the last stream seq of the backlog).
Meanwhile sync topics go to the queue as async (or are rejected with
reject-msg-when-sync-ineligible), as a broker does until its standby is in sync again.
  M  reject-msg-when-sync-ineligible Y/N          T  transaction-replication-mode A/S
  A=D: B R Q S are '-'. The internal #config-sync VPN shows '-' everywhere.

Drain rate: lab setting ``replication_drain_rate`` (stream entries per simulated second, default
1000). Entries are messages, acks and transaction states; only messages count as "Current
Messages Spooled" of the replication queue.
"""

from __future__ import annotations

import json
import re
from typing import Any

from sqlalchemy import select

from .base import MB, REPL_BRIDGE, REPL_QUEUE, EngineBase
from .errors import EngineError
from .models import Meta, Queue, ReplicatedTopic, Router, Txn, TxnOp, Vpn
from .options import coerce_option
from .topics import any_matches, has_wildcard, name_matches
from .views import (
    BridgeInfo,
    ReplicatedTopicInfo,
    ReplicationStats,
    SystemReplication,
    VpnReplicationDetail,
    VpnReplicationRow,
)

_VIRTUAL_ROUTER_NAME = re.compile(r"^v:(?=.{1,66}$)[0-9A-Za-z](?:[0-9A-Za-z_.-]*[0-9A-Za-z])?$")
QUEUE_BEHAVIOURS = ("fail-on-existing-queue", "force-use-existing-queue", "force-recreate-queue")

# name -> (Vpn attribute, kind, default for `no ...`, limits)
REPLICATION_OPTIONS: dict[str, tuple[str, str, Any, tuple[int, int] | None]] = {
    "transaction-replication-mode": ("trm", "enum:sync,async", "async", None),
    "reject-msg-when-sync-ineligible": ("reject_sync_ineligible", "bool", False, None),
    "queue-max-spool-usage": ("rq_max_spool_mb", "int", 60000, (1, 2000000)),
    "queue-reject-msg-to-sender-on-discard": ("rq_reject_on_discard", "bool", True, None),
    "ack-propagation-enabled": ("ack_prop_enabled", "bool", True, None),
    "ack-propagation-interval": ("ack_interval", "int", 20, (1, 65535)),
    "bridge-auth-scheme": ("bridge_auth_scheme", "enum:basic,client-certificate", "basic", None),
    "bridge-client-username": ("bridge_username", "str", "", None),
    "bridge-password": ("bridge_password_hash", "password", "", None),
    "bridge-compressed-data": ("bridge_compressed", "bool", False, None),
    "bridge-retry-delay": ("bridge_retry_delay", "int", 3, (0, 255)),
    "bridge-ssl": ("bridge_ssl", "bool", False, None),
    "bridge-window-size": ("bridge_window_size", "int", 255, (1, 65535)),
    "bridge-client-profile": ("bridge_client_profile", "str", "#client-profile", None),
}


class ReplicationMixin(EngineBase):
    # ------------------------------------------------------------------ computed state
    def _flags(self, v: Vpn) -> VpnReplicationRow:
        if v.internal:
            return VpnReplicationRow(v.name, *("-" * 8))
        a = "U" if v.repl_enabled else "D"
        c = "A" if v.role == "active" else "S"
        m = "Y" if v.reject_sync_ineligible else "N"
        t = "S" if v.trm == "sync" else "A"
        b = r = q = s = "-"
        if v.repl_enabled:
            if v.role == "standby":
                b = self._local_bridge_flag(v)
            else:
                bound = self._binding(v) is not None
                r = q = "U" if bound else "D"
                if any(t_.mode == "sync" for t_ in self._replicated_topics(v)):
                    s = "Y" if self._sync_eligible(v) else "N"
        return VpnReplicationRow(v.name, a, c, b, r, q, s, m, t)

    def _local_bridge_flag(self, v: Vpn) -> str:
        mate = self._mate(v)
        if mate is None:
            return "D"
        bound = self._binding(mate)
        if bound is v or (bound is not None and bound.id == v.id):
            return "U"
        mr, vr = self._router_of(mate), self._router_of(v)
        if not (mr.up and vr.up and self._sites_linked(mr, vr)) or not mate.repl_enabled:
            return "D"
        return "Q"

    @staticmethod
    def _catchup_key(v: Vpn) -> str:
        return f"sync-catchup:{v.id}"

    def _sync_eligible(self, v: Vpn) -> bool | None:
        """None when not applicable (not an enabled active VPN); else bound and caught up (see
        the module docstring)."""
        if v.internal or not v.repl_enabled or v.role != "active":
            return None
        if self._binding(v) is None:
            return False
        mark = self.s.get(Meta, self._catchup_key(v))
        if mark is None:
            return True
        if mark.value == "pending":
            return not self._has_entries(v)
        return not self._scalar("SELECT 1 FROM repl_entry WHERE vpn_id=:v AND seq<=:u LIMIT 1",
                                {"v": v.id, "u": int(mark.value)})

    def _track_catchup(self, v: Vpn) -> None:
        """Maintain the sync catch-up mark of an enabled active VPN: "pending" while its queue is
        not bound; on binding, the backlog's last seq (none: caught up); gone once applied."""
        key = self._catchup_key(v)
        mark = self.s.get(Meta, key)
        if v.internal or not v.repl_enabled or v.role != "active":
            if mark is not None:
                self.s.delete(mark)
            return
        if self._binding(v) is None:
            if mark is None:
                self.s.add(Meta(key=key, value="pending"))
            else:
                mark.value = "pending"
            return
        if mark is None:
            return
        if mark.value == "pending":
            upto = self._scalar("SELECT MAX(seq) FROM repl_entry WHERE vpn_id=:v", {"v": v.id})
            if upto is None:
                self.s.delete(mark)
            else:
                mark.value = str(upto)
        elif self._sync_eligible(v):
            self.s.delete(mark)

    def _refresh(self) -> None:
        """Recompute derived bookkeeping after a change: bridge uptime start, sync catch-up,
        sync-eligibility transitions (counted as "Transitions To Ineligible")."""
        now = self.now_ms()
        for v in self.topo.user_vpns:
            self._track_catchup(v)
            if v.role == "standby" and v.repl_enabled:
                mate = self._mate(v)
                bound = mate is not None and (b := self._binding(mate)) is not None and b.id == v.id
            else:
                bound = False
            if bound and v.bridge_up_since_ms is None:
                v.bridge_up_since_ms = now
            elif not bound:
                v.bridge_up_since_ms = None
            eligible = bool(self._sync_eligible(v))
            if v.sync_eligible and not eligible:
                v.st_to_ineligible += 1
            v.sync_eligible = eligible
        self.s.flush()

    # ------------------------------------------------------------------ views
    def vpn_names(self, router: str) -> list[str]:
        """Completion: VPN names on a router (internal ones included), '#' names first."""
        try:
            r = self._router(router)
        except EngineError:
            return []
        return [v.name for v in self._vpns(r)]

    def vpn_replication(self, router: str, pattern: str = "*") -> list[VpnReplicationRow]:
        r = self._router(router, must_be_up=True)
        return [self._flags(v) for v in self._vpns(r, pattern)]

    def vpn_replication_detail(self, router: str, vpn: str) -> VpnReplicationDetail:
        r = self._router(router, must_be_up=True)
        v = self._vpn(r, vpn)
        f = self._flags(v)
        rq = self._repl_queue(v)
        mate = self._mate(v)
        bridge_state = {"U": "Up", "Q": "Queue Unbound", "D": "Down", "-": "N/A"}[f.b]
        remote_state = {"U": "Up", "D": "Down", "-": "N/A"}[f.r]
        eligible = self._sync_eligible(v)
        reason = ""
        if eligible is False:
            reason = "Remote bridge down" if self._binding(v) is None else "Standby catching up"
        return VpnReplicationDetail(
            name=v.name, router=r.name, flags=f, admin_enabled=v.repl_enabled, role=v.role,
            local_bridge_name=REPL_BRIDGE, local_bridge_state=bridge_state,
            local_bridge_queue_bound=f.b == "U",
            remote_bridge_name=REPL_BRIDGE, remote_bridge_state=remote_state,
            queue_name=REPL_QUEUE, queue_state={"U": "Up", "D": "Down", "-": "N/A"}[f.q],
            queue_max_spool_mb=v.rq_max_spool_mb,
            queue_reject_msg_to_sender_on_discard=v.rq_reject_on_discard,
            queue_messages_spooled=rq.msg_count if rq else 0,
            queue_usage_mb=(rq.bytes / MB) if rq else 0.0,
            reject_msg_when_sync_ineligible=v.reject_sync_ineligible,
            sync_eligible=eligible, sync_ineligible_reason=reason,
            transaction_replication_mode=v.trm,
            ack_propagation_enabled=v.ack_prop_enabled, ack_propagation_interval=v.ack_interval,
            bridge_auth_scheme=v.bridge_auth_scheme, bridge_client_username=v.bridge_username,
            bridge_password_configured=bool(v.bridge_password_hash),
            bridge_compressed=v.bridge_compressed, bridge_ssl=v.bridge_ssl,
            bridge_retry_delay=v.bridge_retry_delay, bridge_window_size=v.bridge_window_size,
            bridge_client_profile=v.bridge_client_profile,
            mate_router=self._router_of(mate).name if mate else None,
            replicated_topics=tuple(ReplicatedTopicInfo(t.topic, t.mode) for t in self._replicated_topics(v)),
        )

    def _stats_of(self, scope: str, vpns: list[Vpn]) -> ReplicationStats:
        def tot(attr: str) -> int:
            return sum(getattr(v, attr) for v in vpns)

        return ReplicationStats(
            scope=scope,
            sync_msgs_queued_to_standby=tot("st_sync_queued"),
            sync_msgs_queued_to_standby_as_async=tot("st_sync_as_async"),
            async_msgs_queued_to_standby=tot("st_async_queued"),
            promoted_msgs_queued_to_standby=tot("st_promoted_queued"),
            pruned_locally_consumed_msgs=tot("st_pruned"),
            transitions_to_ineligible=tot("st_to_ineligible"),
            ack_msgs_sent_to_standby=tot("st_acks_sent"),
            msgs_received_from_active=tot("st_msgs_received"),
            ack_msgs_received_from_active=tot("st_acks_received"),
            transactions_received_from_active=tot("st_tx_received"),
            rejected_repl_queue_full=tot("st_rejected_full"),
            rejected_sync_ineligible=tot("st_rejected_sync"),
            not_replicated=tot("st_not_replicated"),
        )

    def replication_stats(self, router: str, vpn: str | None = None) -> ReplicationStats:
        r = self._router(router, must_be_up=True)
        if vpn is None:
            return self._stats_of(r.name, [v for v in self._vpns(r) if not v.internal])
        return self._stats_of(vpn, [self._vpn(r, vpn)])

    def system_replication(self, router: str) -> SystemReplication:
        r = self._router(router, must_be_up=True)
        mate_up = False
        if r.mate_name.startswith("v:"):
            mate = self.topo.router_by_name.get(r.mate_name[2:])
            mate_up = mate is not None and mate.up and self._sites_linked(r, mate)
        return SystemReplication(
            router=r.name, interface=r.repl_interface, mate_virtual_router_name=r.mate_name,
            connect_via=r.connect_via, port_plain=r.port_plain,
            port_compressed=r.port_compressed, port_ssl=r.port_ssl,
            config_sync_bridge_admin="Enabled",
            config_sync_bridge_state="up" if mate_up else "down",
            stats=self.replication_stats(router),
        )

    def bridges(self, router: str, pattern: str = "*", vpn: str | None = None) -> list[BridgeInfo]:
        """Replication bridges: one per replication-enabled standby VPN on the router."""
        r = self._router(router, must_be_up=True)
        out: list[BridgeInfo] = []
        if not name_matches(pattern, REPL_BRIDGE):
            return out
        now = self.now_ms()
        for v in self._vpns(r, vpn):
            if v.internal or not v.repl_enabled or v.role != "standby":
                continue
            mate = self._mate(v)
            flag = self._local_bridge_flag(v)
            bound = flag == "U"
            out.append(BridgeInfo(
                name=REPL_BRIDGE, vpn=v.name, router=r.name, admin_state="Enabled",
                connection_establisher="Local",
                inbound_state=("Ready-InSync" if bound else ("Ready-Connecting" if flag == "Q" else "Down")),
                outbound_state="NotApplicable",
                queue_state="Bound" if bound else "Unbound",
                queue_bind_state="Up" if bound else "Down",
                queue_name=REPL_QUEUE, remote_vpn=v.name,
                remote_router=f"v:{self._router_of(mate).name}" if mate else "",
                uptime_s=(now - v.bridge_up_since_ms) // 1000 if bound and v.bridge_up_since_ms is not None else 0,
                redundancy="A", ssl=v.bridge_ssl, compressed=v.bridge_compressed,
            ))
        return out

    # ------------------------------------------------------------------ configuration
    def set_replication_role(self, router: str, vpn: str, role: str) -> None:
        """`replication state active|standby`. Going standby disconnects the VPN's clients on
        this router (they follow their host lists on the next advance/publish/consume)."""
        if role not in ("active", "standby"):
            raise EngineError("invalid_value", name="state", value=role, allowed="active|standby")
        v = self._vpn_rw(router, vpn)
        if v.role == role:
            return
        v.role = role
        v.role_since_ms = self.now_ms()
        if role == "standby" and v.repl_enabled:
            self._disconnect_vpn_clients(v, "replication state standby")
            # giving up activity sends the acks still waiting for a batch (a controlled
            # failover loses none of them; lab choice, docs/lab.md "Failover semantics")
            if v.ack_prop_enabled:
                v.st_acks_sent += self._take_pending_acks(v)
        self._refresh()

    def set_replication_enabled(self, router: str, vpn: str, enabled: bool,
                                queue_behaviour: str = "fail-on-existing-queue") -> None:
        """`[no] replication shutdown [force-use-existing-queue | force-recreate-queue]`.

        Enabling with entries left in the replication queue: fail-on-existing-queue (default)
        refuses with ``replication_queue_exists``; force-use-existing-queue keeps them;
        force-recreate-queue discards them (those messages are then never replicated)."""
        if queue_behaviour not in QUEUE_BEHAVIOURS:
            raise EngineError("invalid_value", name="queue-behaviour", value=queue_behaviour,
                              allowed="|".join(QUEUE_BEHAVIOURS))
        v = self._vpn_rw(router, vpn)
        if v.repl_enabled == enabled:
            return
        if enabled:
            rq = self._repl_queue(v)
            if self._has_entries(v):
                if queue_behaviour == "fail-on-existing-queue":
                    raise EngineError("replication_queue_exists", vpn=v.name,
                                      messages=rq.msg_count if rq else 0)
                if queue_behaviour == "force-recreate-queue":
                    self._purge_stream(v, "replication queue recreated")
            v.repl_enabled = True
            if v.role == "standby":
                self._disconnect_vpn_clients(v, "replication enabled in standby state")
        else:
            v.repl_enabled = False
        self._refresh()

    def set_replication_option(self, router: str, vpn: str, option: str, value: Any = None) -> None:
        """Set one replication setting by CLI-ish name (see REPLICATION_OPTIONS); value None
        restores the default (the `no ...` form)."""
        if option not in REPLICATION_OPTIONS:
            raise EngineError("unknown_option", option=option)
        attr = REPLICATION_OPTIONS[option][0]
        v = self._vpn_rw(router, vpn)
        value = coerce_option(option, REPLICATION_OPTIONS[option], value, salt_context=v.name)
        setattr(v, attr, value)
        if attr == "rq_max_spool_mb":
            rq = self._repl_queue(v)
            if rq is not None:
                rq.max_spool_mb = value
        self._refresh()

    def create_replicated_topic(self, router: str, vpn: str, topic: str, mode: str = "async") -> None:
        """Config-synced: applied to the VPN on every router of its replication group."""
        v = self._vpn_rw(router, vpn)
        self._check_mode(mode)
        if not topic or " " in topic:
            raise EngineError("invalid_topic", topic=topic)
        if any(t.topic == topic for t in self._replicated_topics(v)):
            raise EngineError("replicated_topic_exists", topic=topic, vpn=vpn)
        for m in self._group_members(v):
            if not any(t.topic == topic for t in self._replicated_topics(m)):
                self.s.add(ReplicatedTopic(vpn_id=m.id, topic=topic, mode=mode))
        self.s.flush()
        self._refresh()

    def delete_replicated_topic(self, router: str, vpn: str, topic: str) -> None:
        v = self._vpn_rw(router, vpn)
        if not any(t.topic == topic for t in self._replicated_topics(v)):
            raise EngineError("replicated_topic_not_found", topic=topic, vpn=vpn)
        for m in self._group_members(v):
            for t in self._replicated_topics(m):
                if t.topic == topic:
                    self.s.delete(t)
        self.s.flush()
        self._refresh()

    def set_replicated_topic_mode(self, router: str, vpn: str, topic: str, mode: str) -> None:
        v = self._vpn_rw(router, vpn)
        self._check_mode(mode)
        if not any(t.topic == topic for t in self._replicated_topics(v)):
            raise EngineError("replicated_topic_not_found", topic=topic, vpn=vpn)
        for m in self._group_members(v):
            for t in self._replicated_topics(m):
                if t.topic == topic:
                    t.mode = mode
        self._refresh()

    def set_replication_mate(self, router: str, option: str, value: str | None = None) -> None:
        """`[no] replication mate virtual-router-name <v:name>` / `connect-via <addr>` (option
        "virtual-router-name" | "connect-via"; None clears it). Refused with
        ``replication_not_shutdown`` unless replication is shut down on every Message VPN of the
        router (reference 3.3). Only stored (show replication, current-config): which VPN
        replicates with which is the scenario's replication groups."""
        if option not in ("virtual-router-name", "connect-via"):
            raise EngineError("unknown_option", option=option)
        r = self._router(router, must_be_up=True)
        if (value or "") == (r.mate_name if option == "virtual-router-name" else r.connect_via):
            return  # unchanged: a replayed configuration script re-states it
        enabled = [v.name for v in self._vpns(r) if not v.internal and v.repl_enabled]
        if enabled:
            raise EngineError("replication_not_shutdown", router=r.name, vpns=", ".join(enabled))
        value = value or ""
        if option == "virtual-router-name":
            if value and not _VIRTUAL_ROUTER_NAME.match(value):
                raise EngineError("invalid_value", name=option, value=value,
                                  allowed="v:<name>, up to 66 characters of 0-9 A-Z a-z _ . - "
                                          "not starting or ending with _ . -")
            r.mate_name = value
        else:
            if " " in value:
                raise EngineError("invalid_value", name=option, value=value, allowed="host or host:port")
            r.connect_via = value
        self._refresh()

    def replicated_topics(self, router: str, vpn: str) -> list[ReplicatedTopicInfo]:
        v = self._vpn(self._router(router), vpn)
        return [ReplicatedTopicInfo(t.topic, t.mode) for t in self._replicated_topics(v)]

    @staticmethod
    def _check_mode(mode: str) -> None:
        if mode not in ("sync", "async"):
            raise EngineError("invalid_value", name="replication-mode", value=mode, allowed="sync|async")

    # ------------------------------------------------------------------ replication stream
    def _replication_mode(self, v: Vpn, topic: str) -> str | None:
        """'sync'/'async' when ``topic`` is replicated in ``v`` (sync wins), else None."""
        modes = [t.mode for t in self._replicated_topics(v) if any_matches([t.topic], topic)]
        if not modes:
            return None
        return "sync" if "sync" in modes else "async"

    def _purge_stream(self, v: Vpn, note: str) -> int:
        """Drop every entry of v's replication stream; the messages are never replicated."""
        self._sql(
            "UPDATE message SET replicated=0, note=:n WHERE id IN "
            "(SELECT message_id FROM repl_entry WHERE vpn_id=:v AND kind='msg')",
            {"v": v.id, "n": note})
        n = int(self._sql("DELETE FROM repl_entry WHERE vpn_id=:v", {"v": v.id}).rowcount)
        rq = self._repl_queue(v)
        if rq is not None:
            rq.msg_count = 0
            rq.bytes = 0
        return n

    def _append_tx_entry(self, v: Vpn, payload: dict[str, Any]) -> None:
        self._sql(
            "INSERT INTO repl_entry (vpn_id, kind, payload, size, queued_ms) "
            "VALUES (:v, 'tx', :p, 0, :now)",
            {"v": v.id, "p": json.dumps(payload, sort_keys=True), "now": self.now_ms()})

    def _drain(self, holder: Vpn, limit: int | None = None, upto_seq: int | None = None) -> int:
        """Apply the first ``limit`` entries (or all up to ``upto_seq``) of holder's stream on
        the bound standby. Returns how many entries were applied."""
        receiver = self._binding(holder)
        if receiver is None or limit == 0:
            return 0
        if upto_seq is None:
            if limit is None:
                upto = self._scalar("SELECT MAX(seq) FROM repl_entry WHERE vpn_id=:h", {"h": holder.id})
            else:
                upto = self._scalar(
                    "SELECT seq FROM repl_entry WHERE vpn_id=:h ORDER BY seq LIMIT 1 OFFSET :o",
                    {"h": holder.id, "o": limit - 1})
                if upto is None:
                    upto = self._scalar("SELECT MAX(seq) FROM repl_entry WHERE vpn_id=:h", {"h": holder.id})
        else:
            upto = upto_seq
        if upto is None:
            return 0
        p = {"h": holder.id, "u": upto, "r": receiver.id}
        now = self.now_ms()
        rrouter = self._router_of(receiver)
        # (a) messages, grouped by topic (one matching computation per topic)
        stats = self._sql(
            "SELECT topic, COUNT(*), COALESCE(SUM(size),0), MIN(seq), MAX(seq) FROM repl_entry "
            "WHERE vpn_id=:h AND kind='msg' AND seq<=:u GROUP BY topic", p).all()
        nmsgs = sum(row[1] for row in stats)
        if stats:
            seq_min = min(row[3] for row in stats)
            seq_max = max(row[4] for row in stats)
            base = rrouter.next_msg_id
            rrouter.next_msg_id = base + (seq_max - seq_min + 1)
            for topic, cnt, nbytes, _, _ in stats:
                for q in self._matching_queues(receiver, topic):
                    self._sql(
                        "INSERT INTO spooled (queue_id, message_id, msg_id, spooled_ms, size) "
                        "SELECT :q, message_id, :base + (seq - :smin), :now, size FROM repl_entry "
                        "WHERE vpn_id=:h AND kind='msg' AND seq<=:u AND topic=:t ORDER BY seq",
                        {**p, "q": q.id, "base": base, "smin": seq_min, "now": now, "t": topic})
                    self._adjust_queue(q, cnt, nbytes)
            rq = self._repl_queue(holder)
            if rq is not None:
                self._adjust_queue(rq, -nmsgs, -sum(row[2] for row in stats))
            receiver.st_msgs_received += nmsgs
        # (b) acks: remove the consumed copies on the standby
        nacks = self._scalar(
            "SELECT COUNT(*) FROM repl_entry WHERE vpn_id=:h AND kind='ack' AND seq<=:u", p) or 0
        if nacks:
            sel = ("SELECT s.id FROM repl_entry e JOIN queue q ON q.vpn_id=:r AND q.name=e.queue_name "
                   "JOIN spooled s ON s.queue_id=q.id AND s.message_id=e.message_id "
                   "WHERE e.vpn_id=:h AND e.kind='ack' AND e.seq<=:u")
            for qid, cnt, nbytes in self._sql(
                    f"SELECT queue_id, COUNT(*), COALESCE(SUM(size),0) FROM spooled WHERE id IN ({sel}) "
                    "GROUP BY queue_id", p).all():
                self._adjust_queue(self.s.get(Queue, qid), -cnt, -nbytes)  # type: ignore[arg-type]
            self._sql(f"DELETE FROM spooled WHERE id IN ({sel})", p)
            receiver.st_acks_received += nacks
        # (c) transaction states, in order
        for (payload,) in self._sql(
                "SELECT payload FROM repl_entry WHERE vpn_id=:h AND kind='tx' AND seq<=:u ORDER BY seq",
                p).all():
            self._apply_tx_mirror(receiver, json.loads(payload))
            receiver.st_tx_received += 1
        n = int(self._sql("DELETE FROM repl_entry WHERE vpn_id=:h AND seq<=:u", p).rowcount)
        self.s.flush()
        return n

    def _apply_tx_mirror(self, receiver: Vpn, pl: dict[str, Any]) -> None:
        """Mirror an XA transaction state on the standby (XA Active is never sent).

        Rule (seed 000 step 4, "there may be some prepared transactions on the formerly active
        site that need to be heuristically committed or rolled back"): replicated states and
        ends only ever touch the receiver's *mirror* of the branch. A branch the receiver holds
        as its own (it was the active site when the branch was prepared, or an operator
        completed it heuristically there) is left alone whatever the transaction manager does
        with the copy on the new active site; only a heuristic action and delete-transaction on
        that site end it (steps 4 and 6)."""
        existing = self.s.scalars(select(Txn).where(
            Txn.vpn_id == receiver.id, Txn.xid == pl["xid"], Txn.kind == "xa")).first()
        if existing is not None and not existing.mirror:
            return
        if pl.get("end"):
            if existing is not None:
                self._sql("DELETE FROM txn_op WHERE txn_id=:t", {"t": existing.id})
                self.s.delete(existing)
            return
        if existing is None:
            existing = Txn(router_id=receiver.router_id, vpn_id=receiver.id, kind="xa", xid=pl["xid"],
                           client_name=pl["client"], client_username=pl["username"],
                           client_num=pl["num"], state=pl["state"], replicated=True, mirror=True,
                           last_change_ms=self.now_ms())
            self.s.add(existing)
            self.s.flush()
        else:
            existing.state = pl["state"]
            existing.last_change_ms = self.now_ms()
            self._sql("DELETE FROM txn_op WHERE txn_id=:t", {"t": existing.id})
        for op in pl["ops"]:
            self.s.add(TxnOp(txn_id=existing.id, **op))
        self.s.flush()

    def _matching_queues(self, v: Vpn, topic: str) -> list[Queue]:
        """Normal queues of v whose subscriptions match and whose ingress is up."""
        rows = self._sql(
            "SELECT q.id, s.topic FROM queue q JOIN subscription s ON s.queue_id=q.id "
            "WHERE q.vpn_id=:v AND q.kind='normal' AND q.ingress_up=1 AND q.shutdown=0",
            {"v": v.id}).all()
        ids = sorted({qid for qid, sub in rows if any_matches([sub], topic)})
        return [self.s.get(Queue, i) for i in ids]  # type: ignore[misc]

    def _wildcard_vpns(self, r: Router, pattern: str | None) -> list[Vpn]:
        if pattern is not None and not has_wildcard(pattern):
            return [self._vpn(r, pattern)]
        return self._vpns(r, pattern)
