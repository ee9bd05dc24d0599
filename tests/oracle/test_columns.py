"""Solutions kept as Arrow columns: read as mappings, sorted, stored and
written as JSON exactly as the mappings they stand for."""

from __future__ import annotations

import json
from collections import Counter
from operator import itemgetter
from pathlib import Path
from typing import Any

import orjson
import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st

from pytest_rspbench.cli.oracle import write
from pytest_rspbench.oracle import r2s
from pytest_rspbench.oracle.store import outputs as store
from pytest_rspbench.oracle.store.columns import ColumnBindings, SolutionTable
from pytest_rspbench.oracle.t0.solutions import _collected
from pytest_rspbench.rsp.bags import bag, remembered, solution
from pytest_rspbench.rsp.outputs import ExpectedOutput, ExpectedRelation, T0Class
from pytest_rspbench.rsp.semantics import Semantics

# Text that sorts differently by UTF-16 unit than by code point, quotes,
# backslashes and control characters (which JSON escapes).
TEXT = st.sampled_from(
    ["<a>", "<b>", '"1"', '"x\\"y"', "a\\b", "\ufb01", "\U0001f389", "tab\there", "\x00", "é", ""]
)


class _Frame:
    """What the job's DataFrame gives the collector: ``toArrow()``."""

    def __init__(self, table: Any) -> None:
        self.table = table

    def toArrow(self) -> Any:
        return self.table


@st.composite
def job_rows(draw: st.DrawFn) -> tuple[list[str], list[dict[str, Any]]]:
    names = draw(
        st.lists(st.sampled_from(["x", "y", "b", "é"]), min_size=1, max_size=3, unique=True)
    )
    nullable = draw(st.booleans())
    value = st.one_of(st.none(), TEXT) if nullable else TEXT
    rows = draw(
        st.lists(
            st.fixed_dictionaries(
                {
                    "cls": st.integers(0, 1),
                    "win": st.integers(0, 1),
                    **{n: value for n in names},
                }
            ),
            max_size=40,
        )
    )
    return names, rows


def _job_table(names: list[str], rows: list[dict[str, Any]], batch: int) -> Any:
    """The rows as the job sends them: in batches, the counts mixed in."""
    import pyarrow as pa

    schema = pa.schema(
        [
            ("cls", pa.int32()),
            ("win", pa.int32()),
            *[("v_" + n, pa.string()) for n in names],
            ("w", pa.string()),
            ("count", pa.int64()),
        ]
    )
    records = [
        {
            "cls": r["cls"],
            "win": r["win"],
            **{"v_" + n: r[n] for n in names},
            "w": None,
            "count": None,
        }
        for r in rows
    ]
    records.append({"cls": 0, "win": 0, **{"v_" + n: None for n in names}, "w": "<w>", "count": 7})
    batches = [
        pa.RecordBatch.from_pylist(records[k : k + batch], schema)
        for k in range(0, len(records), batch)
    ]
    return pa.Table.from_batches(batches, schema)


@settings(max_examples=60, deadline=None)
@given(job=job_rows(), batch=st.integers(1, 9))
@example(  # ordered by ?b first, then ?x: the names' order, not the query's
    job=(
        ["x", "b"],
        [
            {"cls": 0, "win": 0, "x": "<a>", "b": "<b>"},
            {"cls": 0, "win": 0, "x": "<b>", "b": "<a>"},
        ],
    ),
    batch=1,
)
def test_the_job_s_solutions_are_each_evaluation_s_bag_sorted_as_r2s_sorts(
    job: tuple[list[str], list[dict[str, Any]]], batch: int
) -> None:
    names, rows = job
    triples, bags = _collected(_Frame(_job_table(names, rows, batch)), names)
    assert triples == {(0, 0, "<w>"): 7}
    expected: dict[tuple[int, int], list[dict[str, str]]] = {}
    for r in rows:
        expected.setdefault((r["cls"], r["win"]), []).append(
            {n: r[n] for n in names if r[n] is not None}
        )
    assert set(bags) == set(expected)
    for key, found in bags.items():
        assert isinstance(found, ColumnBindings)
        assert Counter(map(solution, found)) == Counter(map(solution, expected[key]))
        complete = all(len(b) == len(names) for b in expected[key])
        assert found.complete is complete
        if complete:  # the order RStream keeps: Python's sort of the values
            ordered = sorted(expected[key], key=itemgetter(*sorted(names)))
            assert list(found) == ordered
            assert r2s._sorted(found) is found
            assert json.loads(b"[" + found.json() + b"]") == ordered
            assert b"[" + found.json() + b"]" == orjson.dumps(ordered, option=orjson.OPT_SORT_KEYS)


def test_a_job_without_variables_gives_empty_solutions() -> None:
    _, bags = _collected(_Frame(_job_table([], [{"cls": 1, "win": 2}] * 2, 1)), [])
    assert bags == {(1, 2): [{}, {}]}


def _table(**columns: list[str | None]) -> SolutionTable:
    import pyarrow as pa

    return SolutionTable.of(pa.table({k: pa.array(v, pa.string()) for k, v in columns.items()}))


def test_a_bag_reads_as_the_tuple_of_its_mappings() -> None:
    source = _table(x=["<a>", "<b>", "<c>"], y=['"1"', None, '"1"'])
    whole, tail = source.bag(0, 3), source.bag(1, 3)
    assert len(tail) == 2 and tail.complete is False and source.bag(2, 3).complete
    assert tail == ({"x": "<b>"}, {"x": "<c>", "y": '"1"'})
    assert ({"x": "<b>"}, {"x": "<c>", "y": '"1"'}) == tail
    assert tail != whole and tail != "<b>" and not source.bag(1, 1)
    assert tail[1]["y"] is whole[0]["y"]  # one string object per distinct value
    assert whole[::2] == ({"x": "<a>", "y": '"1"'}, {"x": "<c>", "y": '"1"'})
    assert repr(tail) == "ColumnBindings(2 solutions of x, y)"
    with pytest.raises(TypeError):
        hash(tail)
    import pickle

    assert pickle.loads(pickle.dumps(tail)) == tail


def test_a_verdict_builds_a_column_bag_s_bag_once() -> None:
    found = _table(x=["<a>", "<a>"]).bag(0, 2)
    with remembered():
        assert bag(found) is bag(found)
    assert bag(found) == Counter({(("x", "<a>"),): 2})


def test_a_column_that_holds_no_text_is_refused() -> None:
    import pyarrow as pa

    with pytest.raises(ValueError, match="'x' holds int64, not text"):
        SolutionTable.of(pa.table({"x": [1, 2]}))


def _columnar(columns: dict[str, list[str | None]], sizes: list[int]) -> ExpectedOutput:
    source = _table(**columns)
    relations, at = [], 0
    for k, size in enumerate(sizes):
        relations.append(
            ExpectedRelation(k, 10 * k, (10 * k - 10, 10 * k), source.bag(at, at + size), size)
        )
        at += size
    return ExpectedOutput((T0Class(0, 0, tuple(relations)),), 0, "spark-dataframe", "", 0.5)


def _as_tuples(expected: ExpectedOutput) -> ExpectedOutput:
    """The same output with each bag a tuple of dicts."""
    from dataclasses import replace

    return replace(
        expected,
        classes=tuple(
            replace(c, relations=tuple(replace(r, bindings=tuple(r.bindings)) for r in c.relations))
            for c in expected.classes
        ),
    )


@pytest.mark.parametrize(
    "columns",
    [
        {"x": ["<a>", "<b>", '"q\\"\\\\"', "<a>"], "y": ['"é"', "\U0001f389", '"1"', '"1"']},
        {"x": ["<a>", '"ctl\x01\n"', "<b>", "<c>"]},  # control characters: orjson escapes
        {"x": ["<a>", None, "<b>", "<c>"]},  # an unbound variable: written from mappings
    ],
    ids=["quotes-and-unicode", "control-characters", "unbound"],
)
def test_columns_are_written_and_stored_as_their_mappings(
    tmp_path: Path, columns: dict[str, list[str | None]]
) -> None:
    expected = _columnar(columns, [1, 0, 3])
    write(expected, tmp_path / "columns.jsonl")
    write(_as_tuples(expected), tmp_path / "tuples.jsonl")
    assert (tmp_path / "columns.jsonl").read_bytes() == (tmp_path / "tuples.jsonl").read_bytes()
    store.save(tmp_path, "k", expected)
    back = store.load(tmp_path, "k")
    assert back is not None and back.classes == expected.classes
    assert isinstance(back.classes[0].relations[0].bindings, ColumnBindings)
    write(back, tmp_path / "back.jsonl")
    assert (tmp_path / "back.jsonl").read_bytes() == (tmp_path / "tuples.jsonl").read_bytes()


def test_bags_of_two_tables_are_stored_together(tmp_path: Path) -> None:
    one, two = _table(x=["<a>", "<b>"]), _table(x=["<c>", "<a>"])
    relations = (
        ExpectedRelation(0, 10, (0, 10), one.bag(0, 2), 2),
        ExpectedRelation(1, 20, (10, 20), two.bag(0, 2), 2),
    )
    expected = ExpectedOutput((T0Class(0, 0, relations),), 0, "spark-dataframe")
    store.save(tmp_path, "k", expected)
    back = store.load(tmp_path, "k")
    assert back is not None and back.classes == expected.classes


def test_rstream_keeps_a_complete_column_bag_as_it_is() -> None:
    found = _table(x=["<a>", "<b>"]).bag(0, 2)
    semantics = Semantics(bounds="[o,c)", t0=0, report=("window-close",))
    out = r2s.stream_out([(0, 10, 0, 10, 2, found)], "RStream", semantics)
    assert out[0].bindings is found
    out = r2s.stream_out([(0, 10, 0, 10, 2, found)], "IStream", semantics)
    assert out[0].bindings == ({"x": "<a>"}, {"x": "<b>"})
