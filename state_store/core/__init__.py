"""The HA-system-neutral core: typed in-memory objects (no SQL, no CLI text), one timer queue on
the lab's simulated clock, a message ledger and audit; each HA product is a `Policy`."""

from .audit import AuditTotals, Finding
from .hacore import HaCore, IllegalTransition
from .ledger import Delivery, Ledger, Message
from .model import Client, Event, Group, Link, Node, node_key
from .policy import Policy, policy_for, register
from .timers import Timer, TimerQueue

__all__ = ["AuditTotals", "Client", "Delivery", "Event", "Finding", "Group", "HaCore", "IllegalTransition",
           "Ledger", "Link", "Message", "Node", "Policy", "Timer", "TimerQueue", "node_key", "policy_for",
           "register"]
