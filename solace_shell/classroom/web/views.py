"""What each page shows, as plain data from the room and its record (the class console's own
functions: `ClassRoom.grade`, `seconds_left`, `TrainerConsole.audit`); the templates draw it."""

from __future__ import annotations

import threading
import time
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import datetime, timezone
from typing import Any

from ...router_cli import router_cli
from ..console import TrainerConsole
from ..record import parse_wall
from ..room import ClassRoom, LabGrade
from .drawing import Box, Drawing, kernel_boxes

STATUS_CLASS = {"done": "ok", "done-after-hint": "ok", "not-applicable": "na", "missing": "missing"}


@dataclass(frozen=True)
class StepView:
    id: str
    title: str
    status: str
    css: str
    text: str
    reason: str
    rationale: str
    consequence: str
    hinted: bool


@dataclass(frozen=True)
class Tile:
    lab: str
    members: tuple[str, ...]
    online: int
    steps: tuple[StepView, ...]
    done: int
    applicable: int
    audit: str              # lost/duplicated/stranded, "-" when the lab has no router audit
    lost: int
    duplicated: int
    time_left: str
    last_line: str
    last_seen: str
    hand_raised: bool
    score: float

    @property
    def percent(self) -> int:
        return 0 if not self.applicable else round(100 * self.done / self.applicable)


def _steps(room: ClassRoom, lab: str, graded: LabGrade | None = None) -> tuple[list[StepView], float, str]:
    graded = graded if graded is not None else room.grade(lab)
    if graded.grade is None:
        return [], graded.score, graded.problem
    return [StepView(s.id, s.title, s.status, "ok" if s.passed else STATUS_CLASS.get(s.status, "bad"),
                     s.text, s.reason, " ".join(s.rationale.split()), s.consequence, s.id in graded.hinted)
            for s in graded.grade.steps], graded.score, ""


def _time_text(left: float | None) -> str:
    if left is None:
        return "no limit"
    whole = max(0, int(left))
    return f"{whole // 60}m{whole % 60:02d}s"


@dataclass(frozen=True)
class _Facts:
    """What a tile shows that only a recorded line or note changes (read from the record once)."""

    members: tuple[str, ...]
    steps: tuple[StepView, ...]
    score: float
    audit: str
    last_line: str
    last_wall: str
    hand_raised: bool
    deadline: float | None   # time.time() when the drill's time runs out (None: no limit)


def _facts(room: ClassRoom, lab: str) -> _Facts:
    graded = room.grade(lab)  # (with the record's last line and hint it was made from)
    steps, score, _ = _steps(room, lab, graded)
    last, hint = graded.last_line, graded.last_hint
    left = room.seconds_left(lab)
    return _Facts(tuple(m.name for m in room.class_file.members_of(lab)), tuple(steps), score,
                  TrainerConsole(room, "").audit(lab), f"{last.prompt} {last.line}" if last is not None else "",
                  last.wall if last is not None else "", hint is not None and (last is None or hint.wall >= last.wall),
                  None if left is None else time.time() + left)


class TileCache:
    """Each lab's tile facts, read again only after the lab changed (`invalidate`, a room listener)
    or after `ttl` seconds (a change made in another process); the class page of a hundred labs
    then costs the tiles' drawing, not a hundred labs' record reads."""

    def __init__(self, room: ClassRoom, online: Callable[[str], int], ttl: float = 60.0) -> None:
        self.room = room
        self.online = online
        self.ttl = ttl
        self._facts: dict[str, tuple[float, _Facts]] = {}
        self._versions: dict[str, int] = {}
        self._lock = threading.Lock()

    def invalidate(self, lab: str) -> None:
        """Thread-safe: the lab's next tile is read from the record again."""
        with self._lock:
            self._versions[lab] = self._versions.get(lab, 0) + 1
            self._facts.pop(lab, None)

    def tile(self, lab: str) -> Tile:
        now = time.monotonic()
        with self._lock:
            found = self._facts.get(lab)
            version = self._versions.get(lab, 0)
        if found is None or now - found[0] > self.ttl:
            facts = _facts(self.room, lab)
            with self._lock:
                if self._versions.get(lab, 0) == version:
                    self._facts[lab] = (now, facts)
        else:
            facts = found[1]
        return _tile(lab, facts, self.online)

    def tiles(self) -> list[Tile]:
        return [self.tile(lab) for lab in self.room.class_file.labs()]


def _tile(lab: str, facts: _Facts, online: Callable[[str], int]) -> Tile:
    audit = facts.audit
    lost, duplicated = (int(audit.split("/")[0]), int(audit.split("/")[1])) if audit != "-" else (0, 0)
    seen = "-" if not facts.last_wall else \
        f"{int((datetime.now(timezone.utc) - parse_wall(facts.last_wall)).total_seconds())}s ago"
    applicable = [s for s in facts.steps if s.status != "not-applicable"]
    return Tile(lab, facts.members, sum(online(m) for m in facts.members), facts.steps,
                sum(1 for s in applicable if s.css == "ok"), len(applicable), audit, lost, duplicated,
                _time_text(None if facts.deadline is None else facts.deadline - time.time()), facts.last_line, seen,
                facts.hand_raised, facts.score)


def tile(room: ClassRoom, lab: str, online: Callable[[str], int]) -> Tile:
    """The lab's tile read from the record now."""
    return _tile(lab, _facts(room, lab), online)


def class_tiles(room: ClassRoom, online: Callable[[str], int]) -> list[Tile]:
    return [tile(room, lab, online) for lab in room.class_file.labs()]


@dataclass(frozen=True)
class TimelineEntry:
    seq: int
    wall: str
    clock: str
    member: str
    door: str
    prompt: str
    line: str
    ok: bool
    error_kind: str
    marks: tuple[str, ...]   # the runbook steps this line decided


@dataclass
class TraineeView:
    name: str
    lab: str
    members: tuple[str, ...]
    tile: Tile
    timeline: list[TimelineEntry]
    steps: list[StepView]
    problem: str
    notes: list[tuple[str, str, str, str]] = field(default_factory=list)  # wall, kind, by, text


def trainee_view(room: ClassRoom, name: str, online: Callable[[str], int]) -> TraineeView | None:
    member = room.class_file.trainee(name)
    if member is None:
        return None
    lab = member.lab
    steps, _, problem = _steps(room, lab)
    by_text: dict[str, list[str]] = {}
    for step in steps:
        if step.text:
            by_text.setdefault(step.text, []).append(f"{step.id}: {step.status}")
    timeline = []
    for line in room.record.lines(lab):
        typed = f"{line.prompt} {line.line}"
        clock = "-" if line.clock_ms is None else f"{line.clock_ms / 1000:.3f}s"
        timeline.append(TimelineEntry(line.seq, line.wall[11:23], clock, line.member, line.door, line.prompt,
                                      line.line, line.ok, line.error_kind or "",
                                      tuple(by_text.get(typed, by_text.get(line.line, [])))))
    notes = [(n.wall[11:19], n.kind, n.by, n.text)
             for n in room.record.notes(lab, ("login", "reset", "extend", "message", "hint", "run", "refused"))]
    return TraineeView(member.name, lab, tuple(m.name for m in room.class_file.members_of(lab)),
                       tile(room, lab, online), timeline, steps, problem, notes)


@dataclass(frozen=True)
class Bar:
    label: str
    value: float
    width: float   # pixels
    detail: str


@dataclass(frozen=True)
class Summary:
    labs: int
    fails: list[Bar]      # how many labs fail each step
    costs: list[Bar]      # what the failures cost: messages lost + duplicated in the labs that failed it
    scores: list[Bar]     # each lab's score


def summary(tiles: list[Tile], width: float = 360.0) -> Summary:
    fails: Counter[str] = Counter()
    cost: Counter[str] = Counter()
    titles: dict[str, str] = {}
    for t in tiles:
        for step in t.steps:
            titles[step.id] = step.title
            if step.css not in ("ok", "na"):
                fails[step.id] += 1
                cost[step.id] += t.lost + t.duplicated
    order = sorted(titles, key=lambda sid: (-fails[sid], sid))

    def bars(values: dict[str, float], detail: Callable[[str], str]) -> list[Bar]:
        top = max(values.values(), default=0) or 1
        return [Bar(key, value, width * value / top, detail(key)) for key, value in values.items()]

    return Summary(
        len(tiles),
        bars({sid: float(fails[sid]) for sid in order}, lambda sid: titles[sid]),
        bars({sid: float(cost[sid]) for sid in order}, lambda sid: "messages lost or duplicated"),
        bars({t.lab: round(100 * t.score) for t in tiles}, lambda lab: ", ".join(
            next(x.members for x in tiles if x.lab == lab))))


# -- the lab drawn ---------------------------------------------------------------------------------


def lab_drawing(room: ClassRoom, lab: str) -> Drawing:
    """Sites side by side, each router in its site (up or down) with its Message VPNs' replication
    role and replication-queue depth, its redundancy activity (an HA pair's node state) and its
    queues' depths, the replication bridge between the sites; then each HA system's group with its
    nodes, as the kernel holds them (`drawing.kernel_boxes`)."""
    if not room.opened(lab):
        return Drawing(400, 40, [], [], "-", "the lab has not been opened yet (no login)")
    try:
        with room.store(lab).transaction() as engine:
            return engine_drawing(engine)
    except Exception as exc:  # noqa: BLE001  a lab of another kind: say so rather than fail the page
        return Drawing(400, 40, [], [], "-", f"cannot draw this lab: {type(exc).__name__}")


def engine_drawing(engine: Any) -> Drawing:
    """The lab held by `engine` drawn (`lab_drawing`)."""
    routers = router_cli(engine)
    status = routers.status()
    boxes: list[Box] = []
    links: list[tuple[float, float, float, float, str, str]] = []
    site_w, gap, x = 300.0, 80.0, 10.0
    site_mid: list[tuple[float, float]] = []
    height = 60.0
    for site in status.sites:
        y = 40.0
        inner: list[Box] = []
        for router_name in site.routers:
            router = next(r for r in status.routers if r.name == router_name)
            vpn_lines = [f"{v.vpn}: {v.role}" + (f" (repl queue {v.repl_queue_messages})"
                                                  if v.replication_enabled else " (no replication)")
                         for v in status.vpns if v.router == router_name and not v.vpn.startswith("#")]
            queues = [f"queue {q.name}: {q.messages_spooled} spooled"
                      for q in (routers.queues(router_name) if router.up else []) if not q.name.startswith("#")][:6]
            redundancy = [f"redundancy: {m.activity} (process {m.process})"
                          for m in status.members if m.router == router_name]
            lines = tuple(redundancy + vpn_lines + queues)
            h = 30 + 16 * len(lines)
            inner.append(Box(x + 10, y, site_w - 20, h, f"{router_name}{'' if router.up else ' (down)'}", lines,
                             "router" if router.up else "router down"))
            y += h + 10
        boxes.append(Box(x, 10, site_w, y - 10, f"site {site.name}{'' if site.up else ' (down)'}", (),
                         "site" if site.up else "site down"))
        boxes.extend(inner)
        site_mid.append((x, 10 + (y - 10) / 2))
        height = max(height, y + 10)
        x += site_w + gap
    for (x1, y1), (x2, y2) in zip(site_mid, site_mid[1:], strict=False):
        links.append((x1 + site_w, y1, x2, y2, "link" if status.link_up else "link down",
                      "bridge up" if status.link_up else "bridge down"))
    drawn = frozenset(name for site in status.sites for name in site.routers)
    groups, right, bottom = kernel_boxes(engine.kernel(), x, 10.0, site_w, gap, drawn)
    if not boxes and not groups:
        return Drawing(400, 40, [], [], f"{status.now_ms / 1000:.3f}s", "the lab holds nothing to draw")
    boxes.extend(groups)
    width = max(x - gap + 10, right + 10 if groups else 0, 420)
    return Drawing(width, max(height, bottom + 10) + 10, boxes, links, f"{status.now_ms / 1000:.3f}s")
