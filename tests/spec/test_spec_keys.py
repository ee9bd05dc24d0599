"""The spec keys of the comparison modes: containment, alignment, gracious, mismatch, sweep.

Loaded with :func:`load_spec` directly (no Spark, no engine). Errors must
name the line, the JSON path, what is wrong and end with a HINT.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from pytest_rspbench.errors import SpecError
from pytest_rspbench.spec.loader import load_spec
from pytest_rspbench.spec.model import Comparison, Mismatch, Sweep

HEAD = """\
rspbench: 1
name: demo
streams:
  - iri: http://example.org/s
    source:
      kind: files
      path: rspbench-data:csrbench/stream/data_*.ttl
      interval: 1000
query: |
  PREFIX : <http://example.org/>
  REGISTER RStream :out AS
  SELECT ?s
  FROM NAMED WINDOW :w ON STREAM :s [RANGE 1000 STEP 1000]
  WHERE { WINDOW :w { ?s ?p ?o } }
"""  # 14 lines; what follows starts on line 15


def load(tmp_path: Path, tail: str, head: str = HEAD):
    path = tmp_path / "demo.rspbench.yaml"
    path.write_text(head + tail, encoding="utf-8")
    return load_spec(path)


def error(tmp_path: Path, tail: str, head: str = HEAD) -> str:
    with pytest.raises(SpecError) as info:
        load(tmp_path, tail, head)
    return str(info.value)


def test_new_comparison_keys(tmp_path: Path) -> None:
    spec = load(
        tmp_path,
        (
            "engines: [reference]\n"
            "comparison:\n"
            "  mode: containment\n"
            "  alignment: arrival\n"
            "  arrival_tolerance: 2s\n"
            "  gracious: {max_shift: 1500ms}\n"
        ),
    )
    assert spec.cases[0].comparison == Comparison(
        mode="containment",
        alignment="arrival",
        arrival_tolerance=2000,
        gracious_shift=1500,
    )


@pytest.mark.parametrize("written", ["2000", "2000ms", "2s", "PT2S"])
def test_durations(tmp_path: Path, written: str) -> None:
    spec = load(
        tmp_path,
        f"engines: [reference]\ncomparison: {{gracious: {{max_shift: {written}}}}}\n",
    )
    assert spec.cases[0].comparison.gracious_shift == 2000


def test_bad_duration(tmp_path: Path) -> None:
    message = error(
        tmp_path,
        "engines: [reference]\ncomparison:\n  gracious: {max_shift: 2 seconds}\n",
    )
    assert message.startswith(
        f"{tmp_path / 'demo.rspbench.yaml'}:17: $.comparison.gracious.max_shift: "
        "cannot read '2 seconds' as a duration."
    )
    assert message.endswith(
        "HINT: write milliseconds (2000), a number with a unit (2000ms, 2s) "
        "or an ISO 8601 duration (PT2S)."
    )


def test_unknown_alignment(tmp_path: Path) -> None:
    message = error(tmp_path, "engines: [reference]\ncomparison:\n  alignment: arival\n")
    assert ":17: $.comparison.alignment: 'arival' is not allowed here." in message
    assert (
        "HINT: use one of: auto, window, time, arrival, position. "
        "Did you mean 'arrival'?" in message
    )


def test_gracious_metric_without_gracious_mode(tmp_path: Path) -> None:
    message = error(tmp_path, "engines: [reference]\nthresholds:\n  - gracious_recall >= 1\n")
    assert (
        ":17: $.thresholds[0]: 'gracious_recall' is measured in gracious mode only, "
        "which is off." in message
    )
    assert "HINT: turn it on with 'comparison: {gracious: {max_shift: 2000ms}}'" in message


def test_gracious_needs_rstream(tmp_path: Path) -> None:
    head = HEAD.replace("RStream", "IStream")
    message = error(
        tmp_path,
        "engines: [reference]\ncomparison:\n  gracious: {max_shift: 10}\n",
        head,
    )
    assert ":17: $.comparison.gracious: gracious mode explains whole window contents" in message
    assert "HINT: use REGISTER RStream for gracious mode" in message


def test_mismatch_key_and_thresholds(tmp_path: Path) -> None:
    spec = load(
        tmp_path,
        (
            "engines: [reference, faulty-duplicates]\n"
            "mismatch: {partition: eager, epsilon: 0.1}\n"
            "thresholds:\n"
            "  - mismatch(faulty-duplicates, reference) <= 5%\n"
        ),
    )
    case = spec.cases[0]
    assert case.mismatch == Mismatch("eager", 0.1)
    assert case.thresholds[0].engines == ("faulty-duplicates", "reference")
    assert [c.engine_id for c in spec.cases] == ["reference", "faulty-duplicates"]


def test_mismatch_threshold_alone_turns_mismatch_on(tmp_path: Path) -> None:
    spec = load(
        tmp_path,
        "engines: [reference, faulty-duplicates]\n"
        "thresholds: ['mismatch(reference, faulty-duplicates) <= 0']\n",
    )
    assert spec.cases[0].mismatch == Mismatch()


def test_mismatch_names_an_engine_not_run(tmp_path: Path) -> None:
    message = error(
        tmp_path,
        (
            "engines: [reference, faulty-duplicates]\n"
            "thresholds:\n"
            "  - mismatch(refrence, faulty-duplicates) <= 0.05\n"
        ),
    )
    assert (
        ":17: $.thresholds[0]: mismatch(refrence, faulty-duplicates) "
        "names engine 'refrence', " in message
    )
    assert (
        "HINT: name engines as they appear in the item ids (engine=...): "
        "reference, faulty-duplicates. "
        "Did you mean 'reference'?" in message
    )


def test_mismatch_with_itself(tmp_path: Path) -> None:
    message = error(
        tmp_path,
        "engines: [reference, faulty-duplicates]\n"
        "thresholds: ['mismatch(reference, reference) <= 0']\n",
    )
    assert "$.thresholds[0]: 'mismatch(reference, reference) <= 0' compares " in message
    assert "HINT: name two different engines" in message


def test_mismatch_needs_two_engines(tmp_path: Path) -> None:
    message = error(tmp_path, "engines: [reference]\nmismatch: {epsilon: 0.1}\n")
    assert ":16: $.mismatch: a mismatch compares engines, but the spec runs only one." in message
    assert "HINT: list two or more engines under 'engines:'" in message


def test_mismatch_epsilon_range(tmp_path: Path) -> None:
    message = error(tmp_path, "engines: [reference, faulty-duplicates]\nmismatch: {epsilon: 5}\n")
    assert ":16: $.mismatch.epsilon:" in message and "HINT:" in message


def test_sweep_over_speed(tmp_path: Path) -> None:
    spec = load(
        tmp_path,
        (
            "matrix:\n"
            "  speed: [1, 2.5]\n"
            "engines: [reference]\n"
            "replay: {speed: '${speed}'}\n"
            "sweep: {over: speed, at_least: 2}\n"
        ),
    )
    assert [c.speed for c in spec.cases] == [1.0, 2.5]
    assert [c.case_id for c in spec.cases] == [
        "speed=1,engine=reference",
        "speed=2.5,engine=reference",
    ]
    assert spec.cases[0].sweep == Sweep("speed", 2)


def test_sweep_over_unknown_parameter(tmp_path: Path) -> None:
    message = error(tmp_path, "matrix:\n  speed: [1]\nengines: [reference]\nsweep: {over: sped}\n")
    assert ":18: $.sweep.over: sweep over 'sped', which is not a matrix parameter." in message
    assert "Did you mean 'speed'?" in message


def test_sweep_needs_numbers(tmp_path: Path) -> None:
    message = error(
        tmp_path,
        "matrix:\n  load: [low, high]\nengines: [reference]\nsweep: {over: load}\n",
    )
    assert ":16: $.matrix.load: the sweep needs numbers for 'load', got ['low', 'high']." in message


def test_speed_placeholder_errors(tmp_path: Path) -> None:
    message = error(
        tmp_path,
        "matrix:\n  speed: [1]\nengines: [reference]\nreplay: {speed: '${sped}'}\n",
    )
    assert (
        ":18: $.replay.speed: replay speed '${sped}' is neither a number "
        "nor a placeholder" in message
    )
    assert "Did you mean 'speed'?" in message
    message = error(
        tmp_path,
        "matrix:\n  speed: [fast]\nengines: [reference]\nreplay: {speed: '${speed}'}\n",
    )
    assert (
        ":18: $.replay.speed: replay speed 'fast' (from ${speed}) is not a number; "
        "a speed is a number from 0 to 1,000,000." in message
    )


def test_the_example_in_docs_metrics_loads(tmp_path: Path) -> None:
    doc = Path(__file__).resolve().parents[2] / "docs" / "metrics.md"
    text = doc.read_text(encoding="utf-8")
    section = text[text.index("## A spec using them") :]
    example = section[section.index("```yaml\n") + 8 : section.index("```\n", 8)]
    path = tmp_path / "example.rspbench.yaml"
    path.write_text(example, encoding="utf-8")
    spec = load_spec(path)
    assert spec.cases[0].sweep is not None and spec.cases[0].mismatch is not None
