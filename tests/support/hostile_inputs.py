"""Hypothesis strategies for hostile input files: transcripts and scenario files.

Shared by the unit tests (a few hundred examples a run) and bench/bench_hostile_inputs.py (whose
counts bench/results-*.md record). Each strategy mixes valid structure with what an attacker or a careless
author would write: catastrophic and unsupported regexes, deep nesting, alias bombs, huge numbers,
wrong types, control characters, overlong names.
"""

from __future__ import annotations

import base64
from pathlib import Path

from hypothesis import strategies as st

_ROUTERS = ["NY_Appliance1", "NJ_Appliance1", "lab", "XX_Unknown"]
_COMMANDS = [
    "show hostname", "show message-vpn * replication", "enable", "configure", "exit", "end",
    "advance 5s", "status", "publish trader trading/orders/x 3", "fail site NY", "reset",
    "show queue *", "", "?", "show clock detail",
]

_REGEXES = st.sampled_from([
    "(a+)+b", "(a|aa)+$", "(x+x+)+y", "(.*a){25}", "^(([a-z])+.)+[A-Z]([a-z])+$",
    "(a)\\1", "(?=a)a", "(?<!a)b", "[", "(", "a{1001}", "a{2,1}", "\\", "(?P<n>a)(?P=n)",
    "\\p{Greek}+", "[[:alpha:]]+", "Primary.*", "(?i)PRIMARY", "\\d+", "é+", "\x00",
])


@st.composite
def _regex_line(draw: st.DrawFn) -> str:
    kind = draw(st.integers(0, 3))
    if kind == 0:
        return draw(_REGEXES) + " (re)"
    if kind == 1:
        depth = draw(st.integers(100, 6000))
        return "(" * depth + "a" + ")" * draw(st.integers(0, depth)) + " (re)"
    if kind == 2:
        return draw(st.text(max_size=40)) + " (re)"
    return "(" + "|".join(draw(st.lists(st.text("a*+?()[]{}|\\.", max_size=6), max_size=30))) + ") (re)"


_OUTPUT_LINE = st.one_of(
    st.text(max_size=60).map(lambda s: s.replace("\n", " ").replace("\r", " ")),
    st.sampled_from(["...", "[..]", "Flags Legend:", "#: late header", "#| comment", ""]),
    _regex_line(),
)


@st.composite
def _prompt_line(draw: st.DrawFn) -> str:
    host = draw(st.sampled_from(_ROUTERS))
    char = ">" if host == "lab" else draw(st.sampled_from([">", "#", "(configure)#"]))
    command = draw(st.one_of(st.sampled_from(_COMMANDS), st.text(max_size=30)))
    return f"{host}{char} {command}".replace("\n", " ").replace("\r", " ")


_HEADER = st.sampled_from([
    "", "#: layout: A\n", "#: version: 9.1\n", "#: scenario: nope.yaml\n", "#: user: monitor\n",
    "#: bogus\n", "#: strict-blank-lines: maybe\n", "#: user: nobody\n", "#: scenario: /etc/passwd\n",
])


@st.composite
def hostile_transcripts(draw: st.DrawFn) -> str:
    """A transcript text: a header, then prompt lines each followed by hostile output lines."""
    lines: list[str] = []
    for _ in range(draw(st.integers(0, 6))):
        lines.append(draw(_prompt_line()))
        lines.extend(draw(st.lists(_OUTPUT_LINE, max_size=5)))
    if draw(st.booleans()):
        lines.insert(draw(st.integers(0, len(lines))), draw(st.text(max_size=80)))
    return draw(_HEADER) + "\n".join(lines) + "\n"


# ------------------------------------------------------------------ scenario files
_INT = st.one_of(
    st.integers(-5, 70000), st.integers(1, 500), st.just(10**40), st.just(-(10**30)), st.just(2**63),
    st.sampled_from(["1:30", "0x7fffffffffffffffffff", "1e9", ".inf", "-1", "1_000", "0o777"]),
)
_NAME = st.one_of(
    st.sampled_from(["NY", "NJ", "NY_Appliance1", "NJ_Appliance1", "Trading_VPN", "trader", "admin"]),
    st.text(min_size=0, max_size=12), st.just("x" * 300), st.just("a/*"), st.just("#queue"),
)
_ANY_SCALAR = st.one_of(_INT, _NAME, st.booleans(), st.none(), st.just("~"), st.just("[]"), st.just("{}"))


# A real public key (ed25519), whole or with bytes of its blob replaced: lengths and numbers that lie.
_PUBLIC_KEY = "ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIMEv6rFv4wV9adcyXRk6BcnEKMYVkrq1anXgWsppvm+w trainee@laptop"
_KEY_BLOB = base64.b64decode(_PUBLIC_KEY.split()[1])


def _spoilt_key(kind: str, at: int, junk: bytes) -> str:
    blob = _KEY_BLOB[:at] + junk + _KEY_BLOB[at + len(junk):]
    return f"{kind} {base64.b64encode(blob).decode()}"


_KEY_LINE = st.one_of(
    st.just(_PUBLIC_KEY), _ANY_SCALAR, st.just("-----BEGIN OPENSSH PRIVATE KEY----- b3BlbnNzaC1rZXktdjE="),
    st.builds(_spoilt_key, st.sampled_from(["ssh-ed25519", "ssh-rsa", "ecdsa-sha2-nistp256", "x"]),
              st.integers(0, len(_KEY_BLOB)), st.binary(min_size=1, max_size=12)),
)


def _yaml_scalar(value: object) -> str:
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int):
        return str(value)
    text = str(value)
    if text and all(c.isalnum() or c in "_-./:" for c in text) and text not in ("y", "n", "on", "off"):
        return text
    return '"' + text.replace("\\", "\\\\").replace('"', '\\"').encode("unicode_escape").decode("ascii") + '"'


_DEFAULT_LAB = (Path(__file__).resolve().parents[2] / "state_store" / "scenarios" / "default.yaml").read_text()

_BODY_TEMPLATES = [
    # the default lab (so the file often builds) with hostile initial traffic and settings
    _DEFAULT_LAB.replace("{", "{{").replace("}", "}}") + """messages:
  - {{client: trader, topic: {topic}, count: {int4}, size: {int5}}}
  - {{client: settlement, topic: trading/orders/x, count: {int1}}}
transactions:
  - {{client: settlement, type: xa, xid: "1-2-3", state: {level}, publish: [{{topic: trading/x, count: {int2}}}]}}
advance_ms: {int6}
""",
    # a plausible lab with one field made hostile
    """scenario: {name}
sites:
  - name: NY
    routers:
      - name: NY_Appliance1
        message_id_seed: {int1}
        max_spool_usage: {int2}
vpns:
  - name: V
    queues:
      - name: {name}
        subscriptions: [{topic}]
        max_bind_count: {int3}
    clients:
      - {{name: c, hosts: [NY_Appliance1]}}
users:
  - {{name: {user}, password: pw, level: {level}, lab_admin: {flag}, ssh_keys: [{key}]}}
messages:
  - {{client: c, topic: {topic}, count: {int4}, size: {int5}}}
advance_ms: {int6}
""",
    # wrong shapes everywhere
    """sites: {scalar}
vpns: [{scalar}, {scalar}]
users: {scalar}
""",
    """sites:
  - name: {name}
    routers: [{{name: {name}, message_id_seed: {int1}, down: {scalar}}}]
users:
  - {{name: admin, password_hash: {scalar}, level: admin, lab_admin: true}}
links: [{{sites: [{name}, {name}], up: {scalar}}}]
""",
]


@st.composite
def _structural_bomb(draw: st.DrawFn) -> str:
    kind = draw(st.integers(0, 4))
    if kind == 0:  # billion laughs
        width = draw(st.integers(2, 12))
        lines = ["a0: &a0 [" + ",".join(["x"] * width) + "]"]
        for i in range(1, draw(st.integers(3, 12))):
            lines.append(f"a{i}: &a{i} [" + ",".join([f"*a{i - 1}"] * width) + "]")
        return "\n".join(lines) + "\nsites: *a1\n"
    if kind == 1:  # deep nesting
        depth = draw(st.integers(50, 25000))
        return "sites: " + "[" * depth + "]" * depth + "\n"
    if kind == 2:
        depth = draw(st.integers(50, 5000))
        return "sites:\n" + "".join("  " * i + "- \n" for i in range(depth))
    if kind == 3:  # long scalars and many keys
        return "scenario: " + "x" * draw(st.integers(1000, 200000)) + "\n"
    return "".join(f"k{i}: {i}\n" for i in range(draw(st.integers(100, 30000))))


@st.composite
def hostile_scenarios(draw: st.DrawFn) -> str:
    """A scenario file's text."""
    if draw(st.integers(0, 4)) == 0:
        return draw(_structural_bomb())
    if draw(st.integers(0, 9)) == 0:
        return draw(st.text(max_size=200))
    template = draw(st.sampled_from(_BODY_TEMPLATES))
    fields = {
        "name": _yaml_scalar(draw(_NAME)), "user": _yaml_scalar(draw(_NAME)),
        "topic": _yaml_scalar(draw(st.one_of(_NAME, st.sampled_from(["a/*", "a//b", "x/>/y", ">", "*"])))),
        "level": _yaml_scalar(draw(st.one_of(st.sampled_from(["admin", "read-only", "root", "prepared", "idle"]),
                                             _ANY_SCALAR))),
        "flag": _yaml_scalar(draw(_ANY_SCALAR)), "scalar": _yaml_scalar(draw(_ANY_SCALAR)),
        "key": _yaml_scalar(draw(_KEY_LINE)),
    }
    for i in range(1, 7):
        fields[f"int{i}"] = _yaml_scalar(draw(_INT))
    if template is _BODY_TEMPLATES[0] and draw(st.booleans()):
        # mostly valid, so the builder runs: one hostile value at most
        for i in range(1, 7):
            fields[f"int{i}"] = str(draw(st.integers(1, 300)))
        fields["topic"] = draw(st.sampled_from(["trading/orders/x", "trading/y", "other/z", "trading/orders/new"]))
        fields["level"] = draw(st.sampled_from(["prepared", "idle", "active", "suspended"]))
        hostile = draw(st.sampled_from(["", *fields]))
        if hostile.startswith("int"):
            fields[hostile] = _yaml_scalar(draw(_INT))
        elif hostile in ("topic", "level"):
            fields[hostile] = _yaml_scalar(draw(_NAME))
    return template.format(**fields)
