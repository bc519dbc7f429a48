"""Public-key login to `solace-shell serve`: a scenario user's `ssh_keys`, checked with their lines when
the lab is built, accepted from paramiko and from the OpenSSH client; other keys fall back to the
password; nothing secret reaches an error or the log."""

from __future__ import annotations

import base64
import logging
import os
import shutil
import subprocess
from pathlib import Path

import asyncssh
import paramiko  # type: ignore[import-untyped]
import pexpect  # type: ignore[import-untyped]
import pytest
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

from solace_shell.ssh.server import LabServer
from solace_shell.ssh.store import SerializedStore
from state_store.lab_root import codec
from state_store.lab_store import LabStore
from state_store.public_keys import PublicKeyError, check_public_key
from state_store.solace.scenario import ScenarioError, load_scenario
from tests.support.ssh_clients import TIMEOUT, serving

BARE = Path(__file__).resolve().parents[2] / "transcripts" / "scenarios" / "bare.yaml"
ADMIN = "  - {name: admin, password: admin, scope: global, level: admin, lab_admin: true}\n"
NY = "NY_Appliance1"


def _key(tmp_path: Path, name: str) -> tuple[Path, str]:
    """A new ed25519 key: its private key file (OpenSSH format, mode 0600) and its public key line."""
    key = asyncssh.generate_private_key("ssh-ed25519", comment=f"{name}@laptop")
    path = tmp_path / f"id_{name}"
    key.write_private_key(path)
    path.chmod(0o600)
    return path, key.export_public_key().decode().strip()


def _scenario(tmp_path: Path, key_lines: list[str], password: str = "alice-pw") -> Path:
    """bare.yaml plus a read-only user `alice` with these `ssh_keys` (YAML single-quoted, as written)."""
    keys = "".join(f"      - '{line}'\n" for line in key_lines)
    user = f"  - name: alice\n    password: \"{password}\"\n    level: read-only\n    ssh_keys:\n{keys}"
    text = BARE.read_text()
    assert ADMIN in text
    path = tmp_path / "keys.yaml"
    path.write_text(text.replace(ADMIN, ADMIN + user))
    return path


def _lab(tmp_path: Path, key_lines: list[str]) -> Path:
    lab_path = tmp_path / "keys.lab"
    LabStore.open(lab_path, _scenario(tmp_path, key_lines)).close()
    return lab_path


def _exec_with_key(port: int, key_file: Path | None, password: str | None = None) -> tuple[int, str]:
    client = paramiko.SSHClient()
    client.set_missing_host_key_policy(paramiko.AutoAddPolicy())
    client.connect("127.0.0.1", port=port, username="alice", password=password,
                   key_filename=str(key_file) if key_file else None, look_for_keys=False, allow_agent=False,
                   timeout=TIMEOUT, banner_timeout=TIMEOUT, auth_timeout=TIMEOUT)
    try:
        _, stdout, _ = client.exec_command("show hostname", timeout=TIMEOUT)
        text = stdout.read().decode()
        return stdout.channel.recv_exit_status(), text
    finally:
        client.close()


def _openssh_options(port: int, key_file: Path) -> list[str]:
    """This key only (no agent, no ~/.ssh keys), no host key checks, no configuration files."""
    return ["-F", "/dev/null", "-p", str(port), "-i", str(key_file), "-o", "IdentitiesOnly=yes",
            "-o", "StrictHostKeyChecking=no", "-o", "UserKnownHostsFile=/dev/null", "-o", "GSSAPIAuthentication=no"]


# ------------------------------------------------------------------ the scenario


def test_bad_keys_are_reported_with_their_lines_and_never_shown(tmp_path: Path) -> None:
    private = asyncssh.generate_private_key("ssh-ed25519").export_private_key().decode()
    one_line_private = private.replace("\n", " ")  # pasted into one line: no control characters
    _, good = _key(tmp_path, "good")
    path = _scenario(tmp_path, [good, "ssh-ed25519 AAAA", "hello", f'from="10.0.0.1" {good}', one_line_private])
    with pytest.raises(ScenarioError) as caught:
        load_scenario(path)
    lines = path.read_text().splitlines()
    problems = caught.value.problems
    assert [p.split(": ", 1)[1] for p in problems] == [
        "user 'alice': ssh_keys[1] is not a usable OpenSSH public key (invalid public key)",
        "user 'alice': ssh_keys[2] is not an OpenSSH public key line ('<type> <base64> [comment]', as in a .pub file)",
        "user 'alice': ssh_keys[3] is not a usable OpenSSH public key (invalid public key)",
        "user 'alice': ssh_keys[4] is a private key; give the public key (the .pub file) instead",
    ]
    for problem, written in zip(problems, ["ssh-ed25519 AAAA", "hello", "from=", "-----BEGIN"], strict=True):
        line = int(problem.split(":")[1])
        assert written in lines[line - 1], problem
    secret = private.splitlines()[1]
    assert not any(secret[:16] in p for p in problems)


def test_a_private_key_block_and_a_bad_password_are_not_shown_in_the_error(tmp_path: Path) -> None:
    private = asyncssh.generate_private_key("ssh-ed25519").export_private_key().decode()
    path = _scenario(tmp_path, [], password="s3cret\\tpass")  # a tab: a control character
    text = path.read_text().replace("    ssh_keys:\n", "    ssh_keys:\n      - |\n"
                                    + "".join(f"        {line}\n" for line in private.splitlines()))
    path.write_text(text)
    with pytest.raises(ScenarioError) as caught:
        load_scenario(path)
    report = "\n".join(caught.value.problems)
    assert "users[1].password: the value (not shown) contains a control character" in report
    assert "users[1].ssh_keys[0]: the value (not shown) contains a control character" in report
    assert "s3cret" not in report and "BEGIN" not in report


def test_the_lab_keeps_the_keys_and_a_lab_written_before_them_has_none(tmp_path: Path) -> None:
    _, key = _key(tmp_path, "alice")
    lab_path = _lab(tmp_path, [f"  {key}  "])  # spaces around it are not part of it
    store = LabStore.open(lab_path)
    with store.transaction() as engine:
        assert engine.ssh_keys("alice") == (key,)
        assert engine.ssh_keys("admin") == () and engine.ssh_keys("nobody") == ()
        doc = codec.loads(codec.dumps(codec.encode_state(engine.state)))  # as the file holds it
    store.close()
    users = doc["records"]["users"]
    assert users["fields"][-1] == "ssh_keys"
    users["fields"].pop()  # as a lab written before the field was added
    for row in users["rows"]:
        row.pop()
    state = codec.decode_state(doc)
    assert {u.name: u.ssh_keys for u in state.users.values()} == {"admin": "", "alice": ""}


# ------------------------------------------------------------------ logging in


def test_a_users_key_logs_in_without_a_password(tmp_path: Path, caplog: pytest.LogCaptureFixture) -> None:
    caplog.set_level(logging.INFO, logger="solace_shell.ssh")
    key_file, key = _key(tmp_path, "alice")
    _, other = _key(tmp_path, "other")
    lab_path = _lab(tmp_path, [other, key])
    with serving(lab_path) as server:
        assert _exec_with_key(server.port(NY), key_file) == (0, "\nHostname: NY_Appliance1\n")
    assert f"login user=alice router={NY}" in caplog.text and "method=publickey" in caplog.text
    assert "AAAA" not in caplog.text


def test_a_key_that_is_not_the_users_is_refused(tmp_path: Path, caplog: pytest.LogCaptureFixture) -> None:
    caplog.set_level(logging.INFO, logger="solace_shell.ssh")
    _, key = _key(tmp_path, "alice")
    stranger_file, _ = _key(tmp_path, "stranger")
    lab_path = _lab(tmp_path, [key])
    with serving(lab_path) as server:
        with pytest.raises(paramiko.AuthenticationException):
            _exec_with_key(server.port(NY), stranger_file)
    assert "login user=" not in caplog.text


@pytest.mark.skipif(shutil.which("ssh") is None, reason="the OpenSSH client `ssh` is not installed")
def test_openssh_offering_a_key_that_is_not_the_users_is_asked_for_the_password(
        tmp_path: Path, caplog: pytest.LogCaptureFixture) -> None:
    caplog.set_level(logging.INFO, logger="solace_shell.ssh")
    _, key = _key(tmp_path, "alice")
    stranger_file, _ = _key(tmp_path, "stranger")
    lab_path = _lab(tmp_path, [key])
    with serving(lab_path) as server:
        options = _openssh_options(server.port(NY), stranger_file)
        child = pexpect.spawn("ssh", [*options, "-o", "NumberOfPasswordPrompts=1", "alice@127.0.0.1", "show hostname"],
                              encoding="utf-8", timeout=TIMEOUT, env=dict(os.environ, SSH_AUTH_SOCK=""))
        child.expect("Password:")
        child.sendline("alice-pw")
        child.expect(pexpect.EOF)
        child.close()
    assert child.exitstatus == 0 and "Hostname: NY_Appliance1" in child.before
    assert "method=password" in caplog.text and "method=publickey" not in caplog.text


def test_another_users_key_is_not_accepted(tmp_path: Path) -> None:
    key_file, key = _key(tmp_path, "alice")
    lab_path = _lab(tmp_path, [key])
    with serving(lab_path) as server:
        client = paramiko.SSHClient()
        client.set_missing_host_key_policy(paramiko.AutoAddPolicy())
        with pytest.raises(paramiko.AuthenticationException):
            client.connect("127.0.0.1", port=server.port(NY), username="admin", key_filename=str(key_file),
                           look_for_keys=False, allow_agent=False, timeout=TIMEOUT, banner_timeout=TIMEOUT,
                           auth_timeout=TIMEOUT)
        client.close()


@pytest.mark.skipif(shutil.which("ssh") is None, reason="the OpenSSH client `ssh` is not installed")
def test_the_openssh_client_logs_in_with_its_key(tmp_path: Path) -> None:
    key_file, key = _key(tmp_path, "alice")
    lab_path = _lab(tmp_path, [key])
    with serving(lab_path) as server:
        done = subprocess.run(["ssh", *_openssh_options(server.port(NY), key_file), "-o", "BatchMode=yes",
                               "alice@127.0.0.1", "show hostname"],
                              capture_output=True, text=True, timeout=TIMEOUT, check=False,
                              env=dict(os.environ, SSH_AUTH_SOCK=""))
    assert (done.returncode, done.stdout) == (0, "\nHostname: NY_Appliance1\n"), done.stderr
    assert "Solace PubSub+ Enterprise" in done.stderr  # the product line, before authentication


_RSA = asyncssh.generate_private_key("ssh-rsa", key_size=1024).export_public_key().decode().split()[1]
_RSA_BLOB = base64.b64decode(_RSA)


def _mangled_rsa(at: int, junk: bytes) -> str:
    """The RSA key above with some of its bytes replaced: lengths and numbers that lie."""
    return "ssh-rsa " + base64.b64encode(_RSA_BLOB[:at] + junk + _RSA_BLOB[at + len(junk):]).decode()


KEY_TYPES = ["ssh-rsa", "ssh-ed25519", "ecdsa-sha2-nistp256", "ssh-dss", "sk-ssh-ed25519@openssh.com",
             "ssh-ed25519-cert-v01@openssh.com"]


@settings(max_examples=400, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@example(_mangled_rsa(4, b"\n"))  # asyncssh quotes the key's own algorithm name, newline and all
@given(st.one_of(
    st.text(max_size=120),
    st.builds(_mangled_rsa, st.integers(0, len(_RSA_BLOB)), st.binary(min_size=1, max_size=16)),
    st.builds(lambda kind, body: f"{kind} {base64.b64encode(body).decode()}", st.sampled_from(KEY_TYPES),
              st.binary(max_size=120)),
))
def test_any_key_line_is_taken_or_refused_in_one_line(line: str) -> None:
    try:
        kept = check_public_key(line)
    except PublicKeyError as exc:
        message = str(exc)
        assert message.startswith("is ") and "\n" not in message
        assert not any(len(word) >= 8 and word in message for word in line.split())  # nothing of the key
    else:
        assert kept == " ".join(line.split())


def test_a_key_line_spoilt_in_the_lab_file_is_skipped_with_a_warning(
        tmp_path: Path, caplog: pytest.LogCaptureFixture) -> None:
    key_file, key = _key(tmp_path, "alice")
    lab_path = _lab(tmp_path, [key])
    store = SerializedStore.open(lab_path)
    assert isinstance(store, SerializedStore)
    try:
        with store.transaction() as engine:  # as a hand edit of the file would leave it (not journaled)
            engine.state.user_by_name["alice"].ssh_keys = f"ssh-rsa {_RSA[:40]}\n{key}"
        server = LabServer(store, asyncssh.generate_private_key("ssh-ed25519"))
        offered = asyncssh.read_private_key(key_file)
        assert server.accepts_key("alice", offered)
    finally:
        store.close()
    assert "user=alice: ssh_keys[0] in the lab file is not a usable public key; skipped" in caplog.text


@pytest.mark.skipif(shutil.which("ssh") is None, reason="the OpenSSH client `ssh` is not installed")
def test_an_interactive_openssh_login_with_a_key_goes_straight_to_the_banner(tmp_path: Path) -> None:
    key_file, key = _key(tmp_path, "alice")
    lab_path = _lab(tmp_path, [key])
    with serving(lab_path) as server:
        child = pexpect.spawn("ssh", [*_openssh_options(server.port(NY), key_file), "alice@127.0.0.1"],
                              encoding="utf-8", timeout=TIMEOUT, dimensions=(24, 80),
                              env=dict(os.environ, SSH_AUTH_SOCK=""))
        child.expect_exact("Solace PubSub+ Enterprise\r\n")  # the product line, before authentication
        child.expect_exact("Solace PubSub+ Enterprise Version 10.4.1.52\r\n")  # the start banner
        assert "Password:" not in child.before
        child.expect_exact("NY_Appliance1>")
        child.send("show hostname\r")
        child.expect_exact("Hostname: NY_Appliance1\r\n")
        child.send("exit\r")
        child.expect(pexpect.EOF)
        child.close()
    assert child.exitstatus == 0
