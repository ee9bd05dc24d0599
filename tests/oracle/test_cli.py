"""``rspbench oracle``: expected outputs from the command line, no engine run."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any, NoReturn

import pytest

from pytest_rspbench.cli import main
from pytest_rspbench.errors import OracleError, SparkMemoryError

from helpers import dense_stream
from helpers.spies import returns


@pytest.fixture
def spec(tmp_path: Path) -> Path:
    (tmp_path / "dense.nt").write_text(dense_stream.lines(4000))
    path = tmp_path / "dense.rspbench.yaml"
    path.write_text(dense_stream.spec(semantics="{t0: any, empty_relations: true}"))
    return path


def answers_of_t0_234(folder: Path) -> tuple[Path, list[dict]]:
    """The results file of an engine with t0 = 234 (no times, no windows),
    and the expected rows it was made from."""
    fixed = folder / "fixed.rspbench.yaml"
    fixed.write_text(dense_stream.spec(semantics="{t0: 234, empty_relations: true}"))
    answer = folder / "answer.jsonl"
    assert main(["oracle", str(fixed), "-o", str(answer)]) == 0
    results = folder / "results.jsonl"
    rows = [json.loads(line) for line in answer.read_text().splitlines()]
    results.write_text("".join(json.dumps({"bindings": r["bindings"]}) + "\n" for r in rows))
    return results, rows


@pytest.mark.spark
@pytest.mark.usefixtures("spark")
def test_reported_results_are_judged_offline(
    spec: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """An engine with t0 = 234 answered; its results file (no times, no
    windows) is judged against the classes its content allows (of 334)."""
    results, rows = answers_of_t0_234(tmp_path)
    capsys.readouterr()

    out = tmp_path / "expected.jsonl"
    argv = ["oracle", "--spec", str(spec), "--reported", str(results), "-o", str(out)]
    assert main(argv) == 0
    err = capsys.readouterr().err
    assert "strict: pass" in err and "t0 classes narrowed: " in err
    labels = [json.loads(line)["t0"] for line in out.read_text().splitlines()]
    # each distinct output once, with the t0 ranges that give it ("230..235,240")
    assert any(
        int(a) <= 234 <= int(b or a)
        for label in set(labels)
        for a, _, b in (part.partition("..") for part in label.split(","))
    )

    wrong = rows[1]["bindings"][1:]  # one binding lost
    rows[1]["bindings"] = wrong
    results.write_text("".join(json.dumps({"bindings": r["bindings"]}) + "\n" for r in rows))
    assert main(argv) == 1
    assert "strict: FAIL" in capsys.readouterr().err


@pytest.mark.spark
@pytest.mark.usefixtures("spark")
def test_large_answers_are_read_while_spark_starts(
    spec: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """Answers above READ_WHILE_STARTING: Spark starts in a thread (here the
    test session's, reused) while they are read; the verdict is the same.
    Once the narrowing and the output are stored, Spark is not needed."""
    from pytest_rspbench.cli import oracle as cli
    from pytest_rspbench.oracle import oracle

    monkeypatch.setenv("RSPBENCH_CACHE_DIR", str(tmp_path / "cache"))
    results, _ = answers_of_t0_234(tmp_path)
    monkeypatch.setattr(cli, "READ_WHILE_STARTING", 1)
    asked = returns(monkeypatch, oracle, "starts_spark")
    argv = ["oracle", str(spec), "--reported", str(results)]
    capsys.readouterr()
    assert main(argv) == 0
    assert "strict: pass" in capsys.readouterr().err
    assert asked == [True]  # nothing stored yet: started while reading
    assert main(argv) == 0
    assert "(stored output)" in capsys.readouterr().err
    assert asked == [True, False]  # a stored narrowing may spare it: not started


def test_spark_settings_reach_the_oracle_s_spark(
    spec: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    from pytest_rspbench.oracle import spark

    given = []

    class Provider(spark.SparkProvider):
        def __init__(self, master: str, conf: dict[str, str], **options: Any) -> None:
            given.append(conf)
            super().__init__(master, conf=conf, **options)

        def get(self) -> NoReturn:
            raise OracleError("stop here")

    monkeypatch.setattr(spark, "SparkProvider", Provider)
    conf = ["--spark-conf", "spark.driver.memory=3g", "--spark-conf", "spark.a = b"]
    assert main(["oracle", str(spec), *conf]) == 1
    assert given == [{"spark.driver.memory": "3g", "spark.a": "b"}]
    assert "error: stop here" in capsys.readouterr().err
    with pytest.raises(SystemExit):
        main(["oracle", str(spec), "--spark-conf", "driver.memory=3g"])
    err = capsys.readouterr().err
    assert "'driver.memory=3g': expected KEY=VALUE with a Spark setting" in err


@pytest.mark.parametrize("t0", ["any", "234"])
def test_every_class_out_of_memory_points_at_reported_answers(
    t0: str,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    """t0: any without an engine's answers computes every class's output (on
    YABench's self-join, 5,000 of 594,000 solutions each: the JVM ran out of
    memory). The error says how to compute fewer; with a fixed t0 it does not."""
    from pytest_rspbench.oracle import oracle

    def out_of_memory(spark: object, request: object) -> None:
        raise SparkMemoryError("the Spark driver ran out of memory (spark.driver.memory = 2g)")

    monkeypatch.setattr(oracle, "run", out_of_memory)
    (tmp_path / "dense.nt").write_text(dense_stream.lines(400))
    path = tmp_path / "dense.rspbench.yaml"
    path.write_text(dense_stream.spec(semantics=f"{{t0: {t0}}}"))
    assert main(["oracle", str(path)]) == 1
    err = capsys.readouterr().err
    assert err.startswith("error: the Spark driver ran out of memory")
    hint = "HINT: give the engine's answers with --reported RESULTS.jsonl"
    assert (hint in err) == (t0 == "any"), err


def test_other_spark_failures_get_no_reported_hint(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """Only running out of memory (the error's type, not its words) asks for
    --reported: a failure that merely mentions memory is not that."""
    from pytest_rspbench.oracle import oracle

    def failed(spark: object, request: object) -> None:
        raise OracleError("its JVM exited while starting\nHINT: check spark.driver.memory")

    monkeypatch.setattr(oracle, "run", failed)
    (tmp_path / "dense.nt").write_text(dense_stream.lines(400))
    path = tmp_path / "dense.rspbench.yaml"
    path.write_text(dense_stream.spec(semantics="{t0: any}"))
    assert main(["oracle", str(path)]) == 1
    assert "--reported RESULTS.jsonl" not in capsys.readouterr().err


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


def test_results_are_read_as_the_harness_reads_an_engine(tmp_path: Path) -> None:
    """--reported reads each line as the harness reads an engine's result
    message: ``?x`` is the variable ``x``, a missing bindings list is an
    empty relation, protocol lines other than results are skipped."""
    from pytest_rspbench.cli.oracle import reported

    results = tmp_path / "results.jsonl"
    lines = [
        {"type": "hello", "name": "e", "protocol": 1},
        {"type": "result", "time": 1000, "bindings": [{"?x": "<a>", "$y": '"1"'}]},
        {"time": 2000, "window": [1000, 2000]},
    ]
    results.write_text("".join(json.dumps(line) + "\n" for line in lines))
    read = reported(results)
    assert [r.bindings for r in read] == [({"x": "<a>", "y": '"1"'},), ()]
    assert [(r.time, r.window) for r in read] == [(1000, None), (2000, (1000, 2000))]


@pytest.mark.parametrize(
    ("line", "said"),
    [
        ({"bindings": [{"x": None}]}, "binding ?x = None is not an N-Triples term"),
        ({"bindings": [{"x": 5}]}, "binding ?x = 5 is not an N-Triples term"),
        ({"bindings": [], "time": "soon"}, "'time' must be an integer (ms)"),
    ],
)
def test_a_result_the_harness_would_refuse_is_an_error_with_its_place(
    spec: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str], line: dict, said: str
) -> None:
    """Before, a null became the term "None" and a number its digits."""
    results = tmp_path / "results.jsonl"
    results.write_text('{"bindings": []}\n' + json.dumps(line) + "\n")
    assert main(["oracle", str(spec), "--reported", str(results)]) == 1
    err = capsys.readouterr().err
    assert f"{results}:2: {said}" in err, err
    assert "HINT: each binding maps a variable to an N-Triples term" in err
    assert "Traceback" not in err


def test_classes_with_one_output_are_written_once(tmp_path: Path) -> None:
    """Classes whose relations hold the same bag (in any order) are one
    output, labelled with their t0 ranges; a different bag, a different
    triple count or a duplicate more is another output."""
    from pytest_rspbench.cli.oracle import write
    from pytest_rspbench.rsp.outputs import ExpectedOutput, ExpectedRelation, T0Class

    a, b = {"x": "<a>"}, {"x": "<b>"}

    def cls(t0: int, bindings: tuple, triples: int = 3) -> T0Class:
        return T0Class(t0, t0, (ExpectedRelation(0, t0 + 10, (t0, t0 + 10), bindings, triples),))

    classes = (
        cls(0, (a, b)),
        cls(1, (b, a)),  # the same bag as t0 = 0
        cls(2, (a, a, b)),  # one duplicate more
        cls(3, (a, b), triples=4),
        cls(4, (b, a)),  # the same as 0 and 1 again
    )
    out = tmp_path / "out.jsonl"
    assert write(ExpectedOutput(classes, 0, "spark-dataframe"), out) == 3
    labels = [json.loads(line)["t0"] for line in out.read_text().splitlines()]
    assert labels == ["0..1,4", "2", "3"]


@pytest.mark.parametrize(
    "binding",
    [
        {"x": "<a>", "y": '"é\\n\t"'},  # escapes JSON needs, the rest as UTF-8
        {"x": '"\ud800"'},  # a lone surrogate: orjson refuses it, json escapes it
    ],
    ids=["unicode", "lone-surrogate"],
)
def test_each_output_line_reads_back_as_written(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], binding: dict[str, str]
) -> None:
    """Keys sorted, one line per relation, to a file or to stdout; any
    mapping as a binding; text that is not Unicode still written."""
    from types import MappingProxyType

    from pytest_rspbench.cli.oracle import json_line, write
    from pytest_rspbench.rsp.outputs import ExpectedOutput, ExpectedRelation, T0Class

    relations = (
        ExpectedRelation(0, 10, (0, 10), (binding, MappingProxyType({"x": "<b>"})), 3),
        ExpectedRelation(1, 20, (10, 20), (), 0),
    )
    expected = ExpectedOutput((T0Class(0, 0, relations),), 0, "spark-dataframe")
    out = tmp_path / "out.jsonl"
    write(expected, out)
    write(expected, None)
    for text in (out.read_bytes().decode("utf-8"), capsys.readouterr().out):
        lines = text.splitlines()
        assert [json.loads(line) for line in lines] == [
            {"t0": "0", "time": 10, "window": [0, 10], "index": 0, "triples": 3,
             "bindings": [binding, {"x": "<b>"}]},
            {"t0": "0", "time": 20, "window": [10, 20], "index": 1, "triples": 0,
             "bindings": []},
        ]  # fmt: skip
        assert list(json.loads(lines[0])) == sorted(json.loads(lines[0]))
    assert json_line({"b": 1, "a": "é"}) == '{"a":"é","b":1}\n'.encode()
