"""The class view over plain HTTP (Starlette's TestClient, the app the server serves): who may see
it, and every bad request answered with one status and one line that changes nothing."""

from __future__ import annotations

import logging
import re
from collections.abc import Iterator
from pathlib import Path

import pytest

pytest.importorskip("httpx")
from starlette.testclient import TestClient  # noqa: E402

from solace_shell.classroom.class_file import load_class_file  # noqa: E402
from solace_shell.classroom.class_lab import ClassLab  # noqa: E402
from solace_shell.classroom.room import ClassRoom  # noqa: E402
from solace_shell.classroom.web import app as app_module  # noqa: E402
from solace_shell.classroom.web import at_line, views  # noqa: E402
from solace_shell.classroom.web.app import MAX_BODY_BYTES, WebContext, create_app  # noqa: E402
from solace_shell.classroom.web.drawing import Drawing  # noqa: E402
from solace_shell.classroom.web.events import ClassFeed  # noqa: E402
from solace_shell.ssh.guard import LoginGuard  # noqa: E402
from solace_shell.ssh.limits import SshLimits  # noqa: E402
from state_store.passwords import hash_password  # noqa: E402

from .conftest import drill_lines  # noqa: E402

HOSTILE = """<script>alert("x")</script> it's "quoted" & <b>bold</b>"""


@pytest.fixture()
def ctx(room: ClassRoom) -> WebContext:
    hashes = {m.name: hash_password(m.password) for m in [*room.class_file.trainers, *room.class_file.trainees]}
    guard = LoginGuard(SshLimits(auth_delay_ms=1, auth_delay_max_ms=2, lockout_failures=3))
    return WebContext(room, guard, hashes.get, lambda _: 0, None, False, 0.001)


@pytest.fixture()
def client(ctx: WebContext) -> Iterator[TestClient]:
    with TestClient(create_app(ctx, ClassFeed(lambda labs: [])), follow_redirects=False) as found:
        yield found


def login(client: TestClient, user: str = "trainer", password: str = "trainer-pw") -> int:
    return client.post("/login", data={"username": user, "password": password}).status_code


def csrf(client: TestClient, page: str = "/trainee/alice") -> str:
    found = re.search(r'name="csrf" value="([^"]+)"', client.get(page).text)
    assert found is not None
    return found.group(1)


def state(room: ClassRoom) -> tuple[int, int]:
    """What a refusal must not change: the record's lines and notes."""
    labs = room.class_file.labs()
    return (sum(len(room.record.lines(lab)) for lab in labs), sum(len(room.record.notes(lab)) for lab in labs))


def refusals(caplog: pytest.LogCaptureFixture) -> list[str]:
    return [r.getMessage() for r in caplog.records if r.getMessage().startswith("web refused")]


def test_a_trainer_logs_in_and_sees_every_page(client: TestClient, room: ClassRoom) -> None:
    assert client.get("/").status_code == 401
    assert login(client) == 303
    cookie = client.cookies.jar
    assert any(c.name == "solace_class" for c in cookie)
    page = client.get("/")
    assert page.status_code == 200
    for member in room.class_file.trainees:
        assert f'href="/trainee/{member.name}"' in page.text or member.team
    assert 'id="tile-blue"' in page.text
    for path in ("/summary", "/trainee/alice", "/trainee/carol", "/grades.csv", "/grades.json",
                 "/trainee/bob/transcript.txt"):
        assert client.get(path).status_code == 200, path


def test_the_session_cookie_is_httponly_and_strict(client: TestClient) -> None:
    answer = client.post("/login", data={"username": "trainer", "password": "trainer-pw"})
    header = answer.headers["set-cookie"].lower()
    assert "httponly" in header and "samesite=strict" in header


@pytest.mark.parametrize(("user", "password", "status", "text"), [
    ("trainer", "wrong", 401, "wrong user name or password"),
    ("nobody", "trainer-pw", 401, "wrong user name or password"),
    ("alice", "alice-pw", 403, "trainers only"),
    ("", "", 400, "give a user name and a password"),
])
def test_a_refused_login_is_one_line(client: TestClient, room: ClassRoom, caplog: pytest.LogCaptureFixture,
                                     user: str, password: str, status: int, text: str) -> None:
    before = state(room)
    with caplog.at_level(logging.INFO):
        answer = client.post("/login", data={"username": user, "password": password})
    assert answer.status_code == status
    assert text in answer.text and "Traceback" not in answer.text
    assert len(refusals(caplog)) == 1
    assert client.get("/").status_code == 401  # no session came of it
    assert state(room) == before


def test_the_lock_out_is_the_ssh_guards(client: TestClient, ctx: WebContext) -> None:
    for _ in range(3):
        assert login(client, password="wrong") == 401
    assert ctx.guard.locked("testclient", "trainer")
    answer = client.post("/login", data={"username": "trainer", "password": "trainer-pw"})
    assert answer.status_code == 429 and "try again later" in answer.text


def test_an_expired_session_is_refused(client: TestClient, ctx: WebContext) -> None:
    login(client)
    assert client.get("/").status_code == 200
    ctx.session_seconds = 0
    answer = client.get("/")
    assert answer.status_code == 401 and "expired" in answer.text


def test_a_trainer_removed_from_the_class_file_is_refused_at_the_next_request(
        client: TestClient, room: ClassRoom, monkeypatch: pytest.MonkeyPatch) -> None:
    login(client)
    monkeypatch.setattr(type(room.class_file), "is_trainer", lambda self, name: False)
    assert client.get("/").status_code == 403


@pytest.mark.parametrize("token", [None, "forged", ""])
def test_an_action_without_its_csrf_token_changes_nothing(client: TestClient, room: ClassRoom, token: str | None,
                                                          caplog: pytest.LogCaptureFixture) -> None:
    login(client)
    csrf(client)
    before = state(room)
    data = {"value": "fail site NY"} | ({} if token is None else {"csrf": token})
    with caplog.at_level(logging.INFO):
        answer = client.post("/trainee/alice/run", data=data)
    assert answer.status_code == 403 and "CSRF" in answer.text
    assert len(refusals(caplog)) == 1
    assert state(room) == before


def test_an_unknown_trainee_in_a_url(client: TestClient, room: ClassRoom) -> None:
    login(client)
    token = csrf(client)
    before = state(room)
    for path in ("/trainee/zed", "/trainee/zed/transcript.txt", "/trainee/..%2f..%2fetc"):
        answer = client.get(path)
        assert answer.status_code == 404, path
    answer = client.post("/trainee/zed/reset", data={"csrf": token})
    assert answer.status_code == 404 and "no trainee &#39;zed&#39;" in answer.text
    assert client.post("/trainee/alice/explode", data={"csrf": token}).status_code == 404
    assert state(room) == before


def test_an_oversized_body_is_refused_before_it_is_read(client: TestClient, room: ClassRoom) -> None:
    login(client)
    token = csrf(client)
    before = state(room)
    answer = client.post("/trainee/alice/message", data={"csrf": token, "value": "x" * (MAX_BODY_BYTES + 1)})
    assert answer.status_code == 413 and "over" in answer.text
    answer = client.post("/login", content=b"username=trainer&password=" + b"y" * MAX_BODY_BYTES,
                         headers={"content-type": "application/x-www-form-urlencoded"})
    assert answer.status_code == 413
    assert state(room) == before


def test_a_wrong_method_and_an_unknown_page(client: TestClient) -> None:
    login(client)
    assert client.get("/nowhere").status_code == 404
    assert client.delete("/").status_code == 405


def test_actions_run_the_class_consoles_functions(client: TestClient, room: ClassRoom) -> None:
    login(client)
    token = csrf(client)
    for verb, value in (("message", "look at the bridge"), ("extend", "10"), ("run", "fail site NY"),
                        ("reset", "")):
        answer = client.post(f"/trainee/alice/{verb}", data={"csrf": token, "value": value})
        assert answer.status_code == 303, verb
        assert answer.headers["location"] == "/trainee/alice"
    kinds = [n.kind for n in room.record.notes("alice")]
    assert kinds == ["message", "extend", "run", "reset"]
    answer = client.post("/trainee/alice/extend", data={"csrf": token, "value": "100000"})
    shown = client.get(answer.headers["location"]).text
    assert "MINUTES must be 1 to 600" in shown
    assert [n.kind for n in room.record.notes("alice")] == kinds  # the refused extend changed nothing


def test_nothing_a_trainee_typed_reaches_a_page_unescaped(client: TestClient, room: ClassRoom) -> None:
    member = room.class_file.trainee("alice")
    assert member is not None
    lab = room.trainee_lab(member, "shell")
    for target, line in drill_lines()[:3]:
        lab.execute(target, line)
    lab.execute("NY_Appliance1", f"show queue {HOSTILE}")
    lab.execute("lab", f"publish {HOSTILE}")
    login(client)
    last = room.record.lines("alice")[-1].seq
    for path in ("/", "/trainee/alice", "/summary", f"/trainee/alice?at={last}", f"/trainee/alice?at={last - 1}"):
        text = client.get(path).text
        assert "<script>alert" not in text and "<b>bold" not in text, path
    text = client.get("/trainee/alice").text
    assert "&lt;script&gt;alert(&#34;x&#34;)&lt;/script&gt; it&#39;s &#34;quoted&#34; &amp; &lt;b&gt;" in text


def test_the_downloads(client: TestClient, room: ClassRoom) -> None:
    member = room.class_file.trainee("bob")
    assert member is not None
    lab = room.trainee_lab(member, "shell")
    for target, line in drill_lines():
        lab.execute(target, line)
    login(client)
    rows = client.get("/grades.csv")
    assert rows.headers["content-type"].startswith("text/csv")
    assert "controlled-failover,bob,,verify-bridge" in rows.text
    document = client.get("/grades.json").json()
    bob = next(t for t in document["trainees"] if t["student_id"] == "bob")
    assert bob["score"] == 1.0
    transcript = client.get("/trainee/bob/transcript.txt")
    assert "attachment" in transcript.headers["content-disposition"]
    assert "NJ_Appliance1(configure/message-vpn)# replication state active" in transcript.text
    assert transcript.text.splitlines()[1:] == room.transcript("bob").splitlines()[1:]  # all but the export time


@pytest.mark.parametrize(("scenario", "shown"), [
    ("default", ["site NY", "NY_Appliance1", "Trading_VPN: active", "queue orders: 0 spooled", "bridge up"]),
    ("two-site-ha", ["NY_Appliance2", "redundancy: standby (process up)", "NJ_Monitor"]),
    ("geode-ha", ["geode g1", "s1", "state: online, serving", "not connected: c1, c2, d1, p1"]),
    ("qpid-ha", ["qpid c1", "b1", "state: joining"]),
    ("swiftmq-ha", ["swiftmq ha1", "A (down)", "state: down, preferred"]),
])
def test_the_lab_drawing(tmp_path: Path, scenario: str, shown: list[str]) -> None:
    path = tmp_path / "course.yaml"
    path.write_text(f"scenario: {scenario}\nrunbook: controlled-failover\n"
                    "trainers:\n  - {name: tr, password: tr-pw}\ntrainees:\n  - {name: al, password: al-pw}\n")
    found = ClassRoom(load_class_file(path), tmp_path / "course.class")
    try:
        assert "not been opened" in views.lab_drawing(found, "al").problem
        found.store("al")
        drawing = views.lab_drawing(found, "al")
        text = " ".join([drawing.problem] + [b.title for b in drawing.boxes] + [line for b in drawing.boxes
                                                                                 for line in b.lines]
                        + [link[5] for link in drawing.links])
        for word in shown:
            assert word in text, (word, text)
        if scenario == "two-site-ha":
            assert "solace-redundancy" not in text  # the pairs are drawn in their sites
    finally:
        found.close()


def test_the_ha_nodes_drawn_follow_the_lab(tmp_path: Path) -> None:
    """A Geode server killed at the lab console is drawn down, the others up."""
    path = tmp_path / "course.yaml"
    path.write_text("scenario: geode-ha\nrunbook: controlled-failover\n"
                    "trainers:\n  - {name: tr, password: tr-pw}\ntrainees:\n  - {name: al, password: al-pw}\n"
                    "console: [advance, fail, restore, ha, status]\n")
    found = ClassRoom(load_class_file(path), tmp_path / "course.class")
    try:
        member = found.class_file.trainee("al")
        assert member is not None
        lab = found.trainee_lab(member, "shell")
        for line in ("advance 10s", "ha kill g1.s1", "advance 10s"):
            assert lab.execute("lab", line).ok, (line, lab.execute("lab", "status").text)
        boxes = {b.title: b for b in views.lab_drawing(found, "al").boxes}
        assert boxes["s1 (down)"].css == "router down"
        assert boxes["s2"].css == boxes["s3"].css == "node"
    finally:
        found.close()


def test_over_tls_the_session_cookie_is_secure(ctx: WebContext) -> None:
    ctx.tls = True
    with TestClient(create_app(ctx, ClassFeed(lambda labs: [])), base_url="https://testserver",
                    follow_redirects=False) as client:
        answer = client.post("/login", data={"username": "trainer", "password": "trainer-pw"})
    assert answer.status_code == 303
    assert "secure" in answer.headers["set-cookie"].lower()


# -- the lab as it was after a line of the timeline ------------------------------------------------
def _typed(room: ClassRoom, name: str, lines: list[tuple[str, str]]) -> list[int]:
    """The lines typed in `name`'s lab (a session of their own); the seqs the record gave them."""
    member = room.class_file.trainee(name)
    assert member is not None
    lab = room.trainee_lab(member, "shell")
    for target, line in lines:
        lab.execute(target, line)
    return [line.seq for line in room.record.lines(member.lab)]


def _words(drawing: Drawing) -> list[str]:
    return [b.title for b in drawing.boxes] + [line for b in drawing.boxes for line in b.lines]


def test_the_lab_after_each_line_of_the_timeline(client: TestClient, room: ClassRoom) -> None:
    seqs = _typed(room, "alice", drill_lines())
    login(client)
    page = client.get("/trainee/alice").text
    assert all(f'href="/trainee/alice?at={seq}#lab"' in page for seq in seqs)
    roles = []
    for seq in seqs:
        found = at_line.lab_after(room, "alice", seq)
        assert found is not None and not found.drawing.problem and not found.note, seq
        roles.append([w for w in _words(found.drawing) if w.startswith("Trading_VPN: ")])
    standby = next(i for i, (_, line) in enumerate(drill_lines()) if line == "replication state standby")
    assert roles[standby - 1][0].startswith("Trading_VPN: active")       # NY before its standby line
    assert roles[standby][0].startswith("Trading_VPN: standby")          # and after it
    assert roles[-1][1].startswith("Trading_VPN: active")                # NJ active at the end
    assert at_line.lab_after(room, "alice", seqs[-1]).drawing == views.lab_drawing(room, "alice")  # type: ignore[union-attr]
    answer = client.get(f"/trainee/alice?at={seqs[standby]}")
    assert answer.status_code == 200
    assert f"The lab after line {standby + 1} (" in answer.text and 'class=" at"' in answer.text
    assert 'id="now"' in answer.text


def test_a_teams_sessions_replay_each_in_its_own_mode(room: ClassRoom) -> None:
    """carol configures NY while dave, logged in beside her, looks at it from exec mode, and carol
    logs in again (a new session, in exec mode): each line replays as it ran, and the lab after
    them is the lab they made."""
    members = {m.name: m for m in room.class_file.members_of("blue")}

    def session(name: str) -> ClassLab:
        room.record.add_note(lab="blue", member=name, by=name, kind="login", text="shell NY_Appliance1 127.0.0.1")
        return room.trainee_lab(members[name], "shell")

    carol, dave = session("carol"), session("dave")
    for lab, line in ((carol, "enable"), (carol, "configure"), (dave, "show queue *"),
                      (carol, "message-vpn Trading_VPN"), (dave, "enable"), (carol, "replication state standby"),
                      (dave, "show message-vpn *")):
        assert lab.execute("NY_Appliance1", line).ok, line
    carol = session("carol")
    for line in ("enable", "show message-vpn Trading_VPN replication", "configure"):
        assert carol.execute("NY_Appliance1", line).ok, line
    last = room.record.lines("blue")[-1].seq
    found = at_line.lab_after(room, "blue", last)
    assert found is not None and not found.note, found
    assert found.drawing == views.lab_drawing(room, "blue")
    assert "Trading_VPN: standby (repl queue 0)" in _words(found.drawing)


def test_the_replay_is_bounded(room: ClassRoom) -> None:
    seqs = _typed(room, "alice", drill_lines()[:4])
    found = at_line.lab_after(room, "alice", seqs[3], max_lines=3)
    assert found is not None and "first 3 lines only" in found.drawing.problem
    found = at_line.lab_after(room, "alice", seqs[2], max_lines=3, seconds=0.0)
    assert found is not None and "took too long" in found.drawing.problem
    found = at_line.lab_after(room, "alice", seqs[2], max_lines=3)
    assert found is not None and not found.drawing.problem


@pytest.mark.parametrize("at", ["x", "-1", "1e3", "\u00b2", "", "9" * 19, "1&at=2x"])
def test_a_bad_line_number_is_refused(client: TestClient, room: ClassRoom, at: str,
                                      caplog: pytest.LogCaptureFixture) -> None:
    _typed(room, "alice", drill_lines()[:2])
    login(client)
    before = state(room)
    with caplog.at_level(logging.INFO):
        answer = client.get("/trainee/alice", params={"at": at})
    assert answer.status_code == 400 and "at= takes the number of a line" in answer.text
    assert len(refusals(caplog)) == 1 and state(room) == before


def test_a_line_of_another_lab_or_none_is_not_drawn(client: TestClient, room: ClassRoom) -> None:
    bobs = _typed(room, "bob", drill_lines()[:2])
    _typed(room, "alice", drill_lines()[:2])
    login(client)
    before = state(room)
    for seq in (bobs[-1], 0, 10**17):
        answer = client.get(f"/trainee/alice?at={seq}")
        assert answer.status_code == 404 and f"no line {seq} in the timeline of alice" in answer.text
    assert state(room) == before


def test_the_lab_after_a_line_is_for_trainers_only(client: TestClient, room: ClassRoom,
                                                   monkeypatch: pytest.MonkeyPatch) -> None:
    seqs = _typed(room, "alice", drill_lines()[:2])
    assert client.get(f"/trainee/alice?at={seqs[0]}").status_code == 401
    assert login(client, "alice", "alice-pw") in (401, 403)
    assert client.get(f"/trainee/alice?at={seqs[0]}").status_code == 401
    assert login(client) == 303
    assert client.get(f"/trainee/alice?at={seqs[0]}").status_code == 200
    monkeypatch.setattr(type(room.class_file), "is_trainer", lambda self, name: False)
    assert client.get(f"/trainee/alice?at={seqs[0]}").status_code == 403


def test_replays_at_once_are_bounded(ctx: WebContext, room: ClassRoom, monkeypatch: pytest.MonkeyPatch) -> None:
    seqs = _typed(room, "alice", drill_lines()[:2])
    monkeypatch.setattr(app_module, "REPLAYS_AT_ONCE", 0)
    with TestClient(create_app(ctx, ClassFeed(lambda labs: [])), follow_redirects=False) as busy:
        login(busy)
        answer = busy.get(f"/trainee/alice?at={seqs[0]}")
        assert answer.status_code == 503 and "try again" in answer.text
        assert busy.get("/trainee/alice").status_code == 200
