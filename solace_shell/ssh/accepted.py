"""Passwords accepted a moment ago, remembered as keyed digests, so that a class logging in to a
few shared lab users pays one password hash per user, not one per trainee.

Why it is safe: only a password that was just checked and accepted is remembered, as an HMAC under
a key made at random for this process (neither the password nor anything that checks it offline
ever leaves memory), together with the stored hash it matched, so a changed password (`lab>
reset`) is checked again. A wrong password is never remembered, so it always costs a full hash,
and an unknown user always costs one against the dummy hash: refusals take the same time for both.
An entry lasts `ttl_seconds`; at most `size` are kept.
"""

from __future__ import annotations

import hashlib
import hmac
import os
import threading
import time
from collections import OrderedDict

TTL_SECONDS = 600.0
SIZE = 1024


class AcceptedPasswords:
    """(user, password, stored hash) triples accepted within `ttl_seconds` (thread-safe)."""

    def __init__(self, ttl_seconds: float = TTL_SECONDS, size: int = SIZE) -> None:
        self.ttl_seconds = ttl_seconds
        self.size = size
        self._key = os.urandom(32)
        self._seen: OrderedDict[bytes, float] = OrderedDict()
        self._lock = threading.Lock()

    def digest(self, user: str, password: str, stored: str) -> bytes:
        """The keyed digest that stands for this triple (never the password itself)."""
        message = "\0".join((user, password, stored)).encode("utf-8", "surrogatepass")
        return hmac.new(self._key, message, hashlib.sha256).digest()

    def __contains__(self, entry: tuple[str, str, str]) -> bool:
        digest = self.digest(*entry)
        with self._lock:
            until = self._seen.get(digest)
            if until is None:
                return False
            if until < time.monotonic():
                del self._seen[digest]
                return False
            return True

    def add(self, user: str, password: str, stored: str) -> None:
        digest = self.digest(user, password, stored)
        with self._lock:
            self._seen[digest] = time.monotonic() + self.ttl_seconds
            self._seen.move_to_end(digest)
            while len(self._seen) > self.size:
                self._seen.popitem(last=False)
