"""Message-VPN replication: its computed state, configuration, and draining the replication stream.

Why: what `show message-vpn X replication` shows must always follow from state (role, admin state,
routers, link, bridge binding), never from stored values; and the drain (the standby's bridge
pulling the active's #MSGVPN_REPLICATION_DATA_QUEUE) walks the VPN's stream in seq order
(``BrokerState.repl_by_vpn``) touching only the entries it applies, so a million entries drain
in seconds.

State rules (reference 3.5, INFER parts decided here; the renderer prints them as the flags
A C B R Q S M T):
  A  replication enabled or shut down              C  role active or standby
  B  standby only: bound to the mate's queue; "queue unbound" when the mate is reachable but
     has no queue to bind (mate not active and nothing left to drain); down when the mate
     router/link is down. N/A when active or shut down
  R  active only: up when the mate's bridge is bound, else down
  Q  active only: up when the replication queue is bound by the mate's bridge, else down
     (seed: active+bound = 'U U'; Layout B `default` active+unbound = 'D D')
  S  N/A unless enabled, active and the VPN has at least one *sync* replicated topic; then
     eligible or not (sync transactions, T=S, use the same eligibility without showing it).
     With async-only topics it stays N/A (seed row `U A - U U - N A`), and Layout B's
     `U A - D D N Y A` is a VPN with sync topics whose bridge is down.
  M  reject-msg-when-sync-ineligible               T  transaction-replication-mode
  Shut down: B R Q S are N/A. The internal #config-sync VPN shows N/A everywhere.

Sync eligibility (issue 13 item 5): eligible when the mate's bridge is bound AND the standby has
caught up. When the bridge unbinds (link or mate down) the VPN becomes ineligible ("Transitions
To Ineligible"); when it binds again, everything then waiting on the replication queue is the
backlog, and the VPN stays ineligible until the standby has applied it (``st.meta`` key
``sync-catchup:<vpn id>``: "pending" while unbound, then the last stream seq of the backlog).
Meanwhile sync topics go to the queue as async (or are rejected with
reject-msg-when-sync-ineligible), as a broker does until its standby is in sync again.

Drain rate: lab setting ``replication_drain_rate`` (stream entries per simulated second, default
1000). Entries are messages, acks and transaction states; only messages count as "Current
Messages Spooled" of the replication queue.
"""

from __future__ import annotations

import json
import re
from contextlib import nullcontext
from typing import Any, cast

from ..errors import EngineError
from ..kernel.ranges import normalize
from ..lab_root.bulk import bulk
from . import leaves
from .lookups import MB, REPL_BRIDGE, REPL_QUEUE
from .records import Queue, ReplEntry, ReplicatedTopic, Router, Spooled, Txn, TxnOp, Vpn
from .service import Service
from .topics import has_wildcard, name_matches, topic_matches
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

REPLICATION_OPTIONS = leaves.of("replication")  # the VPN's replication settings (grammar/data/leaves.yaml)

# the local bridge of a standby VPN (rule B of the module docstring)
BRIDGE_UP, BRIDGE_UNBOUND, BRIDGE_DOWN = "up", "queue-unbound", "down"
SPOOL_OVER_QUOTA = "spool over quota"  # the ledger note messaging gives a message no queue kept
# a drain of at least this many entries pauses the cyclic collector (state.bulk): below it, the
# collection deferred to the end costs more than the pause saves
BULK_ENTRIES = 10_000


def _catchup_key(v: Vpn) -> str:
    return f"sync-catchup:{v.id}"


def _check_mode(mode: str) -> None:
    if mode not in ("sync", "async"):
        raise EngineError("invalid_value", name="replication-mode", value=mode, allowed="sync|async")


def _queue_id(q: Queue) -> int:
    return q.id


class ReplicationService(Service):
    # ------------------------------------------------------------------ computed state
    def _row(self, v: Vpn) -> VpnReplicationRow:
        """The state of rules A..T (module docstring) for one VPN."""
        local_bridge: str | None = None
        remote_bridge_up: bool | None = None
        sync_eligible: bool | None = None
        if v.repl_enabled and not v.internal:
            if v.role == "standby":
                local_bridge = self._local_bridge(v)
            else:
                remote_bridge_up = self.lk.binding(v) is not None
                if self._has_sync_topic(v):
                    sync_eligible = bool(self.sync_eligible(v))
        return VpnReplicationRow(
            name=v.name, internal=v.internal, admin_enabled=v.repl_enabled, role=v.role,
            local_bridge=local_bridge, remote_bridge_up=remote_bridge_up, queue_bound=remote_bridge_up,
            sync_eligible=sync_eligible, reject_sync_ineligible=v.reject_sync_ineligible, trm=v.trm,
            vpn_enabled=v.enabled)

    def _has_sync_topic(self, v: Vpn) -> bool:
        return any(t.mode == "sync" for t in self.st.topics_by_vpn.get(v.id, {}).values())

    def _local_bridge(self, v: Vpn) -> str:
        """BRIDGE_UP / BRIDGE_UNBOUND / BRIDGE_DOWN for the bridge of ``v`` (a standby)."""
        mate = self.lk.mate(v)
        if mate is None:
            return BRIDGE_DOWN
        if self.lk.binding(mate) is v:
            return BRIDGE_UP
        mr, vr = self.lk.router_of(mate), self.lk.router_of(v)
        if not (mr.up and vr.up and self.lk.sites_linked(mr, vr)) or not mate.repl_enabled:
            return BRIDGE_DOWN
        return BRIDGE_UNBOUND

    def sync_eligible(self, v: Vpn) -> bool | None:
        """None when not applicable (not an enabled active VPN); else bound and caught up (see
        the module docstring)."""
        if v.internal or not v.repl_enabled or v.role != "active":
            return None
        return self._eligible(v, self.lk.binding(v))

    def _track_catchup(self, v: Vpn, bound_to: Vpn | None) -> None:
        """Maintain the sync catch-up mark of an enabled active VPN: "pending" while its queue is
        not bound; on binding, the backlog's last seq (none: caught up); gone once applied.
        ``bound_to`` is ``lk.binding(v)``."""
        key = _catchup_key(v)
        meta = self.st.meta
        if v.internal or not v.repl_enabled or v.role != "active":
            meta.pop(key, None)
            return
        if bound_to is None:
            meta[key] = "pending"
            return
        mark = meta.get(key)
        if mark is None:
            return
        if mark == "pending":
            stream = self.st.repl_by_vpn.get(v.id)
            if stream:
                last = stream.by_start[stream.starts[-1]]
                meta[key] = str(last.seq + last.count - 1)
            else:
                del meta[key]
        elif self._eligible(v, bound_to):
            del meta[key]

    def _eligible(self, v: Vpn, bound_to: Vpn | None) -> bool | None:
        """``sync_eligible(v)`` with ``bound_to`` = ``lk.binding(v)`` already known."""
        if v.internal or not v.repl_enabled or v.role != "active":
            return None
        if bound_to is None:
            return False
        mark = self.st.meta.get(_catchup_key(v))
        if mark is None:
            return True
        stream = self.st.repl_by_vpn.get(v.id)
        if not stream:
            return True
        if mark == "pending":
            return False
        return stream.starts[0] > int(mark)  # the stream is in seq order: its first entry decides

    def refresh(self) -> None:
        """Recompute derived bookkeeping after a change: bridge uptime start, sync catch-up,
        sync-eligibility transitions (counted as "Transitions To Ineligible").

        Each VPN's binding is looked up once: nothing this loop changes (catch-up marks, bridge
        times, eligibility counters) is something a binding depends on."""
        lk = self.lk
        now = lk.now_ms()
        vpns = lk.user_vpns()
        # holder id -> lk.binding(holder) (None unless replication is enabled on the holder)
        bindings = {v.id: lk.binding(v) for v in vpns if v.repl_enabled}
        for v in vpns:
            bound_to = bindings[v.id] if v.repl_enabled and v.role == "active" else None
            self._track_catchup(v, bound_to)
            if v.role == "standby" and v.repl_enabled:
                mate = lk.mate(v)
                bound = mate is not None and bindings.get(mate.id) is v
            else:
                bound = False
            if bound and v.bridge_up_since_ms is None:
                v.bridge_up_since_ms = now
            elif not bound:
                v.bridge_up_since_ms = None
            eligible = bool(self._eligible(v, bound_to))
            if v.sync_eligible and not eligible:
                v.st_to_ineligible += 1
            v.sync_eligible = eligible

    # ------------------------------------------------------------------ views
    def vpn_names(self, router: str) -> list[str]:
        """Completion: VPN names on a router (internal ones included), '#' names first."""
        try:
            r = self.lk.router(router)
        except EngineError:
            return []
        return [v.name for v in self.lk.vpns(r)]

    def vpn_replication(self, router: str, pattern: str = "*") -> list[VpnReplicationRow]:
        r = self.lk.router(router, must_be_up=True)
        return [self._row(v) for v in self.lk.vpns(r, pattern)]

    def vpn_replication_detail(self, router: str, vpn: str) -> VpnReplicationDetail:
        r = self.lk.router(router, must_be_up=True)
        v = self.lk.vpn(r, vpn)
        f = self._row(v)
        rq = self.lk.repl_queue(v)
        mate = self.lk.mate(v)
        eligible = self.sync_eligible(v)
        reason: str | None = None
        if eligible is False:
            reason = "remote-bridge-down" if self.lk.binding(v) is None else "standby-catching-up"
        return VpnReplicationDetail(
            name=v.name, router=r.name, flags=f, admin_enabled=v.repl_enabled, role=v.role,
            local_bridge_name=REPL_BRIDGE, remote_bridge_name=REPL_BRIDGE, queue_name=REPL_QUEUE,
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
            mate_router=self.lk.router_of(mate).name if mate else None,
            replicated_topics=tuple(ReplicatedTopicInfo(t.topic, t.mode) for t in self.lk.replicated_topics(v)),
        )

    @staticmethod
    def _stats_of(scope: str, vpns: list[Vpn]) -> ReplicationStats:
        def tot(attr: str) -> int:
            return sum(int(getattr(v, attr)) for v in vpns)

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
        r = self.lk.router(router, must_be_up=True)
        if vpn is None:
            return self._stats_of(r.name, [v for v in self.lk.vpns(r) if not v.internal])
        return self._stats_of(vpn, [self.lk.vpn(r, vpn)])

    def system_replication(self, router: str) -> SystemReplication:
        r = self.lk.router(router, must_be_up=True)
        mate_up = False
        if r.mate_name.startswith("v:"):
            mate = self.st.router_by_name.get(r.mate_name[2:])
            mate_up = mate is not None and mate.up and self.lk.sites_linked(r, mate)
        return SystemReplication(
            router=r.name, interface=r.repl_interface, mate_virtual_router_name=r.mate_name,
            connect_via=r.connect_via, port_plain=r.port_plain,
            port_compressed=r.port_compressed, port_ssl=r.port_ssl,
            config_sync_bridge_up=mate_up,
            stats=self.replication_stats(router),
        )

    def bridges(self, router: str, pattern: str = "*", vpn: str | None = None) -> list[BridgeInfo]:
        """Replication bridges: one per replication-enabled standby VPN on the router."""
        r = self.lk.router(router, must_be_up=True)
        out: list[BridgeInfo] = []
        if not name_matches(pattern, REPL_BRIDGE):
            return out
        now = self.lk.now_ms()
        for v in self.lk.vpns(r, vpn):
            if v.internal or not v.repl_enabled or v.role != "standby":
                continue
            mate = self.lk.mate(v)
            state = self._local_bridge(v)
            bound = state == BRIDGE_UP
            out.append(BridgeInfo(
                name=REPL_BRIDGE, vpn=v.name, router=r.name, admin_enabled=True, establisher="local",
                local_bridge=state, queue_bound=bound, queue_name=REPL_QUEUE, remote_vpn=v.name,
                remote_router=self.lk.router_of(mate).name if mate else "",
                uptime_ms=now - v.bridge_up_since_ms if bound and v.bridge_up_since_ms is not None else 0,
                redundancy="auto", ssl=v.bridge_ssl, compressed=v.bridge_compressed,
            ))
        return out

    def replicated_topics(self, router: str, vpn: str) -> list[ReplicatedTopicInfo]:
        v = self.lk.vpn(self.lk.router(router), vpn)
        return [ReplicatedTopicInfo(t.topic, t.mode) for t in self.lk.replicated_topics(v)]

    # ------------------------------------------------------------------ configuration
    def set_replication_role(self, router: str, vpn: str, role: str) -> None:
        """`replication state active|standby`. Going standby disconnects the VPN's clients on
        this router (they follow their host lists on the next advance/publish/consume) and ends
        their XA branches that are not PREPARED (rolled back; seed 000, 004)."""
        if role not in ("active", "standby"):
            raise EngineError("invalid_value", name="state", value=role, allowed="active|standby")
        v = self.lk.vpn_rw(router, vpn)
        if v.role == role:
            return
        v.role = role
        v.role_since_ms = self.lk.now_ms()
        if role == "standby" and v.repl_enabled:
            self.sv.clients.disconnect_vpn_clients(v, "replication state standby", end_unprepared=True)
            # giving up activity sends the acks still waiting for a batch (a controlled
            # failover loses none of them; lab choice, docs/lab.md "Failover semantics")
            if v.ack_prop_enabled:
                v.st_acks_sent += self.sv.messaging.take_pending_acks(v)
        self.refresh()

    def set_replication_enabled(self, router: str, vpn: str, enabled: bool,
                                queue_behaviour: str = "fail-on-existing-queue") -> None:
        """`[no] replication shutdown [force-use-existing-queue | force-recreate-queue]`.

        Enabling with entries left in the replication queue: fail-on-existing-queue (default)
        refuses with ``replication_queue_exists``; force-use-existing-queue keeps them;
        force-recreate-queue discards them (those messages are then never replicated)."""
        if queue_behaviour not in QUEUE_BEHAVIOURS:
            raise EngineError("invalid_value", name="queue-behaviour", value=queue_behaviour,
                              allowed="|".join(QUEUE_BEHAVIOURS))
        v = self.lk.vpn_rw(router, vpn)
        if v.repl_enabled == enabled:
            return
        if enabled:
            rq = self.lk.repl_queue(v)
            if self.lk.has_entries(v):
                if queue_behaviour == "fail-on-existing-queue":
                    raise EngineError("replication_queue_exists", vpn=v.name,
                                      messages=rq.msg_count if rq else 0)
                if queue_behaviour == "force-recreate-queue":
                    self._purge_stream(v, "replication queue recreated")
            v.repl_enabled = True
            if v.role == "standby":
                self.sv.clients.disconnect_vpn_clients(v, "replication enabled in standby state",
                                                       end_unprepared=True)
        else:
            v.repl_enabled = False
        self.refresh()

    def set_replication_option(self, router: str, vpn: str, option: str, value: Any = None) -> None:
        """Set one replication setting by CLI-ish name (see REPLICATION_OPTIONS); value None
        restores the default (the `no ...` form)."""
        spec = leaves.leaf("replication", option)
        attr = spec.attr
        v = self.lk.vpn_rw(router, vpn)
        value = leaves.coerce(spec, value)
        setattr(v, attr, value)
        if attr == "rq_max_spool_mb":
            rq = self.lk.repl_queue(v)
            if rq is not None:
                rq.max_spool_mb = value
        self.refresh()

    def _has_topic(self, v: Vpn, topic: str) -> bool:
        return topic in self.st.topics_by_vpn.get(v.id, {})

    def create_replicated_topic(self, router: str, vpn: str, topic: str, mode: str = "async") -> None:
        """Config-synced: applied to the VPN on every router of its replication group."""
        v = self.lk.vpn_rw(router, vpn)
        _check_mode(mode)
        if not topic or " " in topic:
            raise EngineError("invalid_topic", topic=topic)
        if self._has_topic(v, topic):
            raise EngineError("replicated_topic_exists", topic=topic, vpn=vpn)
        for m in self.lk.group_members(v):
            if not self._has_topic(m, topic):
                self.st.add(ReplicatedTopic(vpn_id=m.id, topic=topic, mode=mode))
        self.refresh()

    def delete_replicated_topic(self, router: str, vpn: str, topic: str) -> None:
        v = self.lk.vpn_rw(router, vpn)
        if not self._has_topic(v, topic):
            raise EngineError("replicated_topic_not_found", topic=topic, vpn=vpn)
        for m in self.lk.group_members(v):
            t = self.st.topics_by_vpn.get(m.id, {}).get(topic)
            if t is not None:
                self.st.remove(t)
        self.refresh()

    def set_replicated_topic_mode(self, router: str, vpn: str, topic: str, mode: str) -> None:
        v = self.lk.vpn_rw(router, vpn)
        _check_mode(mode)
        if not self._has_topic(v, topic):
            raise EngineError("replicated_topic_not_found", topic=topic, vpn=vpn)
        for m in self.lk.group_members(v):
            t = self.st.topics_by_vpn.get(m.id, {}).get(topic)
            if t is not None:
                t.mode = mode
        self.refresh()

    def set_replication_mate(self, router: str, option: str, value: str | None = None) -> None:
        """`[no] replication mate virtual-router-name <v:name>` / `connect-via <addr>` (option
        "virtual-router-name" | "connect-via"; None clears it). Refused with
        ``replication_not_shutdown`` unless replication is shut down on every Message VPN of the
        router (reference 3.3). Only stored (show replication, current-config): which VPN
        replicates with which is the scenario's replication groups."""
        if option not in ("virtual-router-name", "connect-via"):
            raise EngineError("unknown_option", option=option)
        r = self.lk.router(router, must_be_up=True)
        if (value or "") == (r.mate_name if option == "virtual-router-name" else r.connect_via):
            return  # unchanged: a replayed configuration script re-states it
        enabled = [v.name for v in self.lk.vpns(r) if not v.internal and v.repl_enabled]
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
        self.refresh()

    # ------------------------------------------------------------------ replication stream
    def replication_mode(self, v: Vpn, topic: str) -> str | None:
        """'sync'/'async' when ``topic`` is replicated in ``v`` (sync wins), else None."""
        mode: str | None = None
        for t in self.st.topics_by_vpn.get(v.id, {}).values():
            if topic_matches(t.topic, topic):
                if t.mode == "sync":
                    return "sync"
                mode = "async"
        return mode

    def _purge_stream(self, v: Vpn, note: str) -> int:
        """Drop every entry of v's replication stream; the messages are never replicated."""
        st = self.st
        stream = st.repl_by_vpn.get(v.id)
        entries = list(stream) if stream is not None else []
        for e in entries:
            if e.kind == "msg" and e.message_id is not None:
                for msg in st.messages_in(e.message_id, e.message_id + e.count):
                    msg.replicated = 0
                    msg.note = note
        st.remove_run(entries)
        rq = self.lk.repl_queue(v)
        if rq is not None:
            rq.msg_count = 0
            rq.bytes = 0
        return sum(e.count for e in entries)

    def append_tx_entry(self, v: Vpn, payload: dict[str, Any]) -> None:
        self.st.add(ReplEntry(vpn_id=v.id, kind="tx", payload=json.dumps(payload, sort_keys=True), size=0,
                              queued_ms=self.lk.now_ms()))

    def drain(self, holder: Vpn, limit: int | None = None, upto_seq: int | None = None) -> int:
        """Apply the first ``limit`` entries (or all up to ``upto_seq``) of holder's stream on
        the bound standby. Returns how many entries were applied.

        The order of effects is the broker's batch: first every message of the batch is spooled
        on the standby (topic by topic, each in stream order; message IDs keep the stream's
        spacing), then the acks remove the consumed copies, then transaction states apply in
        order."""
        receiver = self.lk.binding(holder)
        if receiver is None or limit == 0:
            return 0
        stream = self.st.repl_by_vpn.get(holder.id)
        if not stream:
            return 0
        batch: list[ReplEntry] = []
        if upto_seq is not None:
            for e in stream:
                if e.seq > upto_seq:
                    break
                batch.append(e)
            if batch and batch[-1].seq + batch[-1].count - 1 > upto_seq:
                self.st.head(batch[-1], upto_seq - batch[-1].seq + 1)
        elif limit is not None:
            taken = 0
            for e in stream:
                batch.append(e)
                taken += e.count
                if taken >= limit:
                    break
            if taken > limit:
                self.st.head(batch[-1], batch[-1].count - (taken - limit))
        else:
            batch = list(stream)
        by_topic: dict[str, list[ReplEntry]] = {}
        acks: list[ReplEntry] = []
        txs: list[ReplEntry] = []
        applied = 0
        for e in batch:
            applied += e.count
            if e.kind == "msg":
                by_topic.setdefault(e.topic or "", []).append(e)
            elif e.kind == "ack":
                acks.append(e)
            else:
                txs.append(e)
        with bulk() if len(batch) >= BULK_ENTRIES else nullcontext():
            if by_topic:
                self._apply_messages(holder, receiver, by_topic)
            if acks:
                self._apply_acks(receiver, acks)
            for e in txs:  # transaction states, in order
                self._apply_tx_mirror(receiver, json.loads(e.payload or "{}"))
                receiver.st_tx_received += 1
            self.st.remove_run(batch)
        return applied

    def _apply_messages(self, holder: Vpn, receiver: Vpn, by_topic: dict[str, list[ReplEntry]]) -> None:
        """Spool the batch's messages (grouped by topic: one matching computation per topic) on
        the receiver's matching queues, and take them off the holder's replication queue.

        Each standby queue keeps what fits its max-spool-usage and discards the rest, as the same
        queue does on the active (state_store.solace.messaging); a message every matching standby queue
        discarded gets the ledger note "spool over quota" (lost if the standby takes over)."""
        st, lk = self.st, self.lk
        now = lk.now_ms()
        seq_min = seq_max = -1  # (seqs start at 1)
        for entries in by_topic.values():  # (a loop: every drained batch with messages)
            lo, last = entries[0].seq, entries[-1]
            hi = last.seq + last.count - 1
            if seq_min < 0 or lo < seq_min:
                seq_min = lo
            if hi > seq_max:
                seq_max = hi
        rrouter = lk.router_of(receiver)
        base = rrouter.next_msg_id - seq_min  # a message's ID on the standby: base + its seq
        rrouter.next_msg_id += seq_max - seq_min + 1
        nmsgs = nbytes_all = 0
        for topic in sorted(by_topic):
            entries = by_topic[topic]
            nbytes = 0
            for e in entries:
                nbytes += e.size * e.count
                nmsgs += e.count
            nbytes_all += nbytes
            queues = self.matching_queues(receiver, topic)
            # per entry, the most messages (from its head) any matching queue kept
            most_kept = [0] * len(entries)
            grown: list[tuple[Queue, int, int]] = []
            for q in queues:
                room = max(0, q.max_spool_mb * MB - q.bytes)
                kept_n = kept_bytes = 0
                qid = q.id
                for i, e in enumerate(entries):
                    if nbytes <= room:
                        k = e.count
                    else:  # each message kept while it fits (a run's messages have one size)
                        k = min(e.count, (room - kept_bytes) // e.size) if e.size > 0 else e.count
                    if k:
                        st.add(Spooled(qid, e.message_id or 0, base + e.seq, now, e.size, count=k))
                        kept_n += k
                        kept_bytes += k * e.size
                        if k > most_kept[i]:
                            most_kept[i] = k
                grown.append((q, kept_n, kept_bytes))
            lk.grow_queues(grown)  # (each queue is matched once per topic: its room above is its own)
            if queues:
                for e, k in zip(entries, most_kept, strict=True):
                    if k < e.count and e.message_id is not None:
                        for m in st.messages_in(e.message_id + k, e.message_id + e.count):
                            m.note = SPOOL_OVER_QUOTA if m.note is None else f"{m.note}; {SPOOL_OVER_QUOTA}"
        rq = lk.repl_queue(holder)
        if rq is not None:
            lk.adjust_queue(rq, -nmsgs, -nbytes_all)
        receiver.st_msgs_received += nmsgs

    def _apply_acks(self, receiver: Vpn, acks: list[ReplEntry]) -> None:
        """Remove the copies the acks name (message, queue) from the receiver's queues."""
        st = self.st
        named: dict[int, list[tuple[int, int]]] = {}  # queue id -> acked message ids as ranges
        for e in acks:
            q = self.lk.find_queue(receiver, e.queue_name or "")
            if q is None or e.message_id is None:
                continue
            named.setdefault(q.id, []).append((e.message_id, e.message_id + e.count))
        gone: list[Spooled] = []
        per_queue: dict[int, list[int]] = {}
        for qid in sorted(named):
            runs = st.spooled_by_queue.get(qid)
            if runs is None:
                continue
            tally = [0, 0]
            for a, b in normalize(named[qid]):
                for sp in runs.overlapping(a, b):
                    piece = st.isolate(sp, a, b)
                    if piece is not None:
                        gone.append(cast("Spooled", piece))
                        tally[0] += piece.count
                        tally[1] += piece.count * piece.size
            per_queue[qid] = tally
        for qid in sorted(per_queue):
            cnt, nbytes = per_queue[qid]
            if cnt:
                self.lk.adjust_queue(st.queues[qid], -cnt, -nbytes)
        st.remove_run(gone)
        receiver.st_acks_received += sum(e.count for e in acks)

    def _apply_tx_mirror(self, receiver: Vpn, pl: dict[str, Any]) -> None:
        """Mirror an XA transaction state on the standby (XA Active is never sent).

        Rule (seed 000 step 4, "there may be some prepared transactions on the formerly active
        site that need to be heuristically committed or rolled back"): replicated states and
        ends only ever touch the receiver's *mirror* of the branch. A branch the receiver holds
        as its own (it was the active site when the branch was prepared, or an operator
        completed it heuristically there) is left alone whatever the transaction manager does
        with the copy on the new active site; only a heuristic action and delete-transaction on
        that site end it (steps 4 and 6)."""
        st = self.st
        existing = next((t for t in st.txns.values()
                         if t.vpn_id == receiver.id and t.xid == pl["xid"] and t.kind == "xa"), None)
        if existing is not None and not existing.mirror:
            return
        if pl.get("end"):
            if existing is not None:
                st.remove_all(st.ops_by_txn.get(existing.id, {}).values())
                st.remove(existing)
            return
        if existing is None:
            existing = st.add(Txn(router_id=receiver.router_id, vpn_id=receiver.id, kind="xa", xid=pl["xid"],
                                  client_name=pl["client"], client_username=pl["username"],
                                  client_num=pl["num"], state=pl["state"], replicated=True, mirror=True,
                                  last_change_ms=self.lk.now_ms()))
        else:
            existing.state = pl["state"]
            existing.last_change_ms = self.lk.now_ms()
            st.remove_all(st.ops_by_txn.get(existing.id, {}).values())
        for op in pl["ops"]:
            st.add(TxnOp(txn_id=existing.id, **op))

    def matching_queues(self, v: Vpn, topic: str) -> list[Queue]:
        """Normal queues of v whose subscriptions match and whose ingress is up, by id. (Plain
        loops: it runs for every publish and every topic a standby receives.)"""
        subs = self.st.subs_by_queue
        out = []
        for q in self.st.queues_by_vpn.get(v.id, {}).values():
            if q.kind != "normal" or not q.ingress_up or q.shutdown:
                continue
            for s in subs.get(q.id, ()):
                if topic_matches(s, topic):
                    out.append(q)
                    break
        if len(out) > 1:
            out.sort(key=_queue_id)
        return out

    def wildcard_vpns(self, r: Router, pattern: str | None) -> list[Vpn]:
        if pattern is not None and not has_wildcard(pattern):
            return [self.lk.vpn(r, pattern)]
        return self.lk.vpns(r, pattern)
