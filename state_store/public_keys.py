"""SSH public keys a scenario gives its CLI users (`ssh_keys`), checked when the lab is built.

Why here and with asyncssh: a key that `solace-shell serve` could never match must be refused with
its file and line when the trainer builds the lab, not found out when a trainee's login fails.
asyncssh (already the SSH server's library) decodes the key as the server will; it is imported only
when a scenario has keys, so the shell's start-up does not pay for it.

A key line is what an OpenSSH client keeps in `~/.ssh/id_<type>.pub`: `<type> <base64> [comment]`.
authorized_keys options (`from="..."`, `command="..."`) are not taken. A private key is refused
without echoing any of it: pasting the wrong file must not put the secret in an error message.
"""

from __future__ import annotations

PRIVATE_KEY_MARKERS = ("PRIVATE KEY", "PuTTY-User-Key-File")


class PublicKeyError(ValueError):
    """Why a line is not a usable public key (one line, never the key itself)."""


def check_public_key(line: str) -> str:
    """The key line as the lab keeps it (`<type> <base64> [comment]`, spaces normalised), or
    PublicKeyError saying why it cannot be used."""
    if any(marker in line for marker in PRIVATE_KEY_MARKERS):
        raise PublicKeyError("is a private key; give the public key (the .pub file) instead")
    import asyncssh  # noqa: PLC0415  (see the module docstring)

    words = line.split()
    if len(words) < 2:
        raise PublicKeyError("is not an OpenSSH public key line ('<type> <base64> [comment]', as in a .pub file)")
    try:
        key = asyncssh.import_public_key(line)
    except asyncssh.KeyImportError as exc:
        # asyncssh's reason without what it quotes from the key (bytes of the line, maybe a newline)
        reason = str(exc).split(":", 1)[0].strip() or "not a public key"
        raise PublicKeyError(f"is not a usable OpenSSH public key ({reason[0].lower()}{reason[1:]})") from None
    except Exception:  # noqa: BLE001  the decoders below asyncssh fail on crafted keys in their own ways
        raise PublicKeyError("is not a usable OpenSSH public key (its numbers cannot be decoded)") from None
    if key.get_algorithm() != words[0]:  # e.g. a key with options in front of it
        raise PublicKeyError("is not an OpenSSH public key line ('<type> <base64> [comment]', as in a .pub file)")
    return " ".join(words)
