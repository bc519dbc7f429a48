"""SSH access to a lab: every router of the lab on its own port, the same shell as the local REPL.

- `store.SerializedStore`: the one lab store of a server process; its transactions run one at a time.
- `hostkey`: the lab's SSH host key, generated once and kept next to the lab file (mode 0600).
- `session`: one SSH channel: the interactive `Repl` (a shell request) or one-shot commands (exec).
- `server`: authentication against the lab's users, the listeners, start and clean stop.

The defaults live here, not in `server`, so `solace-shell --help` does not import asyncssh.
"""

DEFAULT_LISTEN = "127.0.0.1"  # loopback: a lab is reachable from elsewhere only when asked for
DEFAULT_PORT = 2222  # the first router's port; the others follow in lab order
