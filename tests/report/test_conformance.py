"""The conformance report from results documents: EARL, summary, badge, page, CLI.

Hand-made results documents of two engines cover every outcome: passed,
failed, a known failure, a case the profile cannot run, an engine that is
not installed, an item that could not be judged, and a case only one
engine's run has.
"""

from __future__ import annotations

import copy
import json
import os
import re
import warnings
import xml.etree.ElementTree as ET
from html.parser import HTMLParser
from pathlib import Path
from typing import Any

import pytest
from rdflib import RDF, Graph, Literal, Namespace, URIRef

from pytest_rspbench import __version__
from pytest_rspbench.cli import main
from pytest_rspbench.report.conformance import badge, earl
from pytest_rspbench.report.conformance.build import write
from pytest_rspbench.report.conformance.entries import ConformanceError, engines
from pytest_rspbench.report.conformance.page import render
from pytest_rspbench.report.conformance.summary import document, tally

EARL = Namespace("http://www.w3.org/ns/earl#")
DC = Namespace("http://purl.org/dc/terms/")
DOAP = Namespace("http://usefulinc.com/ns/doap#")
RSPBENCH = Namespace("https://pytest-rspbench.dev/ns#")

# Every class and property of the EARL 1.0 Schema (W3C Working Group Note,
# 2 February 2017, http://www.w3.org/ns/earl#), and its individuals.
EARL_CLASSES = {
    "Assertion",
    "Assertor",
    "TestSubject",
    "Software",
    "TestCriterion",
    "TestRequirement",
    "TestCase",
    "TestResult",
    "OutcomeValue",
    "Pass",
    "Fail",
    "CannotTell",
    "NotApplicable",
    "NotTested",
    "TestMode",
}
EARL_PROPERTIES = {
    "assertedBy",
    "subject",
    "test",
    "result",
    "mode",
    "mainAssertor",
    "outcome",
    "pointer",
    "info",
}
EARL_INDIVIDUALS = {
    "passed",
    "failed",
    "cantTell",
    "inapplicable",
    "untested",
    "automatic",
    "manual",
    "semiAuto",
    "undisclosed",
    "unknownMode",
}

DECLARED = {"bounds": "[o,c)", "t0": "registration", "r2s": ["RStream", "IStream"]}


def item(spec: str, params: dict[str, Any], engine: str, outcome: str, **extra: Any) -> dict:
    case = ",".join([*(f"{k}={v}" for k, v in params.items()), f"engine={engine}"])
    return {
        "id": f"{spec}[{case}]",
        "nodeid": f"specs/{spec}.rspbench.yaml::{spec}[{case}]",
        "spec": spec,
        "case": case,
        "params": params,
        "engine": engine,
        "spec_path": f"specs/{spec.split('-')[0]}/{spec}.rspbench.yaml",
        "outcome": outcome,
        "profile": {
            "name": engine,
            "description": f"the <{engine}> engine",
            "version": "2.1" if engine == "acme" else None,
            "homepage": "https://example.org/acme" if engine == "acme" else None,
            "declared": DECLARED,
            "pinned": extra.pop("pinned", {}),
        },
        **extra,
    }


def results(engine: str, items: list[dict]) -> dict:
    return {
        "format": 2,
        "tool": {"name": "pytest-rspbench", "version": __version__},
        "suite": {"name": "conformance", "version": "0.1", "specs": 5, "digest": "sha256:ab"},
        "created": "2026-01-31T12:00:00Z",
        "items": items,
    }


BOUNDS_FAIL = {
    "passed": False,
    "verdict": "strict: FAIL — window bounds x2 at [0,2), [2,4)",
    "departures": [
        {"name": "window-bounds", "title": "window bounds", "count": 2, "windows": [[0, 2]]}
    ],
    "windows": [
        {
            "index": 0,
            "window": [0, 2],
            "precision": 0.5,
            "recall": 1.0,
            "expected": 1,
            "actual": 2,
            "missing": [],
            "unexpected": [{"?x": "<http://example.org/a&b>"}],
        }
    ],
}


@pytest.fixture
def docs() -> list[tuple[str, dict]]:
    acme = [
        item("rspql-bounds", {"range": 2}, "acme", "passed", passed=True, verdict="strict: pass"),
        item("rspql-bounds", {"range": 5}, "acme", "failed", **copy.deepcopy(BOUNDS_FAIL)),
        item(
            "shapes-burst",
            {},
            "acme",
            "xfailed",
            known_failure="known departure of acme (missing-final-window): no end of stream",
            departures=[{"name": "missing-final-window"}],
            passed=False,
        ),
        item(
            "rspql-t0",
            {},
            "acme",
            "skipped",
            message="acme's profile cannot run this case: t0: the spec pins 'first-event'",
            pinned={"t0": "first-event"},
        ),
        item("csrbench-q1", {}, "acme", "error", oracle_error="Spark stopped: no memory"),
        item("lsbench-join", {}, "acme", "skipped", message="engine 'acme' needs node"),
    ]
    reference = [
        item("rspql-bounds", {"range": 2}, "reference", "passed", passed=True),
        item("rspql-bounds", {"range": 5}, "reference", "passed", passed=True),
        item("windows-rows", {}, "reference", "passed", passed=True),
    ]
    return [
        ("acme.json", results("acme", acme)),
        ("reference.json", results("reference", reference)),
    ]


def test_every_outcome_is_classified(docs):
    found = engines(docs)
    assert [r.engine for r in found] == ["acme", "reference"]
    outcomes = {case: e.outcome for case, e in found[0].entries.items()}
    assert outcomes == {
        "rspql-bounds[range=2]": "passed",
        "rspql-bounds[range=5]": "failed",
        "shapes-burst": "known",
        "rspql-t0": "inapplicable",
        "csrbench-q1": "cantTell",
        "lsbench-join": "untested",
        "windows-rows": "untested",  # only the reference run has it
    }
    assert found[1].entries["shapes-burst"].outcome == "untested"
    t = tally(found[0])
    assert (t.score, t.families["rspql"], t.departures) == (
        "1/4",
        (1, 2),
        {"missing-final-window": 1, "window-bounds": 1},
    )


XSD_DATETIME = URIRef("http://www.w3.org/2001/XMLSchema#dateTime")


def parse(text: str, form: str) -> Graph:
    """Parse with rdflib; its JSON-LD parser goes through its own deprecated
    ConjunctiveGraph (rdflib 7.x), a warning about rdflib, not this report."""
    with warnings.catch_warnings():
        warnings.filterwarnings("ignore", "ConjunctiveGraph is deprecated", DeprecationWarning)
        return Graph().parse(data=text, format=form)


def earl_terms(g: Graph) -> set[URIRef]:
    return {
        term
        for triple in g
        for term in triple
        if isinstance(term, URIRef) and str(term).startswith(str(EARL))
    }


@pytest.mark.parametrize("form", ["turtle", "json-ld"])
def test_earl_uses_only_earl_10_terms_and_one_outcome_per_assertion(docs, form):
    built = earl.graph(engines(docs))
    text = earl.turtle(built) if form == "turtle" else earl.jsonld(built)
    g = parse(text, form)
    known = EARL_CLASSES | EARL_PROPERTIES | EARL_INDIVIDUALS
    unknown = {t for t in earl_terms(g) if str(t).removeprefix(str(EARL)) not in known}
    assert unknown == set()
    for cls in g.objects(None, RDF.type):
        if str(cls).startswith(str(EARL)):
            assert str(cls).removeprefix(str(EARL)) in EARL_CLASSES
    for _, prop, _ in g:
        if str(prop).startswith(str(EARL)):
            assert str(prop).removeprefix(str(EARL)) in EARL_PROPERTIES
    assertions = list(g.subjects(RDF.type, EARL.Assertion))
    assert len(assertions) == 14  # 7 cases x 2 engines
    for a in assertions:
        for prop in (EARL.assertedBy, EARL.subject, EARL.test, EARL.mode, EARL.result):
            assert len(list(g.objects(a, prop))) == 1, (a, prop)
        (result,) = g.objects(a, EARL.result)
        assert (result, RDF.type, EARL.TestResult) in g
        assert len(list(g.objects(result, EARL.outcome))) == 1
        assert g.value(result, DC.date) == Literal("2026-01-31T12:00:00Z", datatype=XSD_DATETIME)
        assert g.value(g.value(a, EARL.test), DC.title) is not None


def outcome_of(g: Graph, engine: str, title: str) -> tuple[Any, Any]:
    """The result node and outcome of one engine's assertion on one case."""
    subject = next(
        s for s in g.subjects(DOAP.name, Literal(engine)) if (s, RDF.type, EARL.TestSubject) in g
    )
    (test,) = (t for t in g.subjects(DC.title, Literal(title)) if (t, RDF.type, EARL.TestCase) in g)
    for a in g.subjects(EARL.test, test):
        if g.value(a, EARL.subject) == subject:
            result = g.value(a, EARL.result)
            return result, g.value(result, EARL.outcome)
    raise AssertionError(f"no assertion of {engine} on {title}")


def test_earl_outcomes_known_failures_and_reasons(docs):
    g = parse(earl.turtle(earl.graph(engines(docs))), "turtle")
    expected = {
        "rspql-bounds[range=2]": EARL.passed,
        "rspql-bounds[range=5]": EARL.failed,
        "shapes-burst": EARL.failed,
        "rspql-t0": EARL.inapplicable,
        "csrbench-q1": EARL.cantTell,
        "lsbench-join": EARL.untested,
        "windows-rows": EARL.untested,
    }
    for title, outcome in expected.items():
        assert outcome_of(g, "acme", title)[1] == outcome, title
    known, _ = outcome_of(g, "acme", "shapes-burst")
    assert g.value(known, RSPBENCH.intendedDeviation) == Literal(True)
    assert set(g.objects(known, RSPBENCH.departure)) == {Literal("missing-final-window")}
    failed, _ = outcome_of(g, "acme", "rspql-bounds[range=5]")
    assert g.value(failed, RSPBENCH.intendedDeviation) is None
    assert set(g.objects(failed, RSPBENCH.departure)) == {Literal("window-bounds")}
    skipped, _ = outcome_of(g, "acme", "rspql-t0")
    assert "cannot run this case" in str(g.value(skipped, DC.description))
    pinned = g.value(skipped, RSPBENCH.pinnedProfile)
    assert g.value(pinned, RSPBENCH.t0) == Literal("first-event")


def test_earl_subject_and_tool_in_doap(docs):
    g = parse(earl.jsonld(earl.graph(engines(docs))), "json-ld")
    acme = URIRef(earl.BASE + "engine/acme")
    assert (acme, RDF.type, EARL.TestSubject) in g
    assert g.value(acme, DOAP.name) == Literal("acme")
    assert g.value(acme, DOAP.homepage) == URIRef("https://example.org/acme")
    assert g.value(g.value(acme, DOAP.release), DOAP.revision) == Literal("2.1")
    profile = g.value(acme, RSPBENCH.declaredProfile)
    assert g.value(profile, RSPBENCH.bounds) == Literal("[o,c)")
    assert set(g.objects(profile, RSPBENCH.r2s)) == {Literal("RStream"), Literal("IStream")}
    reference = URIRef(earl.BASE + "engine/reference")
    assert g.value(reference, DOAP.homepage) is None and g.value(reference, DOAP.release) is None
    (tool,) = set(g.objects(None, EARL.assertedBy))
    assert (tool, RDF.type, EARL.Software) in g and (tool, RDF.type, EARL.Assertor) in g
    assert g.value(g.value(tool, DOAP.release), DOAP.revision) == Literal(__version__)


def test_summary_and_badge(docs):
    summary = document(engines(docs))
    acme = summary["engines"][0]
    assert (acme["conformance"], acme["passed"], acme["applicable"]) == ("1/4", 1, 4)
    assert acme["families"]["rspql"] == {"title": "RSP-QL", "passed": 1, "applicable": 2}
    assert acme["failing"] == ["csrbench-q1", "rspql-bounds[range=5]"]
    assert acme["suite"]["name"] == "conformance" and acme["version"] == "2.1"
    svg = badge.svg(61, 70)
    root = ET.fromstring(svg)  # well-formed XML
    texts = [t.text for t in root.iter("{http://www.w3.org/2000/svg}text")]
    assert texts == ["RSP-QL conformance", "RSP-QL conformance", "61/70", "61/70"]
    assert 'fill="#dfb317"' in svg and 'aria-label="RSP-QL conformance: 61/70"' in svg


class Links(HTMLParser):
    def __init__(self) -> None:
        super().__init__()
        self.ids: set[str] = set()
        self.hrefs: list[str] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        a = dict(attrs)
        if a.get("id"):
            self.ids.add(str(a["id"]))
        if tag == "a" and str(a.get("href", "")).startswith("#"):
            self.hrefs.append(str(a["href"])[1:])


def test_page_groups_by_family_and_every_cell_links_to_details(docs):
    html = render(engines(docs))
    links = Links()
    links.feed(html)
    assert links.hrefs and set(links.hrefs) <= links.ids
    cells = [h for h in links.hrefs if h.startswith("c")]
    assert len(cells) == 14
    headings = re.findall(r'<h2 id="family-[^"]+">([^<]+)</h2>', html)
    assert headings == [
        "CSRBench",
        "LSBench",
        "RSP-QL",
        "stream shapes",
        "count and session windows",
    ]
    assert "&lt;http://example.org/a&amp;b&gt;" in html  # the unexpected binding, escaped
    assert "strict: FAIL — window bounds x2" in html
    assert "known departure of acme" in html


def test_one_case_twice_for_an_engine_is_refused(docs):
    with pytest.raises(ConformanceError, match=r"again\.json: case rspql-bounds\[range=2\] "):
        engines([*docs, ("again.json", docs[1][1])])


def test_cli_writes_the_report_and_gates(docs, tmp_path, capsys):
    paths = []
    for name, doc in docs:
        (tmp_path / name).write_text(json.dumps(doc))
        paths.append(str(tmp_path / name))
    out = tmp_path / "site"
    assert main(["report", "--conformance", *paths, "-o", str(out)]) == 0
    files = sorted(p.name for p in out.iterdir())
    assert files == [
        "badge-acme.svg",
        "badge-reference.svg",
        "badge.svg",
        "conformance.jsonld",
        "conformance.ttl",
        "index.html",
        "summary.json",
    ]
    said = capsys.readouterr().out
    assert "acme: conformance 1/4" in said and "reference: conformance 3/3" in said
    summary = json.loads((out / "summary.json").read_text())
    assert [e["conformance"] for e in summary["engines"]] == ["1/4", "3/3"]
    assert "1/4" in (out / "badge.svg").read_text()


def test_cli_usage_errors_say_what_to_do(tmp_path, capsys):
    assert main(["report", "--conformance", "-o", str(tmp_path)]) == 1
    assert "HINT: rspbench report --conformance" in capsys.readouterr().err
    assert main(["report", "a.json", "b.json"]) == 1
    assert "two with --compare" in capsys.readouterr().err
    assert main(["report", "--conformance", str(tmp_path / "missing.json")]) == 1
    err = capsys.readouterr().err
    assert "cannot read results file" in err and "Traceback" not in err


def test_write_returns_the_summary(docs, tmp_path):
    assert write(docs, tmp_path)["engines"][1]["engine"] == "reference"
    assert Path(tmp_path / "index.html").stat().st_size > 0


MAX_PNG = 400 * 1024


def test_page_reads_well_in_a_browser_and_screenshots(
    docs, tmp_path, chromium, screenshot, pytestconfig
):
    """The page in headless Chromium: no console error, every table and every
    cell's target there. With RSPBENCH_SCREENSHOTS=docs/images it writes
    conformance.png there, of the report in RSPBENCH_CONFORMANCE_SITE (a
    folder written by rspbench report --conformance) when that is set."""
    site = os.environ.get("RSPBENCH_CONFORMANCE_SITE")
    if site:
        page = pytestconfig.invocation_params.dir / site / "index.html"
    else:
        write(docs, tmp_path / "site")
        page = tmp_path / "site" / "index.html"
    dom, console = chromium(page)
    assert console == []
    links = Links()
    links.feed(dom)
    assert set(links.hrefs) <= links.ids
    for table in ("rspbench-conformance-summary", "rspbench-families", "rspbench-conformance"):
        assert f'class="{table}"' in dom
    wanted = os.environ.get("RSPBENCH_SCREENSHOTS")
    where = pytestconfig.invocation_params.dir / wanted if wanted else tmp_path
    where.mkdir(parents=True, exist_ok=True)
    png = screenshot(page.as_uri(), where / "conformance.png", width=1200, height=1300)
    assert png.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    assert png.stat().st_size < MAX_PNG, f"{png} is {png.stat().st_size} bytes"


def test_matrix_writes_the_report_of_its_runs(docs, tmp_path, capsys):
    from pytest_rspbench.report import matrix

    for number, (_, doc) in enumerate(docs):
        engine = doc["items"][0]["engine"]
        (tmp_path / f"{number:02d}-{engine}.json").write_text(json.dumps(doc))
    matrix.conformance(tmp_path, ["acme", "reference"], tmp_path / "site")
    assert "(acme 1/4, reference 3/3)" in capsys.readouterr().err
    assert (tmp_path / "site" / "conformance.ttl").is_file()


def test_compare_by_outcome_names_departures_gained_and_lost(docs):
    from pytest_rspbench.report.conformance.compare import compare, lines

    before = docs[0][1]
    after = copy.deepcopy(before)
    fixed, worse = after["items"][1], after["items"][0]
    fixed.update(outcome="passed", passed=True, departures=[], verdict="strict: pass")
    worse.update(copy.deepcopy(BOUNDS_FAIL), outcome="failed")
    after["items"][2]["departures"].append({"name": "out-of-order"})  # still known
    after["tool"]["version"] = "9.9"
    found = compare(before, after)
    text = "\n".join(lines(found, "a.json", "b.json"))
    assert found.compared == 6 and len(found.changes) == 3
    assert [c.key for c in found.worse] == [
        "rspql-bounds[range=2,engine=acme]",
        "shapes-burst[engine=acme]",
    ]
    assert "pytest-rspbench: " in text and "-> '9.9'" in text
    assert (
        "rspql-bounds[range=5,engine=acme]: failed -> passed; departures lost: window-bounds"
        in text
    )
    assert "shapes-burst[engine=acme]: known -> known; departures gained: out-of-order" in text
