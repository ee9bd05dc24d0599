"""open_source: spec stream entries to Stream objects."""

from __future__ import annotations

from pathlib import Path

import pytest

from pytest_rspbench.errors import StreamError
from pytest_rspbench.stream.model import Stream
from pytest_rspbench.stream.sources import open_source

IRI = "http://ex/stream"
S, P = "<http://ex/s>", "<http://ex/p>"


def times(stream: Stream) -> list[int]:
    return [e.time for e in stream.events()]


def test_files_kind_reads_the_csrbench_layout(tmp_path: Path) -> None:
    data = tmp_path / "data"
    data.mkdir()
    for n in (0, 1, 3):
        (data / f"data_{n:02d}.ttl").write_text(f"<http://ex/s> <http://ex/p> {n} .\n")
    config = {"kind": "files", "path": "data/data_*.ttl", "interval": 1000}
    stream = open_source(config, tmp_path, IRI)
    assert times(stream) == [0, 1000, 3000]
    assert times(stream) == [0, 1000, 3000]  # read again: re-opened
    assert stream.iri == IRI and stream.end is None
    absolute = {**config, "path": str(data / "data_*.ttl")}
    assert times(open_source(absolute, Path("/nowhere"), IRI)) == [0, 1000, 3000]


def test_lines_kind(tmp_path: Path) -> None:
    (tmp_path / "s.nt").write_text(f'{S} {P} "a" "5" .\n{S} {P} "b" "9" .\n')
    stream = open_source({"kind": "lines", "path": "s.nt"}, tmp_path, IRI)
    assert times(stream) == [5, 9]
    assert "s.nt" in stream.describe


def test_lines_kind_is_lazy_and_rereads(tmp_path: Path) -> None:
    path = tmp_path / "s.nt"
    path.write_text(f'{S} {P} "a" "5" .\n')
    stream = open_source({"kind": "lines", "path": "s.nt", "format": "n3t"}, tmp_path, IRI)
    path.write_text(f'{S} {P} "a" "6" .\n')
    assert times(stream) == [6]


def test_allow_disorder_sorts_the_file(tmp_path: Path) -> None:
    (tmp_path / "s.nt").write_text(f'{S} {P} "a" "9" .\n{S} {P} "b" "5" .\n{S} {P} "c" "9" .\n')
    config = {"kind": "lines", "path": "s.nt", "allow_disorder": True}
    events = list(open_source(config, tmp_path, IRI).events())
    assert [(e.time, [t[2] for t in e.triples]) for e in events] == [
        (5, ['"b"']),
        (9, ['"a"', '"c"']),
    ]
    strict = open_source({"kind": "lines", "path": "s.nt"}, tmp_path, IRI)
    with pytest.raises(StreamError, match=r"s\.nt:2:1: expected a timestamp >= 9"):
        list(strict.events())


def test_lines_kind_trig_and_jsonl(tmp_path: Path) -> None:
    (tmp_path / "s.trig").write_text("@prefix : <http://ex/> .\n:g { :a :b :c } :g :at 3 .\n")
    config = {
        "kind": "lines",
        "path": "s.trig",
        "format": "trig",
        "time_predicate": "http://ex/at",
    }
    assert times(open_source(config, tmp_path, IRI)) == [3]
    (tmp_path / "s.jsonl").write_text(f'{{"time": 4, "triples": [["{S[0:]}", "{P}", "_:o"]]}}\n')
    config = {"kind": "lines", "path": "s.jsonl", "format": "jsonl"}
    assert times(open_source(config, tmp_path, IRI)) == [4]


def test_generator_kind() -> None:
    config = {
        "kind": "generator",
        "name": "yabench-sg1",
        "stations": 3,
        "interval": 1000,
        "duration": 3000,
        "seed": 100,
    }
    stream = open_source(config, Path("."), IRI)
    assert times(stream)[:3] == [0, 874, 915]
    assert stream.end == 3000
    assert "stations=3" in stream.describe


def test_lsbench_and_workload_generators() -> None:
    social = {"kind": "generator", "name": "lsbench-social", "users": 20,
              "duration": 30_000, "seed": 2, "streams": ["pc", "plike"]}  # fmt: skip
    stream = open_source(social, Path("."), IRI)
    assert stream.end == 30_000 and times(stream) == times(stream)
    predicates = {t[1] for e in stream.events() for t in e.triples}
    assert not any("wgs84" in p for p in predicates)  # no gps stream
    burst = {"kind": "generator", "name": "workload", "shape": "periodic-burst",
             "rate": 10, "burst": 50, "period": 1000, "burst_length": 10,
             "duration": 2500}  # fmt: skip
    counts = [len(e.triples) // 3 for e in open_source(burst, Path("."), IRI).events()]
    assert sum(counts) == 26 + 2 * 50


@pytest.mark.parametrize(
    ("config", "message"),
    [
        ({"kind": "kafka"}, "expected kind to be one of"),
        ({}, "expected kind to be one of"),
        ({"kind": "lines"}, "needs a path"),
        ({"kind": "lines", "path": "s.nt", "fmt": "n3t"}, "unknown key 'fmt'"),
        ({"kind": "lines", "path": "s.nt", "format": "csv"}, "expected format"),
        ({"kind": "lines", "path": "missing.nt"}, "no file"),
        ({"kind": "lines", "path": "s.nt", "graph_time": True}, "nquads-ts only"),
        ({"kind": "lines", "path": "s.nt", "allow_disorder": "yes"}, "must be a bool"),
        (
            {"kind": "files", "path": "*.ttl", "interval": 0},
            "interval must be a whole number from 1 to",
        ),
        ({"kind": "files", "path": "*.ttl"}, "no file matches"),
        ({"kind": "files", "path": "*.ttl", "format": "json"}, "expected format"),
        ({"kind": "generator", "name": "nope"}, "unknown generator"),
        ({"kind": "generator", "name": "yabench-sg1", "speed": 1}, "takes"),
        ({"kind": "generator", "name": "yabench-sg1", "stations": 0}, "stations"),
        ({"kind": "generator", "name": "workload", "shape": "zigzag"}, "shape"),
        ({"kind": "generator", "name": "lsbench-social", "streams": ["x"]}, "streams"),
    ],
)
def test_bad_configs(tmp_path: Path, config: dict[str, object], message: str) -> None:
    (tmp_path / "s.nt").write_text("")
    with pytest.raises(StreamError, match=message):
        open_source(config, tmp_path, IRI)
