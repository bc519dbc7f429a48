"""The secrets of `show current-config`: each hash has a random salt and is the hash of the secret
set; a user sees a secret's hash only when the user may set that secret, else `********`."""

from __future__ import annotations

import re

import pytest

from solace_shell.access import UserAccess
from solace_shell.lab import Lab
from solace_shell.personalities.solace.handlers.show_config import MASKED_SECRET
from state_store.passwords import verify_password

NY = "NY_Appliance1"
VPN = "Trading_VPN"
PSK = "cHNrLXNlY3JldA=="
SET_SECRETS = [
    ["create client-username app message-vpn Trading_VPN", "password app-pw"],
    ["create client-username other message-vpn default", "password other-pw"],
    ["replication config-sync bridge authentication pre-shared-key key " + PSK],
    ["message-vpn Trading_VPN", "replication", "bridge", "authentication basic client-username r password bridge-pw"],
]


def _configured() -> Lab:
    lab = Lab.fresh()
    for step in SET_SECRETS:
        for line in ["home", "enable", "configure", *step, "end"]:
            outcome = lab.execute(NY, line)
            assert outcome.ok, (line, outcome.text)
    return lab


def _secrets(text: str) -> dict[str, str]:
    """The value after each secret keyword, by what it belongs to."""
    found = {}
    level = r'client-username "{}" message-vpn "{}"\n(?:.*\n)*?\s+encrypted-password "([^"]*)"'
    for name, pattern in [("app", level.format("app", VPN)), ("other", level.format("other", "default")),
                          ("psk", r'encrypted-key "([^"]*)"'),
                          ("bridge", r'client-username "r" encrypted-password "([^"]*)"')]:
        match = re.search(pattern, text)
        if match:
            found[name] = match.group(1)
    return found


@pytest.fixture(scope="module")
def configured() -> Lab:
    return _configured()


def test_each_hash_is_the_hash_of_its_secret_with_its_own_random_salt(configured: Lab) -> None:
    shown = _secrets(configured.execute(NY, "show current-config").text)
    assert set(shown) == {"app", "other", "psk", "bridge"}
    for name, clear in [("app", "app-pw"), ("other", "other-pw"), ("psk", PSK), ("bridge", "bridge-pw")]:
        assert verify_password(clear, shown[name]) and not verify_password(clear + "x", shown[name])
    again = _secrets(_configured().execute(NY, "show current-config").text)
    for name in shown:  # the same secrets on the same objects of another lab: other salts
        assert again[name] != shown[name]
    salts = {value.split("$")[3] for value in [*shown.values(), *again.values()]}
    assert len(salts) == 8


ALL = {"app", "other", "psk", "bridge"}


@pytest.mark.parametrize(("user", "sees"), [
    (UserAccess("admin", "admin"), ALL),
    (UserAccess("operator", "read-write"), ALL),                    # sets all three
    (UserAccess("meshmgr", "mesh-manager"), {"app", "other", "bridge"}),  # the pre-shared key needs read-write
    (UserAccess("monitor", "read-only"), set()),
    (UserAccess("trading_admin", "read-only", "none", {VPN: "read-write"}), {"app"}),
])
def test_a_user_sees_the_hashes_of_the_secrets_it_may_set(configured: Lab, user: UserAccess,
                                                           sees: set[str]) -> None:
    session = configured.session(NY)
    admin = session.user
    session.user = user
    try:
        for command in ("show current-config", f"show current-config message-vpn {VPN}"):
            outcome = session.execute(command)
            assert outcome.ok, outcome.text
            shown = _secrets(outcome.text)
            in_scope = ALL if command == "show current-config" else {"app", "bridge"}
            assert {name for name, value in shown.items() if value != MASKED_SECRET} == sees & in_scope
            assert {name for name, value in shown.items() if value == MASKED_SECRET} == in_scope - sees
            assert "$scrypt$" not in outcome.text or sees
    finally:
        session.user = admin


REST_SECRETS = {"aws encrypted-secret-access-key": "aws-k3y", "oauth-client encrypted-client-secret": "cl13nt-s3c",
                "oauth-jwt encrypted-secret-key": "jwt-k3y"}


def test_a_rest_consumers_secrets_print_as_hashes_to_who_may_set_them() -> None:
    lab = Lab.fresh()
    for line in ["enable", "configure", f"message-vpn {VPN}", "rest", "create rest-delivery-point r",
                 "create rest-consumer c", "authentication", "aws secret-access-key aws-k3y",
                 "oauth-client client-secret cl13nt-s3c", "oauth-jwt secret-key jwt-k3y", "end"]:
        outcome = lab.execute(NY, line)
        assert outcome.ok, (line, outcome.text)
    text = lab.execute(NY, f"show current-config message-vpn {VPN}").text
    for words, clear in REST_SECRETS.items():
        found = re.search(rf'{words} "([^"]*)"', text)
        assert found and verify_password(clear, found.group(1)), words
        assert clear not in text
    session = lab.session(NY)
    session.user = UserAccess("monitor", "read-only")
    shown = session.execute(f"show current-config message-vpn {VPN}").text
    assert all(f'{words} "{MASKED_SECRET}"' in shown for words in REST_SECRETS) and "$scrypt$" not in shown
