"""Report policy and R2S: when an engine reports a window, and what it streams out.

SECRET's report policies decide *when* the query is evaluated; CQL's R2S
operators (RSP-QL Def. 20-22) decide *what* is streamed out. This module
decides both, for the oracle and the verdict alike: the oracle plans its
evaluation instants (:mod:`pytest_rspbench.oracle.t0.evaluations`) and
applies R2S on its columns (:mod:`pytest_rspbench.oracle.r2s`) by asking it;
the verdict asks it how an engine's reports line up with windows.

A profile's ``report`` (:data:`~pytest_rspbench.rsp.semantics.REPORT_POLICIES`)
names exactly one *base* policy, the instants, and optionally a filter:

- window-close: report when a window closes, on its whole content;
- content-change: report at each instant an event enters an open window;
- periodic(p): report every ``p`` ms from ``t0``;
- non-empty-content: filters any of these: no report when the windows that
  triggered it are all empty (SECRET's NC on the triggering window).

Under content-change and periodic an engine reports while its window is
still open, on the content up to that instant, so one window is reported
many times and the window it names need not be a closed one::

    events           *    *        *
    window           [o ................ c)
    window-close                         R     once, at the close
    content-change   R    R        R           each time an event enters
    periodic(p)          R      R      R       every p ms

R2S, from each evaluation's relation to what is streamed out:

- RStream: the whole relation at each evaluation;
- IStream: what is new since the previous evaluation (bag difference);
- DStream: what disappeared since the previous evaluation.

With empty-relation notification off, empty relations are not streamed out
(but still count as "the previous evaluation").
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Mapping, Sequence
from operator import itemgetter

from pytest_rspbench.errors import UnsupportedQueryError
from pytest_rspbench.rsp.bags import Solution, solution
from pytest_rspbench.rsp.outputs import ExpectedRelation
from pytest_rspbench.rsp.semantics import Semantics

BASE_POLICIES = ("window-close", "content-change", "periodic")
"""The policies that give evaluation instants; a profile names exactly one."""

WHILE_OPEN = ("content-change", "periodic")
"""The base policies that report a window while it is still open."""

Evaluated = tuple[int, int, int, int, int, Sequence[Mapping[str, str]]]
"""One evaluation: ``(window index, time, o, c, triples, bindings)``."""

Ordered = Callable[[Sequence[Mapping[str, str]]], Sequence[Mapping[str, str]] | None]
"""A relation's bindings in the order their solutions sort, or None when
that needs a bag of them (:func:`sorted_rows`)."""


def base_policy(semantics: Semantics) -> str:
    """The one evaluation-instant policy of a profile; the rest are filters.

    >>> base_policy(Semantics(report=("window-close", "non-empty-content")))
    'window-close'
    """
    chosen = [p for p in semantics.report if p in BASE_POLICIES]
    if len(chosen) != 1:
        raise UnsupportedQueryError(
            "the oracle needs exactly one of window-close, content-change, periodic "
            f"in the report policy (got {', '.join(semantics.report)})"
        )
    if chosen[0] == "content-change" and semantics.tick == "tuple-driven":
        raise UnsupportedQueryError(
            "content-change with a tuple-driven tick (one evaluation per triple)"
        )
    return chosen[0]


def skips_empty(semantics: Semantics) -> bool:
    """Does the profile leave out evaluations whose triggering windows are empty?"""
    return "non-empty-content" in semantics.report


def reported(semantics: Semantics, triggering: int) -> bool:
    """Is an evaluation reported whose triggering windows hold ``triggering`` triples?

    >>> reported(Semantics(report=("window-close", "non-empty-content")), 0)
    False
    >>> reported(Semantics(report=("window-close",)), 0)
    True
    """
    return triggering > 0 or not skips_empty(semantics)


def while_open(semantics: Semantics) -> bool:
    """Does the engine report windows while they are open (content-change,
    periodic)? Then one window is reported many times, and the window it
    names need not be the closed one the oracle lists.

    >>> while_open(Semantics(report=("periodic",), period=500))
    True
    """
    return any(p in semantics.report for p in WHILE_OPEN)


def whole_windows(semantics: Semantics) -> bool:
    """Is each relation streamed out a whole window's content (window-close, RStream)?"""
    return (
        set(semantics.report) <= {"window-close", "non-empty-content"}
        and "window-close" in semantics.report
        and tuple(semantics.r2s) == ("RStream",)
    )


def stream_out(
    evaluations: Sequence[Evaluated],
    r2s: str,
    semantics: Semantics,
    ordered: Ordered | None = None,
) -> tuple[ExpectedRelation, ...]:
    """Apply R2S to evaluations, in time order (those the policy reports).

    ``ordered`` gives an RStream relation as it is streamed out without a
    bag of it (default :func:`sorted_rows`; the oracle passes one that keeps
    its Arrow columns).

    >>> out = stream_out([(0, 10, 0, 10, 1, [{"x": "<a>"}]), (1, 20, 10, 20, 1, [{"x": "<a>"}])],
    ...                  "IStream", Semantics())
    >>> [(r.time, list(r.bindings)) for r in out]
    [(10, [{'x': '<a>'}])]
    """
    ordered = ordered or sorted_rows
    out = []
    previous: Counter[Solution] = Counter()
    before: dict[Solution, Mapping[str, str]] = {}
    for index, time, o, c, triples, bindings in evaluations:
        if r2s == "RStream" and (rows := ordered(bindings)) is not None:
            # The whole relation, in the order the general path gives it,
            # without a bag of it (the general path took 15-20 s of 96 s for
            # a self-join's 3 million solutions; this one 3.6 s).
            if rows or semantics.empty_relations:
                out.append(ExpectedRelation(index, time, (o, c), rows, triples))
            previous, before = Counter(), {}  # RStream reads neither
            continue
        # Each solution streamed out is one of the evaluations' own mappings
        # where it can be (a plain dict with no unbound value), not a copy:
        # the output then shares the solutions the job collected (DStream's
        # come from the previous evaluation).
        held: dict[Solution, Mapping[str, str]] = {}
        current: Counter[Solution] = Counter()
        for b in bindings:
            key = solution(b)
            current[key] += 1
            if key not in held and type(b) is dict and None not in b.values():
                held[key] = b
        if r2s == "IStream":
            emitted = current - previous
        elif r2s == "DStream":
            emitted = previous - current
        else:
            emitted = current
        source = before if r2s == "DStream" else held
        previous, before = current, held
        if not emitted and not semantics.empty_relations:
            continue
        rows = tuple(source.get(sol) or dict(sol) for sol in sorted(emitted.elements()))
        out.append(ExpectedRelation(index, time, (o, c), rows, triples))
    return tuple(out)


def sorted_rows(bindings: Sequence[Mapping[str, str]]) -> Sequence[Mapping[str, str]] | None:
    """The bindings sorted as their solutions sort, when each is a plain dict
    binding the same variables; else None.

    Their solutions then pair the same variables in the same order, so
    comparing the values in that order compares the solutions.

    >>> sorted_rows([{"x": "<b>"}, {"x": "<a>"}])
    ({'x': '<a>'}, {'x': '<b>'})
    >>> sorted_rows([{"x": "<b>"}, {"y": "<a>"}]) is None
    True
    """
    if not bindings or type(bindings[0]) is not dict or not bindings[0]:
        return None if bindings else ()
    names = sorted(bindings[0])
    same = bindings[0].keys()
    for b in bindings:
        if type(b) is not dict or b.keys() != same or None in b.values():
            return None
    return tuple(sorted(bindings, key=itemgetter(*names)))
