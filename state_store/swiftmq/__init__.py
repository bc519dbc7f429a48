"""SwiftMQ HA Router (HA Controller Swiftlet) as a policy of the HA core: state machine, lab
operations, scenario section. Importing the package registers the policy."""

from . import policy as policy
from .params import SYSTEM, HaParams, QueueParams

__all__ = ["SYSTEM", "HaParams", "QueueParams", "policy"]
