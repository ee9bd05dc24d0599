"""``rspbench oracle``: expected outputs from the command line, no engine run."""

from __future__ import annotations

import json
from pathlib import Path

import dense_stream
import pytest

from pytest_rspbench.cli import main


@pytest.fixture
def spec(tmp_path: Path) -> Path:
    (tmp_path / "dense.nt").write_text(dense_stream.lines(4000))
    path = tmp_path / "dense.rspbench.yaml"
    path.write_text(dense_stream.spec(semantics="{t0: any, empty_relations: true}"))
    return path


@pytest.mark.spark
@pytest.mark.usefixtures("spark")
def test_reported_results_narrow_the_classes(
    spec: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """The results file of an engine whose windows close at 2234 and 3234
    leaves one class to compute: t0 = 234 (candidates are in [0, 1000))."""
    results = tmp_path / "results.jsonl"
    results.write_text(
        "".join(
            json.dumps({"time": c, "window": [c - 1000, c], "bindings": []}) + "\n"
            for c in (2234, 3234)
        )
    )
    out = tmp_path / "expected.jsonl"
    argv = ["oracle", "--spec", str(spec), "--reported", str(results), "-o", str(out)]
    assert main(argv) == 0
    rows = [json.loads(line) for line in out.read_text().splitlines()]
    (label,) = {row["t0"] for row in rows}
    first, _, last = label.partition("..")
    assert int(first) <= 234 <= int(last or first)
    assert [row["window"][1] - row["window"][0] for row in rows] == [1000] * len(rows)
    assert "t0 classes narrowed: 1 of " in capsys.readouterr().err


def test_a_bad_results_line_is_an_error_with_its_place(
    spec: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    results = tmp_path / "results.jsonl"
    results.write_text('{"time": 2234}\nnot json\n')
    argv = ["oracle", "--spec", str(spec), "--reported", str(results)]
    assert main(argv) == 1
    err = capsys.readouterr().err
    assert f"{results}:2: not a result line: 'not json'" in err
    assert "HINT:" in err and "Traceback" not in err
