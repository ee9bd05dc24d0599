"""Shrinking through pytest: faulty engines' failures come down to a few
events, and the written spec reproduces each on its own."""

from __future__ import annotations

import json

import pytest

pytestmark = [pytest.mark.spark, pytest.mark.slow, pytest.mark.usefixtures("spark")]

EX = "http://example.org/rspql/"
# RSP-QL Example 7's stream (Box 3); 5, 7 and 12 sit on borders of its windows.
NEARBY = "\n".join(
    f'<{EX}{who}> <{EX}isNearby> <{EX}{shop}> "{t}" .'
    for who, shop, t in [
        ("diana", "a", 2),
        ("eve", "b", 2),
        ("carl", "a", 5),
        ("eve", "a", 7),
        ("diana", "b", 12),
    ]
)
SPEC = f"""\
rspbench: 1
name: example7
streams:
  - iri: {EX}nearby
    end: 16
    source: {{kind: lines, path: nearby.n3t, format: n3t}}
query: |
  PREFIX : <{EX}>
  REGISTER RStream :out AS
  SELECT ?shopper ?shop
  FROM NAMED WINDOW :w1 ON STREAM :nearby [RANGE 5 STEP 2]
  WHERE {{ WINDOW :w1 {{ ?shopper :isNearby ?shop }} }}
engines: [ENGINES]
semantics:
  bounds: "(o,c]"
  t0: 1
"""


def test_window_logic_faults_shrink_to_a_few_events_that_reproduce(pytester):
    pytester.makefile(".n3t", nearby=NEARBY)
    engines = "faulty-wrong-bounds, faulty-misses-last"
    pytester.makefile(".rspbench.yaml", example7=SPEC.replace("ENGINES", engines))
    result = pytester.runpytest(
        "--rspbench-shrink=300", "--rspbench-artifacts=art", "--rspbench-json=results.json"
    )
    result.assert_outcomes(failed=2)
    result.stdout.fnmatch_lines_random(
        [
            "minimal counterexample: * of 4 events, * of 5 triples, shows window bounds x*",
            "minimal counterexample: * of 4 events, * of 5 triples, shows missing final window x1*",
            "*(end of input)",
            "  run: pytest */counterexample.rspbench.yaml --rspbench-engine faulty-wrong-bounds",
        ]
    )
    items = json.loads((pytester.path / "results.json").read_text())["items"]
    for item in items:
        found = item["counterexample"]
        assert found["target"] == item["departures"][0]["name"]
        assert found["status"] == "minimal"
        assert 1 <= found["events"] <= 2, found
        again = pytester.runpytest(
            found["spec"], "--rspbench-engine", item["engine"], "--rspbench-json=again.json"
        )
        again.assert_outcomes(failed=1)
        (record,) = json.loads((pytester.path / "again.json").read_text())["items"]
        assert found["target"] in [d["name"] for d in record["departures"]]
        assert found["shows"] in record["verdict"]


def test_known_failure_is_not_shrunk(pytester):
    pytester.makefile(".n3t", nearby=NEARBY)
    known = (
        "known_failures:\n  - engine: faulty-misses-last\n    reason: no flush\n"
        "    departures: [missing-final-window]\n"
    )
    pytester.makefile(
        ".rspbench.yaml", example7=SPEC.replace("ENGINES", "faulty-misses-last") + known
    )
    result = pytester.runpytest("--rspbench-shrink=300", "--rspbench-json=results.json")
    result.assert_outcomes(xfailed=1)
    (record,) = json.loads((pytester.path / "results.json").read_text())["items"]
    assert "counterexample" not in record
