"""Specs run through pytest catch every faulty engine; the reference passes them."""

from __future__ import annotations

import pytest

pytestmark = [pytest.mark.spark, pytest.mark.slow, pytest.mark.usefixtures("spark")]

INT = "http://www.w3.org/2001/XMLSchema#integer"
EX = "http://example.org/"

# One burst of 900 readings at t=0 (3 s of work at the faulty engines' 300
# triples/s), then one reading per second; no value passes the FILTER, so
# every window's average is the empty average 0.
BURST = "\n".join(
    [f'<{EX}b{n}> <{EX}value> "{n % 50}"^^<{INT}> "0" .' for n in range(900)]
    + [f'<{EX}o{t}> <{EX}value> "{t}"^^<{INT}> "{t * 1000}" .' for t in range(1, 12)]
)

AVG_SPEC = """\
rspbench: 1
name: burst
streams:
  - iri: http://example.org/s
    source: {kind: lines, path: burst.nt, format: ntriples-ts}
query: |
  PREFIX : <http://example.org/>
  REGISTER RStream :out AS
  SELECT (AVG(?v) AS ?avg)
  FROM NAMED WINDOW :w ON STREAM :s [RANGE 2000 STEP 2000]
  WHERE { WINDOW :w { ?obs :value ?v . FILTER(?v > 1000) } }
engines: [reference, faulty-null-avg, faulty-delayed-windows, faulty-drops-under-load]
"""


def test_tiny_spec_catches_the_load_free_bugs(spec_project, pytester):
    spec_project(
        engines="reference, faulty-no-purge, faulty-wrong-bounds, faulty-misses-last, "
        "faulty-duplicates"
    )
    result = pytester.runpytest("-v")
    result.stdout.fnmatch_lines_random(
        [
            "*engine=reference? PASSED*",
            "*engine=faulty-no-purge? FAILED*",
            "*engine=faulty-wrong-bounds? FAILED*",
            "*engine=faulty-misses-last? FAILED*",
            "*engine=faulty-duplicates? FAILED*",
        ]
    )
    result.assert_outcomes(passed=1, failed=4)


def test_burst_spec_catches_null_avg_and_the_load_bugs(pytester):
    pytester.makefile(".nt", burst=BURST)
    pytester.makefile(".rspbench.yaml", burst=AVG_SPEC)
    result = pytester.runpytest("-v")
    result.stdout.fnmatch_lines_random(
        [
            "*engine=reference? PASSED*",
            "*engine=faulty-null-avg? FAILED*",
            "*engine=faulty-delayed-windows? FAILED*",
            "*engine=faulty-drops-under-load? FAILED*",
        ]
    )
    result.assert_outcomes(passed=1, failed=3)
