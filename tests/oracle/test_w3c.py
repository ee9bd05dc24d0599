"""The W3C SPARQL 1.0/1.1 query evaluation tests through the compiled plan.

Each test's default graph becomes one window (all triples at time 0); the
query runs unchanged through :func:`compile_select` with the default graph
read as the window, and its bag of solutions is compared with the expected
results (blank nodes up to renaming via a placeholder, numbers by value).
Each runs with the settings the oracle gives an input this small
(:func:`~pytest_rspbench.oracle.spark.sizing.sized`: one partition,
expressions interpreted); test_numerics.py and test_typed.py run the same
compiler under Spark's code generation, as a large stream does.
The cases the compiled plan passes today are pinned in ``w3c_pinned.txt``
(how to regenerate it is written at its top): a pinned case that no longer
passes fails, whatever the reason, so the compiler cannot start refusing a
construct unnoticed. A case outside the list xfails with its reason (a
construct the compiler does not support, the known differences listed in
``KNOWN``), and fails if it passes: then it belongs in the list.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any, NoReturn

import pytest
import w3c
from single_window import ask, evaluate

pytestmark = [pytest.mark.spark, pytest.mark.slow]

CASES = w3c.cases()
PINNED_FILE = Path(__file__).with_name("w3c_pinned.txt")
PINNED = w3c.pinned(PINNED_FILE)
# Set while regenerating the list: every case runs as if nothing were pinned.
REPIN = bool(os.environ.get("RSPBENCH_W3C_REPIN"))

# Cases the compiled plan gets "wrong" for a reason outside its remit, with that reason.
_LANG_CONCAT = (
    "GROUP_CONCAT keeps the language tag its values share ('1 2'@en), as pyoxigraph "
    "(the reference engine's evaluator) and SPARQL 1.2 do; this SPARQL 1.1 test wants "
    "a simple literal"
)
KNOWN: dict[str, str] = {
    "sparql11/aggregates/agg-groupconcat-04": _LANG_CONCAT,
    "sparql11/aggregates/agg-groupconcat-06": _LANG_CONCAT,
}


def test_the_pinned_cases_exist() -> None:
    assert PINNED <= {c.id for c in CASES}, PINNED - {c.id for c in CASES}


@pytest.mark.parametrize("case", CASES, ids=[c.id for c in CASES])
def test_w3c_query_evaluation(spark: Any, case: w3c.Case) -> None:
    if case.approval in ("Withdrawn", "Rejected"):
        pytest.skip(f"the W3C marked this test {case.approval}")
    _check(spark, case)
    if case.id not in PINNED and not REPIN:
        pytest.fail(
            f"{case.id} passes but is not in {PINNED_FILE.name}.\n"
            "HINT: add it (regenerate the list as its first lines say).",
            pytrace=False,
        )


def _check(spark: Any, case: w3c.Case) -> None:
    """Pass, fail, or call :func:`_not_passing` with the reason it cannot run."""
    from pytest_rspbench.errors import UnsupportedQueryError
    from pytest_rspbench.oracle.spark.sizing import sized

    if case.graph_data:
        _not_passing(case, "named graphs (qt:graphData): only windows are named graphs in RSP-QL")
    if case.result is None:
        _not_passing(case, "the test has no expected result file")
    try:
        expected = w3c.read_result(case.result)
    except w3c.NotAResultSet:
        _not_passing(case, "the expected result is a graph: only SELECT queries are compiled")
    if case.id in KNOWN:
        _not_passing(case, KNOWN[case.id])
    query = case.query.read_text(encoding="utf-8")
    data = w3c.read_data(case.data)
    base = case.query.as_uri()
    refused = ""
    try:
        # With the settings the oracle gives any input this small (sized()):
        # the numeric and typed tests keep Spark's defaults, code generation.
        with sized(spark, len(data)):
            if isinstance(expected, bool):
                # The oracle compiles SELECT; ASK tests check the pattern's plan.
                assert ask(spark, query, data, base) == expected
                return
            _, rows = evaluate(spark, query, data, base=base)
    except UnsupportedQueryError as exc:
        refused = f"unsupported: {exc}"
    if refused:
        _not_passing(case, refused)
    _, expected_bag = expected
    got = w3c.comparable(w3c.bag_of(rows))
    want = w3c.comparable(expected_bag)
    if case.lax:  # REDUCED may drop any number of duplicates
        assert set(got) == set(want), _diff(got, want)
    else:
        assert got == want, _diff(got, want)


def _not_passing(case: w3c.Case, reason: str) -> NoReturn:
    """xfail with ``reason``; a pinned case fails instead."""
    if case.id in PINNED and not REPIN:
        pytest.fail(
            f"{case.id} is pinned in {PINNED_FILE.name} but no longer passes: {reason}",
            pytrace=False,
        )
    pytest.xfail(reason)


def _diff(got: Any, want: Any) -> str:
    missing = want - got
    extra = got - want
    return f"missing {dict(missing)}\nunexpected {dict(extra)}"
