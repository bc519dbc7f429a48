"""The Geode lab through the shell: gfsh's prompt and target, the scenario section's validation
with file:line, the lab file keeping the cluster between shells, gfsh in the REPL, and the
plugin property (only the registry names the system outside its own packages)."""

from __future__ import annotations

from pathlib import Path

import pytest

from solace_shell.lab import Lab
from state_store.solace.scenario import ROOT_DIR, ScenarioError, load_scenario

SCENARIO = ROOT_DIR / "geode-ha.yaml"
REPO = Path(__file__).resolve().parents[3]
C1 = "192.0.2.0(4987:loner):58922:5ed72aa1"


@pytest.fixture()
def lab():
    lab = Lab.fresh(SCENARIO)
    yield lab
    lab.close()


def run(lab: Lab, target: str, line: str) -> str:
    return lab.execute(target, line).text


def test_a_geode_lab_starts_at_gfsh(lab: Lab) -> None:
    assert lab.targets() == ["geode", "lab"]
    assert lab.start_target() == "geode"
    assert lab.prompt("geode") == "geode:gfsh>"
    assert run(lab, "lab", "geode gfsh") == ""


def test_every_parameter_has_its_default_and_the_scenario_sets_them(tmp_path: Path) -> None:
    from state_store.geode.params import PoolParams, ServerParams

    assert PoolParams() == PoolParams(False, 0, 100, 900000, 0, 10000, 10000, 1, -1, "", 300)
    assert ServerParams() == ServerParams(1, 180, 230000, 60000)
    small = tmp_path / "small.yaml"
    small.write_text("sites: []\ngeode:\n  clusters:\n    - name: g1\n      servers: [s1, s2]\n"
                     "      message_sync_interval_s: 5\n      message_time_to_live_s: 30\n"
                     "      clients:\n        - {name: c1, subscription_enabled: true, subscription_redundancy: -1,"
                     " ping_interval_ms: 2000, interest: [r1]}\n        - {name: p1}\n"
                     "users:\n  - {name: admin, scope: global, level: admin, lab_admin: true, password: admin}\n")
    lab = Lab.fresh(small)
    try:
        described = run(lab, "geode", "describe config --member=s1").splitlines()
        assert described[:6] == ['Configuration of member : "s1"', "", "", "Cache attributes",
                                 "is-server             : true", "message-sync-interval : 5"]
        assert "message-time-to-live    : 30" in described
        assert "c1      yes        -        -1          s1       s2" in run(lab, "lab", "geode state g1")
    finally:
        lab.close()


def test_scenario_section_problems_are_reported_with_lines(tmp_path: Path) -> None:
    bad = tmp_path / "bad.yaml"
    bad.write_text("sites: []\ngeode:\n  clusters:\n    - name: g1\n      servers: [s1, s1]\n"
                   "      start: [s9]\n      message_sync_interval_s: 0\n      bogus: 1\n"
                   "      clients:\n        - {name: c1, subscription_redundancy: 1}\n"
                   "        - {name: c1, subscription_enabled: true, subscription_redundancy: -2}\n")
    with pytest.raises(ScenarioError) as err:
        load_scenario(bad)
    text = "\n".join(err.value.problems)
    assert f"{bad}:5: geode cluster 'g1': a server is named twice" in text
    assert f"{bad}:6: geode cluster 'g1': cannot start 's9', not one of its servers" in text
    assert f"{bad}:7: " in text and "message_sync_interval_s" in text
    assert f"{bad}:8: " in text and "bogus" in text
    assert f"{bad}:10: geode client 'c1': subscription_redundancy needs subscription_enabled: true" in text
    assert f"{bad}:11: geode client 'c1': name already used" in text
    assert f"{bad}:11: " in text and "subscription_redundancy" in text


def test_gfsh_refusals_change_nothing(lab: Lab) -> None:
    before = lab.store.dump()
    for line in ("describe client --clientID=nope", "describe client", "alter runtime --message-sync-interval=x",
                 "alter runtime --members=s9 --message-sync-interval=2", "start server --name=s1",
                 "stop server --name=s9", "show metrics --member=s1 --categories=x", "bogus", "list",
                 "describe client --clientID", "show subscription-queue-size --durable-client-id=zz"):
        out = lab.execute("geode", line)
        assert not out.ok and out.text.strip(), line
        assert "Traceback" not in out.text
    assert lab.store.dump() == before


def test_a_lab_file_keeps_the_cluster_between_shells(tmp_path: Path) -> None:
    path = tmp_path / "gf.lab"
    first = Lab.open(path, scenario=SCENARIO)
    assert first.execute("lab", "geode put p1 r1 count 10").ok
    assert first.execute("lab", "advance 500ms").ok
    assert first.execute("lab", "ha kill g1.s1").ok
    first.close()
    second = Lab.open(path)
    try:
        assert "resent 10 duplicates-discarded 10" in run(second, "lab", "geode stats c1")
        described = run(second, "geode", f"describe client --clientID={C1}")
        assert "Secondary Servers              : 192.0.2.0(s3:" in described
    finally:
        second.close()


def test_the_repl_on_gfsh_records_gfsh_prompts(lab: Lab) -> None:
    from tests.support.repl_driver import ListRecorder, drive

    recorder = ListRecorder()
    code, out = drive(lab, "list members\rlist clients\r", start="geode", recorder=recorder)
    assert code == 0
    assert [r[:2] for r in recorder.records] == [("geode:gfsh>", "list members"), ("geode:gfsh>", "list clients")]
    assert "locator1 | 192.0.2.0(locator1:216:locator)<ec><v1>:33368 [Coordinator]" in out


def test_the_documented_defaults_are_the_models() -> None:
    import re

    from state_store.geode.params import PoolParams, ServerParams

    text = (REPO / "docs" / "lab-geode.md").read_text(encoding="utf-8")
    table = dict(re.findall(r"^\| `([a-z_]+)` \| [a-z-]+ \| ([^|]+?) \|$", text, re.MULTILINE))
    defaults = {**PoolParams().to_dict(), **ServerParams().to_dict()}
    assert set(table) == set(defaults)
    for name, value in defaults.items():
        assert table[name] == ("(none)" if value == "" else str(value).lower()), name


@pytest.mark.parametrize("line", ["\x00", "list \x1b[31m", "x" * 5000, "describe client --" + "y" * 5000,
                                  "describe client --clientID=" + "z" * 5000, 'describe client --clientID="abc',
                                  "alter runtime --message-sync-interval=" + "9" * 400])
def test_hostile_gfsh_input_is_a_few_short_lines_without_control_characters(lab: Lab, line: str) -> None:
    before = lab.store.dump()
    out = lab.execute("geode", line)
    assert not out.ok and len(out.text.splitlines()) <= 5 and all(len(x) < 200 for x in out.text.splitlines())
    assert not any((ord(ch) < 32 and ch != "\n") or 127 <= ord(ch) < 160 for ch in out.text)
    assert lab.store.dump() == before


def test_gfsh_is_reachable_over_ssh(tmp_path: Path) -> None:
    from tests.support.ssh_clients import Shell, connect, run_exec, serving

    path = tmp_path / "gf.lab"
    Lab.open(path, scenario=SCENARIO).close()
    with serving(path) as server:
        assert [listener.router for listener in server.listeners] == ["geode"]
        status, text = run_exec(server.port("geode"), "admin", "admin", "list members")
        assert status == 0 and "locator1 | 192.0.2.0(locator1:216:locator)<ec><v1>:33368 [Coordinator]" in text
        client = connect(server.port("geode"), "admin", "admin")
        try:
            shell = Shell(client)
            assert shell.login_text().startswith("solace-shell lab: Apache Geode cluster (gfsh")
            assert "Specified Client ID nope not present" in shell.command("describe client --clientID=nope")
        finally:
            client.close()


def test_output_is_made_inside_the_command_so_output_that_cannot_be_made_undoes_it(
        lab: Lab, monkeypatch: pytest.MonkeyPatch) -> None:
    """gfsh renders inside the store command, as every CLI of the lab does: a renderer that fails
    is one internal-error line and the server it would have stopped still runs."""
    from solace_shell.renderers import RENDERERS
    from state_store.geode.views import ServerStartStop

    def broken(result: object) -> str:
        raise RuntimeError("no text")

    monkeypatch.setitem(RENDERERS, ServerStartStop, broken)
    outcome = lab.execute("geode", "stop server --name=s2")
    assert (outcome.ok, outcome.error_kind) == (False, "internal")
    monkeypatch.undo()
    assert run(lab, "geode", "list members").startswith("Member Count : 4\n")
    assert run(lab, "geode", "stop server --name=s2").startswith("Stopping Cache Server")
