"""Loading specs into Cases: matrix expansion, placeholders, paths, defaults.

Core logic only: specs are written to ``tmp_path`` and loaded with
:func:`load_spec` directly, no pytest run, no Spark, no engine.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from pytest_rspbench.errors import EngineConfigError, SpecError
from pytest_rspbench.spec.loader import load_spec
from pytest_rspbench.spec.model import Comparison
from pytest_rspbench.spec.replay import DEFAULT_TIMEOUT
from pytest_rspbench.spec.resources import data_dir

DATA = "rspbench-data:csrbench/stream/data_*.ttl"
QUERY = """\
  PREFIX : <http://example.org/>
  REGISTER RStream :out AS
  SELECT ?s
  FROM NAMED WINDOW :w ON STREAM :s [RANGE ${range} STEP ${step}]
  WHERE { WINDOW :w { ?s ?p ?o } }
"""


def write_spec(
    folder: Path,
    matrix: str = "  range: [10000]\n  step: [10000]\n",
    source: str = f"kind: files\n      path: {DATA}\n      interval: 1000\n",
    extra: str = "",
    query: str = QUERY,
    engines: str = "[reference]",
    name: str = "demo.rspbench.yaml",
) -> Path:
    """A valid spec with the given parts; returns its path.

    With the default parts the lines are: 7 the source path, 9 ``query: |``,
    13 the FROM NAMED WINDOW line, 15 ``matrix:``, 18 ``engines:``, 19 on
    ``extra``.
    """
    text = (
        "rspbench: 1\n"
        "name: demo\n"
        "streams:\n"
        "  - iri: http://example.org/s\n"
        "    source:\n"
        f"      {source}"
        f"query: |\n{query}"
        + (f"matrix:\n{matrix}" if matrix else "")
        + f"engines: {engines}\n"
        + extra
    )
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / name
    path.write_text(text, encoding="utf-8")
    return path


# --- matrix expansion -------------------------------------------------------


def test_every_combination_becomes_a_case(tmp_path: Path) -> None:
    path = write_spec(tmp_path, matrix="  range: [10000, 20000]\n  step: [1000, 5000]\n")
    spec = load_spec(path)
    assert [c.case_id for c in spec.cases] == [
        "range=10000,step=1000,engine=reference",
        "range=10000,step=5000,engine=reference",
        "range=20000,step=1000,engine=reference",
        "range=20000,step=5000,engine=reference",
    ]
    assert [(w.width, w.slide) for c in spec.cases for w in c.query.windows] == [
        (10000, 1000),
        (10000, 5000),
        (20000, 1000),
        (20000, 5000),
    ]
    assert spec.cases[1].params == (("range", 10000), ("step", 5000))


def test_each_combination_runs_on_each_engine(tmp_path: Path) -> None:
    path = write_spec(
        tmp_path,
        matrix="  range: [1000, 2000]\n  step: [1000]\n",
        engines="[reference, other]",
    )
    ids = [c.case_id for c in load_spec(path).cases]
    assert ids == [
        "range=1000,step=1000,engine=reference",
        "range=1000,step=1000,engine=other",
        "range=2000,step=1000,engine=reference",
        "range=2000,step=1000,engine=other",
    ]


def test_engine_list_from_the_command_line_replaces_the_specs(tmp_path: Path) -> None:
    path = write_spec(tmp_path, engines="[reference]")
    spec = load_spec(path, engines=["a", "engines/b/engine.yaml", "c.yaml"])
    assert [c.engine for c in spec.cases] == ["a", "engines/b/engine.yaml", "c.yaml"]
    # engine.yaml files are told apart by their folder.
    assert [c.case_id.rpartition(",")[2] for c in spec.cases] == [
        "engine=a",
        "engine=b",
        "engine=c",
    ]


def test_no_matrix_gives_one_case_per_engine(tmp_path: Path) -> None:
    query = QUERY.replace("${range}", "PT10S").replace("${step}", "10s")
    path = write_spec(tmp_path, matrix="", query=query, engines="[a, b]")
    spec = load_spec(path)
    assert [c.case_id for c in spec.cases] == ["engine=a", "engine=b"]
    assert spec.cases[0].params == ()
    assert spec.cases[0].query.windows[0].width == 10000


def test_matrix_values_of_every_scalar_type(tmp_path: Path) -> None:
    path = write_spec(
        tmp_path,
        matrix="  range: [1000]\n  step: ['1000']\n  flag: [true]\n  ratio: [0.5]\n",
    )
    (case,) = load_spec(path).cases
    assert case.case_id == "range=1000,step=1000,flag=true,ratio=0.5,engine=reference"
    assert case.params == (
        ("range", 1000),
        ("step", "1000"),
        ("flag", True),
        ("ratio", 0.5),
    )


def test_engines_are_checked_with_the_spec_folder(tmp_path: Path) -> None:
    seen = []

    def check(engine: str, folder: Path) -> None:
        seen.append((engine, folder))

    path = write_spec(tmp_path / "specs", engines="[a, b]")
    load_spec(path, check_engine=check)
    assert seen == [("a", tmp_path / "specs"), ("b", tmp_path / "specs")]


def test_engine_check_error_becomes_a_located_spec_error(tmp_path: Path) -> None:
    def check(engine: str, folder: Path) -> None:
        raise EngineConfigError(f"unknown engine {engine!r}.\nHINT: try another.")

    path = write_spec(tmp_path, engines="[reference, nope]")
    with pytest.raises(SpecError) as info:
        load_spec(path, check_engine=check)
    assert str(info.value).splitlines()[0] == (
        f"{path}:18: $.engines[0]: unknown engine 'reference'."
    )
    assert str(info.value).endswith("\nHINT: try another.")
    assert info.value.line == 18


# --- placeholders -----------------------------------------------------------


def test_placeholders_are_filled_in_the_query(tmp_path: Path) -> None:
    path = write_spec(tmp_path, matrix="  range: [10000]\n  step: [2000]\n")
    (case,) = load_spec(path).cases
    assert "[RANGE 10000 STEP 2000]" in case.query.text
    assert "${" not in case.query.text
    assert "GRAPH :w {" in case.query.static_sparql


def test_whole_placeholder_in_a_source_keeps_the_value_type(tmp_path: Path) -> None:
    source = (
        "kind: generator\n      name: workload\n      rate: ${rate}\n"
        "      shape: ${shape}\n      duration: 1000\n"
    )
    path = write_spec(
        tmp_path,
        source=source,
        matrix="  range: [1000]\n  step: [1000]\n  rate: [2, 50.5]\n  shape: [poisson]\n",
    )
    first, second = load_spec(path).cases
    assert first.streams[0].source["rate"] == 2
    assert second.streams[0].source["rate"] == 50.5
    assert first.streams[0].source["shape"] == "poisson"  # a string stays a string
    assert first.streams[0].source["name"] == "workload"


def test_placeholder_in_a_source_path(tmp_path: Path) -> None:
    for n in (1, 2):
        (tmp_path / f"day{n}").mkdir()
        (tmp_path / f"day{n}" / "data_00.ttl").write_text("", encoding="utf-8")
    source = "kind: files\n      path: day${day}/data_*.ttl\n      interval: 1000\n"
    path = write_spec(
        tmp_path,
        source=source,
        matrix="  range: [1000]\n  step: [1000]\n  day: [1, 2]\n",
    )
    assert [c.streams[0].source["path"] for c in load_spec(path).cases] == [
        "day1/data_*.ttl",
        "day2/data_*.ttl",
    ]


def test_unknown_placeholder_in_a_source_is_an_error(tmp_path: Path) -> None:
    source = "kind: generator\n      name: yabench-sg1\n      stations: ${statons}\n"
    path = write_spec(
        tmp_path,
        source=source,
        matrix="  range: [1000]\n  step: [1000]\n  stations: [2]\n",
    )
    with pytest.raises(SpecError) as info:
        load_spec(path)
    assert str(info.value).splitlines()[0] == (
        f"{path}:8: $.streams[0].source.stations: placeholder ${{statons}} has no "
        "value in the matrix."
    )
    assert "Did you mean 'stations'?" in str(info.value)


def test_placeholder_that_makes_a_path_not_a_string(tmp_path: Path) -> None:
    source = "kind: files\n      path: ${where}\n      interval: 1000\n"
    path = write_spec(
        tmp_path,
        source=source,
        matrix="  range: [1000]\n  step: [1000]\n  where: [5]\n",
    )
    with pytest.raises(
        SpecError,
        match=r":7: \$\.streams\[0\]\.source\.path: the path "
        r"became 5 after the matrix was applied",
    ):
        load_spec(path)


def test_unknown_placeholder_in_the_query_without_a_matrix(tmp_path: Path) -> None:
    path = write_spec(tmp_path, matrix="")
    with pytest.raises(SpecError) as info:
        load_spec(path)
    assert str(info.value).splitlines()[0] == (
        f"{path}:13: $.query: placeholder ${{range}} has no value in the matrix."
    )
    assert str(info.value).endswith("HINT: add 'range: [...]' under 'matrix:'.")


# --- paths ------------------------------------------------------------------


def test_paths_are_relative_to_the_spec_file(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    (tmp_path / "specs" / "data").mkdir(parents=True)
    (tmp_path / "specs" / "data" / "data_00.ttl").write_text("", encoding="utf-8")
    (tmp_path / "specs" / "data" / "static.ttl").write_text("", encoding="utf-8")
    source = "kind: files\n      path: data/data_*.ttl\n      interval: 1000\n"
    path = write_spec(tmp_path / "specs", source=source, extra="static: [data/static.ttl]\n")
    monkeypatch.chdir(tmp_path)  # not the spec's folder
    (case,) = load_spec(path).cases
    assert case.static == (tmp_path / "specs" / "data" / "static.ttl",)
    assert case.base_dir == tmp_path / "specs"
    assert case.streams[0].source["path"] == "data/data_*.ttl"  # resolved when read


def test_a_path_next_to_the_working_directory_is_not_found(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    (tmp_path / "static.ttl").write_text("", encoding="utf-8")
    path = write_spec(tmp_path / "specs", extra="static: [static.ttl]\n")
    monkeypatch.chdir(tmp_path)
    with pytest.raises(SpecError) as info:
        load_spec(path)
    message = str(info.value)
    assert message.splitlines()[0] == (
        f"{path}:19: $.static[0]: 'static.ttl' is not a file "
        f"(resolved to {tmp_path / 'specs' / 'static.ttl'})."
    )
    assert message.endswith(
        "HINT: paths are relative to the spec file's folder; 'rspbench-data:' names "
        "data shipped with pytest-rspbench."
    )


def test_package_data_paths(tmp_path: Path) -> None:
    path = write_spec(tmp_path, extra="static: ['rspbench-data:csrbench/stream/data_00.ttl']\n")
    (case,) = load_spec(path).cases
    assert case.static == (data_dir() / "csrbench" / "stream" / "data_00.ttl",)
    assert case.streams[0].source["path"] == DATA


# --- defaults ---------------------------------------------------------------


def test_defaults(tmp_path: Path) -> None:
    spec = load_spec(write_spec(tmp_path))
    (case,) = spec.cases
    assert spec.name == "demo"
    assert spec.description == ""
    assert case.speed == 0.0
    assert case.timeout == DEFAULT_TIMEOUT == 300.0
    assert case.comparison == Comparison(mode="strict", literal_equality="term", tolerance=0.0)
    assert case.thresholds == ()
    assert case.mostly == 1.0
    assert case.warmup_windows == 0
    assert case.marks == ()
    assert dict(case.semantics) == {}
    assert case.static == ()
    assert (case.streams[0].start, case.streams[0].end) == (0, None)
    assert case.line == 2  # the 'name:' line: where pytest points for the item


def test_everything_given(tmp_path: Path) -> None:
    extra = (
        "description: a demo\n"
        "replay: {speed: 10, timeout: 60}\n"
        "comparison: {mode: graded, literal_equality: value, tolerance: 0.01}\n"
        "thresholds: ['recall >= 0.99 in every window', 'delay.p95 <= 0.3s']\n"
        "mostly: 0.9\n"
        "warmup_windows: 2\n"
        "marks: [heavy]\n"
        "semantics: {bounds: '[o,c)', report: [window-close]}\n"
    )
    spec = load_spec(write_spec(tmp_path, extra=extra))
    (case,) = spec.cases
    assert spec.description == "a demo"
    assert (case.speed, case.timeout) == (10.0, 60.0)
    assert case.comparison == Comparison("graded", "value", 0.01)
    assert [(t.metric, t.op, t.value, t.aggregate) for t in case.thresholds] == [
        ("recall", ">=", 0.99, None),
        ("delay", "<=", 300.0, "p95"),
    ]
    assert (case.mostly, case.warmup_windows, case.marks) == (0.9, 2, ("heavy",))
    assert dict(case.semantics) == {"bounds": "[o,c)", "report": ["window-close"]}


def test_the_bundled_example_spec_loads() -> None:
    example = Path(__file__).resolve().parents[2] / "specs" / "csrbench-q1.rspbench.yaml"
    spec = load_spec(example)
    (case,) = spec.cases
    assert case.case_id == "range=10000,step=10000,engine=reference"
    assert case.query.r2s == "RStream"
    assert case.query.windows[0].stream == "http://example.org/csrbench/sensors"
    assert len(case.thresholds) == 2


def test_the_full_example_in_the_docs_loads(tmp_path: Path) -> None:
    doc = Path(__file__).resolve().parents[2] / "docs" / "spec-format.md"
    text = doc.read_text(encoding="utf-8")
    section = text[text.index("## A full example") :]
    example = section[section.index("```yaml\n") + 8 : section.index("```\n", 8)]
    (tmp_path / "data").mkdir()
    (tmp_path / "data" / "sensors.ttl").write_text("", encoding="utf-8")
    path = tmp_path / "example.rspbench.yaml"
    path.write_text(example, encoding="utf-8")
    spec = load_spec(path)
    ids = [c.case_id for c in spec.cases]
    assert ids == [
        "range=10000,step=5000,engine=reference",
        "range=20000,step=5000,engine=reference",
    ]
    # The doc lists these item names right after the example.
    assert all(f"{spec.name}[{i}]" in section for i in ids)
