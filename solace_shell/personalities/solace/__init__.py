"""The Solace router CLI's shell part: what each of its commands does (handlers/, one module per
command family, keyed by the handler ids grammar/data/commands names) and how each result prints
(renderers/); the session that runs the CLI is solace_shell/session.py.

Why apart from the shared registries (solace_shell/handlers, solace_shell/renderers): those, the
lab console's verbs and the HA failure verbs serve every CLI of the lab; these modules serve the
router CLI only, as each HA system's package serves its own CLI. Solace is a section on the lab's
root (``state_store.systems.SECTIONS``, ``ROUTER_CLI``), not yet a plugin of ``SYSTEMS``, so the
shell's loader registers these modules once per process, before the first lab opens (``solace_shell.loader.load_own``).
"""
