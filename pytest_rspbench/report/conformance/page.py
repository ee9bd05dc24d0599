"""The conformance page (``index.html``): engines as columns, cases by family.

One standalone page, plain HTML and inline SVG (no script): what the runs
assumed (tool, suite, each engine's version and profile), a summary per
engine (conformance by family, departures by class), one table per family
whose cells link to the case's details, then the details: the verdict line,
the departures, and the item's panel from its results record (figures,
charts, the per-window table with expected against actual and the missing
and unexpected bindings, the counterexample when one was shrunk).
"""

from __future__ import annotations

from collections.abc import Sequence
from html import escape
from typing import Any

from pytest_rspbench import __version__
from pytest_rspbench.report.conformance.entries import (
    EngineResults,
    Entry,
    ordered_families,
    title,
)
from pytest_rspbench.report.conformance.summary import Tally, tally
from pytest_rspbench.report.panel import panel

WORDS = {
    "passed": "pass",
    "failed": "FAIL",
    "known": "known",
    "cantTell": "can't tell",
    "inapplicable": "n/a",
    "untested": "untested",
}
LEGEND = (
    "pass: correct · FAIL: ran and was wrong · known: a declared known failure "
    "(an intended deviation, EARL failed) · can't tell: the item could not be judged · "
    "n/a: the engine's profile cannot run the case (EARL inapplicable) · "
    "untested: not run"
)
STYLE = (
    # The standalone report's look (report/page.py), which this page does not
    # import: report/matrix.py builds this report, and that page imports it.
    """
body{font-family:sans-serif;margin:16px;color:#222}
h1{font-size:20px;margin:0 0 4px}
.meta{color:#555;font-size:12px;margin:2px 0}
table{border-collapse:collapse;margin:6px 0;font-size:12px}
td,th{border:1px solid #ccc;padding:2px 6px;text-align:right}
td:first-child,th:first-child{text-align:left}
tr.differs,tr.fail{background:#fdd}
h2{font-size:16px;margin:12px 0 4px}
.rspbench-caption{font-size:13px;margin:4px 0}
.rspbench-error{background:#fee;white-space:pre-wrap;padding:4px}
.rspbench-note{font-size:12px;color:#444;margin:4px 0}
.rspbench-windows td:nth-child(n+10){text-align:left}
details{border:1px solid #ddd;margin:8px 0;padding:4px 8px}
summary{cursor:pointer;font-weight:bold}
.rspbench-charts svg{display:block;margin:8px 0}
td.passed{background:#dfd}td.failed,td.cantTell{background:#fdd}
td.known{background:#ffe9b3}td.inapplicable,td.untested{background:#eee;color:#666}
td a{color:inherit;text-decoration:none;display:block}
.rspbench-conformance td,.rspbench-families td{text-align:center}
td.case,.rspbench-families td:first-child{text-align:left}
.rspbench-conformance td.case{text-align:left;font-family:monospace}
.rspbench-verdict{font-family:monospace;white-space:pre-wrap;margin:4px 0}
section.rspbench-case{border-top:1px solid #ccc;margin-top:10px}
h3{font-size:14px;margin:8px 0 2px}
"""
)


def render(all_results: Sequence[EngineResults]) -> str:
    """The whole page."""
    tallies = [tally(r) for r in all_results]
    cases = _cases(all_results)
    families = ordered_families(sorted({e.family for e in cases.values()}))
    return (
        "<!DOCTYPE html><html><head><meta charset='utf-8'>"
        "<title>RSP-QL conformance report</title>"
        f"<style>{STYLE}</style></head><body>"
        "<h1>RSP-QL conformance report</h1>"
        f"{_meta(all_results)}"
        f"{_summary(tallies)}{_by_family(tallies, families)}{_departures(tallies)}"
        f'<p class="meta">{escape(LEGEND)}</p>'
        + "".join(_family_table(f, cases, all_results) for f in families)
        + "<h2>Details</h2>"
        + "".join(
            _details(k, r, r.entries[c])
            for k, r in enumerate(all_results)
            for c in sorted(r.entries)
        )
        + "</body></html>\n"
    )


def anchor(engine_index: int, case: str) -> str:
    """The id of a case's details for one engine."""
    safe = "".join(ch if ch.isalnum() or ch in "-_" else "_" for ch in case)
    return f"c{engine_index}-{safe}"


def _meta(all_results: Sequence[EngineResults]) -> str:
    lines = [f"built with pytest-rspbench {__version__}"]
    for r in all_results:
        doc = r.docs[0] if r.docs else {}
        suite = doc.get("suite") or {}
        profile = r.profile
        lines.append(
            f"{r.engine}"
            + (f" {profile['version']}" if profile.get("version") else "")
            + f": run {r.created or '?'} with pytest-rspbench "
            f"{(doc.get('tool') or {}).get('version', '?')}, suite "
            f"{suite.get('name') or '(specs by path)'} {suite.get('version') or ''} "
            f"({suite.get('specs', '?')} specs, {suite.get('digest') or 'no digest'}); "
            f"results {', '.join(r.sources)}"
        )
        declared = profile.get("declared") or {}
        if declared:
            shown = ", ".join(
                f"{k} {_value(declared[k])}"
                for k in ("bounds", "t0", "report", "tick", "r2s", "empty_relations")
                if k in declared
            )
            lines.append(f"{r.engine}'s declared profile: {shown}")
    homepages = [
        f'<a href="{escape(r.profile["homepage"])}">{escape(r.engine)}</a>'
        for r in all_results
        if r.profile.get("homepage")
    ]
    return "".join(f'<p class="meta">{escape(line)}</p>' for line in lines) + (
        f'<p class="meta">home pages: {", ".join(homepages)}</p>' if homepages else ""
    )


def _summary(tallies: Sequence[Tally]) -> str:
    head = "".join(f"<th>{escape(WORDS[o])}</th>" for o in WORDS)
    rows = "".join(
        f'<tr><td>{escape(t.engine)}</td><td class="{_class(t)}"><b>{t.score}</b></td>'
        + "".join(f"<td>{t.outcomes.get(o, 0)}</td>" for o in WORDS)
        + "</tr>"
        for t in tallies
    )
    return (
        '<h2>Conformance</h2><table class="rspbench-conformance-summary">'
        f"<tr><th>engine</th><th>conformance</th>{head}</tr>{rows}</table>"
    )


def _by_family(tallies: Sequence[Tally], families: Sequence[str]) -> str:
    head = "".join(f"<th>{escape(t.engine)}</th>" for t in tallies)
    rows = ""
    for f in families:
        cells = ""
        for t in tallies:
            passed, applicable = t.families.get(f, (0, 0))
            kind = "passed" if passed == applicable else "failed"
            cells += f'<td class="{kind if applicable else "untested"}">{passed}/{applicable}</td>'
        rows += f'<tr><td><a href="#family-{f}">{escape(title(f))}</a></td>{cells}</tr>'
    return (
        '<h2>By family</h2><table class="rspbench-families">'
        f"<tr><th>family</th>{head}</tr>{rows}</table>"
    )


def _departures(tallies: Sequence[Tally]) -> str:
    names = sorted({n for t in tallies for n in t.departures})
    if not names:
        return '<p class="meta">No departure in any failing case.</p>'
    head = "".join(f"<th>{escape(t.engine)}</th>" for t in tallies)
    rows = "".join(
        f"<tr><td>{escape(n)}</td>"
        + "".join(f"<td>{t.departures.get(n, 0) or ''}</td>" for t in tallies)
        + "</tr>"
        for n in names
    )
    return (
        "<h2>Departures by class (cases that show each)</h2>"
        f'<table class="rspbench-departures"><tr><th>departure</th>{head}</tr>{rows}</table>'
    )


def _family_table(
    family: str, cases: dict[str, Entry], all_results: Sequence[EngineResults]
) -> str:
    head = "".join(f"<th>{escape(r.engine)}</th>" for r in all_results)
    rows = ""
    for case in sorted(c for c, e in cases.items() if e.family == family):
        cells = ""
        for k, r in enumerate(all_results):
            e = r.entries[case]
            tip = escape(e.description.splitlines()[0] if e.description else "", quote=True)
            word = WORDS[e.outcome] + (f" {', '.join(e.departures)}" if e.departures else "")
            cells += (
                f'<td class="{e.outcome}" title="{tip}">'
                f'<a href="#{anchor(k, case)}">{escape(word)}</a></td>'
            )
        rows += f'<tr><td class="case">{escape(case)}</td>{cells}</tr>'
    return (
        f'<h2 id="family-{escape(family)}">{escape(title(family))}</h2>'
        f'<table class="rspbench-conformance"><tr><th>case</th>{head}</tr>{rows}</table>'
    )


def _details(k: int, results: EngineResults, entry: Entry) -> str:
    record = entry.record
    body = panel(record) if record else ""
    is_open = entry.outcome in ("failed", "known", "cantTell")
    return (
        f'<section class="rspbench-case" id="{anchor(k, entry.case)}">'
        f"<h3>{escape(WORDS[entry.outcome])} · {escape(entry.case)} · {escape(results.engine)}</h3>"
        f'<p class="rspbench-verdict">{escape(entry.description)}</p>'
        + (
            f"<details{' open' if is_open else ''}><summary>details</summary>{body}</details>"
            if body
            else ""
        )
        + "</section>"
    )


def _cases(all_results: Sequence[EngineResults]) -> dict[str, Entry]:
    return {c: e for r in all_results for c, e in r.entries.items()}


def _class(t: Tally) -> str:
    return "passed" if t.passed == t.applicable else "failed"


def _value(value: Any) -> str:
    return "[" + ", ".join(map(str, value)) + "]" if isinstance(value, list) else str(value)
