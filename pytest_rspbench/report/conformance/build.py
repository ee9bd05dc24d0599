"""The conformance report's files, written to one folder.

``conformance.ttl`` and ``conformance.jsonld`` (EARL), ``index.html``,
``badge.svg`` (the first engine's; with several engines also
``badge-ENGINE.svg`` for each) and ``summary.json``.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from pytest_rspbench.report.conformance import badge, earl, summary
from pytest_rspbench.report.conformance import page as conformance_page
from pytest_rspbench.report.conformance.entries import engines


def write(docs: Sequence[tuple[str, Mapping[str, Any]]], folder: Path) -> dict[str, Any]:
    """Write every file of the report for ``docs`` (each file's name and its
    document); returns the summary document."""
    all_results = engines(docs)
    folder.mkdir(parents=True, exist_ok=True)
    g = earl.graph(all_results)
    files = {
        "conformance.ttl": earl.turtle(g),
        "conformance.jsonld": earl.jsonld(g),
        "index.html": conformance_page.render(all_results),
    }
    tallies = [summary.tally(r) for r in all_results]
    files["badge.svg"] = badge.svg(tallies[0].passed, tallies[0].applicable)
    if len(tallies) > 1:
        for t in tallies:
            files[f"badge-{slug(t.engine)}.svg"] = badge.svg(t.passed, t.applicable)
    doc = summary.document(all_results)
    files["summary.json"] = json.dumps(doc, indent=1, sort_keys=True) + "\n"
    for name, text in files.items():
        (folder / name).write_text(text, encoding="utf-8")
    return doc


def slug(engine: str) -> str:
    """An engine's name as a file name part.

    >>> slug("my engine/2")
    'my_engine_2'
    """
    return "".join(c if c.isalnum() or c in "-_." else "_" for c in engine)
