"""The Solace PubSub+ model: two replication sites of message routers, their Message VPNs,
queues, clients, transactions and configuration objects, behind one Engine facade."""

from .section import SECTION

__all__ = ["SECTION"]
