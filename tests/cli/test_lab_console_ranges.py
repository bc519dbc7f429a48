"""Long runs of replication group message IDs print as the ranges docs/lab.md describes, however
many messages they hold: consecutive IDs with one outcome share one range (consume) or one line
(audit), and `,...` / `... <n> more` appear only past five ranges / twenty lines."""

from __future__ import annotations

from solace_shell.lab import Lab


def ok(lab: Lab, line: str) -> str:
    outcome = lab.execute("lab", line)
    assert outcome.ok, (line, outcome.text)
    return outcome.text


def test_consuming_thousands_prints_one_range() -> None:
    lab = Lab.fresh()
    try:
        ok(lab, "publish trader trading/orders/new count 3000")
        assert ok(lab, "consume settlement orders count 3000") == (
            "consumed 3000 from orders on NY_Appliance1 (rgmid 1000001-1003000)")
    finally:
        lab.close()


def test_more_than_five_ranges_end_with_dots() -> None:
    lab = Lab.fresh()
    try:
        for _ in range(7):  # each publish's first message goes to orders, its second elsewhere
            ok(lab, "publish trader trading/orders/new count 1")
            ok(lab, "publish trader trading/other count 1")
        assert ok(lab, "consume settlement orders count 7") == (
            "consumed 7 from orders on NY_Appliance1 "
            "(rgmid 1000001,1000003,1000005,1000007,1000009,...)")
    finally:
        lab.close()


def test_a_replaced_site_loss_is_one_audit_line() -> None:
    lab = Lab.fresh()
    try:
        ok(lab, "set replication-drain-rate 1")
        ok(lab, "publish trader trading/orders/new count 5000")
        ok(lab, "fail site NY")
        ok(lab, "replace site NY")
        assert ok(lab, "audit").splitlines()[2:] == ["rgmid 1000001-1005000 lost: not replicated, site replaced"]
    finally:
        lab.close()
