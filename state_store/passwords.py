"""Password hashing for CLI users and bridge credentials.

Why: a lab file may be shared or committed, so passwords are never stored or returned in clear,
and one leaked lab must not help against another: every hash has its own random salt (the lab
is built from a scenario whose clear passwords are hashed once, at load). The bundled scenarios
give their published passwords (admin/admin, ...) as hashes made once, so building their labs
hashes nothing: a leaked default lab tells nothing its documentation does not.

Format (self-describing, the PHC string form): ``$scrypt$ln=14,r=8,p=1$<salt>$<hash>`` with the
salt and hash in unpadded base64. Lab files written before it hold ``scrypt$<n>$<salt hex>$<hash
hex>`` (a salt derived from the user name); those still verify, and the lab keeps working: reset
the lab (``lab> reset``) or rebuild it to get random salts.

Verification compares in constant time (hmac.compare_digest) and spends the same KDF work on an
unknown user as on a known one, so neither the answer nor its timing tells the two apart.
"""

from __future__ import annotations

import binascii
import os

_LN = 14           # n = 2**14: about 45 ms a hash here, 16 MiB of memory
_R, _P, _DKLEN = 8, 1, 32
_MAXMEM = 64 * 1024 * 1024
_MAX_LN = 20       # a stored hash may not ask for more work than this (a hostile lab file)
PREFIX = "$scrypt$"
LEGACY_PREFIX = "scrypt$"


# base64, hashlib and hmac are imported where they are used: opening a lab checks the stored
# hashes' form (``is_hashed``) but a command that hashes nothing need not load OpenSSL.


def _b64(data: bytes) -> str:
    import base64

    return base64.b64encode(data).decode("ascii").rstrip("=")


def _unb64(text: str) -> bytes:
    import base64

    return base64.b64decode(text + "=" * (-len(text) % 4), validate=True)


def _scrypt(password: str, salt: bytes, n: int, r: int, p: int, dklen: int) -> bytes:
    import hashlib

    return hashlib.scrypt(password.encode("utf-8", "surrogatepass"), salt=salt, n=n, r=r, p=p,
                          dklen=dklen, maxmem=_MAXMEM)


def hash_password(password: str, salt: bytes | None = None) -> str:
    """A new hash; the salt is random unless given (only tests give one)."""
    salt = salt if salt is not None else os.urandom(16)
    digest = _scrypt(password, salt, 2**_LN, _R, _P, _DKLEN)
    return f"{PREFIX}ln={_LN},r={_R},p={_P}${_b64(salt)}${_b64(digest)}"


def _parse(stored: str) -> tuple[int, int, int, bytes, bytes] | None:
    """(n, r, p, salt, digest) of a stored hash in either format, or None when it is not one."""
    try:
        if stored.startswith(PREFIX):
            params, salt_text, digest_text = stored[len(PREFIX):].split("$")
            fields = dict(part.split("=", 1) for part in params.split(","))
            if set(fields) != {"ln", "r", "p"} or not all(v.isdigit() for v in fields.values()):
                return None
            ln, r, p = int(fields["ln"]), int(fields["r"]), int(fields["p"])
            if not (1 <= ln <= _MAX_LN and 1 <= r <= 32 and 1 <= p <= 16):
                return None
            return 2**ln, r, p, _unb64(salt_text), _unb64(digest_text)
        if stored.startswith(LEGACY_PREFIX):
            _, n_text, salt_hex, digest_hex = stored.split("$")
            if not n_text.isdigit() or not 2 <= int(n_text) <= 2**_MAX_LN:
                return None
            return int(n_text), 8, 1, bytes.fromhex(salt_hex), bytes.fromhex(digest_hex)
    except (ValueError, binascii.Error):
        return None
    return None


def is_hashed(value: str) -> bool:
    """Whether ``value`` is a stored hash this module can verify (either format)."""
    parsed = _parse(value)
    return parsed is not None and 16 <= len(parsed[4]) <= 64


# what an unknown user is checked against: the same work, and no password matches it
_UNKNOWN = (2**_LN, _R, _P, b"\x00" * 16, b"\x00" * _DKLEN)


def verify_password(password: str, stored: str | None) -> bool:
    """Whether ``password`` matches ``stored``; ``None`` (no such user) or a value that is no
    hash costs the same work and answers False."""
    parsed = _parse(stored) if stored is not None else None
    known = parsed is not None and 16 <= len(parsed[4]) <= 64
    n, r, p, salt, digest = parsed if parsed is not None and known else _UNKNOWN
    try:
        actual = _scrypt(password, salt, n, r, p, len(digest))
    except (ValueError, MemoryError):
        return False
    import hmac

    return hmac.compare_digest(actual, digest) and known


class HashedSecret(str):
    """A secret given already hashed (the `encrypted-password` form `show current-config`
    prints): stored as it is, after checking its format, never hashed again."""
