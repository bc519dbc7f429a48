"""The trainer's class view: a Starlette application over the class room.

Who may see it: a trainer of the class file, logged in with the password the SSH side checks (the
same hashes, the same lock-out per (source, user): `ssh.guard.LoginGuard`, the server's own). The
session is Starlette's signed cookie (HttpOnly, SameSite=Strict, Secure under TLS) with a secret
made at each server start; it names the trainer, when they logged in and their CSRF token. Every
request looks the trainer up in the class file again, every POST carries the CSRF token, and a
refusal is one status and one line (and one log line) that changes nothing. Templates are Jinja2
with autoescape on: nothing a trainee typed reaches a page unescaped.
"""

from __future__ import annotations

import asyncio
import csv
import hmac
import io
import json
import logging
import secrets
import shlex
import time
from collections.abc import AsyncIterator, Awaitable, Callable
from concurrent.futures import Executor
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from jinja2 import Environment, FileSystemLoader, select_autoescape
from starlette.applications import Starlette
from starlette.middleware import Middleware
from starlette.middleware.sessions import SessionMiddleware
from starlette.requests import Request
from starlette.responses import HTMLResponse, PlainTextResponse, RedirectResponse, Response, StreamingResponse
from starlette.routing import Route
from starlette.types import ASGIApp, Receive, Scope, Send

from state_store.passwords import verify_password

from ...ssh.guard import LoginGuard
from ...ssh.logfields import fields
from ..console import TrainerConsole
from ..room import ClassRoom
from . import at_line, views
from .events import ClassFeed

log = logging.getLogger(__name__)

SESSION_SECONDS = 8 * 3600
MAX_BODY_BYTES = 16 * 1024
SSE_KEEPALIVE_SECONDS = 15.0
COOKIE = "solace_class"
TEMPLATES = Path(__file__).parent / "templates"
ACTIONS = ("reset", "run", "extend", "message")
REPLAYS_AT_ONCE = 2  # drawings of the lab after an earlier line (a replay each) made at once
MAX_AT_DIGITS = 18


@dataclass
class WebContext:
    """What the application needs of the class server."""

    room: ClassRoom
    guard: LoginGuard
    password_hash: Callable[[str], str | None]
    online: Callable[[str], int]
    auth_pool: Executor | None = None
    tls: bool = False
    auth_delay_max: float = 2.0
    session_seconds: float = SESSION_SECONDS


def environment() -> Environment:
    env = Environment(loader=FileSystemLoader(TEMPLATES), autoescape=select_autoescape(default=True,
                                                                                      default_for_string=True))
    env.globals["quote"] = lambda text: shlex.quote(str(text))
    return env


class BodyLimit:
    """Refuse a request whose body is over `limit` bytes (413), or a POST that does not say its
    length (411), before the application reads any of it."""

    def __init__(self, app: ASGIApp, limit: int = MAX_BODY_BYTES) -> None:
        self.app = app
        self.limit = limit

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] == "http" and scope["method"] in ("POST", "PUT", "PATCH"):
            headers = dict(scope["headers"])
            length = headers.get(b"content-length")
            status, text = 0, ""
            if length is None:
                status, text = 411, "a request body must say its length"
            elif not length.isdigit() or int(length) > self.limit:
                status, text = 413, f"the request body is over {self.limit} bytes"
            if status:
                client = scope.get("client") or ("-", 0)
                log.info("web refused %s", fields(peer=client[0], path=scope["path"], status=str(status)))
                await PlainTextResponse(f"% {text}\n", status)(scope, receive, send)
                return
        await self.app(scope, receive, send)


def create_app(ctx: WebContext, feed: ClassFeed, cache: views.TileCache | None = None) -> Starlette:
    env = environment()
    tiles = cache if cache is not None else views.TileCache(ctx.room, ctx.online, ttl=0.0)
    replays = asyncio.Semaphore(REPLAYS_AT_ONCE)

    def page(name: str, status: int = 200, **values: Any) -> HTMLResponse:
        return HTMLResponse(env.get_template(name).render(**values), status)

    def refuse(request: Request, status: int, text: str, login: bool = False) -> HTMLResponse:
        user = request.session.get("user", "-") if "session" in request.scope else "-"
        log.info("web refused %s: %s", fields(user=str(user), peer=_peer(request), path=request.url.path,
                                              status=str(status)), text)
        return page("refusal.html", status, text=text, login=login)

    def trainer_of(request: Request) -> str | HTMLResponse:
        """The logged-in trainer, checked again now; else the refusal."""
        user = request.session.get("user")
        if not isinstance(user, str):
            return refuse(request, 401, "log in first", login=True)
        issued = request.session.get("issued")
        if not isinstance(issued, (int, float)) or time.time() - issued > ctx.session_seconds:
            request.session.clear()
            return refuse(request, 401, "the session has expired: log in again", login=True)
        if not ctx.room.class_file.is_trainer(user):
            request.session.clear()
            return refuse(request, 403, "only a trainer of this class may use the class view")
        return user

    def base(request: Request, user: str) -> dict[str, Any]:
        flash = request.session.pop("flash", None)
        return {"user": user, "csrf": request.session.get("csrf", ""), "flash": flash,
                "runbook": ctx.room.class_file.runbook}

    Handler = Callable[[Request, str], Awaitable[Response]]

    def trainer_page(handler: Handler) -> Callable[[Request], Awaitable[Response]]:
        async def endpoint(request: Request) -> Response:
            user = trainer_of(request)
            if isinstance(user, Response):
                return user
            return await handler(request, user)
        return endpoint

    async def login_form(request: Request) -> Response:
        return page("login.html", error="")

    async def login(request: Request) -> Response:
        form = await request.form()
        user, password = form.get("username"), form.get("password")
        if not isinstance(user, str) or not isinstance(password, str) or not user or len(user) > 64 \
                or len(password) > 1024:
            return refuse(request, 400, "give a user name and a password", login=True)
        source = _peer(request)
        if ctx.guard.locked(source, user):
            await asyncio.sleep(ctx.auth_delay_max)
            return refuse(request, 429, "too many refused passwords: try again later", login=True)
        stored = ctx.password_hash(user)
        loop = asyncio.get_running_loop()
        ok = bool(await loop.run_in_executor(ctx.auth_pool, verify_password, password, stored))
        if not ok:
            delay = ctx.guard.refused(source, user)
            if delay:
                await asyncio.sleep(delay)
            return refuse(request, 401, "wrong user name or password", login=True)
        ctx.guard.accepted(source, user)
        if not ctx.room.class_file.is_trainer(user):
            return refuse(request, 403, "the class view is for the class's trainers only")
        request.session.clear()
        request.session.update({"user": user, "issued": time.time(), "csrf": secrets.token_urlsafe(24)})
        log.info("web login %s", fields(user=user, peer=source))
        return RedirectResponse("/", 303)

    async def logout(request: Request) -> Response:
        checked = await _csrf(request)
        if checked is not None:
            return refuse(request, 403, checked)
        request.session.clear()
        return RedirectResponse("/login", 303)

    async def _csrf(request: Request) -> str | None:
        form = await request.form()
        sent, kept = form.get("csrf"), request.session.get("csrf")
        if not isinstance(sent, str) or not isinstance(kept, str) or not hmac.compare_digest(sent, kept):
            return "the form's CSRF token is missing or wrong: reload the page"
        return None

    async def class_page(request: Request, user: str) -> Response:
        found = await asyncio.to_thread(tiles.tiles)
        return page("class.html", tiles=found, **base(request, user))

    async def trainee_page(request: Request, user: str) -> Response:
        """The trainee's lab now, or with `?at=SEQ` as it was after that line of its timeline."""
        name = request.path_params["name"]
        at_text = request.query_params.get("at")
        if at_text is not None and not (at_text.isascii() and at_text.isdigit() and len(at_text) <= MAX_AT_DIGITS):
            return refuse(request, 400, "at= takes the number of a line of the timeline")
        view = await asyncio.to_thread(views.trainee_view, ctx.room, name, ctx.online)
        if view is None:
            return refuse(request, 404, f"no trainee '{_shown(name)}' in this class")
        if at_text is None:
            drawing = await asyncio.to_thread(views.lab_drawing, ctx.room, view.lab)
            return page("trainee.html", view=view, t=view.tile, drawing=drawing, at=None, **base(request, user))
        if replays.locked():
            return refuse(request, 503, "other drawings of an earlier moment are being made: try again in a moment")
        async with replays:
            found = await asyncio.to_thread(at_line.lab_after, ctx.room, view.lab, int(at_text))
        if found is None:
            return refuse(request, 404, f"no line {at_text} in the timeline of {view.name}'s lab")
        return page("trainee.html", view=view, t=view.tile, drawing=found.drawing, at=found, **base(request, user))

    async def summary_page(request: Request, user: str) -> Response:
        found = views.summary(await asyncio.to_thread(tiles.tiles))
        return page("summary.html", summary=found, **base(request, user))

    async def action(request: Request, user: str) -> Response:
        name, verb = request.path_params["name"], request.path_params["action"]
        checked = await _csrf(request)
        if checked is not None:
            return refuse(request, 403, checked)
        if verb not in ACTIONS:
            return refuse(request, 404, f"no action '{_shown(verb)}'")
        if ctx.room.class_file.trainee(name) is None:
            return refuse(request, 404, f"no trainee '{_shown(name)}' in this class")
        form = await request.form()
        value = form.get("value", "")
        if not isinstance(value, str):
            return refuse(request, 400, "the form's value must be text")
        words = [verb, name] + ([value] if verb != "reset" else [])
        console = TrainerConsole(ctx.room, user, ctx.online)
        text, ok = await asyncio.to_thread(console.run, shlex.join(words))
        member = ctx.room.class_file.trainee(name)
        if member is not None:
            ctx.room.changed(member.lab)
        log.info("web action %s %s", fields(user=user, peer=_peer(request), trainee=name, action=verb),
                 "ok" if ok else "refused")
        request.session["flash"] = {"ok": ok, "text": text[:2000]}
        return RedirectResponse(f"/trainee/{name}", 303)

    async def grades_csv(request: Request, user: str) -> Response:
        from ..grades import GRADE_COLUMNS, grade_rows

        rows = await asyncio.to_thread(grade_rows, ctx.room)
        out = io.StringIO()
        writer = csv.DictWriter(out, GRADE_COLUMNS)
        writer.writeheader()
        writer.writerows(rows)
        return Response(out.getvalue(), media_type="text/csv; charset=utf-8",
                        headers={"Content-Disposition": 'attachment; filename="grades.csv"'})

    async def grades_json(request: Request, user: str) -> Response:
        from ..grades import grades_document

        found = await asyncio.to_thread(grades_document, ctx.room)
        return Response(json.dumps(found, sort_keys=True, indent=1) + "\n", media_type="application/json",
                        headers={"Content-Disposition": 'attachment; filename="grades.json"'})

    async def transcript(request: Request, user: str) -> Response:
        name = request.path_params["name"]
        member = ctx.room.class_file.trainee(name)
        if member is None:
            return refuse(request, 404, f"no trainee '{_shown(name)}' in this class")
        text = await asyncio.to_thread(ctx.room.transcript, member.lab)
        return PlainTextResponse(text, headers={"Content-Disposition":
                                                f'attachment; filename="{member.name}.cli.txt"'})

    async def events(request: Request, user: str) -> Response:
        return StreamingResponse(_stream(user), media_type="text/event-stream",
                                 headers={"Cache-Control": "no-store", "X-Accel-Buffering": "no"})

    async def _stream(user: str) -> AsyncIterator[str]:
        queue = feed.subscribe()
        try:
            yield "retry: 2000\n\n"
            while True:
                try:
                    tiles = await asyncio.wait_for(queue.get(), SSE_KEEPALIVE_SECONDS)
                except asyncio.TimeoutError:
                    yield ": keep-alive\n\n"
                    continue
                if not ctx.room.class_file.is_trainer(user):
                    return
                for lab, html in tiles:
                    yield f"event: tile\ndata: {json.dumps({'lab': lab, 'html': html})}\n\n"
        finally:
            feed.unsubscribe(queue)

    async def not_found(request: Request, exc: Exception) -> Response:
        return refuse(request, 404, "no such page")

    async def not_allowed(request: Request, exc: Exception) -> Response:
        return refuse(request, 405, f"{request.method} is not allowed here")

    routes = [
        Route("/login", login_form, methods=["GET"]),
        Route("/login", login, methods=["POST"]),
        Route("/logout", logout, methods=["POST"]),
        Route("/", trainer_page(class_page), methods=["GET"]),
        Route("/summary", trainer_page(summary_page), methods=["GET"]),
        Route("/events", trainer_page(events), methods=["GET"]),
        Route("/grades.csv", trainer_page(grades_csv), methods=["GET"]),
        Route("/grades.json", trainer_page(grades_json), methods=["GET"]),
        Route("/trainee/{name}", trainer_page(trainee_page), methods=["GET"]),
        Route("/trainee/{name}/transcript.txt", trainer_page(transcript), methods=["GET"]),
        Route("/trainee/{name}/{action}", trainer_page(action), methods=["POST"]),
    ]
    middleware = [
        Middleware(BodyLimit),
        Middleware(SessionMiddleware, secret_key=secrets.token_urlsafe(32), session_cookie=COOKIE,
                   max_age=int(ctx.session_seconds), same_site="strict", https_only=ctx.tls),
    ]
    return Starlette(routes=routes, middleware=middleware,
                     exception_handlers={404: not_found, 405: not_allowed})


def tile_renderer(cache: views.TileCache) -> Callable[[list[str]], list[tuple[str, str]]]:
    """The feed's `render`: each changed lab's tile, drawn as the class page draws it."""
    template = environment().get_template("_tile.html")

    def render(labs: list[str]) -> list[tuple[str, str]]:
        known = set(cache.room.class_file.labs())
        return [(lab, template.render(t=cache.tile(lab))) for lab in labs if lab in known]
    return render


def _peer(request: Request) -> str:
    return request.client.host if request.client is not None else "-"


def _shown(text: str) -> str:
    clean = "".join(ch if ch.isprintable() else "?" for ch in text)
    return clean if len(clean) <= 40 else clean[:37] + "..."
