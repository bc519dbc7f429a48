"""The C allocator's thresholds while transcripts replay (glibc only; elsewhere nothing).

Why: a replay allocates and frees blocks of more than 128 KiB many times per transcript (transcript
texts, the lab's record tables as they grow). At glibc's default thresholds each such block is
mapped and unmapped from the kernel, and each time the top of the heap empties it goes back to the
kernel, so the next transcript takes the same pages again as page faults. glibc raises both
thresholds by itself the first time it frees a large mapped block, and until the bundled scenarios
gave their passwords as hashes, the 16 MiB buffer of scrypt-hashing them did just that in every
process that built a default lab. Without it a Spark partition of 2,500 drills measured about 5%
slower (3.28 s of CPU against 3.12 s, a fifth more page faults; an ad-hoc A/B, docs/conformance.md).
The values here are the ones glibc would have set: blocks up to 16 MiB come from the heap, and up to
32 MiB of free space stays at its top. The process keeps them for its life, as it kept glibc's own:
mallopt cannot read them back to restore them, and the processes that replay (the replay command,
Spark executors, the benchmarks) replay until they exit.
"""

from __future__ import annotations

import sys

M_TRIM_THRESHOLD = -1  # glibc's mallopt parameter numbers (malloc.h)
M_MMAP_THRESHOLD = -3
MMAP_THRESHOLD = 16 << 20
TRIM_THRESHOLD = 32 << 20

_taken: bool | None = None  # None: not tried yet in this process


def raise_thresholds() -> bool:
    """Set the thresholds, once per process; whether the C library took them (False off glibc)."""
    global _taken
    if _taken is None:
        _taken = _set_thresholds()
    return _taken


def _set_thresholds() -> bool:
    if not sys.platform.startswith("linux"):
        return False
    import ctypes  # noqa: PLC0415  (a replay only: `solace-shell -c` does not pay for it)

    try:
        mallopt = ctypes.CDLL(None).mallopt
    except (OSError, AttributeError):  # no C library found, or one without mallopt
        return False
    mallopt.argtypes = [ctypes.c_int, ctypes.c_int]
    mallopt.restype = ctypes.c_int
    return bool(mallopt(M_MMAP_THRESHOLD, MMAP_THRESHOLD)) and bool(mallopt(M_TRIM_THRESHOLD, TRIM_THRESHOLD))
