"""Property tables of cached streams, written once beside their triples.

A stream's property table (:mod:`..sparql.stars`) is made from its Parquet
triples by one Spark job (which predicates no subject has twice) and one
more that groups the triples by subject; both depend on the stream's rows
only, so the table is written once, on the first query with a subject star
over the stream, inside the stream's entry::

    <cache>/<key>/part-*.parquet             the stream's triples
    <cache>/<key>/_stars/v<VERSION>/         its property table (Spark's Parquet)
    <cache>/<key>/_stars/v<VERSION>/_stars.json   its predicates, in column order

Keyed by the entry, it goes with it: a stream written again under another
key gets a table of its own, and pruning removes the entry, table included,
under the entry's exclusive lock (:mod:`.locks`), which no session holding
the entry lets it take. The entry's digest check (:mod:`.streamcache`) reads
its files, not its folders, and Spark's readers skip folders whose name
starts with ``_``, so the table changes neither the triples' reading nor
their check. It is written in a scratch folder of the cache and renamed into
place, as entries are: two sessions writing it both write it, the second
finds the first's in place and reads that. Where nothing can be written (a
read-only cache), the table is made in each plan that reads it instead.
"""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

from pytest_rspbench.errors import OracleError
from pytest_rspbench.oracle.sparql.stars import (
    StarSource,
    StarTable,
    built,
    pivoted,
    single_predicates,
)
from pytest_rspbench.oracle.store.streamcache import ParquetStream, _scratch, spark_path

FOLDER = "_stars"
VERSION = 1  # bump when the table's rows or columns change
META = "_stars.json"


def star_source(spark: Any, stored: ParquetStream, root: Path) -> StarSource:
    """The property table of a cached stream, read or written on first use."""
    return StarSource(lambda: _table(spark, stored, Path(root)))


def table_folder(stored: ParquetStream) -> Path:
    """Where the stream's property table is kept."""
    return stored.path / FOLDER / f"v{VERSION}"


def _table(spark: Any, stored: ParquetStream, root: Path) -> StarTable | None:
    folder = table_folder(stored)
    found = _read(spark, folder)
    if found is not None:
        return found[0]
    try:
        _write(spark, stored, root, folder)
    except (OSError, OracleError):
        return built(stored.frame(spark))
    found = _read(spark, folder)
    return found[0] if found is not None else built(stored.frame(spark))


def _read(spark: Any, folder: Path) -> tuple[StarTable | None] | None:
    """The table kept in ``folder`` (a 1-tuple; its item None: no predicate
    qualifies), or None when none is kept there."""
    try:
        meta = json.loads((folder / META).read_text(encoding="utf-8"))
        if meta["version"] != VERSION:
            return None
        predicates = [str(p) for p in meta["predicates"]]
    except (OSError, ValueError, KeyError, TypeError):
        return None
    if not predicates:
        return (None,)
    columns = ", ".join(f"o_{k} string, t_{k} long" for k in range(len(predicates)))
    df = spark.read.schema(f"s string, {columns}").parquet(spark_path(folder))
    return (StarTable(df, {p: k for k, p in enumerate(predicates)}),)


def _write(spark: Any, stored: ParquetStream, root: Path, folder: Path) -> None:
    """Write the table in a scratch folder of ``root`` and rename it to
    ``folder`` (left as it is if another session put one there first)."""
    triples = stored.frame(spark)
    predicates = single_predicates(triples)
    with _scratch(root) as scratch:
        data = scratch / "data"
        if predicates:
            # A path to write is not a pattern: unescaped (spark_path is for reading).
            pivoted(triples, predicates).write.parquet(str(data))
        else:
            data.mkdir()
        meta = {"version": VERSION, "iri": stored.iri, "predicates": predicates}
        (data / META).write_text(json.dumps(meta), encoding="utf-8")
        folder.parent.mkdir(exist_ok=True)
        try:
            os.rename(data, folder)
        except OSError:
            if not (folder / META).is_file():
                raise
