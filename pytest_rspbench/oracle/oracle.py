"""Compute the expected output of a case on Spark.

Given the streams, the RSP-QL query and the engine profile, the oracle
computes what an engine with that profile must output (RSP-QL Def. 24-26,
CSRBench §6): for each t0 class, the relations streamed out at each
evaluation. All evaluations of all classes are computed in one Spark job:
solutions carry the time span of the triples they use and are assigned to
evaluations by interval arithmetic (:mod:`pytest_rspbench.rsp.windows`) and a
join with the small per-class evaluation plan (:mod:`.evaluations`).

One computation is an :class:`OracleRequest` going through four steps::

    plan     the t0 classes and their evaluations, in Python (.planning)
    frame    the streams as one DataFrame, from the stream cache (.frames)
    compute  the compiled plan, or pyoxigraph per evaluation, then R2S
    store    a stored output is read back instead of computed (.store)

The plan comes first when the cache already knows every stream's timeline,
so a stored output needs no Spark at all.
"""

from __future__ import annotations

import time
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from typing import Any

from pytest_rspbench.oracle import r2s, sequenced
from pytest_rspbench.oracle.spark import sized
from pytest_rspbench.oracle.sparql.fallback import refuse_service
from pytest_rspbench.oracle.store import outputs as store
from pytest_rspbench.oracle.store.streamcache import StreamCache
from pytest_rspbench.oracle.t0 import axes, narrowing
from pytest_rspbench.oracle.t0.frames import StreamFrame, cached_timelines, stream_frame
from pytest_rspbench.oracle.t0.frames import _rows as _rows  # benchmarks import it
from pytest_rspbench.oracle.t0.frames import on_clock as on_clock  # tests import it
from pytest_rspbench.oracle.t0.narrowed import Narrowed
from pytest_rspbench.oracle.t0.narrowed import decode as decode_narrowed
from pytest_rspbench.oracle.t0.narrowed import encode as encode_narrowed
from pytest_rspbench.oracle.t0.narrowing import Reported, narrow
from pytest_rspbench.oracle.t0.planning import (
    ClassPlan,
    Layout,
    Planned,
    Timeline,
    layout,
    plan,
    plan_classes,
)
from pytest_rspbench.oracle.t0.solutions import Job, Solutions, solve
from pytest_rspbench.rsp import policy
from pytest_rspbench.rsp.outputs import ExpectedOutput, ExpectedRelation, T0Class
from pytest_rspbench.rsp.rspql import RspqlQuery
from pytest_rspbench.rsp.semantics import Semantics
from pytest_rspbench.stream.model import Stream, Triple
from pytest_rspbench.stream.workloads import Disorder

__all__ = [
    "ClassPlan",
    "OracleRequest",
    "Timeline",
    "ahead",
    "compute",
    "expected_output",
    "frame",
    "load_stored",
    "plan",
    "run",
    "save_stored",
]


@dataclass(frozen=True)
class OracleRequest:
    """One oracle computation: everything its answer depends on.

    Attributes:
        query: the RSP-QL query.
        streams: the input streams.
        semantics: the engine profile's semantics.
        static: static triples (the default graph).
        starts: each stream's registration start (ms; default 0).
        force_fallback: evaluate with pyoxigraph, not the compiled plan.
        cache: read the streams from Parquet datasets, written on first use
            (:mod:`.streamcache`); None builds them in memory.
        keep: with a cache, store the output next to the streams and read
            it back when the same computation comes again (:mod:`.store`).
        reported: the engine's output: with many t0 classes, only those its
            content allows are computed (:mod:`.narrowing`).
        disorder: per stream IRI, how the harness delivers it out of order
            (count windows counting arrivals count the deliveries).
    """

    query: RspqlQuery
    streams: tuple[Stream, ...]
    semantics: Semantics
    static: tuple[Triple, ...] = ()
    starts: Mapping[str, int] = field(default_factory=dict)
    force_fallback: bool = False
    cache: StreamCache | None = None
    keep: bool = False
    reported: Reported | None = None
    disorder: Mapping[str, Disorder] = field(default_factory=dict)

    @property
    def keeping(self) -> StreamCache | None:
        """The cache that stores outputs (None: outputs are not stored)."""
        return self.cache if self.keep else None


def expected_output(
    spark: Any,
    query: RspqlQuery,
    streams: Sequence[Stream],
    semantics: Semantics,
    static: Iterable[Triple] = (),
    starts: dict[str, int] | None = None,
    force_fallback: bool = False,
    cache: StreamCache | None = None,
    keep: bool = False,
    reported: Reported | None = None,
    disorder: Mapping[str, Disorder] | None = None,
) -> ExpectedOutput:
    """Compute the expected output for every t0 class of the query's windows.

    The arguments are the fields of :class:`OracleRequest`; ``spark`` is a
    SparkSession or a function returning one, called only when Spark is
    needed (a stored output of cached streams needs none).
    """
    request = OracleRequest(
        query, tuple(streams), semantics, tuple(static), dict(starts or {}),
        force_fallback, cache, keep, reported, dict(disorder or {}),
    )  # fmt: skip
    return run(spark, request)


def run(spark: Any, request: OracleRequest) -> ExpectedOutput:
    """Plan, frame, compute and store one request (see the module's steps)."""
    expected = _run(spark, request, ahead=False)
    assert expected is not None  # only a computation ahead gives up
    return expected


def ahead(spark: Any, request: OracleRequest) -> ExpectedOutput | None:
    """The expected output before the engine's output is known, or None.

    The same answer as :func:`run` with the engine's output in
    ``request.reported``, computed without it: for a layout of at most
    :data:`.narrowing.NARROW_ABOVE` t0 classes the output does not depend on
    the engine's (every class is computed). Above that, the classes are
    narrowed by the engine's output, so nothing is computed and None comes
    back; call :func:`run` once the engine's output is there.
    """
    return _run(spark, replace(request, reported=None), ahead=True)


def _run(spark: Any, request: OracleRequest, ahead: bool) -> ExpectedOutput | None:
    """:func:`run`, or with ``ahead`` :func:`ahead` (None: the layout needs
    the engine's output)."""
    began = time.perf_counter()
    semantics = request.semantics
    policy.base_policy(semantics)
    refuse_service(request.query.static_sparql)  # before Spark starts
    if axes.applies(request.query):
        # Count and session windows: every class computed, nothing narrowed.
        return sequenced.run(spark, request, ahead)
    if (early := _early(request)) is not None:
        entries, timelines = early
        lay = layout(request.query, semantics, timelines, request.streams, request.starts)
        if ahead and lay.total > narrowing.NARROW_ABOVE:
            return None
        narrowed = _narrowed(request, entries, lay) if _narrowing(request, lay) else None
        if narrowed is not None or not _narrowing(request, lay):
            planned = plan_classes(lay, semantics, narrowed)
            if (stored := load_stored(request, entries, planned)) is not None:
                return stored
    spark = spark() if callable(spark) else spark
    data = frame(spark, request)
    lay = layout(request.query, semantics, data.timelines, request.streams, request.starts)
    if ahead and lay.total > narrowing.NARROW_ABOVE:
        return None
    with sized(spark, data.triples):
        return _computed(spark, request, data, lay, began)


def _computed(
    spark: Any, request: OracleRequest, data: StreamFrame, lay: Layout, began: float
) -> ExpectedOutput:
    """Narrow, plan, compute and store, the streams read and laid out."""
    semantics = request.semantics
    narrowed = None
    if _narrowing(request, lay):
        assert request.reported is not None
        narrowed = _narrowed(request, data.entries, lay)
        if narrowed is None:
            narrowed = narrow(
                spark, request.query, request.static, data, lay, request.reported, semantics
            )
            _keep_narrowed(request, data.entries, lay, narrowed)
    planned = plan_classes(lay, semantics, narrowed)
    if (stored := load_stored(request, data.entries, planned)) is not None:
        return stored
    expected = compute(spark, request, data, planned, began)
    save_stored(request, data.entries, planned, expected)
    return expected


def _narrowing(request: OracleRequest, lay: Layout) -> bool:
    """Are there enough classes, and an engine output, to narrow them?"""
    return request.reported is not None and lay.total > narrowing.NARROW_ABOVE


def frame(spark: Any, request: OracleRequest) -> StreamFrame:
    """The request's streams as one DataFrame, with their timelines.

    An engine with a coarser clock (``time_unit`` ms) sees each event at its
    time truncated to the unit; so do the DataFrame and the timelines
    (:func:`.planning.coarse`: one unit's events are one instant, their
    triple counts added up).
    """
    data = stream_frame(spark, request.streams, request.starts, request.cache)
    return on_clock(data, request.semantics.time_unit)


def compute(
    spark: Any,
    request: OracleRequest,
    data: StreamFrame,
    planned: Planned,
    began: float | None = None,
) -> ExpectedOutput:
    """Evaluate every planned evaluation in one Spark job, then apply R2S.

    The compiled plan runs when it can; a query (or a value) it cannot
    express falls back to pyoxigraph per evaluation, and the output says so.
    """
    began = time.perf_counter() if began is None else began
    job = Job(request.query, request.static, data, planned, request.force_fallback)
    solved = solve(spark, job)
    classes = tuple(
        T0Class(p.first[0], p.last[0], _relations(k, p, solved, request))
        for k, p in enumerate(planned.plans)
    )
    narrowed = planned.narrowed
    return ExpectedOutput(
        classes,
        planned.stable_from,
        solved.evaluator,
        solved.reason,
        time.perf_counter() - began,
        t0_classes=narrowed.total if narrowed else len(classes),
        narrowing=narrowed.reason if narrowed else "",
    )


def _early(request: OracleRequest) -> tuple[dict[str, str], dict[str, Timeline]] | None:
    """Digests and timelines of the streams, when the output may be stored and
    the cache knows them all without Spark."""
    if request.keeping is None:
        return None
    return cached_timelines(request.keeping, request.streams, request.starts)


def _store_key(request: OracleRequest, entries: Mapping[str, str], planned: Planned | None) -> str:
    return store.key(
        request.query.text,
        request.semantics,
        [(s.iri, entries[s.iri], s.end, request.starts.get(s.iri, 0)) for s in request.streams],
        request.static,
        request.force_fallback,
        classes=None if planned is None else planned.selection,
    )


def _narrowing_key(request: OracleRequest, entries: Mapping[str, str], lay: Layout) -> str:
    """The store entry of the narrowing for this request and engine output:
    :func:`_narrowings` (this computation's) and the engine output's digest."""
    assert request.reported is not None
    content = narrowing.digest(request.reported, lay)
    return _narrowings(request, entries) + content[:32]


def _narrowings(request: OracleRequest, entries: Mapping[str, str]) -> str:
    """The start of the names of this computation's stored narrowings, one
    per engine output narrowed (so :func:`starts_spark` tells from the names
    whether any is kept)."""
    return f"{_store_key(request, entries, None)[:32]}n"


def starts_spark(request: OracleRequest, reported_later: bool = False) -> bool:
    """Will :func:`run` start Spark for ``request``, whatever the engine output?

    True unless a stored output, or, where the engine's output narrows the
    classes (``request.reported`` or ``reported_later``), a stored narrowing
    of this computation may spare it. Decided from the stream cache's
    metadata and the stored entries' names: no Spark, no engine output and no
    stored output read. ``rspbench oracle --reported`` starts Spark while it
    reads the engine's answers when this is True.
    """
    policy.base_policy(request.semantics)
    if axes.applies(request.query):
        return sequenced.starts_spark(request)
    if (early := _early(request)) is None:
        return True
    assert request.keeping is not None
    entries, timelines = early
    lay = layout(request.query, request.semantics, timelines, request.streams, request.starts)
    root = request.keeping.root
    if (reported_later or request.reported is not None) and lay.total > narrowing.NARROW_ABOVE:
        return not store.kept_under(root, _narrowings(request, entries))
    planned = plan_classes(lay, request.semantics, None)
    return not store.kept(root, _store_key(request, entries, planned))


def _narrowed(request: OracleRequest, entries: Mapping[str, str], lay: Layout) -> Narrowed | None:
    """The stored narrowing of this engine output, if kept and there."""
    if request.keeping is None:
        return None
    key = _narrowing_key(request, entries, lay)
    return store.load_data(request.keeping.root, key, decode_narrowed)


def _keep_narrowed(
    request: OracleRequest,
    entries: Mapping[str, str],
    lay: Layout,
    narrowed: Narrowed,
) -> None:
    if request.keeping is not None:
        key = _narrowing_key(request, entries, lay)
        store.save_data(request.keeping.root, key, encode_narrowed(narrowed))


def load_stored(
    request: OracleRequest, entries: Mapping[str, str], planned: Planned
) -> ExpectedOutput | None:
    """The stored output of this computation, if kept and there."""
    if request.keeping is None:
        return None
    return store.load(request.keeping.root, _store_key(request, entries, planned))


def save_stored(
    request: OracleRequest,
    entries: Mapping[str, str],
    planned: Planned,
    expected: ExpectedOutput,
) -> None:
    """Keep ``expected`` for the next time this computation comes (if kept)."""
    if request.keeping is not None:
        store.save(request.keeping.root, _store_key(request, entries, planned), expected)


def _relations(
    k: int, class_plan: ClassPlan, solved: Solutions, request: OracleRequest
) -> tuple[ExpectedRelation, ...]:
    """Class ``k``'s evaluations, filtered by the report policy, through R2S."""
    semantics, triples = request.semantics, solved.triples
    rows = []
    for number, evaluation in enumerate(class_plan.evaluations):
        # Under non-empty-content the window reported is the first trigger
        # that holds triples, as the count/session path (sequenced.py) and
        # the reference engine report it (found by rspbench explore).
        held = [n for n in evaluation.triggers if triples.get((k, number, n), 0)]
        shown = held[0] if held and policy.skips_empty(semantics) else evaluation.trigger
        trigger = next(w for w in class_plan.windows if w.name == shown)
        index = evaluation.active[trigger.name].index
        o, c = trigger.spec.window(index, trigger.t0)
        counts = [triples.get((k, number, name), 0) for name in evaluation.active]
        triggering = sum(triples.get((k, number, name), 0) for name in evaluation.triggers)
        if not policy.reported(semantics, triggering):
            continue
        bindings = solved.bags.get((k, number), ())
        rows.append((index, evaluation.time, o, c, sum(counts), bindings))
    return r2s.stream_out(rows, request.query.r2s, semantics)
