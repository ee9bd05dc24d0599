"""TriG streams: one event per named graph, time from a predicate."""

from __future__ import annotations

from pathlib import Path

import pytest

from pytest_rspbench.errors import StreamError
from pytest_rspbench.stream.trig import read_trig_events

PREFIXES = """\
@prefix prov: <http://www.w3.org/ns/prov#> .
@prefix xsd: <http://www.w3.org/2001/XMLSchema#> .
@prefix : <http://ex/> .
"""


def trig(tmp_path: Path, body: str) -> Path:
    path = tmp_path / "s.trig"
    path.write_text(PREFIXES + body, encoding="utf-8")
    return path


def error_of(path: Path, **options: object) -> str:
    with pytest.raises(StreamError) as info:
        list(read_trig_events(path, **options))  # type: ignore[arg-type]
    return str(info.value)


def test_graphs_become_events_with_datetime_or_ms(tmp_path: Path) -> None:
    path = trig(
        tmp_path,
        """\
:g1 { :a :b :c . :a :b "x" . }
:g1 prov:generatedAtTime "1970-01-01T00:00:01Z"^^xsd:dateTime .
:g2 prov:generatedAtTime 2500 .
:g2 { :a :b :d . }
:g3 { :a :b :e . :g3 prov:generatedAtTime "3000"^^xsd:long . }
""",
    )
    events = list(read_trig_events(path))
    assert [e.time for e in events] == [1000, 2500, 3000]
    assert events[0].triples == (
        ("<http://ex/a>", "<http://ex/b>", "<http://ex/c>"),
        ("<http://ex/a>", "<http://ex/b>", '"x"'),
    )
    assert events[2].triples == (("<http://ex/a>", "<http://ex/b>", "<http://ex/e>"),)


def test_configurable_time_predicate(tmp_path: Path) -> None:
    path = trig(tmp_path, ":g1 { :a :b :c } :g1 :at 7 .\n:g2 { :a :b :c } :g2 :at 9 .\n")
    assert [e.time for e in read_trig_events(path, time_predicate="<http://ex/at>")] == [
        7,
        9,
    ]


def test_graph_without_time_is_an_error_at_end_of_file(tmp_path: Path) -> None:
    path = trig(tmp_path, ":g1 { :a :b :c }\n")
    assert error_of(path).startswith(f"{path}:5:1: expected a time for graph <http://ex/g1>")


def test_other_default_graph_triples_are_an_error(tmp_path: Path) -> None:
    path = trig(tmp_path, ":g1 { :a :b :c }\n:g1 prov:generatedAtTime 1 .\n:a :b :c .\n")
    message = error_of(path)
    assert message.startswith(f"{path}:4:7: triple <http://ex/a>"), message
    assert "default graph" in message


def test_graph_in_two_blocks_is_an_error(tmp_path: Path) -> None:
    path = trig(
        tmp_path,
        ":g1 { :a :b :c }\n:g2 { :a :b :c }\n:g1 { :a :b :d }\n"
        ":g1 prov:generatedAtTime 1 .\n:g2 prov:generatedAtTime 2 .\n",
    )
    assert "expected each named graph in one block" in error_of(path)


def test_two_times_for_one_graph(tmp_path: Path) -> None:
    path = trig(tmp_path, ":g1 prov:generatedAtTime 1, 2 .\n:g1 { :a :b :c }\n")
    assert "expected one time for graph <http://ex/g1>" in error_of(path)


def test_bad_time_value(tmp_path: Path) -> None:
    path = trig(tmp_path, ':g1 { :a :b :c }\n:g1 prov:generatedAtTime "soon" .\n')
    assert error_of(path).startswith(f"{path}:5:26: graph <http://ex/g1>: expected")


def test_disorder(tmp_path: Path) -> None:
    path = trig(
        tmp_path,
        ":g1 { :a :b :c } :g1 prov:generatedAtTime 5 .\n"
        ":g2 { :a :b :c } :g2 prov:generatedAtTime 4 .\n",
    )
    assert "expected graph times >= 5 ms, found 4 ms" in error_of(path)
    assert [e.time for e in read_trig_events(path, allow_disorder=True)] == [5, 4]


def test_syntax_error_has_pyoxigraph_position(tmp_path: Path) -> None:
    path = trig(
        tmp_path,
        ":g1 { :a :b :c } :g1 prov:generatedAtTime 5 .\n"
        ":g2 { :a :b :c } :g2 prov:generatedAtTime 6 .\n:g3 { :a :b ",
    )
    events = read_trig_events(path)
    assert next(events).time == 5  # emitted before the parser reaches the error
    with pytest.raises(StreamError, match=r"s\.trig:6:\d+: TriG syntax error"):
        next(events)
