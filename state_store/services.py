"""The services of one lab, composed: each owns one part of the broker's behaviour and reaches the
others only through their public methods (``self.sv.<service>.<method>``).

Why a container rather than one class of mixins: every service type-checks on its own, its public
methods are the whole of what others may use, and a newcomer finds a behaviour by its service. A
Services is built per lab state (cheap: seven small objects).
"""

from __future__ import annotations

from .audit import AuditService
from .clients import ClientsService
from .config_objects import ConfigService
from .failures import FailuresService
from .lookups import Lookups
from .messaging import MessagingService
from .replication import ReplicationService
from .state import BrokerState
from .transactions import TransactionsService


class Services:
    def __init__(self, st: BrokerState) -> None:
        self.st = st
        self.lookups = Lookups(st)
        self.replication = ReplicationService(self)
        self.messaging = MessagingService(self)
        self.clients = ClientsService(self)
        self.transactions = TransactionsService(self)
        self.failures = FailuresService(self)
        self.audit = AuditService(self)
        self.config = ConfigService(self)
