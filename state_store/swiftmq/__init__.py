"""SwiftMQ HA Router (HA Controller Swiftlet) as a system on the kernel: state machine, journaled
lab operations, scenario section. Importing the package registers the policy and operations."""

from ..kernel.plugin import SystemModel
from . import errors as _errors
from . import mgmt as mgmt
from . import operations as lab
from . import policy as policy
from . import scenario as _scenario
from .params import SYSTEM, HaParams, QueueParams

MODEL = SystemModel(SYSTEM, _scenario.SCHEMA, _scenario.check, _scenario.holds_groups, _scenario.build,
                    _errors.CODES)

__all__ = ["MODEL", "SYSTEM", "HaParams", "QueueParams", "lab", "mgmt", "policy"]
