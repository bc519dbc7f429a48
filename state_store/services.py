"""The services of one lab, composed: each owns one part of the broker's behaviour and reaches the
others only through their public methods (``self.sv.<service>.<method>``).

Why a container rather than one class of mixins: every service type-checks on its own, its public
methods are the whole of what others may use, and a newcomer finds a behaviour by its service.
"""

from __future__ import annotations

from .lookups import Lookups
from .state import BrokerState


class Service:
    """Base of every service: the state, the shared lookups and the other services."""

    def __init__(self, sv: Services) -> None:
        self.sv = sv
        self.st: BrokerState = sv.st
        self.lk: Lookups = sv.lookups


class Services:
    def __init__(self, st: BrokerState) -> None:
        from .audit import AuditService
        from .clients import ClientsService
        from .config_objects import ConfigService
        from .failures import FailuresService
        from .messaging import MessagingService
        from .replication import ReplicationService
        from .transactions import TransactionsService

        self.st = st
        self.lookups = Lookups(st)
        self.replication = ReplicationService(self)
        self.messaging = MessagingService(self)
        self.clients = ClientsService(self)
        self.transactions = TransactionsService(self)
        self.failures = FailuresService(self)
        self.audit = AuditService(self)
        self.config = ConfigService(self)
