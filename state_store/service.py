"""The base every service of the engine derives from (composed by ``state_store.services``).

Why a module of its own: each service module needs this base, and the container needs every service
class; keeping the base apart lets both import at module level without a cycle.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from .broker_state import BrokerState
from .lookups import Lookups

if TYPE_CHECKING:
    from .services import Services


class Service:
    """Base of every service: the state, the shared lookups and the other services."""

    def __init__(self, sv: Services) -> None:
        self.sv = sv
        self.st: BrokerState = sv.st
        self.lk: Lookups = sv.lookups
