"""Per-router SSH ports from the scenario (`ssh_port`): checked when the scenario loads, honoured by
`solace-shell serve`, the other routers following `--port` in lab order."""

from __future__ import annotations

import socket
from pathlib import Path

import pytest

from solace_shell.ssh.server import ListenError, plan_ports
from state_store.lab_store import LabStore
from state_store.scenario import ScenarioError, load_scenario
from tests.support.ssh_clients import run_exec, serving

BARE = Path(__file__).resolve().parents[2] / "transcripts" / "scenarios" / "bare.yaml"
NY, NJ = "NY_Appliance1", "NJ_Appliance1"


def _with_ports(tmp_path: Path, ny: str | None, nj: str | None) -> Path:
    """bare.yaml with `ssh_port: <value>` under the routers given one (as written, to test bad ones)."""
    text = BARE.read_text()
    for router, port in ((NY, ny), (NJ, nj)):
        if port is not None:
            text = text.replace(f"      - name: {router}\n", f"      - name: {router}\n        ssh_port: {port}\n")
    path = tmp_path / "ports.yaml"
    path.write_text(text)
    return path


def _free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


def test_without_scenario_ports_the_routers_follow_the_base_port_in_lab_order() -> None:
    assert plan_ports([(NY, 0), (NJ, 0)], 2222) == [(NY, 2222), (NJ, 2223)]
    assert plan_ports([(NY, 0), (NJ, 0)], 0) == [(NY, 0), (NJ, 0)]  # any free port for each


def test_a_scenario_port_is_kept_and_the_others_follow_the_base_port() -> None:
    routers = [("A", 0), ("B", 4000), ("C", 0)]
    assert plan_ports(routers, 2222) == [("A", 2222), ("B", 4000), ("C", 2223)]
    assert plan_ports(routers, 0) == [("A", 0), ("B", 4000), ("C", 0)]
    assert plan_ports([("A", 4000), ("B", 4001)], 65535) == [("A", 4000), ("B", 4001)]  # no port needed


def test_a_base_port_that_meets_a_scenario_port_is_one_clear_error() -> None:
    with pytest.raises(ListenError) as caught:
        plan_ports([("A", 0), ("B", 2223), ("C", 0)], 2222)
    assert (caught.value.port, caught.value.reason) == (
        2223, "router 'C' would take port 2223, the scenario's ssh_port of router 'B': choose another --port")


def test_only_the_routers_without_a_scenario_port_count_toward_65535() -> None:
    assert plan_ports([("A", 0), ("B", 4000)], 65535) == [("A", 65535), ("B", 4000)]
    with pytest.raises(ListenError, match=r"^2 routers need ports 65535-65536, beyond 65535$"):
        plan_ports([("A", 0), ("B", 4000), ("C", 0)], 65535)


def test_scenario_ports_are_checked_with_their_lines(tmp_path: Path) -> None:
    path = _with_ports(tmp_path, "70000", "x")
    with pytest.raises(ScenarioError) as caught:
        load_scenario(path)
    lines = path.read_text().splitlines()
    problems = caught.value.problems
    assert len(problems) == 2
    for problem in problems:
        line = int(problem.split(":")[1])
        assert lines[line - 1].strip().startswith("ssh_port:"), problem
    path = _with_ports(tmp_path, "4000", "4000")
    with pytest.raises(ScenarioError) as caught:
        load_scenario(path)
    (problem,) = caught.value.problems
    ny_line, nj_line = [n for n, line in enumerate(path.read_text().splitlines(), 1) if "ssh_port" in line]
    assert problem == f"{path}:{nj_line}: router 'NJ_Appliance1': ssh_port 4000 is taken by router 'NY_Appliance1'"


def test_serve_listens_on_the_scenarios_port_and_a_login_there_reaches_its_router(tmp_path: Path) -> None:
    port = _free_port()
    lab_path = tmp_path / "ports.lab"
    LabStore.open(lab_path, _with_ports(tmp_path, None, str(port))).close()
    with serving(lab_path) as server:  # base port 0: NY takes any free port, NJ the scenario's
        assert server.port(NJ) == port and server.port(NY) != port
        assert run_exec(port, "admin", "admin", "show hostname") == (0, "\nHostname: NJ_Appliance1\n")
