"""A connection's writes gathered into one socket send per pass of the event loop.

Why: asyncssh writes each SSH packet to its transport on its own, and sends an SSH_MSG_IGNORE
packet before every packet it sends once the connection is encrypted, so a keystroke's echo costs
two `send` system calls (and, on the loopback, two wake-ups of the client), and a redraw written in
pieces costs two per piece. Here the writes a connection makes while the event loop runs its ready
callbacks are joined and handed to the socket's transport together, by one callback scheduled on
the first of them: one system call for all of them, at the cost of waiting until the callbacks
ready before it have run (at most one pass of the loop).

Closing sends what is gathered first, as closing a transport sends its buffer; aborting drops it,
as aborting a transport drops its buffer. Everything else is the socket transport's.
"""

from __future__ import annotations

import asyncio
from typing import Any


class GatheringTransport(asyncio.Transport):
    """`transport`, with the writes of one pass of the event loop sent together."""

    def __init__(self, transport: asyncio.Transport) -> None:
        super().__init__()
        self._transport = transport
        self._loop = asyncio.get_running_loop()
        self._gathered: list[bytes] = []
        self._size = 0

    # -- writing ----------------------------------------------------------------------------------
    def write(self, data: bytes | bytearray | memoryview) -> None:
        if not data:
            return
        if not self._gathered:
            self._loop.call_soon(self.send_gathered)
        self._gathered.append(bytes(data))
        self._size += len(data)

    def writelines(self, list_of_data: Any) -> None:
        for data in list_of_data:
            self.write(data)

    def send_gathered(self) -> None:
        """Hand what was gathered to the socket's transport (nothing once it is closing)."""
        if not self._gathered:
            return
        data = b"".join(self._gathered)
        self._gathered.clear()
        self._size = 0
        if not self._transport.is_closing():
            self._transport.write(data)

    def get_write_buffer_size(self) -> int:
        return self._transport.get_write_buffer_size() + self._size

    def get_write_buffer_limits(self) -> tuple[int, int]:
        return self._transport.get_write_buffer_limits()

    def set_write_buffer_limits(self, high: int | None = None, low: int | None = None) -> None:
        self._transport.set_write_buffer_limits(high, low)

    def can_write_eof(self) -> bool:
        return self._transport.can_write_eof()

    def write_eof(self) -> None:
        self.send_gathered()
        self._transport.write_eof()

    # -- closing ----------------------------------------------------------------------------------
    def close(self) -> None:
        self.send_gathered()
        self._transport.close()

    def abort(self) -> None:
        self._gathered.clear()
        self._size = 0
        self._transport.abort()

    def is_closing(self) -> bool:
        return self._transport.is_closing()

    # -- the rest is the socket transport's --------------------------------------------------------
    def get_extra_info(self, name: str, default: Any = None) -> Any:
        return self._transport.get_extra_info(name, default)

    def pause_reading(self) -> None:
        self._transport.pause_reading()

    def resume_reading(self) -> None:
        self._transport.resume_reading()

    def is_reading(self) -> bool:
        return self._transport.is_reading()

    def set_protocol(self, protocol: asyncio.BaseProtocol) -> None:
        self._transport.set_protocol(protocol)

    def get_protocol(self) -> asyncio.BaseProtocol:
        return self._transport.get_protocol()


def gather_writes(conn: Any) -> None:
    """Have the asyncssh connection `conn` write through a `GatheringTransport`.

    asyncssh offers no public way to give a connection its transport: the one it was made with is
    replaced in the attribute asyncssh keeps it in, only when that attribute holds a transport as
    expected (another asyncssh may keep it elsewhere: then the connection is left as it is)."""
    transport = getattr(conn, "_transport", None)
    if isinstance(transport, asyncio.Transport) and not isinstance(transport, GatheringTransport):
        conn._transport = GatheringTransport(transport)
