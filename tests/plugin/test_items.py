"""End to end through pytest: specs become items that pass or fail."""

from __future__ import annotations

import json

import pytest

from helpers import dense_stream

pytestmark = [pytest.mark.spark, pytest.mark.usefixtures("spark")]


def test_reference_engine_passes(project, pytester):
    project()
    result = pytester.runpytest("-v")
    result.stdout.fnmatch_lines(
        [
            "*tiny.rspbench.yaml::tiny?range=4000,step=2000,engine=reference? PASSED*",
            "*tiny.rspbench.yaml::tiny?range=4000,step=4000,engine=reference? PASSED*",
        ]
    )
    result.assert_outcomes(passed=2)


def test_wrong_results_fail_with_window_table(project, pytester):
    project(engines="drops-one.yaml")
    result = pytester.runpytest()
    result.assert_outcomes(failed=2)
    result.stdout.fnmatch_lines(
        [
            "*strict verdict: no t0 class reproduces the engine's output*",
            "*window*expected*actual*precision*recall*",
            "*[[]0,4000)*2*1*1.000*0.500*",
            "*missing: {?obs=<http://example.org/obs1>, ?v=*85*}",
        ]
    )
    assert "Traceback" not in result.stdout.str()


def test_engine_crash_is_an_item_failure_and_others_run(project, pytester):
    project(engines="crashes.yaml, reference")
    result = pytester.runpytest()
    result.assert_outcomes(passed=2, failed=2)
    result.stdout.fnmatch_lines(
        [
            "*strict: FAIL — engine error: engine 'crashes' failed in push(): "
            "RuntimeError: segfault simulated at t=3000*",
        ]
    )


def test_engine_option_overrides_spec_engines(project, pytester):
    project(engines="reference")
    result = pytester.runpytest("--collect-only", "-q", "--rspbench-engine", "drops-one.yaml")
    result.stdout.fnmatch_lines(["*tiny?range=4000,step=2000,engine=drops-one?"])


@pytest.mark.parametrize(
    "given",
    [
        ("--rspbench-engine", "drops-one.yaml", "--rspbench-engine", "reference"),
        ("--rspbench-engine", "drops-one.yaml,reference"),
        ("--rspbench-engine", "drops-one.yaml", "--rspbench-engine", "reference,drops-one.yaml"),
    ],
)
def test_every_engine_given_is_run_once_whether_repeated_or_comma_separated(
    project, pytester, given
):
    project(engines="reference")
    result = pytester.runpytest("--collect-only", "-q", *given)
    result.stdout.fnmatch_lines(
        [
            "*tiny?range=4000,step=2000,engine=drops-one?",
            "*tiny?range=4000,step=2000,engine=reference?",
            "*4 tests collected*",
        ]
    )


def test_engine_option_path_is_relative_to_where_pytest_runs(project, pytester):
    """``--rspbench-engine x.yaml`` names a file from the current folder, not
    from each spec's folder."""
    project(engines="reference")
    folder = pytester.mkdir("engines")
    (pytester.path / "drops-one.yaml").rename(folder / "drops-one.yaml")
    result = pytester.runpytest(
        "--collect-only",
        "-q",
        "--rspbench-engine",
        "engines/drops-one.yaml",
        "-p",
        "no:cacheprovider",
    )
    result.stdout.fnmatch_lines(["*tiny?range=4000,step=2000,engine=drops-one?"])


def test_artifacts_keep_stream_output_and_metrics(project, pytester):
    project()
    result = pytester.runpytest("--rspbench-artifacts", "art")
    result.assert_outcomes(passed=2)
    folders = sorted((pytester.path / "art").iterdir())
    assert len(folders) == 2
    files = sorted(p.name for p in folders[0].iterdir())
    assert files == ["metrics.json", "results.jsonl", "samples.jsonl", "stream.jsonl"]
    metrics = json.loads((folders[0] / "metrics.json").read_text())
    assert metrics["passed"] is True
    assert metrics["evaluator"] == "spark-dataframe"
    lines = (folders[0] / "stream.jsonl").read_text().splitlines()
    assert len(lines) == 12


def test_junit_xml_carries_metrics(project, pytester):
    project()
    pytester.runpytest("--junitxml", "junit.xml")
    xml = (pytester.path / "junit.xml").read_text()
    assert 'name="rspbench.recall.mean" value="1.0"' in xml
    assert 'name="rspbench.matched_t0" value="0"' in xml


def test_html_report_has_window_table(project, pytester):
    project()
    result = pytester.runpytest("--html", "report.html", "--self-contained-html")
    result.assert_outcomes(passed=2)
    html = (pytester.path / "report.html").read_text()
    assert "Verdict" in html
    assert "[0,4000)" in html or "[0,4000)".replace("[", "&#x5B;") in html or "0,4000" in html


def test_html_report_of_several_engines_has_their_matrix(project, pytester):
    project(engines="reference, drops-one.yaml")
    spec = pytester.path / "tiny.rspbench.yaml"
    spec.write_text(spec.read_text().replace("step: [2000, 4000]", "step: [2000]"))
    result = pytester.runpytest("--html", "report.html", "--self-contained-html")
    result.assert_outcomes(passed=1, failed=1)
    html = (pytester.path / "report.html").read_text()
    assert "<th>reference</th><th>drops-one</th>" in html
    assert (
        '<td>tiny[range=4000,step=2000]</td><td class="pass">supported</td>'
        '<td class="FAIL">wrong</td>'
    ) in html


DROPS_ANY = """\
name: drops-any
adapter: {python: "faulty_engines:DropsOne"}
semantics: {bounds: "[o,c)", t0: any, report: [window-close, non-empty-content],
            r2s: [RStream], empty_relations: false, reports_window: true}
"""


@pytest.mark.parametrize(
    ("engine", "outcome"), [("reference", "passed"), ("drops-any.yaml", "failed")]
)
def test_many_t0_classes_are_narrowed_by_the_content_of_the_output(
    project, pytester, engine, outcome
):
    """The reference engine starts its windows at the registration time 1234;
    the oracle computes only the t0 classes whose windows can hold the
    bindings of its relations (not merely those its reported windows fit), and
    the verdict compares them exactly."""
    project()
    (pytester.path / "tiny.rspbench.yaml").unlink()
    pytester.makefile(".nt", dense=dense_stream.lines(3000))
    pytester.makefile(".yaml", **{"drops-any": DROPS_ANY})
    pytester.makefile(".rspbench.yaml", dense=dense_stream.spec(engine, start=1234))
    result = pytester.runpytest("--rspbench-json", "out.json", "--junitxml", "junit.xml")
    result.assert_outcomes(**{outcome: 1})
    assert 'name="rspbench.t0_narrowing" value="' in (pytester.path / "junit.xml").read_text()
    (item,) = json.loads((pytester.path / "out.json").read_text())["items"]
    total = item["t0_classes_total"]
    assert total > 256
    assert item["t0_classes"] < 40
    assert (
        f" of {total:,} t0 classes computed: the content of the engine's " in (item["t0_narrowing"])
    )
    if outcome == "passed":
        first, _, last = item["matched_t0"].partition("..")
        assert int(first) <= 1234 <= int(last or first)
        assert item["t0_narrowing"].startswith("t0 ")  # which t0 reproduce it
    else:
        result.stdout.fnmatch_lines(
            ["*t0 classes narrowed: * of * t0 classes computed: the content of the*"]
        )
