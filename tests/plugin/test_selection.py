"""Which cases an engine runs: profile selection, known failures, suites."""

from __future__ import annotations

import json

import pytest

PINNED = """
semantics:
  bounds: "(o,c]"
"""


def test_pinned_semantics_skip_a_fixed_engine_with_the_reason(project, pytester):
    # drops-one's profile has "[o,c)" and is not configurable.
    project(engines="drops-one.yaml", extra=PINNED)
    result = pytester.runpytest("-rs")
    result.assert_outcomes(skipped=2)
    result.stdout.fnmatch_lines(
        [
            "*drops-one's profile cannot run this case: bounds: the spec pins '(o,c]', "
            "drops-one has '[o,c)'*",
        ]
    )


def test_query_r2s_the_engine_lacks_is_skipped(project, pytester):
    project(engines="drops-one.yaml")
    spec = pytester.path / "tiny.rspbench.yaml"
    spec.write_text(spec.read_text().replace("REGISTER RStream", "REGISTER IStream"))
    result = pytester.runpytest("-rs")
    result.assert_outcomes(skipped=2)
    result.stdout.fnmatch_lines(
        [
            "*r2s: the query registers IStream, drops-one supports RStream*",
        ]
    )


def test_query_window_kind_the_engine_lacks_is_skipped(project, pytester):
    # drops-one's profile has no windows: key, so it runs time windows only.
    project(engines="drops-one.yaml")
    spec = pytester.path / "tiny.rspbench.yaml"
    spec.write_text(spec.read_text().replace("[RANGE ${range} STEP ${step}]", "[ROWS 3]"))
    result = pytester.runpytest("-rs")
    result.assert_outcomes(skipped=2)
    result.stdout.fnmatch_lines(
        [
            "*drops-one's profile cannot run this case: windows: the query uses rows windows, "
            "drops-one supports ?time?*"
        ]
    )


def test_configurable_engine_runs_pinned_cases(project, pytester):
    # The reference engine declares configurable: true.
    project(engines="reference", extra=PINNED)
    result = pytester.runpytest("--collect-only", "-q")
    result.stdout.fnmatch_lines(["*tiny?range=4000,step=2000,engine=reference?"])
    assert "skip" not in result.stdout.str().lower()


@pytest.mark.spark
@pytest.mark.usefixtures("spark")
def test_known_failure_is_a_strict_xfail(project, pytester):
    known = """
known_failures:
  - engine: drops-*
    reason: loses the first binding of every relation
    params: {step: 2000}
"""
    project(engines="drops-one.yaml", extra=known)
    # Without departures: a warning at collection (shown here, not an error).
    shown = ("-W", "default::pytest.PytestWarning")
    result = pytester.runpytest("-rxX", "--rspbench-json", "results.json", *shown)
    # step=2000 is the known failure; step=4000 fails for real.
    result.assert_outcomes(xfailed=1, failed=1)
    result.stdout.fnmatch_lines(
        [
            "*XFAIL*step=2000*known departure of drops-one: loses the first binding*",
        ]
    )
    items = json.loads((pytester.path / "results.json").read_text())["items"]
    outcomes = {i["params"]["step"]: (i["outcome"], i.get("known_failure")) for i in items}
    assert outcomes == {
        2000: (
            "xfailed",
            "known departure of drops-one: loses the first binding of every relation",
        ),
        4000: ("failed", None),
    }


@pytest.mark.spark
@pytest.mark.usefixtures("spark")
def test_known_failure_that_passes_turns_red(project, pytester):
    """pytest fails a known failure that passed (XPASS(strict)); so does every
    report: the summary table, the results file, JUnit, the matrix cell."""
    from pytest_rspbench.report.matrix import cell_of

    known = """
known_failures:
  - engine: reference
    reason: was fixed long ago
    departures: [lost-window]
"""
    project(engines="reference", extra=known)
    result = pytester.runpytest("--rspbench-json", "results.json", "--junitxml", "junit.xml")
    result.assert_outcomes(failed=2)
    result.stdout.fnmatch_lines(["*XPASS(strict)*was fixed long ago*"])
    result.stdout.fnmatch_lines(["*rspbench summary*", "verdict*", "-*", "FAIL *tiny*"])
    assert "pass " not in result.stdout.str().split("rspbench summary")[1]
    items = json.loads((pytester.path / "results.json").read_text())["items"]
    assert [(i["outcome"], i["passed"], cell_of(i)) for i in items] == [
        ("failed", True, "FAIL")
    ] * 2
    assert all("was fixed long ago" in i["xpass_strict"] for i in items)
    junit = (pytester.path / "junit.xml").read_text()
    assert junit.count('name="rspbench.passed" value="False"') == 2


@pytest.mark.spark
@pytest.mark.usefixtures("spark")
def test_an_intermittent_known_failure_that_passes_is_xpass_not_a_failure(project, pytester):
    """A race inside the engine (rsp-js's out-of-order relations) shows on some
    runs only: a run without it is XPASS, green, and a pass in every report."""
    from pytest_rspbench.report.matrix import cell_of

    known = """
known_failures:
  - engine: reference
    reason: relations out of order on some runs
    departures: [out-of-order]
    intermittent: true
"""
    project(engines="reference", extra=known)
    result = pytester.runpytest("-rX", "--rspbench-json", "results.json")
    result.assert_outcomes(xpassed=2)
    result.stdout.fnmatch_lines(["*XPASS*out-of-order*on some runs*"])
    assert result.ret == 0
    items = json.loads((pytester.path / "results.json").read_text())["items"]
    assert [cell_of(i) for i in items] == ["pass", "pass"]


@pytest.mark.spark
@pytest.mark.usefixtures("spark")
def test_an_intermittent_known_failure_still_fails_on_another_departure(project, pytester):
    known = """
known_failures:
  - engine: drops-one
    reason: relations out of order on some runs
    departures: [out-of-order]
    intermittent: true
"""
    project(engines="drops-one.yaml", extra=known)
    result = pytester.runpytest()
    result.assert_outcomes(failed=2)


def test_a_known_failure_without_departures_warns_at_collection(project, pytester):
    """Once per spec, at its line, with how to fix it."""
    known = """
known_failures:
  - engine: reference
    reason: any failure
"""
    project(engines="reference", extra=known)
    # Shown as a warning (the suite's own filterwarnings would make it an error).
    shown = ("-W", "default::pytest.PytestWarning")
    result = pytester.runpytest("--collect-only", "-q", *shown)
    result.stdout.fnmatch_lines(
        [
            "*tiny.rspbench.yaml:*: warning: known_failures[[]0[]] (reference) names no "
            "departures: any failure of its items is expected*",
            "*HINT: add 'departures: [[]...[]]'*",
        ]
    )
    assert result.stdout.str().count("names no departures") == 1
    project(
        engines="reference", extra=known.replace("any failure", "x\n    departures: [lost-window]")
    )
    quiet = pytester.runpytest("--collect-only", "-q", *shown)
    assert "names no departures" not in quiet.stdout.str()


@pytest.mark.spark
@pytest.mark.usefixtures("spark")
def test_a_known_departure_plus_a_new_one_fails_the_item(project, pytester):
    """known_failures by departure: what drops-one gets wrong at step 2000
    is declared; at step 4000 the entry names another class, so what it
    shows there is new and fails the item, named in its first line."""
    known = """
known_failures:
  - engine: drops-*
    reason: loses the first binding of every relation
    departures: [wrong-solutions, window-bounds]
    params: {step: 2000}
  - engine: drops-*
    reason: only its last window, so far
    departures: [missing-final-window]
    params: {step: 4000}
"""
    project(engines="drops-one.yaml", extra=known)
    result = pytester.runpytest("-rxXf", "-vv", "--junitxml", "junit.xml")
    result.assert_outcomes(xfailed=1, failed=1)
    result.stdout.fnmatch_lines(
        [
            "*XFAIL*step=2000*known departure of drops-one (*wrong-solutions*): loses*",
            "FAILED *step=4000* - strict: FAIL — new departure: wrong solutions x* "
            "(known_failures for drops-* names missing-final-window)",
        ]
    )
    junit = (pytester.path / "junit.xml").read_text()
    assert 'message="strict: FAIL — new departure: wrong solutions' in junit
    assert 'name="rspbench.departures" value="wrong-solutions"' in junit


@pytest.mark.spark
@pytest.mark.usefixtures("spark")
def test_the_failure_line_starts_with_the_verdict(project, pytester):
    project(engines="drops-one.yaml,crashes.yaml")
    result = pytester.runpytest("-rf", "-vv")  # -vv: whole lines
    result.assert_outcomes(failed=4)
    result.stdout.fnmatch_lines(
        [
            "FAILED *tiny?range=4000,step=2000,engine=drops-one? - strict: FAIL — * x*",
            "FAILED *tiny?range=4000,step=2000,engine=crashes? - strict: FAIL — engine error: *",
        ],
        consecutive=False,
    )


def test_known_failure_with_an_unknown_parameter_is_a_spec_error(project, pytester):
    known = """
known_failures:
  - engine: reference
    reason: x
    params: {stpe: 2000}
"""
    project(engines="reference", extra=known)
    result = pytester.runpytest()
    result.assert_outcomes(errors=1)
    result.stdout.fnmatch_lines(
        [
            "*tiny.rspbench.yaml:*: $.known_failures[[]0[]].params.stpe: 'stpe' is not a matrix "
            "parameter.*",
            "*Did you mean 'step'?*",
        ]
    )
    assert "Traceback" not in result.stdout.str()


def test_suite_collects_the_bundled_specs_from_anywhere(pytester):
    result = pytester.runpytest("--rspbench-suite", "conformance/rspql", "--collect-only", "-q")
    result.stdout.fnmatch_lines(
        [
            "*example7-sliding-window.rspbench.yaml::rspql-example7?engine=reference?",
        ]
    )
    assert "error" not in result.stdout.str().lower()


def test_suite_part_that_does_not_exist_is_a_usage_error(pytester):
    result = pytester.runpytest("--rspbench-suite", "conformance/nope")
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    result.stderr.fnmatch_lines(
        [
            "*--rspbench-suite conformance/nope: 'nope' is not part of the suite (its parts: "
            "*csrbench*rspql*",
        ]
    )


def test_unknown_suite_is_a_usage_error(pytester):
    result = pytester.runpytest("--rspbench-suite", "conformence")
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    result.stderr.fnmatch_lines(["*no suite named 'conformence' (available: conformance)*"])


def test_an_engine_tolerating_at_least_the_pinned_lateness_runs_the_case():
    from dataclasses import replace
    from pathlib import Path

    from pytest_rspbench.engine.profiles import resolve

    rspjs = resolve("rspjs", Path.cwd())  # lateness 0, not configurable
    assert rspjs.departures({"lateness": 2000}) == ["lateness: the spec pins 2000, rspjs has 0"]
    patient = replace(rspjs, semantics=replace(rspjs.semantics, lateness=5000))
    assert patient.departures({"lateness": 2000}) == []
    assert resolve("reference", Path.cwd()).departures({"lateness": 2000}) == []


def test_the_suite_option_collects_the_suite_alone_the_ini_key_adds_testpaths(
    pytester: pytest.Pytester,
) -> None:
    """`pytest --rspbench-suite X` in a project whose testpaths hold its own
    tests runs the suite only; the ini key adds the suite to those tests."""
    pytester.makepyfile(test_own="def test_own():\n    pass\n")
    pytester.makeini("[pytest]\ntestpaths = test_own.py\n")
    option = pytester.runpytest("--rspbench-suite", "conformance/rspql", "--collect-only", "-q")
    listed = option.stdout.str()
    assert "rspql" in listed and "test_own" not in listed
    pytester.makeini("[pytest]\ntestpaths = test_own.py\nrspbench_suite = conformance/rspql\n")
    ini = pytester.runpytest("--collect-only", "-q").stdout.str()
    assert "rspql" in ini and "test_own.py::test_own" in ini
