"""A class served in this process (`ClassServer` on its event loop thread), for the SSH tests."""

from __future__ import annotations

import asyncio
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from solace_shell.classroom.class_file import ClassFile
from solace_shell.classroom.room import ClassRoom
from solace_shell.classroom.server import ClassServer
from solace_shell.classroom.web.options import WebOptions
from solace_shell.ssh.eventloop import ServerEventLoop
from solace_shell.ssh.hostkey import host_key_path_for, load_or_create_host_key
from solace_shell.ssh.store import SerializedStore
from tests.support.ssh_clients import TIMEOUT

F2 = "\x1bOQ"


class ClassServerThread:
    def __init__(self, class_file: ClassFile, directory: Path, idle_check_seconds: float = 15.0,
                 web: WebOptions | None = None) -> None:
        self.room = ClassRoom(class_file, directory)
        self.template = SerializedStore.in_memory(next(iter(class_file.scenarios.values())))
        assert isinstance(self.template, SerializedStore)
        key = load_or_create_host_key(host_key_path_for(directory / "class"))
        self.server = ClassServer(self.room, self.template, key)
        self.server.idle_check_seconds = idle_check_seconds
        self.server.web_options = web
        self.loop = ServerEventLoop()
        self.thread = threading.Thread(target=self.loop.run_forever, daemon=True)
        self.thread.start()
        asyncio.run_coroutine_threadsafe(self.server.start("127.0.0.1", 0), self.loop).result(TIMEOUT)

    def port(self, router: str = "NY_Appliance1") -> int:
        return next(listener.port for listener in self.server.listeners if listener.router == router)

    def close(self) -> None:
        """Stop the server, then wait for the commands its sessions still run in worker threads
        (as `class serve` does) before the labs and the record are closed under them."""
        asyncio.run_coroutine_threadsafe(self.server.stop(), self.loop).result(TIMEOUT)
        asyncio.run_coroutine_threadsafe(self.loop.shutdown_default_executor(), self.loop).result(TIMEOUT)
        self.loop.call_soon_threadsafe(self.loop.stop)
        self.thread.join(TIMEOUT)
        self.loop.close()
        self.template.close()
        self.room.close()


@contextmanager
def class_serving(class_file: ClassFile, directory: Path, idle_check_seconds: float = 15.0,
                  web: WebOptions | None = None) -> Iterator[ClassServerThread]:
    server = ClassServerThread(class_file, directory, idle_check_seconds, web)
    try:
        yield server
    finally:
        server.close()
