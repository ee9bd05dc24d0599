"""Narrow the t0 classes to compute from the *content* of the engine's output.

An engine picks its own t0, so the strict verdict asks whether *some*
candidate in ``[a, a + slide)`` reproduces the engine's output (RSP-QL,
"Correctness in practice"). A stream stamped at every millisecond has one
t0 class per millisecond of the slide (YABench big: 5,000), and each class
holds a copy of every window's solutions. The verdict stays exact if the
oracle computes only the classes that *can* reproduce the output, so the
step that chooses them must never drop one that could.

Reported times and windows cannot be that step (engines stamp with wall
clock, coarse units, or one millisecond off). The content can: every
binding of the engine's relation ``R_j`` comes from a solution of the
query's monotone part in ``R_j``'s window, and a solution's time span says
which windows hold it (:mod:`.spans`), so the window opens in
``[L_j, U_j]``. With ``o = t0 + k * slide``, relation ``j`` allows the t0 in
``[L_j, U_j]`` modulo the slide: an arc of the circle of the slide::

    slide 1000, t0 in [0, 1000)
    relation 1: window opens in [2345, 2347]  ->  t0 in [345, 347]
    relation 2: window opens in [3346, 3350]  ->  t0 in [346, 350]
    both                                      ->  t0 in [346, 347]
    -> compute the classes that meet [346, 347]; the verdict compares them exactly

A relation whose bindings come from no solution, or never share a window,
comes from no t0 at all: the output cannot be reproduced, and only the
closest class (the one most relations allow) is computed for the report.
Relations without bindings, and queries whose output names no solution
variable (``COUNT(*)`` without GROUP BY), constrain nothing; when nothing
does, every class is computed and the report says so. Leading relations
that may be transient (before the stable start ``t_s``) are not used.
"""

from __future__ import annotations

import math
from bisect import bisect_left, bisect_right
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from typing import TYPE_CHECKING, Any

from pytest_rspbench.errors import UnsupportedQueryError
from pytest_rspbench.oracle.t0.aggregated import intersect
from pytest_rspbench.oracle.t0.narrowed import Narrowed

if TYPE_CHECKING:
    from pytest_rspbench.oracle.t0.aggregated import Placed
    from pytest_rspbench.oracle.t0.placing import Opens
    from pytest_rspbench.oracle.t0.planning import Layout

NARROW_ABOVE = 16
"""Cases with at most this many t0 classes compute them all (cheaper than a
narrowing job; the verdict is exact either way)."""

Interval = tuple[int, int]
"""Inclusive ``[first, last]``."""

_REPLAY = 1 << 32  # relation numbers: replay * _REPLAY + position


@dataclass(frozen=True)
class Told:
    """One relation as the engine streamed it out."""

    bindings: tuple[Mapping[str, str], ...] = ()
    time: int | None = None
    window: tuple[int, int] | None = None


@dataclass(frozen=True)
class Reported:
    """What the engine output, per replay: the relations the classes must
    explain.

    Attributes:
        outputs: each replay's relations, in the order they came.
        by_value: literals compare by value (``literal_equality: value``),
            so they are not used to place a binding.
        exact: the verdict asks for an equal output (strict, containment);
            False (graded) narrows on what does come from solutions.
        tolerance: numbers within it match (``literal_equality: value``):
            an aggregate's value places its relation only that closely.
    """

    outputs: tuple[tuple[Told, ...], ...] = ()
    by_value: bool = False
    exact: bool = True
    tolerance: float = 0.0
    _digests: dict[tuple[int, int], str] = field(
        default_factory=dict, compare=False, repr=False
    )  # digest() per layout: one output is looked up and stored under one key

    @classmethod
    def of(
        cls,
        results: Iterable[Any],
        by_value: bool = False,
        exact: bool = True,
        tolerance: float = 0.0,
    ) -> Reported:
        """From one replay's results (anything with ``bindings``, ``time``, ``window``)."""
        return cls.of_outputs([results], by_value, exact, tolerance)

    @classmethod
    def of_outputs(
        cls,
        outputs: Iterable[Iterable[Any]],
        by_value: bool = False,
        exact: bool = True,
        tolerance: float = 0.0,
    ) -> Reported:
        """From the results of several replays."""
        return cls(
            tuple(
                tuple(
                    Told(
                        tuple(getattr(r, "bindings", ()) or ()),
                        None if r.time is None else int(r.time),
                        None if r.window is None else (int(r.window[0]), int(r.window[1])),
                    )
                    for r in results
                )
                for results in outputs
            ),
            by_value,
            exact,
            tolerance,
        )

    def __bool__(self) -> bool:
        return any(r.bindings for output in self.outputs for r in output)


def arc(lo: int, hi: int, slide: int, start: int) -> list[Interval]:
    """The t0 in ``[start, start + slide)`` of windows opening in ``[lo, hi]``.

    A window opens at ``o = t0 + k * slide``, so t0 is ``o`` modulo the
    slide: an arc of the circle, in one or two pieces.

    >>> arc(2345, 2347, 1000, 0)
    [(345, 347)]
    >>> arc(1998, 2001, 1000, 0)   # wraps around
    [(0, 1), (998, 999)]
    >>> arc(0, 5000, 1000, 0)
    [(0, 999)]
    """
    if hi - lo + 1 >= slide:
        return [(start, start + slide - 1)]
    first = start + (lo - start) % slide
    last = first + (hi - lo)
    if last < start + slide:
        return [(first, last)]
    return [(start, last - slide), (first, start + slide - 1)]


def folded(candidates: Interval, slide: int, start: int) -> Interval:
    """A class's candidates ``[first, last]`` moved into ``[start, start +
    slide)``, where the arcs are: a coarse clock's last t0 can lie a slide
    after its first (:func:`~.planning._candidates`), with the same windows
    from the second on.

    >>> folded((1002, 1003), 1000, 0)
    (2, 3)
    """
    first, last = candidates
    shift = (first - start) // slide * slide
    return first - shift, last - shift


def meeting(candidates: Sequence[Interval], feasible: Sequence[Interval]) -> list[int]:
    """Positions of the candidate classes ``[first, last]`` that meet ``feasible``.

    >>> meeting([(0, 4), (5, 9), (10, 19)], [(7, 12)])
    [1, 2]
    """
    return [k for k, c in enumerate(candidates) if intersect([c], feasible)]


def closest(candidates: Sequence[Interval], arcs: Sequence[Sequence[Interval]]) -> int:
    """The candidate class ``[first, last]`` the most arcs meet (the first on ties).

    >>> closest([(0, 4), (5, 9)], [[(5, 8)], [(5, 5)], [(0, 1)]])
    1
    """
    starts = sorted(lo for pieces in arcs for lo, _ in pieces)
    ends = sorted(hi for pieces in arcs for _, hi in pieces)
    best, score = 0, -1
    for k, (first, last) in enumerate(candidates):
        met = bisect_right(starts, last) - bisect_left(ends, first)
        if met > score:
            best, score = k, met
    return best


def constraining(output: Sequence[Told], stable_from: int, transient: int) -> list[int]:
    """Positions of the relations that must come from a window of the class.

    A leading part may be the engine's transient output (before ``t_s``):
    the first ``transient`` relations (as many as any class can have before
    ``t_s``: an engine's stamps may not be application times), or the
    relations stamped before ``t_s`` at the start when later ones are not
    (as the verdict skips them, :func:`~pytest_rspbench.verdict.strict.match_class`).
    Relations without bindings constrain nothing.

    >>> out = [Told(({"x": "<a>"},), 5), Told(({"x": "<b>"},), 20), Told((), 30)]
    >>> constraining(out, stable_from=10, transient=0)
    [1]
    """
    lead = 0
    while lead < len(output):
        time = output[lead].time
        if time is None or time >= stable_from:
            break
        lead += 1
    skip = max(lead if lead < len(output) else 0, transient)
    return [j for j in range(skip, len(output)) if output[j].bindings]


def everything(layout: Layout, why: str) -> Narrowed:
    """Every class: the content cannot decide, and the report says why."""
    total = layout.total
    return Narrowed(
        tuple(tuple(range(len(c))) for c in layout.candidates),
        total,
        f"t0 any: the content cannot decide ({why}); {total:,} classes computed",
        decided=False,
    )


def numbered(reported: Reported, layout: Layout) -> list[tuple[int, tuple[Mapping[str, str], ...]]]:
    """The relations that must come from a window of the class, numbered
    ``replay * 2^32 + position``, with their bindings."""
    return [
        (k * _REPLAY + j, output[j].bindings)
        for k, output in enumerate(reported.outputs)
        for j in constraining(output, layout.stable_from, layout.transient)
    ]


def digest(reported: Reported, layout: Layout) -> str:
    """What the narrowing reads of ``reported``, as a SHA-256 (the key of a
    stored narrowing: an engine that answers alike is narrowed alike).

    Each relation is hashed as its bag: its bindings as length-prefixed
    texts over the relation's variables, sorted (a JSON text of every
    binding took 3.4 s for YABench's self-join, 594,000 bindings; this 0.9 s).
    """
    import hashlib
    import json

    memo = (layout.stable_from, layout.transient)
    if (known := reported._digests.get(memo)) is not None:
        return known
    head: list[Any] = [reported.by_value, reported.exact]
    if reported.tolerance:
        head.append(reported.tolerance)
    sha = hashlib.sha256(json.dumps(head).encode("utf-8"))
    for n, bindings in numbered(reported, layout):
        names = sorted(set().union(*bindings))
        texts = sorted(_text(b, names) for b in bindings)
        sha.update(json.dumps([n, names, len(texts)]).encode("utf-8"))
        sha.update("".join(texts).encode("utf-8"))
    reported._digests[memo] = sha.hexdigest()
    return reported._digests[memo]


def _text(binding: Mapping[str, str], names: Sequence[str]) -> str:
    """One binding as text no other binding over ``names`` has (``-``: unbound)."""
    values = (binding.get(name) for name in names)
    return "".join("-" if v is None else f"{len(v)}:{v}" for v in values) + "\n"


def narrow(
    spark: Any,
    query: Any,
    static: Sequence[tuple[str, str, str]],
    data: Any,
    layout: Layout,
    reported: Reported,
    semantics: Any = None,
) -> Narrowed:
    """The classes that can reproduce ``reported``, found from its content.

    ``query`` is the RSP-QL query, ``static`` the static triples and
    ``data`` the streams' :class:`~pytest_rspbench.oracle.t0.frames.StreamFrame`.
    With ``semantics``, an aggregate's values place its relations too
    (:mod:`.aggregated`).
    """
    relations = numbered(reported, layout)
    if not relations:
        return everything(layout, "the engine's output has no bindings to place")
    from pytest_rspbench.oracle.t0.solutions import _algebra

    # One algebra and one context (frames, datatypes) for both placements.
    algebra, ctx = _algebra(query), _context(spark, static, data, layout)
    try:
        return _narrowed(spark, algebra, ctx, layout, reported, relations, semantics)
    finally:
        ctx.release()


def _narrowed(
    spark: Any,
    algebra: Any,
    ctx: Any,
    layout: Layout,
    reported: Reported,
    relations: list[tuple[int, tuple[Mapping[str, str], ...]]],
    semantics: Any,
) -> Narrowed:
    why = "the output names no variable a solution binds, e.g. an aggregate without GROUP BY"
    by_values = _values(spark, algebra, ctx, reported, relations, semantics)
    # Relations an aggregate's values placed whole need no content placement.
    rest = [r for r in relations if r[0] not in by_values.whole]
    from pytest_rspbench.oracle.t0.sides import relaxable

    if rest and relaxable(algebra.p):
        # Each side placed by one triple pattern first: no star is joined. It
        # never drops a class; when it leaves one class per window it is the
        # answer, else the whole pattern places the relations.
        try:
            opens = _opens(spark, algebra, replace(ctx, relaxed=True), reported, rest)
        except UnsupportedQueryError:
            opens = []
        if opens and all(o.possible for o in opens):
            found, fits = _picked(layout, reported, opens, by_values)
            if fits and all(len(c) == 1 for c in found.chosen):
                return found
    try:
        opens = _opens(spark, algebra, ctx, reported, rest) if rest else []
    except UnsupportedQueryError as exc:
        opens, why = [], str(exc)
    if not opens and not by_values.opens:
        return everything(layout, why)
    return _picked(layout, reported, opens, by_values)[0]


def _picked(
    layout: Layout, reported: Reported, opens: list[Opens], by_values: Placed
) -> tuple[Narrowed, bool]:
    """The classes the relations' opens and an aggregate's values allow, and
    whether some t0 fits them all."""
    window, values = by_values.window, by_values.opens
    per_replay: dict[int, list[Opens]] = {}
    for o in opens:
        per_replay.setdefault(o.relation // _REPLAY, []).append(o)
    for number in values:
        per_replay.setdefault(number // _REPLAY, [])
    chosen: list[set[int]] = [set() for _ in layout.candidates]
    reasons, fits = [], True
    for k in sorted(per_replay):
        placed = {n: p for n, p in values.items() if n // _REPLAY == k}
        picks, reason, fit = _choose(per_replay[k], layout, reported, (window, placed))
        for i, pick in enumerate(picks):
            chosen[i].update(pick)
        reasons.append(reason)
        fits = fits and fit
    picked = tuple(tuple(sorted(c)) for c in chosen)
    computed = math.prod(len(c) for c in picked)
    reason = f"{computed:,} of {layout.total:,} t0 classes computed: " + "; ".join(reasons)
    return Narrowed(picked, layout.total, reason), fits


def _values(
    spark: Any,
    algebra: Any,
    ctx: Any,
    reported: Reported,
    relations: list[Any],
    semantics: Any,
) -> Placed:
    """Where an aggregate's values place each relation's window (:mod:`.aggregated`)."""
    from pytest_rspbench.oracle.t0.aggregated import Placed, value_opens

    if semantics is None or not reported.exact:
        return Placed()

    return value_opens(
        spark, ctx, algebra, semantics, relations, reported.by_value, reported.tolerance
    )


def arcs_of(pieces: Sequence[Interval], slide: int, start: int) -> list[Interval]:
    """The t0 of windows opening in any of ``pieces``, merged.

    >>> arcs_of([(2345, 2346), (3998, 4001)], 1000, 0)
    [(0, 1), (345, 346), (998, 999)]
    """
    out: list[Interval] = []
    for lo, hi in sorted(p for a, b in pieces for p in arc(a, b, slide, start)):
        if out and lo <= out[-1][1] + 1:
            out[-1] = (out[-1][0], max(out[-1][1], hi))
        else:
            out.append((lo, hi))
    return out


def _opens(
    spark: Any, algebra: Any, ctx: Any, reported: Reported, relations: list[Any]
) -> list[Opens]:
    from pytest_rspbench.oracle.t0.placing import relation_opens
    from pytest_rspbench.oracle.t0.spans import spans

    try:
        return relation_opens(spark, spans(algebra, ctx), relations, reported.by_value)
    except UnsupportedQueryError:
        # A value a FILTER cannot compute exactly: place without filters.
        ctx = replace(ctx, filters=False)
        return relation_opens(spark, spans(algebra, ctx), relations, reported.by_value)


def _context(spark: Any, static: Sequence[tuple[str, str, str]], data: Any, layout: Layout) -> Any:
    from pytest_rspbench.oracle.sparql.datatypes import Ranks, collect
    from pytest_rspbench.oracle.t0.solutions import static_frame
    from pytest_rspbench.oracle.t0.spans import SpanContext

    tables: dict[str | None, Any] = {
        iri: t.datatypes for iri, t in data.timelines.items() if t.datatypes is not None
    }
    tables[None] = collect(static)
    return SpanContext(
        data.df, static_frame(spark, static), layout.specs, Ranks(tables), stars=data.stars
    )


def _choose(
    opens: Sequence[Opens],
    layout: Layout,
    reported: Reported,
    values: tuple[int, Mapping[int, Sequence[Interval]]] = (-1, {}),
) -> tuple[list[list[int]], str, bool]:
    """Per window, the candidates one replay's relations allow, why, and
    whether they fit (False: the closest class stands in for none).

    ``values``: a window's index and, per relation, the opens its
    aggregate values allow (:mod:`.aggregated`).
    """
    impossible = [o for o in opens if not o.possible]
    usable = [o for o in opens if o.possible]
    window, placed = values
    picks, allowed, fits = [], [], not (impossible and reported.exact)
    for i, ((_, spec), classes, start) in enumerate(
        zip(layout.specs.values(), layout.candidates, layout.starts, strict=True)
    ):
        candidates = [folded(c, spec.slide, start) for c in classes]
        arcs = [arc(*o.bounds[i], spec.slide, start) for o in usable if i in o.bounds]
        if i == window:
            arcs += [arcs_of(p, spec.slide, start) for p in placed.values()]
        feasible = [(start, start + spec.slide - 1)]
        for pieces in arcs:
            feasible = intersect(feasible, pieces)
        found = meeting(candidates, feasible) if arcs else list(range(len(candidates)))
        fits = fits and bool(found)
        if (impossible and reported.exact) or not found:
            found = [closest(candidates, arcs)]
        picks.append(found)
        allowed.append(feasible)
    if impossible and reported.exact:
        return picks, _impossible(impossible[0], reported), False
    where = "; ".join(
        f"<{name}> t0 in {_intervals(f)}" if len(layout.specs) > 1 else f"t0 in {_intervals(f)}"
        for name, f in zip(layout.specs, allowed, strict=True)
    )
    if not all(allowed):
        return picks, "no t0 fits every relation; the closest class was computed", False
    by = f"the content of the engine's {len(opens)} relation(s)" if opens else ""
    if placed:
        by += (" and " if by else "") + f"the aggregate values of {len(placed)} relation(s)"
    verb = "allows" if opens and not placed else "allow"  # "the content" / "the values"
    return picks, f"{by} {verb} {where}", fits


def _impossible(o: Opens, reported: Reported) -> str:
    """Why relation ``o`` comes from no window: which bindings."""
    k, j = divmod(o.relation, _REPLAY)
    told = reported.outputs[k][j]
    at = f" (at {told.time})" if told.time is not None else ""
    which = f"relation {j + 1} of the engine's output{at}"
    if o.unmatched is not None:
        return (
            f"no t0 reproduces the output: {which} has {_binding(o.unmatched)}, "
            "which no solution of the query gives; the closest class was computed"
        )
    first, second = (side or {} for side in o.apart or (None, None))
    return (
        f"no t0 reproduces the output: in {which}, {_binding(first.get('b', {}))} "
        f"(windows opening in [{first.get('lo')}, {first.get('hi')}]) and "
        f"{_binding(second.get('b', {}))} (windows opening in "
        f"[{second.get('lo')}, {second.get('hi')}]) are never in one window; "
        "the closest class was computed"
    )


def _binding(values: Mapping[str, Any]) -> str:
    from pytest_rspbench.rsp.bags import clip

    return " ".join(f"?{k}={clip(str(v))}" for k, v in sorted(values.items())) or "{}"


def _intervals(pieces: Sequence[Interval], shown: int = 3) -> str:
    """``[a, b]`` pieces as text.

    >>> _intervals([(3, 3), (5, 9)])
    '{3} and [5, 9]'
    """
    parts = [f"{{{a}}}" if a == b else f"[{a}, {b}]" for a, b in pieces[:shown]]
    more = f" and {len(pieces) - shown} more" if len(pieces) > shown else ""
    return (" and ".join(parts) or "nothing") + more
