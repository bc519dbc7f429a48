"""The recorder: format, redaction, and record -> replay round trips (property-based)."""

import io
from pathlib import Path

from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st

from solace_shell.lab import Lab
from solace_shell.transcript.record import Recorder, redact
from solace_shell.transcript.replay import replay_file, replay_text

from tests.support.lab_patches import echo_and_boom


def test_redact_password_tokens():
    assert redact("create user bob password s3cret") == "create user bob password ********"
    assert redact("encrypted-password abc aes-password def") == "encrypted-password ******** aes-password ********"
    assert redact('password "two words"  access-level admin') == 'password ********  access-level admin'
    assert redact("PASSWORD x") == "PASSWORD ********"
    assert redact("passw x pass y") == "passw ******** pass ********"
    assert redact("encrypted-p x aes-pass y") == "encrypted-p ******** aes-pass ********"
    assert redact("no password") == "no password"
    assert redact("show passwords x") == "show passwords x"
    assert redact("show client-username pa x") == "show client-username pa x"
    assert redact("  password   a  ") == "  password   ********  "


def test_recorder_writes_header_inputs_and_escaped_output():
    buf = io.StringIO()
    rec = Recorder(buf, scenario="../s.yaml", settings={"version": "9.1", "layout": "B"}, strict_blank_lines=False)
    rec.comment("drill 7\nsecond line")
    rec.record("NY_Appliance1> ", "enable", "")
    rec.record("NY_Appliance1#", "create user x password hunter2", "ok")
    rec.record("NY_Appliance1#", "", "")
    rec.record("lab>", "status", "...\nNY_Appliance1> x\nplain  ")
    assert buf.getvalue() == (
        "#: scenario: ../s.yaml\n"
        "#: version: 9.1\n"
        "#: layout: B\n"
        "#: strict-blank-lines: no\n"
        "#| drill 7\n"
        "#| second line\n"
        "NY_Appliance1> enable\n"
        "NY_Appliance1# create user x password ********\n"
        "ok\n"
        "NY_Appliance1#\n"
        "lab> status\n"
        "\\.\\.\\. (re)\n"
        "NY_Appliance1>\\ x (re)\n"
        "plain\n"
    )


def test_recorder_masks_secrets_echoed_in_output():
    buf = io.StringIO()
    rec = Recorder(buf)
    rec.record("NY_Appliance1#", "user x password s3cret",
               "Invalid command input\n ->  user x password s3cret\nxs3cret")
    rec.record("NY_Appliance1#", "show s3cret", "s3cret")
    assert buf.getvalue().splitlines() == [
        "NY_Appliance1# user x password ********",
        "Invalid command input",
        " ->  user x password ********",
        "xs3cret",
        "NY_Appliance1# show s3cret",
        "s3cret",
    ]


def test_recorder_open_writes_relative_scenario(tmp_path):
    (tmp_path / "scenarios").mkdir()
    scen = tmp_path / "scenarios" / "two_site.yaml"
    scen.write_bytes((Path(__file__).resolve().parents[2] / "state_store" / "scenarios" / "default.yaml").read_bytes())
    (tmp_path / "drills").mkdir()
    path = tmp_path / "drills" / "d.cli.txt"
    lab = Lab.fresh(scen, {"user": "admin"})
    with Recorder.open(path, scenario=scen, settings={"user": "admin"}) as rec:
        for cmd in ("enable", "show version"):
            prompt = lab.prompt("NY_Appliance1")
            rec.record(prompt, cmd, lab.execute("NY_Appliance1", cmd).text)
    lab.close()
    assert path.read_text().startswith("#: scenario: ../scenarios/two_site.yaml\n#: user: admin\n")
    assert replay_file(path).passed


ROUTER = st.sampled_from(["NY_Appliance1", "NJ_Appliance1"])
ECHO_PIECES = st.sampled_from(list("aZ09 .[]()#|:>!-_\\^*+?${}é\t")
                              + ["\\n", "...", "[..]", " (re)", "NY_Appliance1> ", "lab>", "#| ", "#: x"])
ECHO_TEXT = st.lists(ECHO_PIECES, max_size=25).map("".join)
ROUTER_COMMANDS = st.one_of(
    st.sampled_from(["enable", "configure", "message-vpn Trading_VPN", "replication", "exit", "end",
                     "show hostname", "show version", "show message-vpn Trading_VPN", "show message-vpn *", "",
                     "nonsense", "create user x password s3cret", "queue q1", "show queue q1"]),
    ECHO_TEXT.map(lambda t: ("echo " + t).rstrip()),  # the format drops a command's trailing blanks
)
LAB_COMMANDS = st.sampled_from(["advance 1s", "advance 30s", "status", "bogus"])
ACTIONS = st.lists(
    st.one_of(st.tuples(ROUTER, ROUTER_COMMANDS), st.tuples(st.just("lab"), LAB_COMMANDS)),
    min_size=1, max_size=25,
)


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(actions=ACTIONS, strict=st.booleans(), layout=st.sampled_from([None, "A", "B"]))
def test_any_recorded_session_replays_as_pass(actions, strict, layout):
    for _, command in actions:   # `echo` could print a secret in another form than it was typed
        assume(redact(command) == command or not command.startswith("echo"))
    settings_ = {"layout": layout} if layout else {}
    buf = io.StringIO()
    rec = Recorder(buf, settings=settings_, strict_blank_lines=strict)
    with echo_and_boom():
        lab = Lab.fresh(None, settings_)
        try:
            for host, command in actions:
                prompt = lab.prompt(host)
                rec.command(prompt, command)
                rec.output(lab.execute(host, command).text)
        finally:
            lab.close()
        text = buf.getvalue()
        result = replay_text(text, "recorded.cli.txt")
    assert result.error is None, result.error
    assert [c.verdict for c in result.commands] == ["pass"] * len(actions), text


def test_recording_needs_a_fresh_lab(tmp_path) -> None:
    import pytest

    from solace_shell.lab import Lab
    from solace_shell.transcript.record import RecordRefused, check_fresh

    lab = Lab.open(tmp_path / "lab.sqlite")
    try:
        check_fresh(lab)                       # a new lab file is where replay starts
        assert lab.execute("lab", "advance 5s").ok
        with pytest.raises(RecordRefused, match="record on a new --db file"):
            check_fresh(lab)
    finally:
        lab.close()
