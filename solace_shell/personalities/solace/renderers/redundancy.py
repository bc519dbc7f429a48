"""`show redundancy` (C01, C02, C04, C14), `show redundancy detail` (C05, C22) and
`show redundancy group` (C04, C05, C08), and the lab console's redundancy changes.

The layouts are the captures': field labels padded to 25 then ": "; the virtual-router table
with its label column of 31 and value columns of 24 (the summary's rows end on their last value,
as C01/C02 print them; the detail's rows keep the padding of their columns, as the real 10.25
log C05 does, each row's label width as C05 shows it); the group table's Address column of 16
that wraps a longer address into 14-character pieces on continuation rows (C05). Values without
a capture (a released or shut-down member, the backup's detail, the monitoring node's show) are
ours, listed in docs/lab-ha-pair.md.
"""

from __future__ import annotations

from state_store.solace.redundancy import RedundancyChange, RedundancyGroupView, RedundancyView, VirtualRouterView

from ....renderers import renderer
from ..handlers.redundancy import RedundancyShow
from .clock import lab_datetime

_VR_HEADER = (f"{'':31}{'Primary Virtual Router':<24}Backup Virtual Router",
              f"{'':31}{'-' * 22:<24}{'-' * 22}")
_WRAP_FIRST = 16
_WRAP_NEXT = 14


def _field(label: str, value: str) -> str:
    return f"{label:<25}: {value}"


def _yes(flag: bool) -> str:
    return "Yes" if flag else "No"


def _up(flag: bool) -> str:
    return "Up" if flag else "Down"


def failure_time(ms: int) -> str:
    """`Jun 17 2026 07:14:53 UTC` (C05), the day padded with a space (`Feb  1 2018`, C22)."""
    moment = lab_datetime(ms)
    return f"{moment:%b} {moment.day:>2} {moment:%Y %H:%M:%S} UTC"


def _failure(last: tuple[str, int] | None) -> list[str]:
    reason, when = ("N/A", "") if last is None else (last[0], failure_time(last[1]))
    return [_field("  Last Failure Reason", reason), _field("  Last Failure Time", when)]


def _head(v: RedundancyView, detail: bool) -> list[str]:
    monitor = v.role == "Monitor"
    lines = [_field("Configuration Status", v.config_status), _field("Redundancy Status", _up(v.status_up))]
    if detail:
        lines += _failure(v.last_failure)
    lines += [
        _field("Operating Mode", "Monitoring Node" if monitor else "Message Routing Node"),
        _field("Switchover Mechanism", "Hostlist"),
        _field("Auto Revert", _yes(v.auto_revert)),
        _field("Redundancy Mode", "Active/Standby"),
        _field("Active-Standby Role", v.role),
    ]
    if monitor:
        return lines
    lines.append(_field("Mate Router Name", v.mate))
    if detail:
        lines += [_field("  SMF plain-text Port", ""), _field("  SMF compressed Port", ""),
                  _field("  SMF SSL Port", ""), _field("  Mate-Link Connect Via", v.mate_address),
                  _field("    Remote Port", "8741"), _field("    SSL", "Yes")]
    lines.append(_field("ADB Link To Mate", _up(v.adb_link_up)))
    if detail:
        lines += _failure(v.adb_last_failure)
    lines.append(_field("ADB Hello To Mate", _up(v.hello_up)))
    if detail:
        lines += _failure(v.hello_last_failure)
        lines += [_field("  Hello Interval (ms)", "1000"), _field("  Hello Timeout (ms)", "3000"),
                  _field("  Avg Hello Latency (ms)", str(v.hello_avg_ms)),
                  _field("  Max Hello Latency (ms)", str(v.hello_max_ms))]
    return lines


def _summary_table(v: RedundancyView) -> list[str]:
    p, b = v.primary_vr, v.backup_vr

    def row(label: str, pick: str) -> str:
        cells = [_cell(vr, pick) for vr in (p, b)]
        return f"{label:<31}{cells[0]:<24}{cells[1]}".rstrip()

    return ["", *_VR_HEADER,
            row("Activity Status", "activity"), row("Routing Interface", "routing_interface"),
            row("Routing Interface Status", "interface_status"), row("VRRP Status", "vrrp_status"),
            row("VRRP Priority", "vrrp_priority"), row("Message Spool Status", "spool_status"),
            row("Priority Reported By Mate", "mate_priority")]


def _cell(vr: VirtualRouterView, pick: str) -> str:
    value = getattr(vr, pick)
    return "" if value is None else str(value)


def _live(v: RedundancyView) -> tuple[VirtualRouterView, bool]:
    """The virtual router this member serves, and whether it is the primary's column."""
    primary = v.role == "Primary"
    return (v.primary_vr if primary else v.backup_vr), primary


def _detail_tables(v: RedundancyView) -> list[str]:
    vr, primary = _live(v)

    def row(label: str, width: int, value: str) -> str:
        # the live column is the primary's on the primary, the backup's on the backup
        return f"{label:<{width}}{value:<24}" if primary else f"{label:<{width}}{'':<24}{value:<24}"

    activity = vr.activity
    active = activity == "Local Active"
    mate_priority = vr.mate_priority or "None"
    mate_vrrp = "None" if vr.mate_priority is None else (
        f"{vr.mate_priority} ({100 if primary else 250})")
    state = ("Pri-" if primary else "Bkup-") + ("Active" if active else "Standby")
    ready = "Ready" if v.ready else "Not Ready"
    adb = "Ready" if v.adb_link_up else "Down"
    lines = ["", "Interface        Static Address           Status",
             "---------------- ------------------------ ------",
             f"{'intf0':<17}{v.interface_address:<25}Up", "", *_VR_HEADER,
             f"{'Activity Status':<31}{_cell(v.primary_vr, 'activity'):<24}{_cell(v.backup_vr, 'activity')}",
             row("Redundancy Interface Status", 31, "Up"), row("VRRP Status", 31, ""),
             row("  intf0", 31, "Initialize"), row("VRRP Priority", 31, _cell(vr, "vrrp_priority")),
             row("Message Spool Status", 31, _cell(vr, "spool_status")), "",
             row("Priority Reported By Mate:", 31, mate_priority),
             row("  ADB Hello Protocol", 33, mate_priority), row("  VRRP", 31, ""),
             row("    intf0", 31, mate_vrrp), "",
             row("Activity Status:", 31, activity), row("  Operational Status", 33, ready),
             row("    Redundancy Config Status", 35, v.config_status),
             row("    Message Spool Status", 35, "Ready"), row("  SMRP Status", 33, "Ready"),
             row("    Db Build Status", 35, "Ready"), row("    Db Sync Status", 35, "Ready"),
             row("  Internal Priority", 33, "Active" if active else "Standby"),
             row("  Internal Activity Status", 33, activity),
             row("  Internal Redundancy State", 33, state), "",
             row("Message Spool Status:", 31, "Ready"),
             row("  Message Spool Config Status", 33, "Enabled"), row("  VRID Config Status", 33, "Ready"),
             row("  ADB Status", 33, adb), row("    Flash Module Status", 35, "Ready"),
             row("    Power Module Status", 35, "Ready"), row("  ADB Contents", 33, "Ready"),
             row("    Local Contents Key", 35, v.contents_key), row("    Mate Contents Key", 35, v.contents_key),
             row("    Schema Match", 35, "Yes"), row("  Disk Status", 33, "Ready"),
             row("  Disk Contents", 33, "Ready"), row("    Disk Key (Primary)", 35, v.contents_key),
             row("    Disk Key (Backup)", 35, v.contents_key), row("  ADB Datapath Status", 33, adb),
             row("  Internal Redundancy State", 33, _cell(vr, "spool_status")),
             row("  Lock Owner", 33, "N/A")]
    return lines


@renderer(RedundancyShow)
def redundancy_show(r: RedundancyShow) -> str:
    v = r.view
    lines = _head(v, r.detail)
    if v.role != "Monitor":
        lines += _detail_tables(v) if r.detail else _summary_table(v)
    return "\n".join(lines)


def _wrapped(address: str) -> list[str]:
    pieces = [address[:_WRAP_FIRST]]
    rest = address[_WRAP_FIRST:]
    while rest:
        pieces.append(rest[:_WRAP_NEXT])
        rest = rest[_WRAP_NEXT:]
    return pieces


@renderer(RedundancyGroupView)
def redundancy_group(g: RedundancyGroupView) -> str:
    lines = ["Node Router-Name   Node Type       Address           Status",
             "-----------------  --------------  ----------------  ---------"]
    for n in g.nodes:
        name = n.name + ("*" if n.current else "")
        first, *more = _wrapped(n.address) or [""]
        lines.append(f"{name:<19}{n.node_type:<16}{first:<18}{'Online' if n.online else 'Offline'}")
        lines += [f"{'':37}{piece:<18}" for piece in more]
    lines += ["", "* - indicates the current node"]
    return "\n".join(lines)


@renderer(RedundancyChange)
def redundancy_change(c: RedundancyChange) -> str:
    status = "up" if c.status_down is None else f"down ({c.status_down})"
    return f"site {c.site} {c.target} {c.change}: activity {c.active or 'none'}, redundancy {status}"
