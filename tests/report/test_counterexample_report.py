"""A minimal counterexample in the failure text, the record and the HTML panel."""

from __future__ import annotations

import json
from pathlib import Path

from pytest_rspbench.report import panel
from pytest_rspbench.report.counterexample import (
    Counterexample,
    TimedTriple,
    counterexample_record,
    shown_counterexample,
)

EX = "http://example.org/rspql/"
CARL = (f"<{EX}carl>", f"<{EX}isNearby>", f"<{EX}a>")


def found(**changes) -> Counterexample:
    values = dict(
        target="window-bounds",
        status="minimal",
        triples=(TimedTriple(f"{EX}nearby", 5, CARL),),
        end=10,
        original=(4, 5),
        shows="window bounds x1 at (5,10]",
        runs=9,
        seconds=12.34,
        spec=Path("/art/item/counterexample.rspbench.yaml"),
        engine="faulty-wrong-bounds",
    )
    values.update(changes)
    return Counterexample(**values)


def test_text_shows_the_timeline_and_how_to_run_it():
    text = shown_counterexample(found())
    assert text.splitlines() == [
        "minimal counterexample: 1 of 4 events, 1 of 5 triples, shows window bounds x1 at (5,10]",
        "  (9 runs of the engine and the oracle in 12.3 s)",
        "  time  triple",
        f"     5  <{EX}carl> <{EX}isNearby> <{EX}a>",
        "    10  (end of input)",
        "  written to /art/item/counterexample.rspbench.yaml",
        "  run: pytest /art/item/counterexample.rspbench.yaml --rspbench-engine faulty-wrong-bounds",
    ]


def test_budget_that_ran_out_says_so_and_shows_the_smallest_so_far():
    note = "the budget of 5 s ran out in step 'events'; the smallest input so far is shown"
    text = shown_counterexample(found(status="budget", note=note))
    assert text.startswith("smallest counterexample so far: 1 of 4 events")
    assert note in text


def test_several_streams_name_the_stream_of_each_triple():
    two = (
        TimedTriple(f"{EX}nearby", 5, CARL),
        TimedTriple(f"{EX}coupons", 7, CARL),
    )
    text = shown_counterexample(found(triples=two, original=(9, 9)))
    assert f"     5  nearby  <{EX}carl>" in text
    assert f"     7  coupons  <{EX}carl>" in text


def test_recorded_answers_say_why_there_is_none():
    note = "engine 'answers' gives recorded answers: ..."
    text = shown_counterexample(Counterexample("lost-window", "not-rerunnable", note))
    assert text.splitlines() == [
        "no minimal counterexample (not-rerunnable)",
        f"  {note}",
    ]


def test_record_is_json_ready():
    record = counterexample_record(found())
    assert json.loads(json.dumps(record)) == record
    assert record["events"] == 1
    assert record["original"] == {"events": 4, "triples": 5}
    assert record["triples"] == [{"stream": f"{EX}nearby", "time": 5, "triple": list(CARL)}]
    assert record["command"].endswith("--rspbench-engine faulty-wrong-bounds")


def test_panel_shows_the_counterexample_escaped():
    odd = (TimedTriple(f"{EX}nearby", 5, (f"<{EX}x>", f"<{EX}p>", '"<b>bold</b>"')),)
    record = {
        "passed": False,
        "engine": "faulty-wrong-bounds",
        "windows": [],
        "counterexample": counterexample_record(found(triples=odd)),
    }
    html = panel.panel(record)
    assert "minimal counterexample: 1 of 4 events" in html
    assert '<pre class="rspbench-timeline">' in html
    assert "&lt;b&gt;bold&lt;/b&gt;" in html and "<b>bold</b>" not in html
    assert "--rspbench-engine faulty-wrong-bounds</code>" in html


def test_panel_without_a_counterexample_has_no_section():
    assert "rspbench-counterexample" not in panel.panel({"passed": False, "windows": []})
