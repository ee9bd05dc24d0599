"""The expected output of a query with count or session windows.

docs/count-and-session-windows.md is the contract. The plan (ET, and each
named window as a time window over an axis) is :mod:`.t0.axes`; the
evaluations run in one Spark job like any other (:mod:`.t0.solutions`: the
compiled plan, or pyoxigraph per evaluation), over every window's rows
restamped on its axis. Here the evaluations become the output stream: the
report policy, then R2S with each evaluation's previous one in ET.

Under ``count_ties: any`` an evaluation whose slide is cut inside a run of
tied elements has several correct contents (each chosen independently),
so the engine's output may be any of several. Each distinct output is one
class of the expected output (as each t0 class is), and the strict verdict
passes when some class reproduces the engine's::

    ET          e1      e2 (2 correct contents)     e3 (3)
    answers     A       B1 B2                       C1 C2 C3
    outputs     A B1 C1, A B1 C2, ..., A B2 C3      (at most MAX_RESOLUTIONS)

Evaluations whose contents give one answer are one choice. Beyond
:data:`MAX_RESOLUTIONS` outputs the engine's output picks the resolutions
to compute (:mod:`.t0.ties`), as it picks t0 classes past a few: the arrival
one, and one that reproduces each replay's output if any does. Before the
engine has run there is then nothing to compute ahead, and without its
output (``rspbench oracle`` without ``--reported``) the oracle refuses.
"""

from __future__ import annotations

import itertools
import json
import math
import time
from collections import Counter
from collections.abc import Mapping, Sequence
from typing import Any, Protocol

from pytest_rspbench.errors import UnsupportedQueryError
from pytest_rspbench.oracle import r2s
from pytest_rspbench.oracle.spark import sized
from pytest_rspbench.oracle.store import outputs as store
from pytest_rspbench.oracle.store.streamcache import StreamCache
from pytest_rspbench.oracle.t0 import axes, restamp, ties
from pytest_rspbench.oracle.t0.frames import StreamFrame, cached_timelines, on_clock, stream_frame
from pytest_rspbench.oracle.t0.sequence import Step
from pytest_rspbench.oracle.t0.solutions import Job, Solutions, solve
from pytest_rspbench.rsp import policy
from pytest_rspbench.rsp.bags import bag, solution
from pytest_rspbench.rsp.outputs import ExpectedOutput, ExpectedRelation, T0Class
from pytest_rspbench.rsp.rspql import RspqlQuery
from pytest_rspbench.rsp.semantics import Semantics
from pytest_rspbench.stream.model import Stream, Triple
from pytest_rspbench.stream.workloads import Disorder

MAX_RESOLUTIONS = 4096
"""The most distinct outputs ``count_ties: any`` may make one t0 class expect."""

Option = tuple[int, int, int, int, int, Sequence[Mapping[str, str]]] | None
"""One correct answer of an evaluation (as :data:`.policy.Evaluated`), or
None when the report policy leaves it out (non-empty-content)."""


class Request(Protocol):
    """What :func:`run` reads of an ``OracleRequest`` (its fields)."""

    @property
    def query(self) -> RspqlQuery: ...
    @property
    def streams(self) -> tuple[Stream, ...]: ...
    @property
    def semantics(self) -> Semantics: ...
    @property
    def static(self) -> tuple[Triple, ...]: ...
    @property
    def starts(self) -> Mapping[str, int]: ...
    @property
    def force_fallback(self) -> bool: ...
    @property
    def cache(self) -> StreamCache | None: ...
    @property
    def disorder(self) -> Mapping[str, Disorder]: ...
    @property
    def reported(self) -> Any: ...
    @property
    def keeping(self) -> StreamCache | None: ...


def run(spark: Any, request: Request, ahead: bool = False) -> ExpectedOutput | None:
    """Plan, frame, compute and store a request whose query has count or
    session windows (every t0 class of its time windows is computed).

    ``ahead`` (before the engine has run, no ``request.reported``): None
    when the ties are too many to enumerate (the engine's output picks them).
    """
    began = time.perf_counter()
    axes.refuse(request.query, request.semantics)
    key = None
    if request.keeping is not None:
        early = cached_timelines(request.keeping, request.streams, request.starts)
        if early is not None:
            entries, timelines = early
            if ahead and _bound(_plan(request, timelines)) > MAX_RESOLUTIONS:
                return None
            key = _key(request, entries)
            if (stored := store.load(request.keeping.root, key)) is not None:
                return stored
    spark = spark() if callable(spark) else spark
    data = stream_frame(spark, request.streams, request.starts, request.cache, positioned=True)
    plan = _plan(request, data.timelines)
    if ahead and _bound(plan) > MAX_RESOLUTIONS:
        return None
    with sized(spark, data.triples):
        expected = compute(spark, request, plan, data, began)
    if request.keeping is not None and not expected.narrowing.endswith(PICKED):
        store.save(request.keeping.root, key or _key(request, data.entries), expected)
    return expected


PICKED = "those the engine's output can be computed"
"""How the note of an output narrowed by the engine's output ends (not stored)."""


def _bound(plan: axes.Plan) -> int:
    """At most how many outputs one class has: the product of its steps'
    correct contents (their answers may coincide)."""
    return max(
        math.prod(
            math.prod(len(shown.choices) or 1 for shown in step.shown.values()) for step in steps
        )
        for steps in plan.steps
    )


def starts_spark(request: Request) -> bool:
    """Will :func:`run` start Spark? Not when the output is stored and the
    cache knows every stream (decided from the cache's metadata)."""
    if request.keeping is None:
        return True
    early = cached_timelines(request.keeping, request.streams, request.starts)
    if early is None:
        return True
    return not store.kept(request.keeping.root, _key(request, early[0]))


def _plan(request: Request, timelines: Mapping[str, Any]) -> axes.Plan:
    return axes.plan(
        request.query, request.semantics, timelines, request.streams, request.disorder,
        request.starts,
    )  # fmt: skip


def compute(
    spark: Any, request: Request, plan: axes.Plan, data: StreamFrame, began: float
) -> ExpectedOutput:
    """Evaluate every step of ET in one Spark job, then the output stream(s)."""
    clocked = on_clock(data, request.semantics.time_unit)
    frame = StreamFrame(
        restamp.axis_frame(spark, plan, clocked.df),
        restamp.axis_timelines(plan, clocked.timelines),
        data.entries,
        restamp.axis_stars(plan, clocked.stars),
    )
    planned, numbers = restamp.virtual_plan(plan)
    solved = solve(
        spark, Job(request.query, request.static, frame, planned, request.force_fallback)
    )
    classes: list[T0Class] = []
    ties, total = 0, 0
    for k, ((first, last), steps) in enumerate(zip(plan.classes, plan.steps, strict=True)):
        options = [
            _options(k, s, numbers[k][n], solved, request.semantics) for n, s in enumerate(steps)
        ]
        count = math.prod(len(o) for o in options)
        if count > MAX_RESOLUTIONS:
            outputs = _picked(options, request, plan.stable_from, count)
        else:
            outputs = resolutions(options, request.query.r2s, request.semantics)
        ties, total = max(ties, len(outputs)), max(total, count)
        low, high = (first[0], last[0]) if first else (0, 0)
        classes += [T0Class(low, high, relations) for relations in outputs]
    note = ""
    if total > MAX_RESOLUTIONS:
        note = f"count_ties any: {_many(total)} correct outputs; {PICKED}"
    elif ties > 1:
        note = f"count_ties any: {ties} correct outputs (the ties at the cuts resolved every way)"
    return ExpectedOutput(
        tuple(classes),
        plan.stable_from,
        solved.evaluator,
        solved.reason,
        time.perf_counter() - began,
        t0_classes=len(classes),
        narrowing=note,
    )


def _options(
    k: int, step: Step, numbers: range, solved: Solutions, semantics: Semantics
) -> list[Option]:
    """The distinct answers of one step, one per correct content.

    Under non-empty-content a step is left out when every window that
    triggered it is empty; the window reported is the first that triggered
    it (the first non-empty one under non-empty-content, as the reference
    engine reports).
    """
    out: dict[Any, Option] = {}
    for number in numbers:
        counts = {name: solved.triples.get((k, number, name), 0) for name in step.shown}
        fired = [n for n in step.triggers if counts.get(n, 0) or not policy.skips_empty(semantics)]
        if not fired:
            out.setdefault(None, None)
            continue
        shown = step.shown[fired[0]]
        bindings = solved.bags.get((k, number), ())
        option = (shown.number, step.time, *shown.window, sum(counts.values()), bindings)
        key = (shown.number, shown.window, _bag(bindings)) if len(numbers) > 1 else number
        out.setdefault(key, option)
    return list(out.values())


def _picked(
    options: Sequence[Sequence[Option]], request: Request, stable_from: int, count: int
) -> list[tuple[ExpectedRelation, ...]]:
    """Past :data:`MAX_RESOLUTIONS`: the arrival resolution, and those the
    engine's output can be (:func:`.t0.ties.picked`), each distinct once."""
    reported = request.reported
    if reported is None or not reported.outputs:
        raise UnsupportedQueryError(
            f"count_ties any: {_many(count)} correct outputs, more than the oracle enumerates "
            f"({MAX_RESOLUTIONS:,}) without the engine's output to pick them by "
            '(docs/count-and-session-windows.md, "Which elements at a tie").\nHINT: give '
            "the engine's results (rspbench oracle --reported), or pin count_ties: arrival."
        )
    semantics, operator = request.semantics, request.query.r2s
    answers = [[None if o is None else (bag(o[5]), (o[2], o[3])) for o in step] for step in options]
    same = ties.equality(reported.by_value, reported.tolerance)
    windows = semantics.reports_window  # then a reported window is part of the output
    chosen = ties.picked(
        answers, reported.outputs, operator, semantics.empty_relations, same, stable_from, windows
    )
    out, seen = [], set()
    for choices in [[0] * len(options), *chosen]:
        rows = [row for o, c in zip(options, choices, strict=True) if (row := o[c]) is not None]
        relations = r2s.stream_out(rows, operator, semantics)
        if (signature := _signature(relations)) not in seen:
            seen.add(signature)
            out.append(relations)
    return out


def _many(count: int) -> str:
    """A count of outputs, written so a person can read it.

    >>> _many(18_432), _many(3 ** 100)
    ('18,432', 'about 10^47')
    """
    return f"{count:,}" if count < 10**9 else f"about 10^{len(str(count)) - 1}"


def _signature(relations: Sequence[ExpectedRelation]) -> str:
    return json.dumps(
        [[r.time, list(r.window), sorted(map(repr, _bag(r.bindings)))] for r in relations]
    )


def _bag(bindings: Sequence[Mapping[str, str]]) -> frozenset[tuple[Any, int]]:
    return frozenset(Counter(solution(b) for b in bindings).items())


def resolutions(
    options: Sequence[Sequence[Option]], operator: str, semantics: Semantics
) -> list[tuple[ExpectedRelation, ...]]:
    """Every distinct output stream: one choice of answer per step, through
    the report policy and R2S (IStream and DStream compare with the
    previous evaluation's choice); at most :data:`MAX_RESOLUTIONS` choices
    (the caller counts them).

    >>> a, b, c = ([{"x": "<a>"}], [{"x": "<b>"}], [{"x": "<c>"}])
    >>> out = resolutions([[(0, 1, 1, 1, 1, a)], [(1, 2, 2, 2, 1, b), (1, 2, 2, 2, 1, c)]],
    ...                   "RStream", Semantics())
    >>> [[list(r.bindings) for r in o] for o in out]
    [[[{'x': '<a>'}], [{'x': '<b>'}]], [[{'x': '<a>'}], [{'x': '<c>'}]]]
    """
    if all(len(o) == 1 for o in options):
        rows = [row for o in options if (row := o[0]) is not None]
        return [r2s.stream_out(rows, operator, semantics)]
    seen: set[str] = set()
    out = []
    for combo in itertools.product(*options):
        relations = r2s.stream_out([o for o in combo if o is not None], operator, semantics)
        if (signature := _signature(relations)) not in seen:
            seen.add(signature)
            out.append(relations)
    return out


def _key(request: Request, entries: Mapping[str, str]) -> str:
    """The stored output's key: :func:`.store.key`'s, and under ``count_order:
    arrival`` the deliveries' disorder (it decides the counting order)."""
    text = request.query.text
    if request.semantics.count_order == "arrival" and request.disorder:
        drawn = {iri: repr(d) for iri, d in sorted(request.disorder.items())}
        text += "\n" + json.dumps({"disorder": drawn})
    return store.key(
        text,
        request.semantics,
        [(s.iri, entries[s.iri], s.end, request.starts.get(s.iri, 0)) for s in request.streams],
        request.static,
        request.force_fallback,
    )
