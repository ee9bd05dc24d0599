"""The oracle's input: the streams as one Spark DataFrame, and their timelines.

With a stream cache every stream is read from its Parquet dataset, written
on first use (:mod:`.streamcache`); without one the rows are built in memory
(small streams in tests). Either way the oracle also learns each stream's
:class:`~.planning.Timeline` (distinct event times, literal datatypes,
whether a triple ever repeats) and, with a cache, each stream's content
digest (part of the key of a stored output, :mod:`.store`).
"""

from __future__ import annotations

import functools
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from pytest_rspbench.oracle.spark.local import local_frame
from pytest_rspbench.oracle.sparql.datatypes import Collector
from pytest_rspbench.oracle.store.streamcache import SCHEMA as STREAM_SCHEMA
from pytest_rspbench.oracle.store.streamcache import StreamCache
from pytest_rspbench.oracle.t0.planning import Timeline
from pytest_rspbench.stream.model import Stream

Row = tuple[str, str, str, str, int]


@dataclass(frozen=True)
class StreamFrame:
    """The streams as one DataFrame (:data:`STREAM_SCHEMA`) and what is known of them.

    Attributes:
        df: every stream triple, ``(stream, s, p, o, t)``.
        timelines: per stream IRI with events, its time axis.
        entries: with a cache, each stream's content digest.
    """

    df: Any
    timelines: dict[str, Timeline]
    entries: dict[str, str]

    @property
    def distinct(self) -> frozenset[str]:
        """The streams in which no triple occurs twice."""
        return frozenset(iri for iri, t in self.timelines.items() if t.distinct)

    @property
    def triples(self) -> int | None:
        """How many triples the streams hold together (None: not known)."""
        if any(t.sizes is None for t in self.timelines.values()):
            return None
        return sum(sum(t.sizes or ()) for t in self.timelines.values())


def stream_frame(
    spark: Any,
    streams: Sequence[Stream],
    starts: Mapping[str, int],
    cache: StreamCache | None,
) -> StreamFrame:
    """Read (or build) the streams for Spark."""
    if cache is None:
        rows, timelines = _rows(streams, starts)
        return StreamFrame(spark.createDataFrame(rows, STREAM_SCHEMA), timelines, {})
    frames, timelines, entries = [], {}, {}
    for stream in streams:
        stored = cache.materialise(spark, stream)
        entries[stream.iri] = stored.content or stored.path.name
        frames.append(stored.frame(spark))
        if stored.times:
            timelines[stream.iri] = _timeline(stream, stored, starts)
    if not frames:
        return StreamFrame(local_frame(spark, [], STREAM_SCHEMA), timelines, entries)
    union = functools.reduce(lambda a, b: a.unionByName(b), frames)
    return StreamFrame(union, timelines, entries)


def cached_timelines(
    cache: StreamCache, streams: Sequence[Stream], starts: Mapping[str, int]
) -> tuple[dict[str, str], dict[str, Timeline]] | None:
    """Each stream's content digest and timeline, if all are cached under
    their source's key (known without reading or writing anything)."""
    entries, timelines = {}, {}
    for stream in streams:
        found = cache.lookup(stream)
        if found is None:
            return None
        entries[stream.iri] = found.content or found.path.name
        if found.times:
            timelines[stream.iri] = _timeline(stream, found, starts)
    return entries, timelines


def _timeline(stream: Stream, stored: Any, starts: Mapping[str, int]) -> Timeline:
    end = stream.end if stream.end is not None else stored.times[-1]
    return Timeline(
        starts.get(stream.iri, 0), end, stored.times, stored.datatypes, stored.distinct,
        stored.sizes,
    )  # fmt: skip


def _rows(
    streams: Sequence[Stream], starts: Mapping[str, int]
) -> tuple[list[Row], dict[str, Timeline]]:
    """Every stream's rows in memory, and the timelines of those with events."""
    rows: list[Row] = []
    timelines = {}
    for stream in streams:
        timeline = _read(stream, starts.get(stream.iri, 0), rows)
        if timeline is not None:
            timelines[stream.iri] = timeline
    return rows, timelines


def _read(stream: Stream, start: int, rows: list[Row]) -> Timeline | None:
    """Append the stream's rows to ``rows``; its timeline (None: no events)."""
    times: list[int] = []
    sizes: list[int] = []
    datatypes = Collector()
    seen: set[tuple[str, str, str]] = set()
    count = 0
    for event in stream.events():
        if not times or times[-1] != event.time:
            times.append(event.time)
            sizes.append(0)
        sizes[-1] += len(event.triples)
        rows.extend((stream.iri, s, p, o, event.time) for s, p, o in event.triples)
        datatypes.add(event.triples)
        seen.update(event.triples)
        count += len(event.triples)
    if not times:
        return None
    end = stream.end if stream.end is not None else times[-1]
    return Timeline(start, end, tuple(times), datatypes.result(), len(seen) == count, tuple(sizes))
