"""Streams written once to Parquet for the oracle, cached by content hash."""

from __future__ import annotations

import json
import os
import random
import subprocess
import sys
from collections.abc import Iterator
from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from pytest_rspbench.errors import StreamError
from pytest_rspbench.oracle.sparql.datatypes import UNTYPED
from pytest_rspbench.oracle.store import streamcache as mat
from pytest_rspbench.oracle.store.streamcache import StreamCache, encode_rows, stream_cache
from pytest_rspbench.stream.model import Event, Stream
from pytest_rspbench.stream.sources import open_source

from helpers.project import GENERATED_SPEC

IRI = "http://ex/stream"
S, P = "<http://ex/s>", "<http://ex/p>"
SG1 = {"kind": "generator", "name": "yabench-sg1", "stations": 3, "seed": 1}
SG1 |= {"interval": 1000, "duration": 4000}

# Literals that break naive escaping: the oracle must see them unchanged.
TRICKY = [
    '"tab\there"',
    '"line\nbreak\r\nand CR\r"',
    '"say \\"hi\\""',
    '"back\\\\slash \\\\n not a newline"',
    '"raw \\ backslash and "quotes" inside"',
    '"unicode é 漢字 🎉 \u2028 \u0085 \x00 \x7f"@fr',
    '"{\\"json\\": [1, 2]}"^^<http://ex/json>',
    "<http://ex/iri with space>",
    "_:b0",
]


def rows_of(stream: Stream) -> list[tuple[str, str, str, str, int]]:
    return sorted((stream.iri, s, p, o, e.time) for e in stream.events() for s, p, o in e.triples)


def in_memory(events: list[Event], iri: str = IRI) -> Stream:
    return Stream(iri, lambda: iter(events), "in memory")


def counted(stream: Stream) -> tuple[Stream, list[int]]:
    """The stream, and a list that grows by one each time it is read."""
    reads: list[int] = []

    def read() -> Iterator[Event]:
        reads.append(1)
        return stream.read()

    return replace(stream, read=read), reads


class CountingSpark:
    """A SparkSession proxy that counts readers opened (Spark work started)."""

    def __init__(self, spark: Any) -> None:
        self.spark, self.reads = spark, 0

    @property
    def read(self) -> Any:
        self.reads += 1
        return self.spark.read


# --- without Spark ---------------------------------------------------------


@given(st.lists(st.tuples(st.text(), st.text(), st.text()), max_size=5))
def test_rows_carry_any_term_unchanged(triples: list[tuple[str, str, str]]) -> None:
    lines = encode_rows(7, triples).encode("utf-8").split(b"\n")
    assert lines.pop() == b""  # one line per triple: no raw newline survives
    decoded = [json.loads(line) for line in lines]
    assert [(d["s"], d["p"], d["o"], d["t"]) for d in decoded] == [
        (*triple, 7) for triple in triples
    ]


def test_a_lone_surrogate_is_a_stream_error(tmp_path: Path) -> None:
    stream = in_memory([Event(5, ((S, P, '"bad \ud800"'),))])
    with pytest.raises(StreamError, match=r"t=5 ms is not valid Unicode"):
        StreamCache(tmp_path).materialise(None, stream)  # fails before Spark
    assert list(tmp_path.iterdir()) == []  # no entry, no scratch folder


def test_written_without_spark_with_sizes_and_repeats(tmp_path: Path) -> None:
    events = [
        Event(0, ((S, P, '"a"'), (S, P, '"b"'))),
        Event(0, ((S, P, '"c"'),)),  # the same time again: one size
        Event(4, ((S, P, '"d"'),)),
    ]
    stored = StreamCache(tmp_path).materialise(None, in_memory(events))  # no Spark at all
    assert (stored.times, stored.sizes, stored.triples) == ((0, 4), (3, 1), 4)
    assert stored.distinct
    again = in_memory([*events, Event(9, ((S, P, '"a"'),))])  # "a" a second time
    repeated = StreamCache(tmp_path).materialise(None, again)
    assert not repeated.distinct and repeated.sizes == (3, 1, 1)
    import pyarrow.parquet as pq

    table = pq.read_table(stored.path)
    # e and q: each row's event and triple ordinals, for count windows.
    assert table.column_names == ["stream", "s", "p", "o", "t", "e", "q"]
    columns = [table.column(c).to_pylist() for c in table.column_names]
    assert sorted(zip(*columns[:5], strict=True)) == rows_of(in_memory(events))
    placed = {o: (e, q) for o, e, q in zip(*columns[3:4], *columns[5:], strict=True)}
    assert placed == {'"a"': (1, 1), '"b"': (1, 2), '"c"': (2, 3), '"d"': (3, 4)}
    assert (stored.events, stored.event_sizes) == ((2, 1), (2, 1, 1))


def test_many_batches_make_row_groups(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(mat, "BATCH_ROWS", 4)
    events = [Event(t, ((S, P, f'"{t}"'), (S, P, f'"{t}x"'))) for t in range(9)]
    stored = StreamCache(tmp_path).materialise(None, in_memory(events))
    import pyarrow.parquet as pq

    metadata = pq.ParquetFile(next(stored.path.glob("*.parquet"))).metadata
    assert metadata.num_row_groups == 5 and metadata.num_rows == 18
    assert stored.distinct and stored.sizes == (2,) * 9
    # The ordinals run on across batches: triple q of event (q + 1) // 2.
    table = pq.read_table(stored.path)
    pairs = zip(table.column("e").to_pylist(), table.column("q").to_pylist(), strict=True)
    assert sorted(pairs) == [((q + 1) // 2, q) for q in range(1, 19)]


def test_key_follows_the_generator_parameters() -> None:
    cache = StreamCache(Path("unused"))

    def key(iri: str = IRI, **changes: Any) -> str | None:
        return cache.key(open_source(SG1 | changes, Path("."), iri))

    assert key() == key()
    assert key(stations=4) != key()
    assert key(seed=2) != key()
    assert key(iri="http://ex/other") != key()
    assert key(min_temp=0) == key()  # a default written out: the same stream
    assert cache.key(in_memory([])) is None  # only its content can tell


def test_key_follows_the_bytes_of_files(tmp_path: Path) -> None:
    cache = StreamCache(tmp_path / "cache")
    (tmp_path / "s.nt").write_text(f'{S} {P} "a" "5" .\n')
    (tmp_path / "d_1.nt").write_text(f'{S} {P} "a" .\n')
    lines = {"kind": "lines", "path": "s.nt"}
    files = {"kind": "files", "path": "d_*.nt", "format": "ntriples"}
    before = [cache.key(open_source(c, tmp_path, IRI)) for c in (lines, files)]
    (tmp_path / "s.nt").write_text(f'{S} {P} "b" "5" .\n')
    (tmp_path / "d_1.nt").write_text(f'{S} {P} "b" .\n')
    after = [cache.key(open_source(c, tmp_path, IRI)) for c in (lines, files)]
    assert before[0] != after[0] and before[1] != after[1]
    sorted_lines = lines | {"allow_disorder": True}
    assert cache.key(open_source(sorted_lines, tmp_path, IRI)) != after[0]


def test_leftovers_of_ended_processes_are_removed(tmp_path: Path) -> None:
    ended = subprocess.run(
        [sys.executable, "-c", "import os; print(os.getpid())"],
        capture_output=True,
        text=True,
        check=True,
    )
    host = mat._host()
    dead = tmp_path / f".tmp-{ended.stdout.strip()}-00ff-{host}"
    alive = tmp_path / f".tmp-{os.getpid()}-00ff-{host}"
    elsewhere = tmp_path / f".tmp-{ended.stdout.strip()}-00ff-{host}x"
    entry = tmp_path / "0123abcd"
    for folder in (dead, alive, elsewhere, entry):
        (folder / "data").mkdir(parents=True)
    mat.clean_leftovers(tmp_path)
    assert sorted(p.name for p in tmp_path.iterdir()) == sorted(
        p.name for p in (alive, elsewhere, entry)
    )


def test_which_cache_the_oracle_uses(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path))
    default = stream_cache("local[2]", None)
    assert default is not None
    assert default.root == tmp_path / "pytest-rspbench" / "streams"
    assert stream_cache("spark://cluster.example:7077", None) is None
    chosen = stream_cache("spark://cluster.example:7077", tmp_path / "shared")
    assert chosen is not None and chosen.root == tmp_path / "shared"
    assert stream_cache("local[2]", "none") is None

    class PytestCache:
        def mkdir(self, name: str) -> Path:
            return tmp_path / "pytest" / name

    in_pytest = stream_cache("sc://localhost:15002", None, PytestCache())
    assert in_pytest is not None
    assert in_pytest.root == tmp_path / "pytest" / "rspbench-streams"


# --- with Spark ------------------------------------------------------------


@pytest.mark.spark
def test_round_trip_keeps_tricky_terms(spark: Any, tmp_path: Path) -> None:
    events = [
        Event(0, tuple((S, P, o) for o in TRICKY)),
        Event(0, ((S, P, TRICKY[0]),)),  # duplicates stay: a stream is a multiset
        Event(7, tuple((s, P, S) for s in TRICKY[-2:])),
    ]
    stream = in_memory(events)
    # Brackets and braces are globs to Spark's readers: the path must not be.
    stored = StreamCache(tmp_path / "cache [x]{y}").materialise(spark, stream)
    got = sorted(tuple(row) for row in stored.frame(spark).collect())
    assert got == rows_of(stream)
    assert (stored.triples, stored.times) == (len(TRICKY) + 3, (0, 7))
    # Per predicate, the datatypes of its literal objects, and UNTYPED for its
    # other objects (for the compiler).
    assert stored.datatypes == {P: [UNTYPED, "http://ex/json"]}


@pytest.mark.spark
def test_second_materialisation_reads_nothing(spark: Any, tmp_path: Path) -> None:
    stream, reads = counted(open_source(SG1, Path("."), IRI))
    first = StreamCache(tmp_path).materialise(spark, stream)
    again = StreamCache(tmp_path).materialise(spark, stream)  # as in a new run
    assert reads == [1]
    assert again == first
    assert sorted(tuple(r) for r in again.frame(spark).collect()) == rows_of(stream)
    other = open_source(SG1 | {"stations": 4}, Path("."), IRI)
    assert StreamCache(tmp_path).materialise(spark, other).path != first.path


@pytest.mark.spark
def test_in_memory_streams_are_keyed_by_content(spark: Any, tmp_path: Path) -> None:
    stream, reads = counted(in_memory([Event(3, ((S, P, '"a"'),))]))
    counting = CountingSpark(spark)
    first = StreamCache(tmp_path).materialise(counting, stream)
    written = counting.reads
    again = StreamCache(tmp_path).materialise(counting, stream)
    assert again == first and len(reads) == 2  # read again to hash it ...
    assert counting.reads == written  # ... but Spark did nothing
    changed = in_memory([Event(3, ((S, P, '"b"'),))])
    assert StreamCache(tmp_path).materialise(spark, changed).path != first.path


@pytest.mark.spark
def test_a_failed_or_killed_write_is_never_read(spark: Any, tmp_path: Path) -> None:
    def broken() -> Iterator[Event]:
        yield Event(0, ((S, P, '"a"'),))
        raise StreamError("bad line 2")

    cache = StreamCache(tmp_path)
    with pytest.raises(StreamError, match="bad line 2"):
        cache.materialise(spark, Stream(IRI, broken, "broken"))
    assert list(tmp_path.iterdir()) == []
    # What a killed run leaves: a scratch folder of a process that is gone,
    # and (after a crash of the machine) an entry folder without metadata.
    stream = open_source(SG1, Path("."), IRI)
    key = cache.key(stream)
    assert key is not None
    (tmp_path / key).mkdir()
    (tmp_path / key / "part-0.parquet").write_text("half written")
    leftover = tmp_path / f".tmp-999999999-00ff-{mat._host()}"
    (leftover / "data").mkdir(parents=True)
    stored = cache.materialise(spark, stream)
    assert sorted(tuple(r) for r in stored.frame(spark).collect()) == rows_of(stream)
    assert [p.name for p in tmp_path.iterdir()] == [key]


@pytest.mark.spark
def test_the_oracle_computes_the_same_from_parquet(spark: Any, tmp_path: Path) -> None:
    from pytest_rspbench.engine.api import Semantics
    from pytest_rspbench.oracle.oracle import expected_output
    from pytest_rspbench.rsp import rspql
    from pytest_rspbench.rsp.bags import bag

    rng = random.Random(3)

    def triple() -> tuple[str, str, str]:
        lexical = rng.choice(["tab\t", "new\nline", 'quote\\"', "é🎉"])
        value = f'"{lexical}{rng.randrange(9)}"'
        return f"<http://ex/x{rng.randrange(4)}>", "<http://ex/p>", value

    times = sorted(rng.sample(range(40), 12))
    events = [Event(t, tuple(triple() for _ in range(rng.randrange(1, 4)))) for t in times]
    query = rspql.parse(
        "PREFIX : <http://ex/>\nREGISTER RStream :out AS SELECT ?x ?v\n"
        f"FROM NAMED WINDOW :w ON STREAM <{IRI}> [RANGE 6 STEP 3]\n"
        "WHERE { WINDOW :w { ?x :p ?v } }"
    )
    semantics = Semantics(bounds="[o,c)", t0="any", report=("window-close",))

    def shape(cache: StreamCache | None) -> Any:
        out = expected_output(
            spark, query, [in_memory(events)], semantics, starts={IRI: 2}, cache=cache
        )
        return out.stable_from, [
            (
                c.first,
                c.last,
                [(r.index, r.time, r.window, r.triples, bag(r.bindings)) for r in c.relations],
            )
            for c in out.classes
        ]

    assert shape(StreamCache(tmp_path)) == shape(None)


@pytest.mark.spark
def test_cli_writes_a_parquet_folder(
    spark: Any, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    from pytest_rspbench.cli import main

    target = tmp_path / "sg1"
    argv = [
        "stream",
        "generate",
        "yabench-sg1",
        "--set",
        "stations=3",
        "--set",
        "seed=1",
        "--set",
        "interval=1000",
        "--set",
        "duration=4000",
        "--format",
        "parquet",
        "-o",
        str(target),
        "--iri",
        IRI,
        "--quiet",
    ]
    assert main(argv) == 0
    frame = spark.read.schema(mat.SCHEMA).parquet(str(target))
    expected = rows_of(open_source(SG1, Path("."), IRI))
    assert sorted(tuple(r) for r in frame.collect()) == expected
    assert f"{len(expected)} triples" in capsys.readouterr().err
    assert main(argv) == 1  # the folder is taken
    assert "already exists" in capsys.readouterr().err


# --- through pytest --------------------------------------------------------


SHOW_CACHE = """
from pytest_rspbench.plugin import SESSION_KEY
def pytest_collection_finish(session):
    cache = session.config.stash[SESSION_KEY].stream_cache()
    print("CACHE", cache.root if cache else None)
"""


def test_cache_dir_from_option_env_or_ini(
    pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv(mat.ENV)
    pytester.makeconftest(SHOW_CACHE)
    pytester.makeini("[pytest]\nrspbench_cache_dir = from-ini\n")
    root = pytester.path
    result = pytester.runpytest("-s", "--collect-only")
    result.stdout.fnmatch_lines([f"CACHE {root / 'from-ini'}"])
    monkeypatch.setenv(mat.ENV, str(root / "from-env"))
    result = pytester.runpytest("-s", "--collect-only")
    result.stdout.fnmatch_lines([f"CACHE {root / 'from-env'}"])
    result = pytester.runpytest("-s", "--collect-only", "--rspbench-cache-dir=none")
    result.stdout.fnmatch_lines(["CACHE None"])


def test_default_cache_is_in_pytest_cache(
    pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv(mat.ENV)
    pytester.makeconftest(SHOW_CACHE)
    result = pytester.runpytest("-s", "--collect-only")
    folder = pytester.path / ".pytest_cache" / "d" / "rspbench-streams"
    result.stdout.fnmatch_lines([f"CACHE {folder}"])


@pytest.mark.spark
@pytest.mark.usefixtures("spark")
def test_items_sharing_a_stream_write_it_once(pytester: pytest.Pytester) -> None:
    pytester.makefile(".rspbench.yaml", shared=GENERATED_SPEC)
    cache = pytester.path / "streams"
    result = pytester.runpytest(f"--rspbench-cache-dir={cache}")
    result.assert_outcomes(passed=2)
    entries = [p for p in cache.iterdir() if p.name != "expected"]  # oracle outputs
    assert len(entries) == 1 and (entries[0] / mat.META).is_file()
    stored = sorted((cache / "expected").iterdir())
    assert len(stored) == 2  # one per case (two steps)
    pytester.runpytest(f"--rspbench-cache-dir={cache}").assert_outcomes(passed=2)
    assert [p for p in cache.iterdir() if p.name != "expected"] == entries
    assert sorted((cache / "expected").iterdir()) == stored  # read back, not computed
