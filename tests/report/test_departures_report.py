"""The departures of a failing item in the reports: the pytest-html row and
panel (from the item's record) and the record itself."""

from __future__ import annotations

from pytest_rspbench.report.html import record_cells
from pytest_rspbench.report.panel import panel
from pytest_rspbench.report.record import departure_record
from pytest_rspbench.verdict.departures import Departure

LOST = Departure("lost-window", ((30000, 40000),))
CRASH = Departure("engine-error", detail="timed out after 30 s")


def record(*departures: Departure) -> dict:  # type: ignore[type-arg]
    return {
        "engine": "x",
        "semantics": {"bounds": "[o,c)"},
        "mode": "strict",
        "passed": False,
        "outcome": "failed",
        "verdict": "strict: FAIL — lost window x1 at [30000,40000)",
        "departures": [departure_record(d) for d in departures],
        "windows": [],
    }


def test_the_record_names_each_departure_with_its_windows() -> None:
    assert departure_record(LOST) == {
        "name": "lost-window",
        "title": "lost window",
        "explanation": "a window that closed while the input went on was never reported",
        "count": 1,
        "windows": [[30000, 40000]],
        "detail": "",
    }


def test_the_html_row_names_the_departures() -> None:
    cells = dict(record_cells(record(LOST, CRASH)))
    assert cells["verdict"] == "FAIL (lost-window, engine-error)"
    assert dict(record_cells(record()))["verdict"] == "FAIL"


def test_the_panel_lists_the_departures() -> None:
    html = panel(record(LOST, CRASH))
    assert '<ul class="rspbench-departures">' in html
    assert "<b>lost window x1</b> at [30000,40000)" in html
    assert "<b>engine error x1</b>: timed out after 30 s" in html
    assert "rspbench-departures" not in panel(record())
