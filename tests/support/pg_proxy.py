"""A TCP proxy in front of the throwaway PostgreSQL cluster that can lose a COMMIT's answer.

Why: a connection lost while a transaction commits is the one failure whose outcome the client
cannot know; the tests need it to happen exactly there, on the real server. The proxy relays bytes
both ways and watches the client's side for the message psycopg sends to commit (`COMMITS`).
Armed once (`lose`), at the next COMMIT it either passes it on and drops the server's answer
(`"answer"`: the transaction commits, the client never hears so) or drops the COMMIT itself
(`"commit"`: the server sees the connection end and aborts it); either way the client's
connection is closed. While `refusing`, new connections are closed as soon as they are accepted
(the database unreachable).
"""

from __future__ import annotations

import socket
import threading
from typing import Literal

# How psycopg commits: a simple query (the newest versions), or an unnamed statement of the
# extended protocol (3.1.8, the lowest: `P`, length 14, no name, `COMMIT\0`, no parameter types)
COMMITS = (b"Q\x00\x00\x00\x0bCOMMIT\x00", b"P\x00\x00\x00\x0e\x00COMMIT\x00\x00\x00")
Lose = Literal["answer", "commit"]


class CommitProxy:
    def __init__(self, server_port: int) -> None:
        self.server_port = server_port
        self.listener = socket.create_server(("127.0.0.1", 0))
        self.port = int(self.listener.getsockname()[1])
        self.refusing = False
        self.lost = threading.Event()  # set when an armed COMMIT was lost
        self._lose: Lose | None = None
        self._lock = threading.Lock()
        self._closed = False
        threading.Thread(target=self._accept, daemon=True).start()

    def url(self, database_url: str) -> str:
        """`database_url` (the cluster's) going through this proxy."""
        return database_url.replace(f":{self.server_port}/", f":{self.port}/")

    def lose(self, what: Lose) -> None:
        """Lose the next COMMIT's `what` (module docstring)."""
        with self._lock:
            self._lose = what
            self.lost.clear()

    def close(self) -> None:
        self._closed = True
        self.listener.close()

    def _accept(self) -> None:
        while not self._closed:
            try:
                client, _ = self.listener.accept()
            except OSError:
                return
            if self.refusing:
                client.close()
                continue
            try:
                server = socket.create_connection(("127.0.0.1", self.server_port))
            except OSError:
                client.close()
                continue
            state = {"drop_answers": False}
            threading.Thread(target=self._upstream, args=(client, server, state), daemon=True).start()
            threading.Thread(target=self._downstream, args=(server, client, state), daemon=True).start()

    def _upstream(self, client: socket.socket, server: socket.socket, state: dict[str, bool]) -> None:
        try:
            while data := client.recv(65536):
                with self._lock:
                    armed = self._lose if any(commit in data for commit in COMMITS) else None
                    if armed is not None:
                        self._lose = None
                if armed is not None:  # (said before the client can see it: it may go on at once)
                    self.lost.set()
                if armed == "commit":
                    break  # never sent: the server sees the connection end inside the transaction
                if armed == "answer":
                    state["drop_answers"] = True
                    server.sendall(data)  # the server commits; its answer goes nowhere
                    client.shutdown(socket.SHUT_RDWR)
                    return  # the server's side is closed once its answer came (_downstream)
                server.sendall(data)
        except OSError:
            pass
        _close(client, server)

    def _downstream(self, server: socket.socket, client: socket.socket, state: dict[str, bool]) -> None:
        try:
            while data := server.recv(65536):
                if state["drop_answers"]:
                    break  # the COMMIT's answer: dropped, and the connection ended
                client.sendall(data)
        except OSError:
            pass
        _close(client, server)


def _close(*socks: socket.socket) -> None:
    for sock in socks:
        try:
            sock.shutdown(socket.SHUT_RDWR)
        except OSError:
            pass
        sock.close()
