"""Writing one of the start-up caches kept beside the byte code (`__pycache__`).

Why one function: a cache is written whole to a file of this process, then renamed over the old
one, so a concurrent start reads the old cache or the new one, never a part; a cache that cannot
be written (a read-only install) is simply not kept, as Python keeps no `.pyc` there.
"""

from __future__ import annotations

import os
from pathlib import Path


def replace_quietly(path: Path, data: bytes) -> bool:
    """Put `data` in `path` atomically (its directory made when missing); False, and nothing
    left behind, when it cannot be written."""
    part = path.with_name(f"{path.name}.{os.getpid()}")
    try:
        path.parent.mkdir(exist_ok=True)
        part.write_bytes(data)
        os.replace(part, path)
    except OSError:
        try:
            part.unlink(missing_ok=True)
        except OSError:
            pass
        return False
    return True
