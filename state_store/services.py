"""The services of one lab, composed: each owns one part of the broker's behaviour and reaches the
others only through their public methods (``self.sv.<service>.<method>``).

Why a container rather than one class of mixins: every service type-checks on its own, its public
methods are the whole of what others may use, and a newcomer finds a behaviour by its service.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, NamedTuple

from .lookups import Lookups
from .state import BrokerState

if TYPE_CHECKING:
    from .audit import AuditService
    from .clients import ClientsService
    from .config_objects import ConfigService
    from .failures import FailuresService
    from .messaging import MessagingService
    from .replication import ReplicationService
    from .transactions import TransactionsService


class Service:
    """Base of every service: the state, the shared lookups and the other services."""

    def __init__(self, sv: Services) -> None:
        self.sv = sv
        self.st: BrokerState = sv.st
        self.lk: Lookups = sv.lookups


class Services:
    def __init__(self, st: BrokerState) -> None:
        classes = _service_classes()
        self.st = st
        self.lookups = Lookups(st)
        self.replication: ReplicationService = classes.replication(self)
        self.messaging: MessagingService = classes.messaging(self)
        self.clients: ClientsService = classes.clients(self)
        self.transactions: TransactionsService = classes.transactions(self)
        self.failures: FailuresService = classes.failures(self)
        self.audit: AuditService = classes.audit(self)
        self.config: ConfigService = classes.config(self)


class _Classes(NamedTuple):
    replication: type[ReplicationService]
    messaging: type[MessagingService]
    clients: type[ClientsService]
    transactions: type[TransactionsService]
    failures: type[FailuresService]
    audit: type[AuditService]
    config: type[ConfigService]


_classes: _Classes | None = None


def _service_classes() -> _Classes:
    """The service classes, imported on first use and kept.

    Why not module-level imports: each service module subclasses ``Service`` from here (a cycle);
    why not imports inside ``Services.__init__``: an import statement costs ~2 us each time it
    runs, and a Services is built per command (a tenth of a command's budget for seven)."""
    global _classes
    if _classes is None:
        from .audit import AuditService
        from .clients import ClientsService
        from .config_objects import ConfigService
        from .failures import FailuresService
        from .messaging import MessagingService
        from .replication import ReplicationService
        from .transactions import TransactionsService

        _classes = _Classes(ReplicationService, MessagingService, ClientsService, TransactionsService,
                            FailuresService, AuditService, ConfigService)
    return _classes
