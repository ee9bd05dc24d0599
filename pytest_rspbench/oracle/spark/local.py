"""Tables the oracle builds in Python, handed to Spark as Arrow.

``spark.createDataFrame(rows, schema)`` pickles every row, and Spark reads
them back as an RDD: each such table is a scan of its own, and broadcasting
it (the classes, the evaluations, the event sizes) costs a Spark job. Given
an Arrow table instead, Spark makes a local relation: no pickling, no job to
broadcast it, and the optimiser sees its rows. Measured on the bundled
specs, where every oracle call builds three or four such tables.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Sequence
from typing import Any

_TYPES = ("int", "long", "string")


def local_frame(spark: Any, rows: Iterable[Sequence[Any]], schema: str) -> Any:
    """A DataFrame of ``rows`` with the DDL ``schema`` (``"a int, `b` string"``;
    the types int, long and string).

    Rows whose terms Arrow cannot take (text that is not valid Unicode) go
    the old way, through ``createDataFrame(rows, schema)``. A large table
    reaches Spark in batches of ``spark.sql.execution.arrow.maxRecordsPerBatch``
    rows, spread over partitions: an engine's 594,000 bindings (YABench big)
    took 2.5 s this way against 4.9 s pickled, and are grouped on every core.

    >>> fields("cls int, `v_x` string")
    [('cls', 'int'), ('v_x', 'string')]
    """
    rows = list(rows)
    columns = list(zip(*rows, strict=True)) if rows else [() for _ in fields(schema)]
    return local_columns(spark, columns, schema)


def local_columns(spark: Any, columns: Sequence[Sequence[Any]], schema: str) -> Any:
    """:func:`local_frame` from the table's columns (one sequence per field of
    ``schema``, all as long): no row tuples are built."""
    import pyarrow as pa

    types = {"int": pa.int32(), "long": pa.int64(), "string": pa.string()}
    names = fields(schema)
    try:
        table = pa.table(
            {
                name: pa.array(column, types[kind])
                for (name, kind), column in zip(names, columns, strict=True)
            }
        )
    except (pa.ArrowInvalid, pa.ArrowTypeError, UnicodeEncodeError, OverflowError):
        return spark.createDataFrame(list(zip(*columns, strict=True)), schema)
    return arrow_frame(spark, table)


def arrow_frame(spark: Any, table: Any) -> Any:
    """A DataFrame of the Arrow ``table``, empty or not.

    Spark Connect infers a DataFrame's schema from its rows and refuses an
    empty table (``CANNOT_INFER_EMPTY_SCHEMA``); an empty one goes with its
    schema, as a DDL string, and no rows.
    """
    if table.num_rows:
        return spark.createDataFrame(table)
    ddl = ", ".join(f"`{f.name}` {_DDL[str(f.type)]}" for f in table.schema)
    return spark.createDataFrame([], ddl)


_DDL = {"int32": "int", "int64": "long", "string": "string", "large_string": "string"}


def fields(schema: str) -> list[tuple[str, str]]:
    """The ``(name, type)`` of each column of a simple DDL schema."""
    found = []
    for part in schema.split(","):
        name, kind = part.strip().rsplit(" ", 1)
        if kind not in _TYPES:
            raise ValueError(f"local_frame takes {', '.join(_TYPES)}, not {kind!r}")
        found.append((name.strip("`"), kind))
    return found


def shared_strings(column: Any, seen: dict[str, str]) -> list[str | None]:
    """A pyarrow string column (an Array or a ChunkedArray, dictionary
    encoded or not) as a list, each distinct value one shared object.

    ``seen`` maps a text to the object that stands for it, across columns
    and calls: a sensor's IRI in 100,000 solutions is held once, not
    100,000 times (at 5.6M solutions, gigabytes of the driver).
    """
    import pyarrow as pa

    chunks = column.chunks if isinstance(column, pa.ChunkedArray) else [column]
    out: list[str | None] = []
    keep = seen.setdefault
    for chunk in chunks:
        encoded = chunk if pa.types.is_dictionary(chunk.type) else chunk.dictionary_encode()
        values: list[str | None] = [keep(x, x) for x in encoded.dictionary.to_pylist()]
        indices = encoded.indices
        if indices.null_count:
            values.append(None)
            indices = indices.fill_null(len(values) - 1)
        out += map(values.__getitem__, indices.to_pylist())
    return out


def solution_rows(
    table: Any, names: Sequence[str], seen: dict[str, str], prefix: str = ""
) -> Iterator[dict[str, str]]:
    """Each row of ``table`` (a pyarrow Table or RecordBatch) as a solution
    mapping of ``names``, read from the columns ``prefix + name``; a null is
    an unbound variable, left out. Values are shared through ``seen`` as in
    :func:`shared_strings`.

    The one way the oracle turns Arrow columns into solutions: the compiled
    plan's output, gracious mode's border evaluations and the stored outputs.

    >>> import pyarrow as pa
    >>> t = pa.table({"v_a": ["<x>", "<y>"], "v_b": [None, "<z>"]})
    >>> list(solution_rows(t, ["a", "b"], {}, "v_"))
    [{'a': '<x>'}, {'a': '<y>', 'b': '<z>'}]
    """
    if not names:  # each row is the empty solution
        return ({} for _ in range(table.num_rows))
    columns = [shared_strings(table.column(prefix + v), seen) for v in names]
    if any(None in column for column in columns):
        return (
            {v: x for v, x in zip(names, values, strict=True) if x is not None}
            for values in zip(*columns, strict=True)
        )
    return (dict(zip(names, values, strict=True)) for values in zip(*columns, strict=True))
