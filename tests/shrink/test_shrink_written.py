"""The written counterexample is a spec the loader reads back as the same case."""

from __future__ import annotations

import shutil
from dataclasses import replace
from pathlib import Path

from pytest_rspbench.report.counterexample import TimedTriple
from pytest_rspbench.runner import open_streams
from pytest_rspbench.shrink.written import engine_arg, write_spec
from pytest_rspbench.spec.loader import load_spec
from pytest_rspbench.stream.workloads import Disorder

SPECS = Path(__file__).parents[2] / "specs" / "rspql"
EX = "http://example.org/rspql/"


def example10(tmp_path: Path):
    """RSP-QL Example 10: two streams, static data, pinned semantics."""
    shutil.copytree(SPECS / "data", tmp_path / "data")
    spec = tmp_path / "example10.rspbench.yaml"
    shutil.copy(SPECS / "example10-discount-coupon.rspbench.yaml", spec)
    (case,) = load_spec(spec).cases
    return case


def test_two_streams_static_data_and_settings_read_back(tmp_path):
    case = example10(tmp_path)
    case = replace(
        case,
        streams=(
            replace(case.streams[0], disorder=Disorder(late=0.5, max_delay=3, seed=7)),
            case.streams[1],
        ),
    )
    carl = (f"<{EX}carl>", f"<{EX}isNearby>", f"<{EX}a>")
    alice = (f"<{EX}alice>", f"<{EX}offers>", '"10% discount"')
    triples = [
        TimedTriple(f"{EX}nearby", 5, carl),
        TimedTriple(f"{EX}coupons", 6, alice),
        TimedTriple(f"{EX}nearby", 7, carl),
    ]
    path = write_spec(case, triples, [9, None], tmp_path / "out", "Shows something.")
    assert path.name == "counterexample.rspbench.yaml"
    assert path.read_text().startswith("# Written by pytest-rspbench --rspbench-shrink")

    (again,) = load_spec(path).cases
    assert again.query.text.strip() == case.query.text.strip()
    assert again.engine == case.engine
    assert dict(again.semantics) == dict(case.semantics)
    assert again.comparison == case.comparison
    assert again.static == case.static
    assert [(d.iri, d.end, d.disorder) for d in again.streams] == [
        (f"{EX}nearby", 9, Disorder(late=0.5, max_delay=3, seed=7)),
        (f"{EX}coupons", None, None),
    ]
    nearby, coupons = open_streams(again)
    assert [(e.time, e.triples) for e in nearby.events()] == [(5, (carl,)), (7, (carl,))]
    assert [(e.time, e.triples) for e in coupons.events()] == [(6, (alice,))]


def test_thresholds_and_matrix_values_are_written_out(tmp_path):
    (tmp_path / "s.nt").write_text(f'<{EX}a> <{EX}p> "1" "0" .\n')
    spec = tmp_path / "m.rspbench.yaml"
    spec.write_text(
        "rspbench: 1\nname: m\nstreams:\n  - iri: http://ex/s\n"
        "    source: {kind: lines, path: s.nt, format: ntriples-ts}\n"
        "query: |\n  PREFIX : <http://ex/>\n  REGISTER RStream :out AS SELECT ?s\n"
        "  FROM NAMED WINDOW :w ON STREAM :s [RANGE ${range} STEP 1000]\n"
        "  WHERE { WINDOW :w { ?s ?p ?o } }\n"
        "matrix:\n  range: [2000]\nengines: [reference]\n"
        "comparison: {mode: graded}\nthresholds: ['precision >= 0.9 in every window']\n"
        "replay: {speed: 2, timeout: 30}\n"
    )
    (case,) = load_spec(spec).cases
    path = write_spec(
        case,
        [TimedTriple("http://ex/s", 0, (f"<{EX}a>", f"<{EX}p>", '"1"'))],
        [None],
        tmp_path / "out",
        "x",
    )
    (again,) = load_spec(path).cases
    assert "RANGE 2000 STEP 1000" in again.query.text
    assert [t.text for t in again.thresholds] == ["precision >= 0.9 in every window"]
    assert (again.comparison.mode, again.speed, again.timeout) == ("graded", 2.0, 30.0)


def test_engine_given_by_path_is_written_absolute(tmp_path):
    case = example10(tmp_path)
    assert engine_arg(replace(case, engine="reference")) == "reference"
    written = engine_arg(replace(case, engine="engines/mine/engine.yaml"))
    assert written == str(tmp_path / "engines" / "mine" / "engine.yaml")
