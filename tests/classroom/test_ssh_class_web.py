"""The class view in a real browser: headless Chromium (Debian's package) driven by Playwright,
against `class serve --web-port` served in this process, with trainees typing over SSH (paramiko)
and through their labs.

Screenshots of each page are written to the directory this module prints (SOLACE_WEB_SHOTS, else a
pytest temporary directory); `SOLACE_WEB_SHOTS=docs/img` makes the ones docs/class.md shows. The
tests skip when the browser is not installed, except in CI (CI=true), where they fail.
"""

from __future__ import annotations

import os
import shutil
from collections.abc import Iterator
from pathlib import Path

import pytest

from solace_shell.classroom.class_file import ClassFile
from solace_shell.classroom.web.options import WebOptions
from tests.support.ssh_clients import run_exec

from .class_server import ClassServerThread, class_serving
from .conftest import drill_lines

CHROMIUM = Path("/usr/bin/chromium")
CHROMIUM_ARGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking",
                 "--disable-component-update", "--disable-sync", "--no-first-run"]
WAIT_MS = 5000
HOSTILE = """<script>alert("x")</script> "quoted" 'single'"""


def _need(reason: str) -> None:
    if os.environ.get("CI") == "true":
        pytest.fail(f"{reason} (CI must run the browser tests)")
    pytest.skip(reason)


@pytest.fixture(scope="module")
def shots(tmp_path_factory: pytest.TempPathFactory) -> Path:
    found = Path(os.environ.get("SOLACE_WEB_SHOTS") or tmp_path_factory.mktemp("class-web-shots"))
    found.mkdir(parents=True, exist_ok=True)
    print(f"\nclass view screenshots: {found.resolve()}")
    return found


@pytest.fixture()
def browser() -> Iterator[object]:
    if not CHROMIUM.exists() and shutil.which("chromium") is None:
        _need(f"no Chromium at {CHROMIUM} (apt-get install chromium)")
    try:
        from playwright.sync_api import sync_playwright
    except ImportError:
        _need("the playwright package is not installed")
    with sync_playwright() as playwright:
        found = playwright.chromium.launch(executable_path=str(CHROMIUM if CHROMIUM.exists()
                                                               else shutil.which("chromium")), args=CHROMIUM_ARGS)
        try:
            yield found
        finally:
            found.close()


@pytest.fixture()
def served(class_file: ClassFile, tmp_path: Path) -> Iterator[ClassServerThread]:
    with class_serving(class_file, tmp_path / "course.class", web=WebOptions(0)) as server:
        yield server


def _page(browser: object, served: ClassServerThread) -> object:
    assert served.server.web is not None
    context = browser.new_context(base_url=served.server.web.url.rstrip("/"),  # type: ignore[attr-defined]
                                  viewport={"width": 1100, "height": 720}, accept_downloads=True)
    return context.new_page()


def _log_in(page: object, user: str, password: str) -> None:
    page.goto("/login")  # type: ignore[attr-defined]
    page.fill("input[name=username]", user)  # type: ignore[attr-defined]
    page.fill("input[name=password]", password)  # type: ignore[attr-defined]
    page.click("button[type=submit]")  # type: ignore[attr-defined]


def test_a_trainee_cannot_open_the_class_view(browser: object, served: ClassServerThread, shots: Path) -> None:
    page = _page(browser, served)
    _log_in(page, "alice", "alice-pw")
    page.wait_for_selector("#refusal")  # type: ignore[attr-defined]
    assert "trainers only" in page.inner_text("#refusal")  # type: ignore[attr-defined]
    page.screenshot(path=str(shots / "class-web-refused.png"))  # type: ignore[attr-defined]
    answer = page.goto("/")  # type: ignore[attr-defined]
    assert answer.status == 401
    answer = page.goto("/trainee/alice")  # type: ignore[attr-defined]
    assert answer.status == 401


def test_a_trainer_follows_the_class_live_and_acts(browser: object, served: ClassServerThread, shots: Path,
                                                  class_file: ClassFile) -> None:
    page = _page(browser, served)
    dialogs: list[object] = []
    page.on("dialog", lambda dialog: dialogs.append(dialog))  # type: ignore[attr-defined]  # an alert() lands here
    _log_in(page, "trainer", "trainer-pw")
    page.wait_for_selector("#tile-alice")  # type: ignore[attr-defined]
    page.wait_for_function("document.getElementById('live').textContent.endsWith('on')",  # type: ignore[attr-defined]
                           timeout=WAIT_MS)

    # a trainee's line over SSH appears on the tile
    status, _ = run_exec(served.port(), "bob", "bob-pw", "show message-vpn Trading_VPN replication")
    assert status == 0
    page.wait_for_function(  # type: ignore[attr-defined]
        "document.querySelector('#tile-bob .last').textContent.includes('show message-vpn Trading_VPN')",
        timeout=WAIT_MS)

    # lines through a trainee's lab (every door records through it): progress, a hint, hostile text
    alice = class_file.trainee("alice")
    assert alice is not None
    lab = served.room.trainee_lab(alice, "shell")
    for target, line in drill_lines()[:7]:
        lab.execute(target, line)
    lab.execute("lab", f"publish {HOSTILE}")
    lab.execute("lab", "hint")
    page.wait_for_selector("#tile-alice .hand", timeout=WAIT_MS)  # type: ignore[attr-defined]
    assert "<script>" in page.inner_text("#tile-alice .last")  # type: ignore[attr-defined]
    assert page.locator("script", has_text="alert").count() == 0  # type: ignore[attr-defined]
    page.screenshot(path=str(shots / "class-web-tiles.png"), full_page=True)  # type: ignore[attr-defined]

    # the trainee's page, then an action: inject a site failure, shown in the lab drawing
    page.click("#tile-alice h3 a")  # type: ignore[attr-defined]
    page.wait_for_selector("#timeline")  # type: ignore[attr-defined]
    assert "replication state standby" in page.inner_text("#timeline")  # type: ignore[attr-defined]
    page.fill("form[action='/trainee/alice/run'] input[name=value]", "fail site NY")  # type: ignore[attr-defined]
    page.click("form[action='/trainee/alice/run'] button")  # type: ignore[attr-defined]
    page.wait_for_selector(".flash", timeout=WAIT_MS)  # type: ignore[attr-defined]
    assert "site NY (down)" in page.inner_html("svg")  # type: ignore[attr-defined]
    assert [n.kind for n in served.room.record.notes("alice", ("run",))] == ["run"]
    page.fill("form[action='/trainee/alice/message'] input[name=value]", "check the bridge first")  # type: ignore[attr-defined]
    page.click("form[action='/trainee/alice/message'] button")  # type: ignore[attr-defined]
    page.wait_for_selector(".flash.ok", timeout=WAIT_MS)  # type: ignore[attr-defined]
    assert [n.text for n in served.room.record.notes("alice", ("message",))] == ["check the bridge first"]
    page.screenshot(path=str(shots / "class-web-trainee.png"))  # type: ignore[attr-defined]

    # the lab as it was after a line of the timeline (before the site failed), then now again
    row = page.locator("#timeline tr", has_text="replication state standby")  # type: ignore[attr-defined]
    row.locator("a").first.click()
    page.wait_for_selector("#timeline tr.at", timeout=WAIT_MS)  # type: ignore[attr-defined]
    assert "The lab after line 7" in page.inner_text("#lab h3")  # type: ignore[attr-defined]
    drawn = page.inner_html("svg")  # type: ignore[attr-defined]
    assert "site NY (down)" not in drawn and "Trading_VPN: standby" in drawn
    page.click("#now")  # type: ignore[attr-defined]
    page.wait_for_selector("#timeline", timeout=WAIT_MS)  # type: ignore[attr-defined]
    assert "site NY (down)" in page.inner_html("svg")  # type: ignore[attr-defined]

    # downloads: a transcript, then the grades
    with page.expect_download() as download:  # type: ignore[attr-defined]
        page.click("#transcript")  # type: ignore[attr-defined]
    text = Path(download.value.path()).read_text()
    assert "replication state standby" in text and "#| " in text
    page.goto("/summary")  # type: ignore[attr-defined]
    page.wait_for_selector("svg")  # type: ignore[attr-defined]
    page.screenshot(path=str(shots / "class-web-summary.png"), full_page=True)  # type: ignore[attr-defined]
    with page.expect_download() as download:  # type: ignore[attr-defined]
        page.click("a[href='/grades.csv']")  # type: ignore[attr-defined]
    rows = Path(download.value.path()).read_text()
    assert not dialogs
    assert rows.startswith("assignment,student_id,team,step_id") and ",alice," in rows
