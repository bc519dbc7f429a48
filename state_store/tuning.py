"""How a lab store trades waiting, snapshot size and rollback cost: one record of parameters.

Why parameters and not module constants: a test that needs a snapshot every call, a tiny part size
or no wait for the write lock passes its own ``StoreTuning`` to ``LabStore.open`` (or ``Lab.open``)
instead of patching the module for every store in the process; a server could choose its own.
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class StoreTuning:
    busy_timeout_ms: int = 2000        # one attempt's wait for the write lock (SQLite's busy handler)
    max_wait_s: float = 10.0           # all attempts of one command together, then LabBusy
    exclusive_after: int = 1           # lost races after which a command runs holding the write lock
    snapshot_every: int = 200          # calls rows after a snapshot before the next one is written
    part_size: int = 4_000_000         # characters of snapshot text written (or dropped) per write transaction
    # Refresh the rollback image once replaying the calls since it costs this many images. Rollbacks
    # are rare (a refused call changes nothing and needs none), so a rare rollback may replay more.
    image_cost_factor: int = 16
    min_image_s: float = 2e-5          # the least an image is taken to cost (a tiny lab's measure is noise)


DEFAULT_TUNING = StoreTuning()
