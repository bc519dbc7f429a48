"""What an HA system's model contributes to the lab (its package's ``MODEL``).

Why a record of functions: the scenario loader, the lab builder and the journal know no system;
they ask the registry (``state_store.systems``) for each registered system's ``SystemModel`` and
call it. The system's policy and journaled operations register themselves when its package is
imported (``kernel.policy.register``, ``kernel.ops.operation``).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from ..scenario_spec import Spec
    from .kernel import Kernel

Err = Callable[[int, str], None]   # (line, problem) of the scenario file


@dataclass(frozen=True)
class SystemModel:
    name: str                                          # the scenario section's key
    schema: Spec                                       # the section's schema (scenario_spec)
    check: Callable[[Err, Any, set[str]], None]        # cross-references; the set: names the lab uses already
    holds_groups: Callable[[Any], bool]                # the checked section defines at least one group
    build: Callable[[Kernel, Any], None]               # add the section's groups to the kernel
    error_codes: Mapping[str, tuple[str, ...]]         # its refusal codes and their parameters
    # randomised drills: (seed, index) -> (kind, mistake, steps as (target, command), bundled scenario);
    # a step whose target is "#" is a comment line (spark_jobs.generate records them)
    plan_drill: Callable[[int, int], tuple[str, str | None, tuple[tuple[str, str], ...], str]] | None = None
    # (core, group) -> for each unit of client work the group keeps redundant (a subscription
    # queue with redundancy, a cluster's replicated queues), how many running nodes hold it now;
    # None: the system does not count its copies (grading's `redundant` check never holds then)
    copies: Callable[[Kernel, str], tuple[int, ...]] | None = None
