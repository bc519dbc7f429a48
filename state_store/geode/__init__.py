"""Apache Geode client-subscription-queue HA as a system on the kernel: cache servers, a locator,
client pools with primary and secondary subscription queues, journaled lab and gfsh operations,
the scenario section. Importing the package registers the policy and operations."""

from ..kernel.plugin import SystemModel
from . import drills as _drills
from . import errors as _errors
from . import operations as lab
from . import policy as policy
from . import queues as _queues
from . import scenario as _scenario
from .params import SYSTEM, PoolParams, ServerParams

MODEL = SystemModel(SYSTEM, _scenario.SCHEMA, _scenario.check, _scenario.holds_groups, _scenario.build,
                    _errors.CODES, _drills.plan_drill, _queues.copies)

__all__ = ["MODEL", "SYSTEM", "PoolParams", "ServerParams", "lab", "policy"]
