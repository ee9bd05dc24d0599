"""A damaged stream-cache entry repairs itself.

A Parquet file of a published entry that no longer holds what was written
would make every later run fail with "Spark job failed ... collectToPython".
The entry is checked on lookup, discarded with a CacheRepairWarning and the
stream written again::

    <cache>/<key>/part-0.parquet   bytes flipped, cut, or gone
    lookup                         damaged -> discarded (warning)
    materialise                    written again -> the same rows
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from pytest_rspbench.oracle.store.streamcache import (
    META,
    CacheRepairWarning,
    ParquetStream,
    StreamCache,
)
from pytest_rspbench.rsp.rspql import parse
from pytest_rspbench.rsp.semantics import Semantics
from pytest_rspbench.stream.model import Event, Stream

pytestmark = pytest.mark.spark

IRI = "http://ex/s"
EVENTS = [Event(t, ((f"<http://ex/o{t}>", "<http://ex/v>", f'"{t}"'),)) for t in range(0, 40, 3)]
QUERY = parse(
    "PREFIX : <http://ex/>\nREGISTER RStream :out AS SELECT ?o ?x\n"
    f"FROM NAMED WINDOW :w ON STREAM <{IRI}> [RANGE 10 STEP 10]\n"
    "WHERE { WINDOW :w { ?o :v ?x } }"
)
SEMANTICS = Semantics(bounds="[o,c)", t0=0, report=("window-close",))


def stream() -> Stream:
    return Stream(IRI, lambda: iter(EVENTS), "in memory", end=40, fingerprint=lambda: "v1")


def rows(spark: Any, stored: ParquetStream) -> list[tuple[Any, ...]]:
    return sorted(tuple(r) for r in stored.frame(spark).collect())


def parquet_file(stored: ParquetStream) -> Path:
    return max(stored.path.glob("part-*.parquet"), key=lambda p: p.stat().st_size)


def flip_bytes(path: Path) -> None:
    data = bytearray(path.read_bytes())
    middle = len(data) // 2
    data[middle : middle + 8] = bytes(b ^ 0xFF for b in data[middle : middle + 8])
    path.write_bytes(bytes(data))


def cut(path: Path) -> None:
    path.write_bytes(path.read_bytes()[:-20])


@pytest.mark.parametrize(
    ("damage", "reason"),
    [
        (flip_bytes, "does not hold the bytes that were written"),
        (cut, "bytes, .* were written"),
        (Path.unlink, "files missing or added"),
    ],
    ids=["flipped", "cut", "deleted"],
)
def test_a_damaged_entry_is_discarded_and_written_again(
    spark: Any, tmp_path: Path, damage: Any, reason: str
) -> None:
    cache = StreamCache(tmp_path)
    first = cache.materialise(spark, stream())
    want = rows(spark, first)
    damage(parquet_file(first))
    with pytest.warns(CacheRepairWarning, match=reason):
        again = cache.materialise(spark, stream())
    assert again.path == first.path
    assert rows(spark, again) == want
    assert cache.lookup(stream()) is not None  # repaired, no more warnings


def test_an_entry_written_before_digests_is_checked_for_whole_files(
    spark: Any, tmp_path: Path
) -> None:
    cache = StreamCache(tmp_path)
    first = cache.materialise(spark, stream())
    meta = json.loads((first.path / META).read_text(encoding="utf-8"))
    del meta["files"]
    (first.path / META).write_text(json.dumps(meta), encoding="utf-8")
    assert cache.lookup(stream()) is not None  # intact: still used
    cut(parquet_file(first))
    with pytest.warns(CacheRepairWarning, match="is cut or overwritten"):
        assert cache.lookup(stream()) is None
    assert not first.path.exists()


def test_the_oracle_repairs_the_cache_and_answers(spark: Any, tmp_path: Path) -> None:
    from pytest_rspbench.oracle.oracle import expected_output

    cache = StreamCache(tmp_path)
    before = expected_output(spark, QUERY, [stream()], SEMANTICS, cache=cache)
    (entry,) = [p for p in tmp_path.iterdir() if p.name != "expected"]
    flip_bytes(max(entry.glob("part-*.parquet"), key=lambda p: p.stat().st_size))
    with pytest.warns(CacheRepairWarning, match=str(entry)):
        after = expected_output(spark, QUERY, [stream()], SEMANTICS, cache=cache)
    assert after.classes == before.classes
    assert len(before.classes[0].relations) == 4


def test_rows_are_grouped_by_predicate_so_a_pattern_skips_the_others(tmp_path: Path) -> None:
    """Three predicates interleaved in time: each is stored in time order, in
    row groups whose statistics let a scan for one skip the other two."""
    import pyarrow.parquet as pq

    from pytest_rspbench.oracle.store.streamcache import ROW_GROUP_ROWS, write_parquet

    predicates = ["<http://ex/a>", "<http://ex/b>", "<http://ex/c>"]
    events = [
        Event(t, tuple((f"<http://ex/s{t}>", p, f'"{t}"') for p in predicates))
        for t in range(ROW_GROUP_ROWS * 2)
    ]
    big = Stream(IRI, lambda: iter(events), "in memory", fingerprint=lambda: "grouped")
    stored = write_parquet(big, tmp_path / "entry")
    metadata = pq.ParquetFile(parquet_file(stored)).metadata
    ranges = []
    for group in range(metadata.num_row_groups):
        stats = metadata.row_group(group).column(2).statistics  # stream, s, p
        ranges.append((stats.min, stats.max))
    single = [lo for lo, hi in ranges if lo == hi]
    assert len(single) >= metadata.num_row_groups - 3 * 2  # mixed only at the seams
    assert set(single) == set(predicates)
    table = pq.read_table(parquet_file(stored))
    for p in predicates:
        pairs = zip(table["p"].to_pylist(), table["t"].to_pylist(), strict=True)
        times = [t for q, t in pairs if q == p]
        assert times == sorted(times) == list(range(ROW_GROUP_ROWS * 2))
