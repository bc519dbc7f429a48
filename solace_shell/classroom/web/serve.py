"""uvicorn's server inside the class server's running event loop (no second loop, no thread):
started with the SSH listeners, stopped with them."""

from __future__ import annotations

import asyncio
import contextlib
import logging
import socket
import ssl
from collections.abc import Generator
from typing import TYPE_CHECKING, Protocol

import uvicorn

from .app import WebContext, create_app, tile_renderer
from .events import ClassFeed
from .options import WebOptions
from .views import TileCache

if TYPE_CHECKING:
    from collections.abc import Mapping
    from concurrent.futures import Executor

    from ...ssh.guard import LoginGuard
    from ...ssh.limits import SshLimits
    from ..room import ClassRoom

log = logging.getLogger(__name__)
START_SECONDS = 10.0




class WebHost(Protocol):
    """What the class view needs of the class server it runs in (a port, not its class: the
    server starts the view, so the view does not import the server)."""

    @property
    def room(self) -> ClassRoom: ...
    @property
    def online(self) -> Mapping[str, int]: ...
    @property
    def guard(self) -> LoginGuard: ...
    @property
    def auth_pool(self) -> Executor: ...
    @property
    def limits(self) -> SshLimits: ...
    def password_hash(self, user: str) -> str | None: ...


class _InLoopServer(uvicorn.Server):
    """The class server owns SIGINT/SIGTERM; uvicorn must not take them."""

    @contextlib.contextmanager
    def capture_signals(self) -> Generator[None, None, None]:
        yield


class WebServer:
    def __init__(self, server: uvicorn.Server, task: asyncio.Task[None], feed: ClassFeed, url: str) -> None:
        self.server = server
        self.task = task
        self.feed = feed
        self.url = url

    async def stop(self) -> None:
        self.server.should_exit = True
        self.server.force_exit = True  # event streams never end by themselves
        try:
            await asyncio.wait_for(asyncio.shield(self.task), 5)
        except (asyncio.TimeoutError, Exception):  # noqa: BLE001  stopping: whatever it ended with
            self.task.cancel()
        await self.feed.stop()


async def start_web(server: WebHost, host: str, options: WebOptions) -> WebServer:
    """Serve the class view on `host`:`options.port` (0: any free port); raise OSError when it
    cannot listen."""
    if options.cert is not None and options.key is not None:  # its problem now, not inside uvicorn
        try:
            ssl.create_default_context(ssl.Purpose.CLIENT_AUTH).load_cert_chain(options.cert, options.key)
        except (OSError, ValueError) as exc:
            raise OSError(f"cannot use the certificate {options.cert} with the key {options.key}: "
                          f"{getattr(exc, 'reason', None) or exc}") from exc
    room = server.room
    online = server.online.__getitem__
    cache = TileCache(room, online)
    feed = ClassFeed(tile_renderer(cache))
    feed.start()
    room.listen(cache.invalidate)
    room.listen(feed.changed)
    tls = options.cert is not None and options.key is not None
    ctx = WebContext(room, server.guard, server.password_hash, online, server.auth_pool, tls,
                     server.limits.auth_delay_max_ms / 1000)
    config = uvicorn.Config(create_app(ctx, feed, cache), host=host, port=options.port, log_config=None,
                            access_log=False, lifespan="off", timeout_graceful_shutdown=1,
                            ssl_certfile=str(options.cert) if tls else None,
                            ssl_keyfile=str(options.key) if tls else None)
    family = socket.AF_INET6 if ":" in host else socket.AF_INET
    listening = socket.create_server((host, options.port), family=family)  # OSError: cannot listen
    web = _InLoopServer(config)
    task = asyncio.create_task(web.serve(sockets=[listening]))
    loop = asyncio.get_running_loop()
    deadline = loop.time() + START_SECONDS
    while not web.started:
        if task.done() or loop.time() > deadline:
            task.cancel()
            await feed.stop()
            listening.close()
            raise OSError(f"the class view did not start on {host} port {options.port}")
        await asyncio.sleep(0.02)
    port = listening.getsockname()[1]
    url = f"{'https' if tls else 'http'}://{host}:{port}/"
    log.info("class view on %s", url)
    return WebServer(web, task, feed, url)
