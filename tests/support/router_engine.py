"""The router CLI's engine in a test's lab, asked for by the registry's name.

Why a helper: the lab's root engine serves the lab's own calls only (clock, settings, users,
failures, the kernel); a test that drives the routers' model (publish, queues, transactions, the
audit) asks the root for that system's engine, as the shell does (``RootEngine.system_view``:
over an empty section in a lab without routers).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from state_store.systems import ROUTER_CLI

if TYPE_CHECKING:
    from state_store.lab_root.engine import RootEngine
    from state_store.lab_root.state import RootState
    from state_store.solace.broker_state import BrokerState
    from state_store.solace.engine import Engine


def router_engine(engine: RootEngine) -> Engine:
    """The router CLI's engine of the lab behind ``engine``."""
    found: Engine = engine.views[ROUTER_CLI.name]
    return found


def router_section(state: RootState) -> BrokerState:
    """The router CLI's section of the lab state ``state`` (its records: queues, messages, ...)."""
    found: BrokerState = state.sections[ROUTER_CLI.name]
    return found


def owner_of(engine: RootEngine, call: str) -> Any:
    """The engine serving the call named ``call``: the root's, else the router CLI's (for tests
    that name calls of both in one list)."""
    return engine if hasattr(type(engine), call) else router_engine(engine)
