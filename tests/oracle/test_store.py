"""The oracle's stored outputs: keyed by everything that determines them."""

from __future__ import annotations

import gzip
from collections.abc import Mapping
from pathlib import Path
from types import MappingProxyType
from typing import Any

import pytest

from pytest_rspbench.engine.api import Semantics
from pytest_rspbench.oracle.store import outputs as store
from pytest_rspbench.oracle.store.streamcache import StreamCache
from pytest_rspbench.rsp import rspql
from pytest_rspbench.rsp.outputs import ExpectedOutput, ExpectedRelation, T0Class
from pytest_rspbench.stream.model import Event, Stream

IRI = "http://ex/stream"
QUERY = (
    "PREFIX : <http://ex/>\nREGISTER RStream :out AS SELECT ?x ?v\n"
    f"FROM NAMED WINDOW :w ON STREAM <{IRI}> [RANGE 6 STEP 3]\n"
    "WHERE { WINDOW :w { ?x :p ?v } }"
)
SEMANTICS = Semantics(bounds="[o,c)", t0="any", report=("window-close",))
STREAMS = [(IRI, "a" * 64, None, 0)]


def sample() -> ExpectedOutput:
    tricky = '"tab\there \\"q\\" é🎉"@fr'
    relations = (
        ExpectedRelation(0, 6, (0, 6), ({"x": "<http://ex/a>", "v": tricky},) * 2, 3),
        ExpectedRelation(1, 9, (3, 9), (), 0),
    )
    classes = (T0Class(0, 1, relations), T0Class(2, 2, relations[:1]))
    return ExpectedOutput(classes, 5, "spark-pyoxigraph", "MINUS is not compiled", 1.25)


def test_an_output_survives_the_round_trip(tmp_path: Path) -> None:
    store.save(tmp_path, "k", sample())
    back = store.load(tmp_path, "k")
    assert back is not None and back.stored
    assert back.classes == sample().classes
    assert (back.stable_from, back.evaluator, back.fallback_reason, back.seconds) == (
        5,
        "spark-pyoxigraph",
        "MINUS is not compiled",
        1.25,
    )
    assert [p.name for p in (tmp_path / store.FOLDER).iterdir()] == ["k.arrow"]


@pytest.mark.parametrize(
    "bindings",
    [
        ({"x": "<a>"}, {"x": "<b>", "y": '"1"'}, {}),  # unbound, and no variable bound
        ({}, {}),  # a query that binds no variable
        # Not plain dicts: each variable picked out in Python, not by Arrow.
        (MappingProxyType({"x": "<a>"}), {"x": "<b>", "y": '"1"'}),
    ],
    ids=["unbound", "no-variables", "other-mappings"],
)
def test_unbound_variables_survive_the_round_trip(
    tmp_path: Path, bindings: tuple[Mapping[str, str], ...]
) -> None:
    relations = (ExpectedRelation(0, 6, (0, 6), bindings, 3), ExpectedRelation(1, 9, (3, 9), (), 0))
    expected = ExpectedOutput((T0Class(0, 0, relations),), 0, "spark-dataframe", "", 0.5)
    store.save(tmp_path, "k", expected)
    back = store.load(tmp_path, "k")
    assert back is not None and back.classes == expected.classes


def test_text_arrow_will_not_take_is_stored_as_json(tmp_path: Path) -> None:
    lone = '"\ud800"'  # a lone surrogate: not valid Unicode
    relations = (ExpectedRelation(0, 6, (0, 6), ({"x": lone},), 1),)
    expected = ExpectedOutput((T0Class(0, 0, relations),), 0, "spark-pyoxigraph", "", 0.5)
    store.save(tmp_path, "k", expected)
    assert [p.name for p in (tmp_path / store.FOLDER).iterdir()] == ["k.json.gz"]
    back = store.load(tmp_path, "k")
    assert back is not None and back.classes == expected.classes


def test_a_missing_entry_is_none(tmp_path: Path) -> None:
    assert store.load(tmp_path, "nothing") is None


def _arrow(metadata: dict[str, str] | None, rows: int = 2) -> bytes:
    import pyarrow as pa

    table = pa.table({"x": pa.array(["<a>"] * rows)}).replace_schema_metadata(metadata)
    sink = pa.BufferOutputStream()
    with pa.ipc.new_file(sink, table.schema) as writer:
        writer.write_table(table)
    return sink.getvalue().to_pybytes()


_ONE_RELATION = (
    '{"classes": [{"first": 0, "last": 0, "relations": [[0, 6, [0, 6], 1, %d]]}], '
    '"stable_from": 0, "evaluator": "e", "fallback_reason": "", "seconds": 1}'
)


@pytest.mark.parametrize(
    ("suffix", "damage"),
    [
        (".json.gz", b"not gzip"),
        (".json.gz", gzip.compress(b'{"classes": 3}', mtime=0)),
        (".arrow", b"not arrow"),
        (".arrow", _arrow(None)),
        (".arrow", _arrow({"rspbench": _ONE_RELATION % 1})),  # two rows, one held
        (".arrow", _arrow({"rspbench": _ONE_RELATION % 3})),  # two rows, three held
    ],
    # the same ids in every xdist worker
    ids=["not-gzip", "not-an-output", "not-arrow", "no-metadata", "more-rows", "fewer-rows"],
)
def test_a_damaged_entry_is_discarded(tmp_path: Path, suffix: str, damage: bytes) -> None:
    path = tmp_path / store.FOLDER / f"k{suffix}"
    path.parent.mkdir()
    path.write_bytes(damage)
    assert store.load(tmp_path, "k") is None
    assert not path.exists()


def test_an_undamaged_entry_of_that_shape_is_read() -> None:
    """The damaged entries above differ from a good one only in what they say."""
    import pyarrow as pa

    table = pa.ipc.open_file(pa.BufferReader(_arrow({"rspbench": _ONE_RELATION % 2}))).read_all()
    (cls,) = store._from_table(table).classes
    assert cls.relations[0].bindings == ({"x": "<a>"}, {"x": "<a>"})


def test_an_unwritable_store_is_not_an_error(tmp_path: Path) -> None:
    (tmp_path / store.FOLDER).write_text("a file where the folder should be")
    store.save(tmp_path, "k", sample())
    assert store.load(tmp_path, "k") is None


@pytest.mark.parametrize(
    "change",
    [
        {"query_text": QUERY.replace("STEP 3", "STEP 2")},
        {"semantics": Semantics(bounds="(o,c]", t0="any", report=("window-close",))},
        {"semantics": Semantics(bounds="[o,c)", t0=0, report=("window-close",))},
        {"streams": [(IRI, "b" * 64, None, 0)]},
        {"streams": [(IRI, "a" * 64, 40, 0)]},
        {"streams": [(IRI, "a" * 64, None, 2)]},
        {"static": [("<http://ex/s>", "<http://ex/p>", "<http://ex/o>")]},
        {"force_fallback": True},
    ],
    ids=["query", "bounds", "t0", "content", "end", "start", "static", "fallback"],
)
def test_every_input_is_part_of_the_key(change: dict[str, Any]) -> None:
    base = {
        "query_text": QUERY,
        "semantics": SEMANTICS,
        "streams": STREAMS,
        "static": [],
        "force_fallback": False,
    }
    assert store.key(**base) == store.key(**base)
    assert store.key(**base) != store.key(**(base | change))


def test_static_triples_are_keyed_as_a_set() -> None:
    one = [("<http://ex/a>", "<http://ex/p>", "1"), ("<http://ex/b>", "<http://ex/p>", "2")]
    keys = {store.key(QUERY, SEMANTICS, STREAMS, triples, False) for triples in (one, one[::-1])}
    assert len(keys) == 1


@pytest.mark.spark
def test_the_second_computation_is_read_back(spark: Any, tmp_path: Path) -> None:
    from pytest_rspbench.oracle.oracle import expected_output

    events = [
        Event(t, ((f"<http://ex/x{t % 3}>", "<http://ex/p>", f'"{t}"'),)) for t in range(0, 30, 2)
    ]
    query = rspql.parse(QUERY)
    cache = StreamCache(tmp_path)

    def compute(semantics: Semantics = SEMANTICS) -> ExpectedOutput:
        stream = Stream(IRI, lambda: iter(events), "in memory")
        return expected_output(
            spark, query, [stream], semantics, starts={IRI: 2}, cache=cache, keep=True
        )

    first, second = compute(), compute()
    assert not first.stored and second.stored
    assert second.classes == first.classes and second.stable_from == first.stable_from
    other = compute(Semantics(bounds="(o,c]", t0="any", report=("window-close",)))
    assert not other.stored
    assert len(list((tmp_path / store.FOLDER).glob("*.arrow"))) == 2
    for cache_or_not in (None, cache):  # without a cache, or not asked to keep
        again = expected_output(
            spark,
            query,
            [Stream(IRI, lambda: iter(events), "in memory")],
            SEMANTICS,
            starts={IRI: 2},
            cache=cache_or_not,
        )
        assert not again.stored and again.classes == first.classes


@pytest.mark.spark
def test_a_stored_output_of_cached_streams_starts_no_spark(spark: Any, tmp_path: Path) -> None:
    from pytest_rspbench.oracle.oracle import expected_output
    from pytest_rspbench.stream.sources import open_source

    sg1 = {
        "kind": "generator",
        "name": "yabench-sg1",
        "stations": 2,
        "seed": 1,
        "interval": 1000,
        "duration": 3000,
    }
    query = rspql.parse(QUERY.replace("RANGE 6 STEP 3", "RANGE 2000 STEP 1000"))
    cache = StreamCache(tmp_path)

    def compute(session: Any) -> ExpectedOutput:
        stream = open_source(sg1, Path("."), IRI)
        return expected_output(session, query, [stream], SEMANTICS, cache=cache, keep=True)

    started = []

    def lazily() -> Any:
        started.append(1)
        return spark

    first = compute(lazily)
    assert started == [1] and not first.stored

    def no_spark() -> Any:
        raise AssertionError("Spark was started for a stored output")

    second = compute(no_spark)
    assert second.stored and second.classes == first.classes


def test_the_key_covers_the_code_the_oracle_imports_and_only_that() -> None:
    import pytest_rspbench

    package = Path(pytest_rspbench.__file__).parent
    names = {str(p.relative_to(package)) for p in store.oracle_modules(package)}
    # imported at module level, transitively, and inside functions (fallback)
    assert {
        "oracle/oracle.py",
        "oracle/sparql/numerics.py",
        "rsp/windows.py",
        "rsp/rspql.py",
        "oracle/sparql/fallback.py",
        "rsp/semantics.py",
        "oracle/spark/provider.py",
        "oracle/spark/sizing.py",
    } <= names
    assert not {"plugin.py", "runner.py", "verdict/strict.py", "report/panel.py"} & names


def test_streams_are_keyed_by_their_rows_not_their_source(tmp_path: Path) -> None:
    from pytest_rspbench.oracle.store.streamcache import _write_dataset

    events = [Event(t, (("<http://ex/a>", "<http://ex/p>", f'"{t}"'),)) for t in (0, 5)]
    one = Stream(IRI, lambda: iter(events), "in memory", fingerprint=lambda: "v1")
    two = Stream(IRI, lambda: iter(events), "in memory", fingerprint=lambda: "v2")
    other = Stream(IRI, lambda: iter(events[:1]), "in memory")
    metas = [_write_dataset(s, tmp_path / str(k), None) for k, s in enumerate((one, two, other))]
    assert StreamCache(tmp_path).key(one) != StreamCache(tmp_path).key(two)
    assert metas[0]["content"] == metas[1]["content"] != metas[2]["content"]
