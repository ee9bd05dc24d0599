"""What a fingerprint writes: a table, ``profile.yaml``, ``departures.json``
and ``probes.json``.

``profile.yaml`` is an ``engine.yaml`` ``semantics:`` fragment (paste it into
a profile); ``departures.json`` lists what differs from the declared profile
and what no profile explains, each with the probes that show it;
``probes.json`` each probe's stream, query, registration, the engine's raw
output and every verdict the conclusions rest on.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from pytest_rspbench.fingerprint.conclusions import NOT_SUPPORTED, Conclusion
from pytest_rspbench.fingerprint.inference import Fingerprint
from pytest_rspbench.fingerprint.probes import PROBES
from pytest_rspbench.rsp.counting import COUNT_FIELDS
from pytest_rspbench.rsp.departures import BY_NAME
from pytest_rspbench.rsp.policy import while_open
from pytest_rspbench.rsp.semantics import Semantics
from pytest_rspbench.rsp.sessions import SESSION_FIELDS

FILES = ("profile.yaml", "departures.json", "probes.json")
WINDOW_FIELDS = (*COUNT_FIELDS, *SESSION_FIELDS)
"""The count and session profile fields (docs/count-and-session-windows.md)."""


def table(fingerprint: Fingerprint) -> str:
    """One line per dimension: inferred value, declared value, probes.

    A value no candidate explains is marked ``(closest)``; one that differs
    from the declared one ``≠``; a dimension whose probes the engine cannot
    run (a window kind it does not list) reads ``not supported``.
    """
    rows = [("dimension", "inferred", "declared", "probes")]
    for c in fingerprint.conclusions:
        mark = " (closest)" if c.explained is False else ""
        unseen = c.explained is None and not c.judged and c.value != NOT_SUPPORTED
        mark += " (not observable)" if unseen else ""
        differs = "≠ " if c.departure else ""
        rows.append((c.dimension, differs + c.value + mark, c.declared, ", ".join(c.probes)))
    widths = [max(len(r[k]) for r in rows) for k in range(3)]
    lines = ["  ".join(r[k].ljust(widths[k]) for k in range(3)) + "  " + r[3] for r in rows]
    lines.insert(1, "-" * (sum(widths) + 6 + len("probes")))
    return "\n".join(line.rstrip() for line in lines)


def departures(fingerprint: Fingerprint) -> list[dict[str, Any]]:
    """Each departure class with its dimensions, probes and windows.

    ``undeclared``: a profile value explains the output, not the declared
    one (``faulty-wrong-bounds``: bounds ``(o,c]``). ``unexplained``: no
    candidate profile explains it (no flush at the end, duplicates, ...).
    """
    found: dict[str, dict[str, Any]] = {}

    def entry(name: str, kind: str) -> dict[str, Any]:
        item = found.setdefault(
            name,
            {
                "class": name,
                "title": BY_NAME[name].title,
                "explanation": BY_NAME[name].explanation,
                "kind": kind,
                "dimensions": [],
                "probes": [],
                "windows": {},
            },
        )
        return item

    for c in fingerprint.conclusions:
        if c.departure:
            kind = "undeclared" if c.explained and c.changes else "unexplained"
            _add(entry(c.departure, kind), c, c.probes, f"{c.value} (declared: {c.declared})")
        for probe, d in c.departures:
            item = entry(d.name, "unexplained")
            _add(item, c, (probe,), d.detail)
            item["windows"].setdefault(probe, [])
            for w in d.windows:
                if list(w) not in item["windows"][probe]:
                    item["windows"][probe].append(list(w))
    return list(found.values())


def _add(item: dict[str, Any], c: Conclusion, probes: Sequence[str], detail: str) -> None:
    if c.dimension not in item["dimensions"]:
        item["dimensions"].append(c.dimension)
    item["probes"] += [p for p in probes if p not in item["probes"]]
    if detail:
        item.setdefault("details", [])
        if detail not in item["details"]:
            item["details"].append(detail)


def profile_yaml(fingerprint: Fingerprint) -> str:
    """The inferred profile as an ``engine.yaml`` ``semantics:`` fragment."""
    s = fingerprint.inferred
    notes = {c.dimension: c for c in fingerprint.conclusions}
    lines = [
        f"# rspbench fingerprint of {fingerprint.engine}: the semantics its output on",
        "# the bundled probes shows (docs/fingerprint.md). Departures no profile",
        "# explains are in departures.json.",
        "semantics:",
        f'  bounds: "{s.bounds}"{_note(notes.get("bounds"))}',
        f"  t0: {s.t0}{_note(notes.get('t0'))}",
        f"  report: [{', '.join(s.report)}]{_note(notes.get('report'))}",
    ]
    if while_open(s):
        lines.append(f"  active_window: {s.active_window}")
    lines += [
        f"  tick: {s.tick}  # not observable under window-close: as declared"
        if "content-change" not in s.report
        else f"  tick: {s.tick}",
        f"  r2s: [{', '.join(s.r2s)}]",
        f"  empty_relations: {_yaml(s.empty_relations)}",
        f"  time_unit: {s.time_unit}  # not probed: as declared",
        f"  reports_window: {_yaml(s.reports_window)}",
    ]
    if s.lateness:
        lines.append(f"  lateness: {s.lateness}")
    lines.append(f"  windows: [{', '.join(s.windows)}]{_note(notes.get('windows'))}")
    for name in WINDOW_FIELDS:
        value = getattr(s, name)
        if value is not None:
            shown = f'"{value}"' if value.startswith("[") else value
            lines.append(f"  {name}: {shown}{_note(notes.get(name))}")
    return "\n".join(lines) + "\n"


def _note(c: Conclusion | None) -> str:
    if c is None:
        return ""
    if c.explained is False:
        return "  # closest: no candidate explains every probe"
    if c.departure:
        return f"  # declared {c.declared}"
    if c.explained is None and c.value != NOT_SUPPORTED:
        return "  # not observable: as declared"
    if c.dimension == "windows" and c.value != c.declared:
        return f"  # declared {c.declared}: the others' probes not run or refused"
    return ""


def _yaml(value: bool) -> str:
    return "true" if value else "false"


def probes(fingerprint: Fingerprint) -> list[dict[str, Any]]:
    """Each probe: its stream and query, the registration, the engine's raw
    output and the verdicts that read it."""
    verdicts: dict[str, list[dict[str, Any]]] = {}
    for c in fingerprint.conclusions:
        for j in c.judged:
            verdicts.setdefault(j.probe, []).append(
                {
                    "dimension": c.dimension,
                    "candidate": c.value,
                    "passed": j.passed,
                    "without_final_windows": j.trimmed,
                    "departures": [
                        {"class": d.name, "count": d.count, "windows": [list(w) for w in d.windows]}
                        for d in j.departures
                    ],
                }
            )
    out = []
    for probe in PROBES:
        rec = fingerprint.recorded[probe.name]
        out.append(
            {
                "probe": probe.name,
                "shape": probe.shape,
                "dimensions": list(probe.dimensions),
                "query": probe.text(kind=rec.kind),
                "start": probe.start,
                "end": probe.end,
                "events": [[t, [[s, v] for s, v in pairs]] for t, pairs in probe.events],
                "disorder": None if probe.disorder is None else vars(probe.disorder),
                "window_kind": rec.kind,
                "not_run": rec.skipped,
                "registered": semantics_dict(rec.registered),
                "engine_error": rec.error,
                "output": [
                    {
                        "time": r.result.time,
                        "window": None if r.result.window is None else list(r.result.window),
                        "bindings": [dict(b) for b in r.result.bindings],
                    }
                    for r in rec.actual.received
                ],
                "verdicts": verdicts.get(probe.name, []),
            }
        )
    return out


def semantics_dict(s: Semantics) -> dict[str, Any]:
    return {
        "bounds": str(s.bounds),
        "t0": s.t0,
        "report": list(s.report),
        "tick": s.tick,
        "r2s": list(s.r2s),
        "empty_relations": s.empty_relations,
        "time_unit": s.time_unit,
        "reports_window": s.reports_window,
        "active_window": s.active_window,
        "lateness": s.lateness,
        "windows": list(s.windows),
        **{name: getattr(s, name) for name in WINDOW_FIELDS},
    }


def write(fingerprint: Fingerprint, folder: Path) -> list[Path]:
    """The three files into ``folder`` (created); their paths."""
    folder.mkdir(parents=True, exist_ok=True)
    paths = [folder / name for name in FILES]
    paths[0].write_text(profile_yaml(fingerprint), encoding="utf-8")
    summary = {
        "engine": fingerprint.engine,
        "declared": semantics_dict(fingerprint.declared),
        "inferred": semantics_dict(fingerprint.inferred),
        "departures": departures(fingerprint),
    }
    paths[1].write_text(json.dumps(summary, indent=2) + "\n", encoding="utf-8")
    paths[2].write_text(json.dumps(probes(fingerprint), indent=2) + "\n", encoding="utf-8")
    return paths
