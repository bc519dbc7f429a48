"""Password hashing for CLI users and bridge credentials.

Why: the lab file may be shared or committed; passwords must never be stored or returned in clear.
Format: ``scrypt$<n>$<salt hex>$<hash hex>``. The salt is derived deterministically from the user
name and a stored lab seed only when the caller asks (scenario templates must be reproducible);
otherwise it is random (os.urandom is fine here: it never influences simulated behaviour).
"""

from __future__ import annotations

import hashlib
import hmac
import os

_N = 2**12  # cheap enough for a template build, still a real KDF
PREFIX = "scrypt$"


def hash_password(password: str, salt: bytes | None = None) -> str:
    salt = salt if salt is not None else os.urandom(16)
    digest = hashlib.scrypt(password.encode(), salt=salt, n=_N, r=8, p=1, dklen=32)
    return f"{PREFIX}{_N}${salt.hex()}${digest.hex()}"


def is_hashed(value: str) -> bool:
    parts = value.split("$")
    return value.startswith(PREFIX) and len(parts) == 4 and parts[1].isdigit()


def verify_password(password: str, stored: str) -> bool:
    if not is_hashed(stored):
        return False
    _, n, salt_hex, digest_hex = stored.split("$")
    try:
        digest = hashlib.scrypt(
            password.encode(), salt=bytes.fromhex(salt_hex), n=int(n), r=8, p=1, dklen=32
        )
    except ValueError:
        return False
    return hmac.compare_digest(digest.hex(), digest_hex)


class HashedSecret(str):
    """A secret given already hashed (the `encrypted-password` form `show current-config`
    prints): stored as it is, after checking its format, never hashed again."""
