"""Apache Qpid C++ broker HA (active/passive, hot standby) as a system on the kernel: status
machine, delayed completion, failover handshake, resource manager, journaled lab operations,
scenario section. Importing the package registers the policy and operations."""

from ..kernel.plugin import SystemModel
from . import drills as _drills
from . import errors as _errors
from . import operations as lab
from . import policy as policy
from . import scenario as _scenario
from .params import SYSTEM, QpidParams

MODEL = SystemModel(SYSTEM, _scenario.SCHEMA, _scenario.check, _scenario.holds_groups, _scenario.build,
                    _errors.CODES, _drills.plan_drill, policy.copies)

__all__ = ["MODEL", "SYSTEM", "QpidParams", "lab", "policy"]
