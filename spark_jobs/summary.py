"""Pure-Python half of the conformance job: summary JSON and the human report.

Everything here takes small, already-aggregated, already-sorted lists (collected from Spark on the
driver) and returns text, so it is deterministic and testable without Spark. Nothing here may depend on
time, host or run order: `summary.json` and `report.html` are promised byte-identical for the same input.
"""

from __future__ import annotations

import html
import json
import re
from collections.abc import Iterable, Sequence
from typing import Any

SCHEMA_VERSION = 1
UNPARSED = "<unparsed>"

# How the emulator says "the grammar does not know this": the replay signature of a command the parser
# rejected as invalid input (error_kind "invalid"), and the text of that error (`invalid_input_regex`).
INVALID_SIGNATURES = ("error:invalid",)


def invalid_input_regex() -> str:
    """A Java/Python-compatible regex matching the emulator's invalid-input error output.

    `solace_shell.messages.PARSE_ERRORS["invalid"]` is the parser's "unknown command" text; its longest
    literal line (before any {placeholder}) identifies it ("invalid-value" shares only the first line).
    """
    from solace_shell.messages import PARSE_ERRORS  # noqa: PLC0415

    literal = PARSE_ERRORS["invalid"].split("{", 1)[0]
    lines = [re.sub(r"^[\s\->]+", "", ln).strip(" (") for ln in literal.split("\n")]
    return re.escape(max(lines, key=len)).replace("\\ ", " ")


def _rate(num: int, den: int) -> float:
    return round(num / den, 6) if den else 0.0


def build_summary(
    *,
    inputs: Sequence[str],
    transcripts: dict[str, int],
    verdicts: dict[str, int],
    by_node: Iterable[dict[str, Any]],
    by_signature: Iterable[dict[str, Any]],
    grammar_nodes: Sequence[str] | None,
    grammar_reason: str | None,
    exercised: Iterable[str],
    unknown_commands: Iterable[dict[str, Any]],
    quarantine: Iterable[dict[str, Any]],
    min_pass: float,
    gate_of: str,
    misplaced_commands: Iterable[dict[str, Any]] = (),
) -> dict[str, Any]:
    commands = sum(verdicts.values())
    total_t = transcripts.get("total", 0)
    rates = {
        "commands": _rate(verdicts.get("pass", 0), commands),
        "transcripts": _rate(transcripts.get("passed", 0), total_t),
    }
    rate = rates[gate_of]
    exercised_nodes = sorted(n for n in set(exercised) if n)
    if grammar_nodes is not None:
        known = set(grammar_nodes)
        coverage: dict[str, Any] = {
            "available": True,
            "reason": None,
            "grammar_nodes": len(known),
            "exercised": len(known & set(exercised_nodes)),
            "ratio": _rate(len(known & set(exercised_nodes)), len(known)),
            "exercised_nodes": [n for n in exercised_nodes if n in known],
            "untouched_nodes": sorted(known - set(exercised_nodes)),
            "not_in_grammar": [n for n in exercised_nodes if n not in known],
        }
    else:
        coverage = {
            "available": False,
            "reason": grammar_reason,
            "grammar_nodes": 0,
            "exercised": len(exercised_nodes),
            "ratio": 0.0,
            "exercised_nodes": exercised_nodes,
            "untouched_nodes": [],
            "not_in_grammar": [],
        }
    nodes = []
    for row in by_node:
        total = row["pass"] + row["fail"] + row["error"]
        nodes.append({
            "node": row["node"] or UNPARSED,
            "commands": total,
            "pass": row["pass"],
            "fail": row["fail"],
            "error": row["error"],
            "pass_rate": _rate(row["pass"], total),
        })
    return {
        "schema": SCHEMA_VERSION,
        "inputs": list(inputs),
        "totals": {
            "transcripts": total_t,
            "passed_transcripts": transcripts.get("passed", 0),
            "failed_transcripts": transcripts.get("failed", 0),
            "quarantined": transcripts.get("quarantined", 0),
            "commands": commands,
            "pass": verdicts.get("pass", 0),
            "fail": verdicts.get("fail", 0),
            "error": verdicts.get("error", 0),
        },
        "pass_rate": rates,
        "gate": {"min_pass": round(min_pass, 6), "of": gate_of, "rate": rate, "ok": rate >= min_pass},
        "by_node": nodes,
        "by_signature": list(by_signature),
        "coverage": coverage,
        "unknown_commands": list(unknown_commands),
        "misplaced_commands": list(misplaced_commands),
        "quarantine": list(quarantine),
    }


def dumps(summary: dict[str, Any]) -> str:
    return json.dumps(summary, indent=2, ensure_ascii=False, sort_keys=False) + "\n"


# --------------------------------------------------------------------------------------------- report

_CSS = """
body{font:14px/1.4 system-ui,sans-serif;margin:2em;max-width:1100px;color:#222}
h1{font-size:1.5em}h2{font-size:1.2em;margin-top:2em;border-bottom:1px solid #ddd}
table{border-collapse:collapse;font-size:13px}
td,th{border:1px solid #ddd;padding:2px 6px;text-align:left;vertical-align:top}
td.n{text-align:right;font-variant-numeric:tabular-nums}code{font-size:12px;white-space:pre-wrap}
.ok{color:#18794e;font-weight:bold}.bad{color:#c62828;font-weight:bold}.muted{color:#777}
"""

_COLORS = {"pass": "#2e9d5b", "fail": "#d64545", "error": "#e69b23"}


def _e(text: object) -> str:
    return html.escape(str(text), quote=True)


def svg_bar_chart(rows: Sequence[dict[str, Any]], *, label_key: str = "node", limit: int = 40) -> str:
    """A stacked horizontal bar chart (pass/fail/error per row) as inline SVG, no dependencies."""
    rows = sorted(rows, key=lambda r: (-r["commands"], r[label_key]))[:limit]
    if not rows:
        return "<p class=muted>No commands.</p>"
    label_w, bar_w, row_h, top = 330, 520, 18, 24
    width, height = label_w + bar_w + 70, top + row_h * len(rows) + 6
    peak = max(r["commands"] for r in rows) or 1
    parts = [
        f'<svg xmlns="http://www.w3.org/2000/svg" width="{width}" height="{height}" '
        f'viewBox="0 0 {width} {height}" font-family="sans-serif" font-size="11" role="img" '
        f'aria-label="commands per grammar node by verdict">'
    ]
    x: float = label_w
    for verdict in ("pass", "fail", "error"):
        parts.append(f'<rect x="{x}" y="4" width="10" height="10" fill="{_COLORS[verdict]}"/>'
                     f'<text x="{x + 14}" y="13">{verdict}</text>')
        x += 70
    for i, row in enumerate(rows):
        y = top + i * row_h
        label = row[label_key]
        short = label if len(label) <= 52 else label[:50] + "\u2026"
        parts.append(f'<text x="{label_w - 6}" y="{y + 12}" text-anchor="end">'
                     f'<title>{_e(label)}</title>{_e(short)}</text>')
        x = float(label_w)
        for verdict in ("pass", "fail", "error"):
            n = row[verdict]
            if n:
                w = round(bar_w * n / peak, 2)
                parts.append(f'<rect x="{round(x, 2)}" y="{y + 2}" width="{w}" height="{row_h - 5}" '
                             f'fill="{_COLORS[verdict]}"><title>{_e(label)}: {n} {verdict}</title></rect>')
                x += w
        parts.append(f'<text x="{round(x + 4, 2)}" y="{y + 12}">{row["commands"]}</text>')
    parts.append("</svg>")
    return "".join(parts)


def _table(header: Sequence[str], rows: Iterable[Sequence[object]], numeric: set[int] = frozenset()) -> str:  # type: ignore[assignment]
    out = ["<table><tr>" + "".join(f"<th>{_e(h)}</th>" for h in header) + "</tr>"]
    for row in rows:
        cells = []
        for i, value in enumerate(row):
            if i in numeric:
                cells.append(f'<td class="n">{_e(value)}</td>')
            else:
                cells.append(f"<td><code>{_e(value)}</code></td>")
        out.append("<tr>" + "".join(cells) + "</tr>")
    out.append("</table>")
    return "\n".join(out)


def render_report(summary: dict[str, Any], *, max_rows: int = 200) -> str:
    t, rates, gate, cov = summary["totals"], summary["pass_rate"], summary["gate"], summary["coverage"]
    verdict = '<span class="ok">PASS</span>' if gate["ok"] else '<span class="bad">BELOW THRESHOLD</span>'
    parts = [
        "<!DOCTYPE html>",
        '<html lang="en"><head><meta charset="utf-8"><title>solace-shell conformance report</title>',
        f"<style>{_CSS}</style></head><body>",
        "<h1>solace-shell conformance report</h1>",
        f"<p>Gate: {verdict} &mdash; {gate['of']} pass rate {rates[gate['of']]:.2%} "
        f"(minimum {gate['min_pass']:.2%}).</p>",
        _table(
            ["transcripts", "passed", "failed", "quarantined", "commands", "pass", "fail", "error",
             "command pass rate", "transcript pass rate"],
            [[t["transcripts"], t["passed_transcripts"], t["failed_transcripts"], t["quarantined"], t["commands"],
              t["pass"], t["fail"], t["error"], f"{rates['commands']:.2%}", f"{rates['transcripts']:.2%}"]],
            numeric=set(range(10)),
        ),
        "<h2>By grammar node</h2>",
        svg_bar_chart(summary["by_node"]),
        _table(["node", "commands", "pass", "fail", "error", "pass rate"],
               ([r["node"], r["commands"], r["pass"], r["fail"], r["error"], f"{r['pass_rate']:.1%}"]
                for r in summary["by_node"][:max_rows]), numeric={1, 2, 3, 4, 5}),
        "<h2>By divergence signature</h2>",
    ]
    sigs = summary["by_signature"]
    if sigs:
        parts.append(_table(["signature", "commands", "transcripts", "nodes", "first example"],
                            ([s["signature"], s["count"], s["transcripts"], ", ".join(s["nodes"]),
                              f"{s['example']['transcript']}:{s['example']['line']}"] for s in sigs[:max_rows]),
                            numeric={1, 2}))
        if len(sigs) > max_rows:
            parts.append(f"<p class=muted>{len(sigs) - max_rows} more in summary.json.</p>")
    else:
        parts.append("<p>No divergences.</p>")
    parts.append("<h2>Grammar coverage</h2>")
    if cov["available"]:
        parts.append(f"<p>{cov['exercised']} of {cov['grammar_nodes']} command-tree nodes exercised "
                     f"({cov['ratio']:.1%}); {len(cov['untouched_nodes'])} never touched.</p>")
        parts.append("<details><summary>Never touched</summary>"
                     + _table(["node"], ([n] for n in cov["untouched_nodes"])) + "</details>")
        if cov["not_in_grammar"]:
            parts.append("<p>Nodes reported by the replay but absent from the grammar:</p>"
                         + _table(["node"], ([n] for n in cov["not_in_grammar"])))
    else:
        parts.append(f"<p class=muted>Grammar node list unavailable: {_e(cov['reason'])}. "
                     f"{cov['exercised']} distinct nodes exercised.</p>")
    parts.append("<h2>Commands the grammar does not know</h2>")
    unknown = summary["unknown_commands"]
    if unknown:
        parts.append(_table(["command", "times", "transcripts", "first example"],
                            ([u["command"], u["count"], u["transcripts"],
                              f"{u['example']['transcript']}:{u['example']['line']}"] for u in unknown[:max_rows]),
                            numeric={1, 2}))
    else:
        parts.append("<p>None.</p>")
    parts.append("<h2>Commands typed at a level that does not offer them</h2>")
    misplaced = summary.get("misplaced_commands", [])
    if misplaced:
        parts.append(_table(["command", "levels that offer it", "times", "transcripts", "first example"],
                            ([u["command"], ", ".join(u["levels"]), u["count"], u["transcripts"],
                              f"{u['example']['transcript']}:{u['example']['line']}"] for u in misplaced[:max_rows]),
                            numeric={2, 3}))
    else:
        parts.append("<p>None.</p>")
    parts.append("<h2>Quarantine</h2>")
    if summary["quarantine"]:
        parts.append(_table(["transcript", "reason"], ([q["transcript"], q["reason"]] for q in summary["quarantine"])))
    else:
        parts.append("<p>None.</p>")
    parts.append("</body></html>")
    return "\n".join(parts) + "\n"


def render_text(summary: dict[str, Any]) -> str:
    """Short plain-text summary for the terminal."""
    t, rates, gate = summary["totals"], summary["pass_rate"], summary["gate"]
    lines = [
        f"transcripts {t['transcripts']} (passed {t['passed_transcripts']}, failed {t['failed_transcripts']}, "
        f"quarantined {t['quarantined']})",
        f"commands    {t['commands']} (pass {t['pass']}, fail {t['fail']}, error {t['error']})",
        f"pass rate   commands {rates['commands']:.2%}, transcripts {rates['transcripts']:.2%}; "
        f"gate {gate['of']} >= {gate['min_pass']:.2%}: {'ok' if gate['ok'] else 'FAILED'}",
    ]
    cov = summary["coverage"]
    if cov["available"]:
        lines.append(f"coverage    {cov['exercised']}/{cov['grammar_nodes']} grammar nodes ({cov['ratio']:.1%})")
    if summary["by_signature"]:
        lines.append("top divergences:")
        for s in summary["by_signature"][:5]:
            lines.append(f"  {s['count']:>6}  {s['signature']}")
    return "\n".join(lines)
