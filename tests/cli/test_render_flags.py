"""The flag letters the renderers make from the engine's data (state_store returns no text)."""

from __future__ import annotations

from dataclasses import replace
from typing import Any

from hypothesis import given
from hypothesis import strategies as st

from solace_shell.personalities.solace.renderers.flags import (
    queue_flags,
    vpn_replication_flags,
    vpn_replication_letters,
)
from solace_shell.personalities.solace.renderers.show_replication import LEGEND_B
from state_store.solace.views import QueueRow, VpnReplicationRow

ACTIVE = VpnReplicationRow(name="V", internal=False, admin_enabled=True, role="active", local_bridge=None,
                           remote_bridge_up=True, queue_bound=True, sync_eligible=None, reject_sync_ineligible=False,
                           trm="async")


def row(**changes: Any) -> VpnReplicationRow:
    return replace(ACTIVE, **changes)


def test_the_seed_rows() -> None:
    assert vpn_replication_flags(row()) == "U A - U U - N A"          # seed 000, the active site
    assert vpn_replication_flags(row(role="standby", local_bridge="up", remote_bridge_up=None,
                                     queue_bound=None)) == "U S U - - - N A"
    assert vpn_replication_flags(row(role="standby", local_bridge="queue-unbound", remote_bridge_up=None,
                                     queue_bound=None, trm="sync", reject_sync_ineligible=True)) == "U S Q - - - Y S"
    assert vpn_replication_flags(row(admin_enabled=False, role="standby", remote_bridge_up=None,
                                     queue_bound=None)) == "D S - - - - N A"
    assert vpn_replication_flags(row(internal=True)) == "- - - - - - - -"   # #config-sync


def _legend_letters() -> list[set[str]]:
    """The letters each flag of Layout B's legend allows, read from the legend itself."""
    out = []
    for line in LEGEND_B[1:]:
        inside = line[line.index("(") + 1:line.rindex(")")]
        out.append({part.split("=")[0].strip() for part in inside.split(",")})
    return out


@given(internal=st.booleans(), admin=st.booleans(), role=st.sampled_from(["active", "standby"]),
       bridge=st.sampled_from([None, "up", "queue-unbound", "down"]), remote=st.sampled_from([None, True, False]),
       eligible=st.sampled_from([None, True, False]), reject=st.booleans(), trm=st.sampled_from(["sync", "async"]))
def test_every_state_prints_a_letter_of_its_legend(internal: bool, admin: bool, role: str, bridge: str | None,
                                                    remote: bool | None, eligible: bool | None, reject: bool,
                                                    trm: str) -> None:
    letters = vpn_replication_letters(row(internal=internal, admin_enabled=admin, role=role, local_bridge=bridge,
                                          remote_bridge_up=remote, queue_bound=remote, sync_eligible=eligible,
                                          reject_sync_ineligible=reject, trm=trm))
    assert all(letter in allowed for letter, allowed in zip(letters, _legend_letters(), strict=True))


def test_queue_flags() -> None:
    q = QueueRow(name="q", vpn="V", messages_spooled=0, usage_mb=0.0, hwm_mb=0.0, bind_count=0, ingress_up=False,
                 egress_up=True, access_type="non-exclusive", durable=True)
    assert queue_flags(q) == "D U N N P D N"
