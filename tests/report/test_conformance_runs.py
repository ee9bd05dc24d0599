"""The conformance report end to end: what every results file records, and two
runs of one engine whose declared profile changed, compared by outcome.

The engine runs ``[o,c)`` windows whatever its profile declares; the stream
has an event on every window border, so declaring ``(o,c]`` makes its output
wrong (window bounds), and a case that pins ``[o,c)`` no longer applies.
"""

from __future__ import annotations

import json
from itertools import takewhile

import pytest

from pytest_rspbench import __version__
from pytest_rspbench.cli import main
from pytest_rspbench.engine.profiles import load_profile

from helpers.project import STREAM, profile_yaml

SPEC = """\
rspbench: 1
name: fixed
streams:
  - iri: http://example.org/s
    source: {kind: lines, path: stream.nt, format: ntriples-ts}
query: |
  PREFIX : <http://example.org/>
  REGISTER RStream :out AS
  SELECT ?obs ?v
  FROM NAMED WINDOW :w ON STREAM :s [RANGE 4000 STEP ${step}]
  WHERE { WINDOW :w { ?obs :value ?v . FILTER(?v > 80) } }
matrix: {step: [2000, 4000]}
engines: [fixed.yaml]
comparison: {mode: strict}
"""
PINNED = SPEC.replace("name: fixed", "name: pinned").replace(
    "matrix: {step: [2000, 4000]}", 'matrix: {step: [4000]}\nsemantics: {bounds: "[o,c)"}'
)
ENGINE = '''
from dataclasses import replace

from rspbench_engines.reference.engine import ReferenceEngine


class Fixed(ReferenceEngine):
    """The reference engine, always with [o,c) windows."""

    name = "fixed"

    def open(self, registration, emit):
        fixed = replace(registration.semantics, bounds="[o,c)")
        super().open(replace(registration, semantics=fixed), emit)
'''


def profile(bounds: str) -> str:
    text = profile_yaml("fixed", "python: fixed_engine:Fixed", description="fixed bounds")
    text = text.replace('bounds: "[o,c)"', f'bounds: "{bounds}"')
    return "version: '1.0'\nhomepage: https://example.org/fixed\n" + text


@pytest.mark.spark
@pytest.mark.usefixtures("spark")
def test_results_record_assumptions_and_a_profile_change_is_compared(pytester, capsys):
    pytester.syspathinsert()
    pytester.makefile(".nt", stream=STREAM)
    pytester.makepyfile(fixed_engine=ENGINE)
    (pytester.path / "fixed.rspbench.yaml").write_text(SPEC)
    (pytester.path / "pinned.rspbench.yaml").write_text(PINNED)
    for run, bounds in (("a", "[o,c)"), ("b", "(o,c]")):
        (pytester.path / "fixed.yaml").write_text(profile(bounds))
        load_profile.cache_clear()  # each in-process run reads the profile anew
        pytester.runpytest("--rspbench-json", f"{run}.json")
    a, b = (json.loads((pytester.path / f"{r}.json").read_text()) for r in "ab")
    for doc in (a, b):
        assert doc["tool"]["version"] == __version__
        assert set(doc["suite"]) == {"name", "version", "specs", "digest"}
        assert doc["suite"]["specs"] == 2 and doc["suite"]["digest"].startswith("sha256:")
        assert len(doc["items"]) == 3
        for record in doc["items"]:
            assert set(record["profile"]) >= {"name", "version", "homepage", "declared", "pinned"}
            assert record["profile"]["version"] == "1.0"
    assert [i["outcome"] for i in a["items"]] == ["passed", "passed", "passed"]
    assert b["items"][0]["profile"]["declared"]["bounds"] == "(o,c]"
    pinned = next(i for i in b["items"] if i["spec"] == "pinned")
    assert (pinned["outcome"], pinned["profile"]["pinned"]) == ("skipped", {"bounds": "[o,c)"})

    capsys.readouterr()
    a_path, b_path = str(pytester.path / "a.json"), str(pytester.path / "b.json")
    assert main(["report", "--compare", a_path, b_path]) == 1
    said = capsys.readouterr().out
    assert "fixed's declared bounds: '[o,c)' -> '(o,c]'" in said
    worse = said.split("worse:\n", 1)[1].splitlines()
    changed = list(takewhile(lambda line: line.startswith("  "), worse))
    assert any(
        "fixed[step=" in line and "passed -> failed; departures gained: window-bounds" in line
        for line in changed
    ), said
    assert any("pinned[step=4000,engine=fixed]: passed -> inapplicable" in line for line in changed)
    assert main(["report", "--compare", a_path, a_path]) == 0

    site = pytester.path / "site"
    assert main(["report", "--conformance", b_path, "-o", str(site)]) == 0
    summary = json.loads((site / "summary.json").read_text())
    (engine,) = summary["engines"]
    assert engine["outcomes"]["inapplicable"] == 1 and engine["applicable"] == 2
    assert main(["report", "--conformance", a_path, b_path, "-o", str(site)]) == 1
    assert "is also in" in capsys.readouterr().err
