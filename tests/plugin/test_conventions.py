"""What a pytest user expects: --lf, -k by parameter, xdist, one engine identity."""

from __future__ import annotations

import json
import textwrap

import pytest

TWO_ENGINES = "drops-one.yaml, reference"


def test_k_selects_by_parameter_value(project, pytester):
    project()
    result = pytester.runpytest("--collect-only", "-q", "-k", "step:4000")
    result.stdout.fnmatch_lines(["*tiny?range=4000,step=4000,engine=reference?", "*1/2 tests*"])
    result = pytester.runpytest("--collect-only", "-q", "-k", "step and 4000 and not 2000")
    result.stdout.fnmatch_lines(["*1/2 tests*"])


def test_k_selects_by_engine(project, pytester):
    project(engines=TWO_ENGINES)
    result = pytester.runpytest("--collect-only", "-q", "-k", "engine:drops-one")
    result.stdout.fnmatch_lines(["*2/4 tests*"])


def test_node_ids_carry_their_parameters_as_pytest_parses_them(project, pytester):
    """pytest 9 keeps ``--lf``/``--ff`` ids parsed: ``[...]`` are the params."""
    project()
    items, _ = pytester.inline_genitems()
    node = items[0]
    if not hasattr(node, "id"):  # pytest < 9.2 keeps ids as text only
        pytest.skip("structured node ids came with pytest 9.2")
    assert node.id.names == ("tiny",)
    assert node.id.params == "range=4000,step=2000,engine=reference"


@pytest.mark.spark
@pytest.mark.usefixtures("spark")
def test_last_failed_reruns_only_the_failed_spec_items(project, pytester):
    project(engines=TWO_ENGINES)
    first = pytester.runpytest()
    first.assert_outcomes(passed=2, failed=2)
    again = pytester.runpytest("--lf")
    again.assert_outcomes(failed=2)
    again.stdout.fnmatch_lines(["*rerun previous 2 failures*"])
    assert "known failures not in selected tests" not in again.stdout.str()


def test_engine_is_named_by_its_profile_everywhere(project, pytester):
    project(engines="custom/engine.yaml")
    folder = pytester.mkdir("custom")
    (folder / "engine.yaml").write_text(
        (pytester.path / "drops-one.yaml").read_text().replace("drops-one", "my-engine")
    )
    result = pytester.runpytest("--collect-only", "-q")
    result.stdout.fnmatch_lines(["*tiny?range=4000,step=2000,engine=my-engine?"])


def test_known_failure_matches_the_name_in_the_id(project, pytester):
    project(engines="reference")
    folder = pytester.mkdir("custom")
    (folder / "engine.yaml").write_text(
        (pytester.path / "drops-one.yaml").read_text().replace("drops-one", "my-engine")
    )
    project(
        engines="custom/engine.yaml",
        extra=textwrap.dedent("""\
            known_failures:
              - engine: my-engine
                reason: loses a binding
            """),
    )
    # A reason alone warns (any failure would be expected); shown, not an error here.
    shown = ("-W", "default::pytest.PytestWarning")
    result = pytester.runpytest("--collect-only", "-q", "-rA", *shown)
    assert result.ret == pytest.ExitCode.OK
    result.stdout.fnmatch_lines(["*known_failures[[]0[]] (my-engine) names no departures*"])
    items, _ = pytester.inline_genitems(*shown)
    assert all(item.get_closest_marker("xfail") is not None for item in items)


def test_a_wrong_engine_option_is_one_usage_error(project, pytester):
    project()
    project(name="second")
    result = pytester.runpytest("--rspbench-engine", "engines/nope.yaml")
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    err = result.stderr.str()
    assert err.count("ERROR") == 1, err
    result.stderr.fnmatch_lines(
        [
            "ERROR: --rspbench-engine engines/nope.yaml: engine profile*not found*",
            "*HINT: a path given with --rspbench-engine is relative to the folder pytest runs in*",
        ]
    )


@pytest.mark.spark
@pytest.mark.slow
def test_xdist_workers_records_reach_the_results_file_and_summary(project, pytester, monkeypatch):
    pytest.importorskip("xdist")
    project(engines=TWO_ENGINES)
    project(name="second")
    # CI=true: pytest then prints whole -r messages, so a failure's message
    # must be its verdict line alone, on the workers and the controller.
    monkeypatch.setenv("CI", "true")
    result = pytester.runpytest_subprocess(
        "-n", "2", "-rf", "--junitxml", "j.xml", "--rspbench-json", "r.json",
        "-p", "no:cacheprovider",
    )  # fmt: skip
    result.assert_outcomes(passed=4, failed=2)
    doc = json.loads((pytester.path / "r.json").read_text())
    assert len(doc["items"]) == 6
    assert {i["outcome"] for i in doc["items"]} == {"passed", "failed"}
    result.stdout.fnmatch_lines(["*rspbench summary*"])
    summary = result.stdout.str().split("short test summary info")[1].splitlines()[1:]
    assert [line.split(" - ")[1][:14] for line in summary if "FAILED" in line] == [
        "strict: FAIL \u2014"
    ] * 2
    assert not [line for line in summary if line.startswith("  ")]  # one line each
    junit = (pytester.path / "j.xml").read_text()
    assert junit.count('message="strict: FAIL') == 2


HUGE_ENGINE = '''
from rspbench_engines.reference.engine import ReferenceEngine
from pytest_rspbench.engine.api import Result


class HugeTerm(ReferenceEngine):
    """Adds one binding with a 10 MB literal to every relation."""

    def open(self, registration, emit):
        huge = {"obs": "<http://example.org/huge>", "v": '"' + "x" * 10_000_000 + '"'}

        def bloated(result):
            emit(Result((*result.bindings, huge), result.time, result.window))
        super().open(registration, bloated)
'''


@pytest.mark.spark
@pytest.mark.usefixtures("spark")
def test_a_huge_term_is_cut_in_the_failure_text_and_metrics(project, pytester):
    """A 10 MB term does not flood pytest's output or metrics.json."""
    from helpers.project import engine_yaml

    pytester.makepyfile(huge_engine=HUGE_ENGINE)
    pytester.makefile(".yaml", huge=engine_yaml("huge", "huge_engine:HugeTerm"))
    project(engines="huge.yaml")
    result = pytester.runpytest("--rspbench-artifacts", "art", "-k", "step:4000")
    result.assert_outcomes(failed=1)
    assert len(result.stdout.str()) < 200_000
    result.stdout.fnmatch_lines(["*unexpected: {?obs=<http://example.org/huge>, ?v=*chars]}*"])
    (metrics,) = (pytester.path / "art").glob("*/metrics.json")
    assert metrics.stat().st_size < 200_000
    (results,) = (pytester.path / "art").glob("*/results.jsonl")
    assert results.stat().st_size > 10_000_000  # the raw output keeps it whole


def test_items_with_the_same_id_prefix_keep_their_own_artifact_folders(tmp_path):
    """No two items share an artifact folder."""
    from types import SimpleNamespace

    from pytest_rspbench.options import Settings
    from pytest_rspbench.session import RspbenchSession

    session = RspbenchSession(Settings(engines=None, master="local[1]", artifacts=tmp_path))
    long = "specs/a.rspbench.yaml::a[" + "x=1," * 60
    items = [SimpleNamespace(nodeid=long + "engine=a]"), SimpleNamespace(nodeid=long + "engine=b]")]
    twice = [SimpleNamespace(nodeid="s.yaml::s[engine=r]") for _ in range(2)]
    folders = [session.artifacts_for(i) for i in [*items, *twice]]
    assert len(set(folders)) == 4
    assert all(len(f.name) <= 150 for f in folders)
    assert session.artifacts_for(items[0]) == folders[0]
