"""`serve --workers N --port 0`: the parent picks a run of free ports and every worker binds it. A
port of that run taken by another program before the workers bind it (a client's ephemeral port)
makes them start again on another run, instead of the command failing.

Through the real parent and worker processes; the parent's port choice is made to pick a port a
socket of the test holds first."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
from pathlib import Path

from state_store.lab_store import LabStore
from tests.support.ssh_clients import TIMEOUT

ROOT = Path(__file__).resolve().parents[2]
PARENT = """
import socket, sys
from pathlib import Path
from solace_shell.ssh import workers

held = socket.socket()
held.bind(("127.0.0.1", 0))
held.listen()
taken = held.getsockname()[1]
print(f"taken {taken}", file=sys.stderr, flush=True)
real, calls = workers.free_run, []

def first_taken(host, count):
    calls.append(host)
    return taken if len(calls) == 1 else real(host, count)

workers.free_run = first_taken
sys.exit(workers.run_workers(Path(sys.argv[1]), "127.0.0.1", 0, 2, 2, sys.stdout))
"""


def test_a_port_taken_before_the_workers_bind_it_makes_them_start_on_another(tmp_path: Path) -> None:
    lab = tmp_path / "training.lab"
    LabStore.open(lab).close()
    proc = subprocess.Popen([sys.executable, "-c", PARENT, str(lab)], stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                            text=True, env={**os.environ, "PYTHONPATH": str(ROOT)}, cwd=tmp_path)
    try:
        assert proc.stdout is not None and proc.stderr is not None
        taken = int(proc.stderr.readline().split()[1])
        line = proc.stdout.readline()  # a router's line: the workers serve
        assert "NY_Appliance1" in line, line
        assert f" {taken}" not in line
    finally:
        proc.send_signal(signal.SIGTERM)
        _, err = proc.communicate(timeout=TIMEOUT)
    assert proc.returncode == 0, err
    assert "Traceback" not in err
