"""Passwords never reach the history file, a recording, a log or `show` output; the history file
is private (0600, never through a symlink)."""

from __future__ import annotations

import logging
import os
import stat
from pathlib import Path

import pytest

from grammar.masking import mask_secrets
from solace_shell.lab import Lab
from solace_shell.repl import history_path_for
from tests.support.repl_driver import ListRecorder, drive

BRIDGE = "configure/message-vpn/replication/bridge"
TO_BRIDGE = "enable\rconfigure\rmessage-vpn Trading_VPN\rreplication\rbridge\r"
SET = "authentication basic client-username replication password s3cret-pw"
REST_AUTH = "configure/message-vpn/rest/rest-delivery-point/rest-consumer/authentication"


@pytest.mark.parametrize(("mode", "line", "masked"), [
    (BRIDGE, SET, "authentication basic client-username replication password ********"),
    (BRIDGE, 'auth basic client-username password pass "two words"',
     "auth basic client-username password pass ********"),
    (BRIDGE, "authentication basic client-username u password s3cret extra",
     "authentication basic client-username u password ******** extra"),
    (BRIDGE, 'authentication basic client-username u password "unterminated s3cret',
     "authentication basic client-username u password ********"),
    ("configure", "message-vpn Trading_VPN replication bridge " + SET,
     "message-vpn Trading_VPN replication bridge authentication basic client-username replication password ********"),
    (BRIDGE, "authentication basic no client-username", "authentication basic no client-username"),
    ("exec", "show hostname", "show hostname"),
    (REST_AUTH, "aws secret-access-key s3cret", "aws secret-access-key ********"),
    (REST_AUTH, 'oauth-client client-secret "two words"', "oauth-client client-secret ********"),
    (REST_AUTH, "oauth-jwt encrypted-secret-key h4sh", "oauth-jwt encrypted-secret-key ********"),
])
def test_secret_words_are_masked(lab: Lab, mode: str, line: str, masked: str) -> None:
    assert mask_secrets(lab.parser, mode, line) == masked


def test_the_grammar_marks_the_password_secret(lab: Lab) -> None:
    secret = {p.name for p in lab.grammar.params.values() if p.secret}
    assert secret == {"password", "encrypted-password", "psk", "psk-hash", "rest-consumer-aws-secret-access-key",
                      "rest-consumer-oauth-client-secret", "rest-consumer-oauth-jwt-secret-key"}


def test_history_recording_and_logs_never_hold_the_password(tmp_path: Path, caplog) -> None:
    db = tmp_path / "lab.sqlite"
    lab = Lab.open(db)
    history = history_path_for(db)
    recorder = ListRecorder()
    try:
        code, out = drive(lab, TO_BRIDGE + SET + "\rshow message-vpn Trading_VPN replication detail\r",
                          history_path=history, recorder=recorder)
    finally:
        lab.close()
    assert code == 0 and "s3cret" not in out
    text = history.read_text()
    assert "s3cret" not in text and "password ********" in text
    assert stat.S_IMODE(os.stat(history).st_mode) == 0o600
    assert [r[1] for r in recorder.records if "password" in r[1]] == [
        "authentication basic client-username replication password ********"]
    assert all("s3cret" not in r[1] + r[2] for r in recorder.records)
    assert "s3cret" not in caplog.text


def test_an_existing_history_file_is_tightened(tmp_path: Path) -> None:
    db = tmp_path / "lab.sqlite"
    history = history_path_for(db)
    history.write_text("\n# old\n+show hostname\n")
    history.chmod(0o644)
    lab = Lab.open(db)
    try:
        drive(lab, "enable\r", history_path=history)
    finally:
        lab.close()
    assert stat.S_IMODE(os.stat(history).st_mode) == 0o600
    assert history.read_text().startswith("\n# old\n+show hostname\n") and "+enable\n" in history.read_text()


def test_a_history_symlink_is_not_followed(tmp_path: Path, caplog) -> None:
    victim = tmp_path / "victim"
    victim.write_text("precious\n")
    db = tmp_path / "lab.sqlite"
    history_path_for(db).symlink_to(victim)
    lab = Lab.open(db)
    try:
        with caplog.at_level(logging.WARNING):
            code, _ = drive(lab, "show hostname\r", history_path=history_path_for(db))
    finally:
        lab.close()
    assert code == 0 and victim.read_text() == "precious\n"
    assert "cannot use history file" in caplog.text
