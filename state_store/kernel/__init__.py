"""The HA-system-neutral kernel: typed in-memory objects (no SQL, no CLI text), one timer queue on
the lab's simulated clock, a message ledger in runs, one audit vocabulary, one failure
vocabulary and the registry of journaled operations; each HA system is a `Policy` plus
operations, registered through `state_store.systems`. The lookups and failure refusals every
system shares are `lookup` and `inject`, worded by the system's `terms.SystemTerms`."""

from .audit import OUTCOMES, AuditTotals, Finding, Span
from .failures import FAILURES, Failure
from .kernel import IllegalTransition, Kernel
from .ledger import DeliveryRun, Ledger, MessageRun, ResendRun
from .model import Client, Event, Group, Link, Node, node_key
from .ops import operation
from .policy import Policy, policy_for, register
from .timers import Timer, TimerQueue

__all__ = ["FAILURES", "OUTCOMES", "AuditTotals", "Client", "DeliveryRun", "Event", "Failure", "Finding", "Group",
           "IllegalTransition", "Kernel", "Ledger", "Link", "MessageRun", "Node", "Policy", "ResendRun", "Span",
           "Timer", "TimerQueue", "node_key", "operation", "policy_for", "register"]
