"""The lab's root: what every lab holds whatever systems it runs.

The root state (``state.RootState``) holds the HA kernel with the lab's one clock, the settings,
bookkeeping values, id counters, the work log of the current command, the lab's CLI users (with
their password hashes, scopes, levels and SSH keys: ``users.LabUser``) and one section per system
the lab holds that keeps records of its own (``state_store.lab_section``). The root engine
(``engine.RootEngine``) is the lab's journaled engine: the clock, kernel operations, settings,
users, the shared failure verbs, dispatched to the system owning the target. ``model.LAB`` is the
``state_store.lab_model.LabModel`` the lab store, its images, the journal and the lab file use.

Nothing here names a system: the registry (``state_store.systems``) lists the systems that keep a
section, and ``state_store.loader`` imports their models.
"""
