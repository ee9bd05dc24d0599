"""Solutions kept as Arrow columns until something reads them as mappings.

The compiled plan's solutions reach the driver as Arrow columns. Kept as
columns, the sort is Arrow's, the stored output is the columns themselves
and ``rspbench oracle`` writes its JSON lines from them; mappings are made
only when a verdict reads a bag (:class:`ColumnBindings` is a sequence of
them, built on first use). For a cached self-join over 5M triples (1.4M
solutions), turning each solution into a dict, sorting the dicts, building
the stored output's columns back from them and writing each as JSON took
14.7 s; kept as columns, 6 s (cProfile; docs/benchmarks.md, 2026-11-29).
"""

from __future__ import annotations

import threading
from collections.abc import Iterator, Mapping, Sequence
from typing import Any, overload

from pytest_rspbench.rsp.bags import Frozen


class SolutionTable:
    """Solutions as one dictionary-encoded Arrow column per variable.

    Each distinct value is one Python string when the rows are read as
    mappings (``seen`` as in :func:`.local.shared_strings`: a sensor's IRI
    in 100,000 solutions is held once), and is written as JSON once.
    """

    def __init__(self, columns: Mapping[str, Any], seen: dict[str, str] | None = None) -> None:
        self.columns = dict(columns)
        self.names = tuple(self.columns)
        self._seen = {} if seen is None else seen
        self._values: dict[str, list[str | None]] = {}
        self._json: dict[str, Any] = {}
        self._lock = threading.Lock()

    @classmethod
    def of(cls, table: Any, seen: dict[str, str] | None = None) -> SolutionTable:
        """``table``'s columns (text, dictionary-encoded or not; nulls are
        unbound variables), each as one dictionary-encoded array.

        Raises ValueError for a column that does not hold text.
        """
        import pyarrow as pa
        import pyarrow.compute as pc

        columns = {}
        for name in table.column_names:
            column = table.column(name)
            kind = column.type
            value = kind.value_type if pa.types.is_dictionary(kind) else kind
            if not (pa.types.is_string(value) or pa.types.is_large_string(value)):
                raise ValueError(f"column {name!r} holds {kind}, not text")
            if not pa.types.is_dictionary(kind):
                # One array first: a dictionary per batch, unified after,
                # took 17 s for 1.4M solutions in 140 batches, this 1 s.
                column = pc.dictionary_encode(column.combine_chunks())
            columns[name] = column
        unified = pa.table(columns).unify_dictionaries() if columns else table
        arrays = {n: _one(unified.column(n)) for n in unified.column_names}
        return cls(arrays, seen)

    def bag(self, start: int, stop: int) -> ColumnBindings:
        """The solutions in rows ``start`` to ``stop`` (excluded)."""
        return ColumnBindings(self, start, stop)

    def values(self, name: str) -> list[str | None]:
        """The distinct values of ``name``'s column as Python strings."""
        found = self._values.get(name)
        if found is None:
            with self._lock:
                keep = self._seen.setdefault
                found = [keep(x, x) for x in self.columns[name].dictionary.to_pylist()]
                self._values[name] = found
        return found

    def json_values(self, name: str) -> Any:
        """The distinct values of ``name``'s column as JSON strings (orjson's
        text for each, so a line written from columns is the line written
        from mappings), an Arrow ``large_string`` array."""
        found = self._json.get(name)
        if found is None:
            column = self.columns[name]
            found = self._json[name] = _json_texts(column.dictionary, lambda: self.values(name))
        return found

    def sliced(self, bags: Sequence[ColumnBindings]) -> Any:
        """The rows of ``bags`` (each of this table), in turn, as one Arrow
        table: their dictionary indices, this table's dictionaries."""
        import pyarrow as pa

        columns = {}
        for name, column in self.columns.items():
            indices = pa.concat_arrays([b.indices(name) for b in bags])
            columns[name] = pa.DictionaryArray.from_arrays(indices, column.dictionary)
        return pa.table(columns)


def _json_texts(dictionary: Any, values: Any) -> Any:
    """Each text of ``dictionary`` as JSON, as orjson writes it.

    Arrow escapes the quotes and backslashes (what N-Triples literals hold)
    when no text holds a control character; else orjson writes each (0.8 s
    for 556,000 values, against a millisecond).
    """
    import pyarrow as pa
    import pyarrow.compute as pc

    text = pa.large_string()
    dictionary = dictionary.cast(text)
    if not pc.any(pc.match_substring_regex(dictionary, "[\\x00-\\x1f]")).as_py():
        escaped = pc.replace_substring(dictionary, "\\", "\\\\")
        escaped = pc.replace_substring(escaped, '"', '\\"')
        quote = pa.scalar('"', text)
        return pc.binary_join_element_wise(quote, escaped, quote, pa.scalar("", text))
    import orjson

    return pa.array([orjson.dumps(x).decode("utf-8") for x in values()], text)


def _one(column: Any) -> Any:
    """A chunked dictionary column (one dictionary) as one array."""
    import pyarrow as pa

    if column.num_chunks == 1:
        return column.chunk(0)
    if column.num_chunks == 0:
        return pa.array([], column.type.value_type).dictionary_encode()
    return column.combine_chunks()


class ColumnBindings(Frozen):
    """A bag of solutions: rows ``start`` to ``stop`` of a :class:`SolutionTable`.

    A sequence of mappings (plain dicts, an unbound variable left out), made
    on first use and kept; equal to any sequence of equal mappings in the
    same order. Its length, whether every variable is bound, its Arrow
    columns and its JSON need no mappings.
    """

    __slots__ = ("_rows", "source", "start", "stop")

    def __init__(self, source: SolutionTable, start: int, stop: int) -> None:
        self.source = source
        self.start = start
        self.stop = stop
        self._rows: tuple[dict[str, str], ...] | None = None

    def __len__(self) -> int:
        return self.stop - self.start

    @overload
    def __getitem__(self, index: int) -> Mapping[str, str]: ...
    @overload
    def __getitem__(self, index: slice) -> Sequence[Mapping[str, str]]: ...
    def __getitem__(self, index: int | slice) -> Any:
        return self.rows()[index]

    def __iter__(self) -> Iterator[Mapping[str, str]]:
        return iter(self.rows())

    def __eq__(self, other: object) -> bool:
        if isinstance(other, ColumnBindings):
            other = other.rows()
        if isinstance(other, Sequence) and not isinstance(other, (str, bytes)):
            return self.rows() == tuple(other)
        return NotImplemented

    __hash__ = None  # type: ignore[assignment]  # a bag of dicts is not hashable

    def __repr__(self) -> str:
        return f"ColumnBindings({len(self)} solutions of {', '.join(self.source.names)})"

    def __reduce__(self) -> Any:
        return tuple, (self.rows(),)  # pickled as what it reads as

    def indices(self, name: str) -> Any:
        """This bag's dictionary indices in ``name``'s column (Arrow)."""
        return self.source.columns[name].indices.slice(self.start, len(self))

    @property
    def complete(self) -> bool:
        """Does every solution bind every variable?"""
        return all(self.indices(n).null_count == 0 for n in self.source.names)

    def table(self) -> Any:
        """This bag as an Arrow table, one dictionary column per variable."""
        import pyarrow as pa

        return pa.table({n: c.slice(self.start, len(self)) for n, c in self.source.columns.items()})

    def rows(self) -> tuple[dict[str, str], ...]:
        """The solutions as dicts (made once)."""
        if self._rows is None:
            self._rows = self._made()
        return self._rows

    def _made(self) -> tuple[dict[str, str], ...]:
        names = self.source.names
        if not names:
            return tuple({} for _ in range(len(self)))
        columns = []
        for name in names:
            values = self.source.values(name)
            indices = self.indices(name)
            if indices.null_count:
                values = [*values, None]
                indices = indices.fill_null(len(values) - 1)
            columns.append(list(map(values.__getitem__, indices.to_pylist())))
        if any(None in c for c in columns):
            return tuple(
                {v: x for v, x in zip(names, row, strict=True) if x is not None}
                for row in zip(*columns, strict=True)
            )
        return tuple(dict(zip(names, row, strict=True)) for row in zip(*columns, strict=True))

    def json(self) -> bytes:
        """The solutions as the inside of a JSON array (``{..},{..}``), each
        object's keys sorted, as ``orjson`` writes a list of the mappings
        with sorted keys; only for a :attr:`complete` bag."""
        import orjson
        import pyarrow as pa
        import pyarrow.compute as pc

        if not len(self) or not self.source.names:  # each solution the empty one
            return b",".join([b"{}"] * len(self))
        text = pa.large_string()
        parts: list[Any] = []
        for k, name in enumerate(sorted(self.source.names)):
            key = ("{" if k == 0 else ",") + orjson.dumps(name).decode("utf-8") + ":"
            parts += [pa.scalar(key, text), self.source.json_values(name).take(self.indices(name))]
        parts.append(pa.scalar("}", text))
        objects = pc.binary_join_element_wise(*parts, pa.scalar("", text))
        listed = pa.LargeListArray.from_arrays(pa.array([0, len(objects)], pa.int64()), objects)
        return bytes(pc.binary_join(listed, pa.scalar(",", text))[0].as_buffer())
