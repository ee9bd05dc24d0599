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
from dataclasses import dataclass, field, replace
from typing import Any

from pytest_rspbench.oracle.spark.local import local_frame
from pytest_rspbench.oracle.sparql.datatypes import Collector
from pytest_rspbench.oracle.sparql.stars import StarSource, StarTable, built
from pytest_rspbench.oracle.sparql.stars import enabled as stars_enabled
from pytest_rspbench.oracle.store.starcache import star_source
from pytest_rspbench.oracle.store.streamcache import POSITIONED, StreamCache
from pytest_rspbench.oracle.store.streamcache import SCHEMA as STREAM_SCHEMA
from pytest_rspbench.oracle.t0.planning import Timeline, coarse
from pytest_rspbench.stream.model import Stream

Row = tuple[Any, ...]
"""``(stream, s, p, o, t)``, and with positions ``e`` and ``q`` (:data:`POSITIONED`)."""


@dataclass(frozen=True)
class StreamFrame:
    """The streams as one DataFrame (:data:`STREAM_SCHEMA`) and what is known of them.

    Attributes:
        df: every stream triple, ``(stream, s, p, o, t)``.
        timelines: per stream IRI with events, its time axis.
        entries: with a cache, each stream's content digest.
        stars: per stream IRI, its property table, made on first use
            (:mod:`.stars`; none when the setting is off), its times those
            of ``df``.
    """

    df: Any
    timelines: dict[str, Timeline]
    entries: dict[str, str]
    stars: Mapping[str, StarSource] = field(default_factory=dict)

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
    positioned: bool = False,
) -> StreamFrame:
    """Read (or build) the streams for Spark (``positioned``: each row with
    its event and triple ordinals, :data:`POSITIONED`, for count windows)."""
    schema = POSITIONED if positioned else STREAM_SCHEMA
    layout = stars_enabled()
    if cache is None:
        rows, timelines = _rows(streams, starts, positioned)
        df = spark.createDataFrame(rows, schema)
        made = {iri: _in_plan(df, iri) for iri in timelines} if layout else {}
        return StreamFrame(df, timelines, {}, made)
    frames, timelines, entries, found = [], {}, {}, {}
    for stream in streams:
        stored = cache.materialise(spark, stream)
        entries[stream.iri] = stored.content or stored.path.name
        frames.append(stored.frame(spark, positioned))
        if stored.times:
            timelines[stream.iri] = _timeline(stream, stored, starts)
            if layout:
                found[stream.iri] = star_source(spark, stored, cache.root)
    if not frames:
        return StreamFrame(local_frame(spark, [], schema), timelines, entries)
    union = functools.reduce(lambda a, b: a.unionByName(b), frames)
    return StreamFrame(union, timelines, entries, found)


def _in_plan(df: Any, iri: str) -> StarSource:
    """The property table of one stream of ``df``, made in the plan."""

    def make() -> StarTable | None:
        from pyspark.sql import functions as F

        return built(df.where(F.col("stream") == iri))

    return StarSource(make)


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
        stored.sizes, stored.events, stored.event_sizes,
    )  # fmt: skip


def on_clock(data: StreamFrame, unit: int) -> StreamFrame:
    """``data`` as an engine with a ``unit`` ms clock sees it: each row's time
    truncated to the unit, and the timelines too (:func:`.planning.coarse`:
    a window's triple count, so whether non-empty-content evaluates it, is
    counted on the engine's clock)."""
    if unit <= 1:
        return data
    from pyspark.sql import functions as F

    truncated = F.col("t") - F.pmod(F.col("t"), F.lit(unit).cast("long"))
    timelines = dict(coarse(data.timelines, unit))
    stars = {iri: found.map(lambda t: t.clocked(unit)) for iri, found in data.stars.items()}
    return replace(data, df=data.df.withColumn("t", truncated), timelines=timelines, stars=stars)


def _rows(
    streams: Sequence[Stream], starts: Mapping[str, int], positioned: bool = False
) -> tuple[list[Row], dict[str, Timeline]]:
    """Every stream's rows in memory, and the timelines of those with events
    (``positioned``: with each row's event and triple ordinals)."""
    rows: list[Row] = []
    timelines = {}
    for stream in streams:
        timeline = _read(stream, starts.get(stream.iri, 0), rows, positioned)
        if timeline is not None:
            timelines[stream.iri] = timeline
    return rows, timelines


def _read(stream: Stream, start: int, rows: list[Row], positioned: bool) -> Timeline | None:
    """Append the stream's rows to ``rows``; its timeline (None: no events)."""
    times: list[int] = []
    sizes: list[int] = []
    events: list[int] = []
    event_sizes: list[int] = []
    datatypes = Collector()
    seen: set[tuple[str, str, str]] = set()
    count = 0
    for event in stream.events():
        if not times or times[-1] != event.time:
            times.append(event.time)
            sizes.append(0)
            events.append(0)
        sizes[-1] += len(event.triples)
        events[-1] += 1
        event_sizes.append(len(event.triples))
        if positioned:
            e = len(event_sizes)
            rows.extend(
                (stream.iri, s, p, o, event.time, e, count + k)
                for k, (s, p, o) in enumerate(event.triples, start=1)
            )
        else:
            rows.extend((stream.iri, s, p, o, event.time) for s, p, o in event.triples)
        datatypes.add(event.triples)
        seen.update(event.triples)
        count += len(event.triples)
    if not times:
        return None
    end = stream.end if stream.end is not None else times[-1]
    return Timeline(
        start, end, tuple(times), datatypes.result(), len(seen) == count, tuple(sizes),
        tuple(events), tuple(event_sizes),
    )  # fmt: skip
