"""``rspbench matrix``: outcomes per case and engine, from results files."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from pytest_rspbench.cli import main
from pytest_rspbench.report import matrix


def results_file(path: Path, items: list[dict[str, Any]]) -> Path:
    path.write_text(json.dumps({"format": 2, "items": items}), encoding="utf-8")
    return path


def item(spec: str, outcome: str, **extra: Any) -> dict[str, Any]:
    return {"spec": spec, "params": {"range": 5, "engine": "x"}, "outcome": outcome} | extra


def test_cells_follow_the_outcomes(tmp_path: Path) -> None:
    path = results_file(
        tmp_path / "r.json",
        [
            item("a", "passed"),
            item("b", "failed", message="window (0, 5]: expected 2, got 1\nmore"),
            item("c", "xfailed", known_failure="known departure of x: D2"),
            item("d", "skipped", message="x's profile cannot run this case: bounds"),
            item("e", "error", message="spec error"),
            item("f", "failed", engine_error="exit status 3"),
            {"id": "mismatch[q]", "kind": "mismatch", "outcome": "passed"},
        ],
    )
    run = matrix.read_results("x", 1, 3.0, path)
    assert run.cells == {
        "a[range=5]": "pass",
        "b[range=5]": "FAIL",
        "c[range=5]": "known",
        "d[range=5]": "skip",
        "e[range=5]": "error",
        "f[range=5]": "error",
    }
    assert run.reasons["b[range=5]"] == "window (0, 5]: expected 2, got 1"
    assert run.reasons["c[range=5]"] == "known departure of x: D2"
    assert "a[range=5]" not in run.reasons


def test_the_table_lists_what_each_engine_fails() -> None:
    good = matrix.EngineRun("reference", 0, 65.0, {"s[k=1]": "pass", "t": "pass"})
    bad = matrix.EngineRun("faulty-x", 1, 5.0, {"s[k=1]": "FAIL", "t": "known"})
    text = matrix.markdown([good, bad], "rspbench matrix -e reference -e faulty-x")
    assert "| reference | 2 | 0 | 0 | 0 | 0 | 1 min 5 s |" in text
    assert "| faulty-x | 0 | 1 | 1 | 0 | 0 | 5 s |" in text
    assert "- **reference** (0): none" in text
    assert "- **faulty-x** (1): `s[k=1]`" in text
    assert "| `s[k=1]` | pass | **FAIL** |" in text
    assert "| `t` | pass | known |" in text


def test_the_departures_of_failing_cases_are_named_and_counted(tmp_path: Path) -> None:
    lost = {"name": "lost-window", "windows": [[0, 5]]}
    final = {"name": "missing-final-window", "windows": [[5, 10]]}
    path = results_file(
        tmp_path / "r.json",
        [
            item("a", "failed", departures=[lost, final]),
            item("b", "xfailed", departures=[final], known_failure="known departure of x"),
            item("c", "passed", departures=[]),
        ],
    )
    run = matrix.read_results("x", 1, 3.0, path)
    assert run.departures == {
        "a[range=5]": ("lost-window", "missing-final-window"),
        "b[range=5]": ("missing-final-window",),
    }
    text = matrix.markdown([run], "rspbench matrix -e x")
    assert "| x | 1 | 1 | 1 | 0 | 0 | 3 s | missing-final-window 2, lost-window 1 |" in text
    assert "| `a[range=5]` | **FAIL** lost-window, missing-final-window |" in text
    assert "| `b[range=5]` | known missing-final-window |" in text
    assert matrix.as_json([run])["engines"][0]["departures"]["b[range=5]"] == [
        "missing-final-window"
    ]


def test_a_case_missing_from_a_run_is_marked() -> None:
    one = matrix.EngineRun("a", 0, 1.0, {"s": "pass"})
    two = matrix.EngineRun("b", 0, 1.0, {})
    assert "| `s` | pass | · |" in matrix.markdown([one, two], "c")


def test_a_broken_run_is_an_error_with_its_log(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    code = main(
        [
            "matrix",
            "-e",
            "reference",
            str(tmp_path / "missing.rspbench.yaml"),
            "--keep",
            str(tmp_path / "kept"),
        ]
    )
    err = capsys.readouterr().err
    assert code == 1
    assert "pytest for engine 'reference' stopped with exit status 4" in err
    assert "not found" in err and "HINT:" in err
    assert (tmp_path / "kept" / "00-reference.log").is_file()


def test_nothing_to_run_is_a_usage_error(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["matrix", "-e", "reference"]) == 1
    assert "nothing to run" in capsys.readouterr().err


def test_arguments_after_the_separator_are_only_for_matrix() -> None:
    with pytest.raises(SystemExit):
        main(["engines", "--", "-k", "x"])


def test_a_run_over_several_engines_gets_the_functionality_matrix() -> None:
    items = [
        item("q1", "passed", case="range=5,engine=reference", engine="reference"),
        item("q1", "failed", case="range=5,engine=rspjs", engine="rspjs"),
        item("q2", "skipped", case="range=5,engine=rspjs", engine="engines/rspjs/engine.yaml"),
        item("q2", "xfailed", case="range=5,engine=reference", engine="reference"),
        item("q3", "passed", case="range=5,engine=reference", engine="<b>"),
    ]
    table = matrix.html_table(items)
    assert "<th>reference</th><th>rspjs</th>" in table
    assert (
        '<tr><td>q1[range=5]</td><td class="pass">supported</td><td class="FAIL">wrong</td></tr>'
    ) in table
    assert (
        '<tr><td>q2[range=5]</td><td class="known">wrong (known)</td>'
        '<td class="skip">unsupported</td></tr>'
    ) in table
    assert '<tr><td>q3[range=5]</td><td class="pass">supported</td><td class="·">·</td>' in table
    assert matrix.html_table(items[:1]) == ""  # one engine: no matrix


def test_the_standalone_report_shows_the_matrix() -> None:
    from pytest_rspbench.report.page import render

    items = [
        item("q1", "passed", case="engine=reference", engine="reference", id="q1[a]"),
        item("q1", "failed", case="engine=rspjs", engine="rspjs", id="q1[b]"),
    ]
    page = render({"items": items})
    assert page.index('class="rspbench-matrix"') < page.index('class="rspbench-summary"')


def test_a_column_is_headed_by_the_profile_name_as_item_ids_show_it() -> None:
    from pytest_rspbench.report.matrix import column_names

    path = "engines/faulty/wrong-bounds/engine.yaml"
    assert column_names(["reference", path]) == ["reference", "faulty-wrong-bounds"]
    # Two columns of one name keep what was given, to stay apart.
    assert column_names([path, path]) == [path, path]


def test_engines_run_at_once_come_back_in_the_engines_order(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    import threading
    import time

    running, most = [0], [0]
    lock = threading.Lock()

    def fake(engine: str, targets: Any, passthrough: Any, folder: Path, number: int) -> Any:
        with lock:
            running[0] += 1
            most[0] = max(most[0], running[0])
        time.sleep(0.05 * (5 - number))  # later engines finish first
        with lock:
            running[0] -= 1
        return matrix.EngineRun(engine, 0, 0.0)

    monkeypatch.setattr(matrix, "run_engine", fake)
    engines = ["a", "b", "c", "d", "e"]
    runs = matrix.run_engines(engines, ["x"], [], tmp_path, jobs=3)
    assert [r.engine for r in runs] == engines
    assert most[0] == 3  # "a" alone first, then three at once


def test_a_broken_run_among_engines_run_at_once_stops_the_matrix(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    def fake(engine: str, targets: Any, passthrough: Any, folder: Path, number: int) -> Any:
        if engine == "b":
            raise matrix.MatrixError("pytest for engine 'b' stopped with exit status 4")
        return matrix.EngineRun(engine, 0, 0.0)

    monkeypatch.setattr(matrix, "run_engine", fake)
    with pytest.raises(matrix.MatrixError, match="engine 'b'"):
        matrix.run_engines(["a", "b", "c"], ["x"], [], tmp_path, jobs=2)


@pytest.mark.slow
@pytest.mark.spark
def test_the_matrix_with_two_engines_at_once_writes_the_table_and_the_report(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    spec = Path(__file__).resolve().parents[2] / "specs" / "rspql" / "bounds-co.rspbench.yaml"
    table, site, cells = tmp_path / "table.md", tmp_path / "site", tmp_path / "cells.json"
    argv = ["matrix", "-e", "reference", "-e", "faulty-wrong-bounds", str(spec), "--jobs", "2"]
    assert main([*argv, "-o", str(table), "--json", str(cells), "--conformance", str(site)]) == 0
    runs = json.loads(cells.read_text())["engines"]
    assert [r["engine"] for r in runs] == ["reference", "faulty-wrong-bounds"]
    assert set(runs[0]["cells"].values()) == {"pass"}
    assert set(runs[1]["cells"].values()) == {"FAIL"}
    assert "faulty-wrong-bounds" in table.read_text()
    summary = json.loads((site / "summary.json").read_text())
    assert [e["engine"] for e in summary["engines"]] == ["reference", "faulty-wrong-bounds"]
