"""The lab's state: the HA-neutral kernel, one package per emulated system, and the lab file.

- ``kernel``: clock, timers, groups, nodes, links, a ledger of message runs, the audit vocabulary
  and the failure verbs every HA system shares.
- ``solace``: the Solace PubSub+ model (replication sites, routers, VPNs, queues, clients,
  transactions, configuration leaves, intra-site redundancy) behind the ``Engine`` facade;
  ``swiftmq``, ``geode``, ``qpid``: the other HA systems, plugins on the kernel, named only in
  ``systems`` (the registry).
- ``lab_store``, ``lab_file``, ``lab_tables``, ``journal*``, ``images``: keeping a lab in memory
  and in a file shared by several shells.

Knows nothing about prompts or text: it returns dataclasses (views) and raises
``errors.EngineError(code, **params)``. Start at ``lab_store.LabStore`` and ``solace.engine.Engine``.
"""

from .errors import EngineError, LabFileError

__all__ = ["EngineError", "LabFileError"]
