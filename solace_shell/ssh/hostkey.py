"""The lab's SSH host key: generated once per lab, stored next to the lab file with mode 0600,
never through a symbolic link.

Why next to the lab: trainees' clients remember the key per host and port; a key that changed at
every start would make OpenSSH refuse the lab as a possible man in the middle.
"""

from __future__ import annotations

import errno
import logging
import os
import stat
from pathlib import Path

import asyncssh

log = logging.getLogger(__name__)

HOST_KEY_SUFFIX = ".ssh_host_key"
KEY_ALGORITHM = "ssh-ed25519"


class HostKeyError(Exception):
    """The host key file exists but cannot be used; `problem` says why in one line."""

    def __init__(self, path: Path, problem: str) -> None:
        super().__init__(f"{path}: {problem}")
        self.path = path
        self.problem = problem


def host_key_path_for(lab_path: str | Path) -> Path:
    """`labs/drill.lab` -> `labs/drill.lab.ssh_host_key`."""
    lab_path = Path(lab_path)
    return lab_path.with_name(lab_path.name + HOST_KEY_SUFFIX)


def load_or_create_host_key(path: Path) -> asyncssh.SSHKey:
    """The key in `path`, created (mode 0600, never readable by others, even for a moment) if missing.

    The file is opened without following a symbolic link (O_NOFOLLOW), and its mode is checked and
    fixed on the open file: a link planted at the key's path can neither lend the server another
    file's key nor have another file's mode changed."""
    try:
        fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW, 0o600)
    except FileExistsError:
        return _load(path)
    except OSError as exc:
        raise HostKeyError(path, f"cannot create: {exc.strerror or exc}") from exc
    key = asyncssh.generate_private_key(KEY_ALGORITHM)
    with os.fdopen(fd, "wb") as fh:
        fh.write(key.export_private_key("openssh"))
    log.info("created SSH host key %s", path)
    return key


MAX_KEY_BYTES = 64 * 1024  # an Ed25519 key file is about 400 bytes; anything this big is no key


def _load(path: Path) -> asyncssh.SSHKey:
    try:
        fd = os.open(path, os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK)
    except OSError as exc:
        if exc.errno == errno.ELOOP:
            raise HostKeyError(path, "is a symbolic link (refused: the key must be a file of its own)") from exc
        raise HostKeyError(path, f"cannot read: {exc.strerror or exc}") from exc
    with os.fdopen(fd, "rb") as fh:
        try:
            info = os.fstat(fd)
            if not stat.S_ISREG(info.st_mode):
                raise HostKeyError(path, "not a regular file")
            mode = stat.S_IMODE(info.st_mode)
            if mode & 0o077:
                os.fchmod(fd, 0o600)
                log.warning("SSH host key %s was readable by others (mode %04o); now 0600", path, mode)
            data = fh.read(MAX_KEY_BYTES + 1)
        except OSError as exc:
            raise HostKeyError(path, f"cannot read: {exc.strerror or exc}") from exc
    if len(data) > MAX_KEY_BYTES:
        raise HostKeyError(path, "not an SSH private key (too large)")
    try:
        return asyncssh.import_private_key(data)
    except (asyncssh.KeyImportError, ValueError) as exc:
        raise HostKeyError(path, f"not an SSH private key ({exc})") from exc
