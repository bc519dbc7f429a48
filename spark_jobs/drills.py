"""Randomised failover drills as data: `plan_drill(seed, index) -> Drill` is a pure function.

A drill is a list of (target, command) steps for the lab (`lab`, `NY_Appliance1`, `NJ_Appliance1`);
recording it against the engine (spark_jobs.generate) turns it into a golden transcript. Nothing here
imports the emulator, so plans are cheap, testable and stable: drill *i* of seed *s* is the same
whatever `--count` is, on any machine (Random seeded with the string "s:i").

Failover types (the four procedures trainees practise on the two-site lab):
- controlled    planned switch-over with both sites up, every step of the `controlled-failover`
                runbook in order: verify the replication bridge on both sites, switch the active VPN
                to standby, check its replication queue has drained, heuristically complete a prepared
                XA branch on the formerly active site, make the mate active, delete the completed
                branch. Its mistakes leave out or reorder exactly one step.
- uncontrolled  the active site fails: promote the standby site, move clients, audit.
- link-loss     the inter-site link fails: the correct call is to wait/restore the link (both sites
                are up, so promoting the standby splits the brain); watch the replication queue.
- failback      after an uncontrolled failover the original site returns: it must come back as
                standby, then the `failback` runbook moves service home: the bridge verified on both
                sites, NJ to standby, its replication queue seen drained, NY made active.
Each type has operator mistakes (wrong order, wrong router, typos, forgetting `enable`, promoting
during a link loss, ...) drawn with `MISTAKE_RATE`; each is named in the drill's name, in its header
comment (`MISTAKE_TEXT`) and by a comment where it happens, so a grader's verdict can be checked
against it. A share of drills run an XA or local transaction across the failover; the XA branch is
completed with the admin heuristics on the formerly active site (controlled) or on the surviving site.

Command vocabulary lives in `Vocab` so it can follow the grammar as it settles.
"""

from __future__ import annotations

import random
from dataclasses import dataclass, field

VPN = "Trading_VPN"
SITES = {"NY": "NY_Appliance1", "NJ": "NJ_Appliance1"}
LAB = "lab"
COMMENT = "#"  # a step with this target is a comment line in the transcript, not a command
FAILOVER_TYPES = ("controlled", "uncontrolled", "link-loss", "failback")
MISTAKES = {
    "controlled": ("promote-before-demote", "skip-drain-check", "vpn-typo", "forgot-enable"),
    "uncontrolled": ("promote-wrong-router", "consume-before-promote", "forgot-enable", "vpn-typo"),
    "link-loss": ("promote-during-link-loss", "skip-drain-check", "vpn-typo"),
    "failback": ("activate-returning-site", "skip-drain-check", "forgot-enable"),
}
MISTAKE_TEXT = {  # what each mistake does, as the drill's header says it
    "promote-before-demote": "the mate is made active before the active site is switched to standby",
    "skip-drain-check": "the mate is made active without checking that the replication queue has drained",
    "vpn-typo": "a typo in the Message VPN name, then corrected",
    "forgot-enable": "configure typed at the User EXEC prompt, then corrected",
    "promote-wrong-router": "replication state active is sent to the failed router",
    "consume-before-promote": "a client consumes at the standby site before it is active",
    "promote-during-link-loss": "the standby site is made active while the active site is alive (split brain)",
    "activate-returning-site": "the returning site is made active while the other still is",
}
# The runbook a clean drill of a type follows step by step (a failback's, from the moment NY is back)
RUNBOOKS = {"controlled": "controlled-failover", "failback": "failback"}
# The steps at which grading a drill against its type's runbook must fail it, by mistake (one of them
# at least); a drill without a mistake must pass.
RUNBOOK_FAILURES = {"promote-before-demote": ("standby", "activate"), "skip-drain-check": ("drain",)}
MISTAKE_RATE = 0.4
TRANSACTION_RATE = 0.4
CLIENTS = ("trader", "settlement")
TOPICS = ("trading/orders/new", "trading/orders/amend", "trading/orders/cancel")
QUEUE = "orders"
REPLICATION_QUEUE = "#MSGVPN_REPLICATION_DATA_QUEUE"
LOCAL_FAILOVER_SCENARIO = "two-site-ha"  # the lab whose sites are redundancy groups
LOCAL_FAILOVER = "local-failover"  # the part of a drill's name that says it has one

Step = tuple[str, str]


class Vocab:
    """Every command text the generator emits (one place to align with the grammar)."""

    enable = "enable"
    configure = "configure"
    end = "end"
    exit = "exit"
    vpn = staticmethod(lambda vpn=VPN: f"message-vpn {vpn}")
    state = staticmethod(lambda role: f"replication state {role}")
    show_replication = f"show message-vpn {VPN} replication"
    show_replication_queue = f"show queue {REPLICATION_QUEUE} message-vpn {VPN}"
    show_queue = f"show queue {QUEUE} message-vpn {VPN}"
    show_transactions = f"show transaction message-vpn {VPN}"
    show_prepared = f"show transaction message-vpn {VPN} state PREPARED replicated"
    admin = "admin"
    admin_spool = f"message-spool message-vpn {VPN}"
    heuristic = staticmethod(lambda action, xid: f"{action}-transaction xid {xid}")  # commit|rollback|delete
    advance = staticmethod(lambda dur: f"advance {dur}")
    publish = staticmethod(lambda client, topic, count, size=None:
                           f"publish {client} {topic} count {count}" + (f" size {size}" if size else ""))
    consume = staticmethod(lambda client, queue, count: f"consume {client} {queue} count {count}")
    fail_site = staticmethod(lambda site: f"fail site {site}")
    restore_site = staticmethod(lambda site: f"restore site {site}")
    fail_link = "fail link"
    restore_link = "restore link"
    audit = f"audit {VPN}"
    status = "status"
    xa = staticmethod(lambda client, verb, xid: f"transaction xa {verb} {client} {xid}")  # start|end|prepare|...
    local = staticmethod(lambda client, verb: f"transaction local {verb} {client}")      # start|commit|rollback


@dataclass(frozen=True)
class Drill:
    seed: int
    index: int
    kind: str
    mistake: str | None
    transaction: str | None          # "xa", "local" or None
    steps: tuple[Step, ...]
    scenario: str | None = None      # a bundled scenario (None: the default two-site lab)
    system: str = ""                 # the HA system that planned it ("": the lab's own drills)

    @property
    def name(self) -> str:
        parts = [f"drill-{self.seed}-{self.index:06d}", f"{self.system}-{self.kind}" if self.system else self.kind]
        if self.local_failover:
            parts.append(LOCAL_FAILOVER)
        if self.transaction:
            parts.append(f"txn-{self.transaction}")
        if self.mistake:
            parts.append(self.mistake)
        return "_".join(parts)

    def commands(self) -> list[Step]:
        return [s for s in self.steps if s[0] != COMMENT]

    @property
    def local_failover(self) -> bool:
        """One of the lab's own replication drills, run on the redundancy groups' lab with a local failover added."""
        return not self.system and self.scenario == LOCAL_FAILOVER_SCENARIO


@dataclass
class _Router:
    enabled: bool = False
    depth: int = 0   # 0 top, 1 configure, 2 message-vpn


@dataclass
class _Builder:
    rng: random.Random
    steps: list[Step] = field(default_factory=list)
    routers: dict[str, _Router] = field(default_factory=lambda: {r: _Router() for r in SITES.values()})

    def say(self, text: str) -> None:
        self.steps.append((COMMENT, text))

    def run(self, target: str, command: str) -> None:
        self.steps.append((target, command))

    def lab(self, command: str) -> None:
        self.run(LAB, command)

    def wait(self) -> None:
        self.lab(Vocab.advance(self.rng.choice(("1s", "5s", "10s", "30s", "1m"))))

    def show(self, router: str, command: str) -> None:
        self.enable(router)
        self.run(router, command)

    def enable(self, router: str) -> None:
        if not self.routers[router].enabled:
            self.run(router, Vocab.enable)
            self.routers[router].enabled = True

    def to_vpn(self, router: str, vpn: str = VPN) -> None:
        self.enable(router)
        state = self.routers[router]
        if state.depth == 2:
            return
        if state.depth == 0:
            self.run(router, Vocab.configure)
        self.run(router, Vocab.vpn(vpn))
        state.depth = 2

    def top(self, router: str) -> None:
        state = self.routers[router]
        if state.depth:
            if self.rng.random() < 0.5:
                self.run(router, Vocab.end)
            else:
                for _ in range(state.depth):
                    self.run(router, Vocab.exit)
            state.depth = 0

    def set_state(self, router: str, role: str) -> None:
        self.to_vpn(router)
        self.run(router, Vocab.state(role))
        self.top(router)

    def traffic(self, router_site: str | None = None, consume: bool = True) -> None:
        client = self.rng.choice(CLIENTS)
        count = self.rng.choice((1, 5, 10, 50, 100, 250))
        size = self.rng.choice((None, None, 600, 2048, 65536))
        self.lab(Vocab.publish(client, self.rng.choice(TOPICS), count, size))
        if consume and self.rng.random() < 0.6:
            self.lab(Vocab.consume(self.rng.choice(CLIENTS), QUEUE, self.rng.randint(1, count)))

    def check(self, router: str, drain: bool = True) -> None:
        self.show(router, Vocab.show_replication)
        if drain:
            self.show(router, Vocab.show_replication_queue)


def _xid(rng: random.Random) -> str:
    return f"{rng.randint(1, 9)}-{rng.getrandbits(32):08x}-{rng.getrandbits(8):02x}"


def plan_drill(seed: int, index: int) -> Drill:
    """Drill `index` of `seed`: deterministic, independent of every other drill."""
    rng = random.Random(f"{seed}:{index}")
    kind = FAILOVER_TYPES[index % len(FAILOVER_TYPES)] if index < 4 else rng.choice(FAILOVER_TYPES)
    mistake = rng.choice(MISTAKES[kind]) if rng.random() < MISTAKE_RATE else None
    transaction = rng.choice(("xa", "xa", "local")) if rng.random() < TRANSACTION_RATE else None
    b = _Builder(rng)
    ny, nj = SITES["NY"], SITES["NJ"]
    b.say(f"{kind} failover drill (seed {seed}, #{index})" + (f"; operator mistake: {mistake}" if mistake else ""))
    if kind in RUNBOOKS:
        b.say(f"runbook: {RUNBOOKS[kind]}; "
              + (f"deviation: {MISTAKE_TEXT[mistake]}" if mistake else "every step, in order"))
    b.lab(Vocab.status)
    early_drain_check = rng.random() < 0.5  # drawn for every type: the other types' drills stay as they were
    b.check(ny, drain=early_drain_check and kind not in RUNBOOKS)  # a runbook's drain check is after the standby
    for _ in range(rng.randint(1, 3)):
        b.traffic()
        if rng.random() < 0.5:
            b.wait()

    xid = _xid(rng) if transaction == "xa" else None
    txn_client = rng.choice(CLIENTS)
    if transaction == "xa":
        b.say(f"an XA transaction {xid} is prepared when the failover starts")
        b.lab(Vocab.xa(txn_client, "start", xid))
        b.lab(Vocab.publish(txn_client, rng.choice(TOPICS), rng.randint(1, 20)))
        b.lab(Vocab.xa(txn_client, "end", xid))
        b.lab(Vocab.xa(txn_client, "prepare", xid))
    elif transaction == "local":
        b.say("a local transaction is open when the failover starts")
        b.lab(Vocab.local(txn_client, "start"))
        b.lab(Vocab.publish(txn_client, rng.choice(TOPICS), rng.randint(1, 20)))

    if mistake == "forgot-enable":
        b.say("mistake: configure at the User EXEC prompt")
        target = nj if kind in ("controlled", "uncontrolled") else ny
        if not b.routers[target].enabled:
            b.run(target, Vocab.configure)
    if mistake == "vpn-typo":
        b.say("mistake: a typo in the Message VPN name")
        b.enable(nj)
        b.run(nj, Vocab.configure)
        b.run(nj, Vocab.vpn("Trading_VNP"))
        b.run(nj, Vocab.end)

    survivor = nj
    if kind == "controlled":
        _controlled_failover(b, mistake, (txn_client, xid) if xid else None)
    elif kind == "uncontrolled":
        b.lab(Vocab.fail_site("NY"))
        b.wait()
        b.lab(Vocab.status)
        if mistake == "consume-before-promote":
            b.say("mistake: consuming at NJ before it is active")
            b.lab(Vocab.consume(rng.choice(CLIENTS), QUEUE, 5))
        if mistake == "promote-wrong-router":
            b.say("mistake: the command goes to the failed router")
            b.set_state(ny, "active")
        b.set_state(nj, "active")
        b.check(nj, drain=False)
    elif kind == "link-loss":
        b.lab(Vocab.fail_link)
        b.traffic(consume=False)
        b.wait()
        if mistake != "skip-drain-check":
            b.check(ny)
        if mistake == "promote-during-link-loss":
            b.say("mistake: promoting NJ while NY is alive (split brain)")
            b.set_state(nj, "active")
            b.traffic(consume=False)
            b.check(nj, drain=False)
        else:
            survivor = ny
        b.lab(Vocab.restore_link)
        b.wait()
        b.check(ny)
    else:  # failback
        b.lab(Vocab.fail_site("NY"))
        b.wait()
        b.set_state(nj, "active")
        b.traffic()
        b.lab(Vocab.restore_site("NY"))
        b.wait()
        if mistake == "activate-returning-site":
            b.say("mistake: the returning site is made active while NJ still is")
            b.set_state(ny, "active")
        else:
            b.set_state(ny, "standby")
        b.wait()
        _switch_home(b, mistake)
        survivor = ny

    if transaction == "xa" and kind != "controlled":  # the controlled runbook has completed it
        b.show(survivor, Vocab.show_transactions)
        action = rng.choice(("commit", "rollback"))
        b.say(f"heuristic {action} of the prepared transaction on {survivor}")
        b.top(survivor)
        b.run(survivor, Vocab.admin)
        b.run(survivor, Vocab.admin_spool)
        b.run(survivor, Vocab.heuristic(action, xid))
        if rng.random() < 0.5:
            b.run(survivor, Vocab.heuristic("delete", xid))
        b.run(survivor, Vocab.end)
    elif transaction == "local":
        b.lab(Vocab.local(txn_client, rng.choice(("commit", "rollback"))))
    b.traffic()
    b.wait()
    b.lab(Vocab.audit)
    return Drill(seed=seed, index=index, kind=kind, mistake=mistake, transaction=transaction, steps=tuple(b.steps))


def _controlled_failover(b: _Builder, mistake: str | None, xa: tuple[str, str] | None) -> None:
    """The controlled failover from NY to NJ, step by step as the `controlled-failover` runbook has it
    (`xa`: the client and XID of a branch prepared on NY); `mistake` leaves out or moves one step."""
    ny, nj = SITES["NY"], SITES["NJ"]
    b.say("step 1 (verify-bridge): NJ's replication bridge is bound to NY's replication queue, seen on both sites")
    b.check(ny, drain=False)
    b.check(nj, drain=False)
    if mistake == "promote-before-demote":
        b.say(f"mistake: {MISTAKE_TEXT[mistake]}")
        _activate(b, nj)
    b.say("step 2 (standby): NY gives up activity")
    b.set_state(ny, "standby")
    if mistake == "skip-drain-check":
        b.say(f"mistake: {MISTAKE_TEXT[mistake]}")
    else:
        b.say("step 3 (drain): NY's replication queue must show 0 Current Messages Spooled before NJ is made active")
        b.show(ny, Vocab.show_replication_queue)
        b.lab(Vocab.advance(b.rng.choice(("5s", "10s", "30s"))))  # several times the largest backlog a drill makes
        b.show(ny, Vocab.show_replication_queue)
    client, xid = xa if xa is not None else ("", "")
    action = b.rng.choice(("commit", "rollback")) if xa is not None else ""
    if xa is not None:
        b.say(f"step 4 (heuristics): heuristic {action} of the prepared branch {xid} on NY, the formerly active site")
        b.show(ny, Vocab.show_prepared)
        b.run(ny, Vocab.admin)
        b.run(ny, Vocab.admin_spool)
        b.run(ny, Vocab.heuristic(action, xid))
        b.run(ny, Vocab.end)
    if mistake != "promote-before-demote":
        _activate(b, nj)
    if xa is not None:
        b.lab(Vocab.advance("1s"))
        b.say(f"the transaction manager reconciles the branch on NJ: {action}")
        b.lab(Vocab.xa(client, action, xid))
        b.say(f"step 6 (delete-completed): the completed branch {xid} is deleted on NY; both sites checked")
        b.show(ny, Vocab.show_transactions)
        b.run(ny, Vocab.admin)
        b.run(ny, Vocab.admin_spool)
        b.run(ny, Vocab.heuristic("delete", xid))
        b.run(ny, Vocab.end)
        b.show(ny, Vocab.show_transactions)
        b.show(nj, Vocab.show_transactions)


def _switch_home(b: _Builder, mistake: str | None) -> None:
    """A failback's switch from NJ back to NY, NY being in service again, as the `failback` runbook
    has it; `skip-drain-check` leaves out the drain check after NJ's standby."""
    ny, nj = SITES["NY"], SITES["NJ"]
    b.say("step 1 (verify-bridge): NY's replication bridge is bound to NJ's replication queue, seen on both sites")
    b.check(nj, drain=False)
    b.check(ny, drain=False)
    b.say("step 2 (standby): NJ gives up activity")
    b.set_state(nj, "standby")
    if mistake == "skip-drain-check":
        b.say(f"mistake: {MISTAKE_TEXT[mistake]}")
    else:
        b.say("step 3 (drain): NJ's replication queue must show 0 Current Messages Spooled before NY is made active")
        b.show(nj, Vocab.show_replication_queue)
        b.lab(Vocab.advance(b.rng.choice(("5s", "10s", "30s"))))
        b.show(nj, Vocab.show_replication_queue)
    b.say(f"step 4 (activate): {ny} becomes replication active")
    b.set_state(ny, "active")
    b.check(ny, drain=False)


def _activate(b: _Builder, router: str) -> None:
    b.say(f"step 5 (activate): {router} becomes replication active")
    b.set_state(router, "active")
    b.check(router, drain=False)


def plan_drills(count: int, seed: int) -> list[Drill]:
    return [plan_drill(seed, i) for i in range(count)]




def draws_local_failover(seed: int, index: int, rate: float) -> bool:
    """Whether drill ``index`` of ``seed`` gets a local failover when a share ``rate`` (0 to 1) of
    drills do: a draw of its own (Random seeded with "s:i:local-failover"), so the drill's plan and
    the other drills' draws are the same whatever ``rate`` and ``--count`` are, and a higher rate
    adds drills to a lower one's without taking any away."""
    return rate > 0 and random.Random(f"{seed}:{index}:{LOCAL_FAILOVER}").random() < rate


def with_local_failover(drill: Drill) -> Drill:
    """``drill`` on the lab whose sites are redundancy groups (scenario ``two-site-ha``), with a
    local failover at NY right after its first traffic: NY's primary fails and comes back, its
    backup keeps the Guaranteed Messaging virtual router (auto-revert is off). The rest of the
    drill runs as planned (the primary's CLI reaches the site's one configuration), so its audit
    must come out as it would without the failover, plus the audit's local failover line."""
    if drill.scenario is not None or drill.system:
        raise ValueError("a local failover is added to the lab's own replication drills only")
    steps = list(drill.steps)
    first = next((i for i, (target, command) in enumerate(steps)
                  if target == LAB and command.startswith("publish ")), len(steps) - 1)
    steps[first + 1:first + 1] = [
        (COMMENT, "a local failover at NY: NY_Appliance1 fails, NY_Appliance2 takes over with the mirrored spool"),
        (LAB, "fail router NY_Appliance1"),
        (LAB, "restore router NY_Appliance1"),
    ]
    return Drill(drill.seed, drill.index, drill.kind, drill.mistake, drill.transaction, tuple(steps),
                 LOCAL_FAILOVER_SCENARIO, drill.system)
