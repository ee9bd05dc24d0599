"""A BGP's sides, placed apart in the t0 narrowing (:mod:`.spans`).

A self-join (two observations of one ``?sensor``) is as large as its
windows squared. When the output names each side's subject, a binding names
one solution of each side, and the windows that hold the binding are those
that hold both solutions: each side can be placed on its own, without the
join, and sides alike up to their variables' names are evaluated once.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import replace
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from pytest_rspbench.oracle.t0.factors import Factor

_WRAPPERS = frozenset(
    {"Project", "Filter", "Graph", "Distinct", "Reduced", "OrderBy", "Slice", "ToMultiSet"}
)


def outputs(node: Any) -> frozenset[str]:
    """The projected variables when the pattern is one BGP under FILTERs,
    GRAPH and solution modifiers only (else empty: no side is placed apart)."""
    output: frozenset[str] = frozenset()
    while node.name in _WRAPPERS:
        if node.name == "Project":
            output = frozenset(str(v) for v in node.PV)
        node = node.p
    return output if node.name == "BGP" else frozenset()


def sides(triples: Sequence[Any], output: frozenset[str]) -> list[list[Any]]:
    """A BGP's *sides*, when each can be placed on its own; else ``[triples]``.

    A side is one subject's star with the stars hanging off it (``?ob
    :result ?r . ?r :value ?v``); sides share only object variables (two
    observations of one ``?sensor``). Every solution of the BGP is one
    solution per side, so the window that holds it holds each side's
    solution: placing the sides apart never drops a window. When each side's
    subject is an output variable, a binding names one solution per side,
    and the windows allowed are those the joined pattern allows, without the
    join (a self-join is as large as the windows squared).

    >>> from rdflib import Variable as V, URIRef as U
    >>> p, r, v = U("urn:p"), U("urn:r"), U("urn:v")
    >>> bgp = [(V("a"), p, V("s")), (V("a"), r, V("x")), (V("x"), v, V("y")), (V("b"), p, V("s"))]
    >>> [len(side) for side in sides(bgp, frozenset({"a", "b", "s"}))]
    [3, 1]
    >>> [len(side) for side in sides(bgp, frozenset({"a", "s"}))]  # ?b is not output
    [4]
    """
    from pytest_rspbench.oracle.sparql.patterns import _variable

    found = _groups(triples)
    placed = all(
        any((v := _variable(t[0])) is not None and v in output for t in side) for side in found
    )
    return found if len(found) > 1 and placed else [list(triples)]


def _groups(triples: Sequence[Any]) -> list[list[Any]]:
    """The triples grouped into stars: those linked by a subject variable."""
    from pytest_rspbench.oracle.sparql.patterns import _variable

    subjects = {v for t in triples if (v := _variable(t[0])) is not None}
    parent = list(range(len(triples)))

    def root(i: int) -> int:
        while parent[i] != i:
            parent[i] = i = parent[parent[i]]
        return i

    first: dict[str, int] = {}
    for i, triple in enumerate(triples):
        for term in triple:
            v = _variable(term)
            if v in subjects:
                parent[root(i)] = root(first.setdefault(v, i))
    groups: dict[int, list[Any]] = {}
    for i, triple in enumerate(triples):
        groups.setdefault(root(i), []).append(triple)
    return list(groups.values())


def relaxed(triples: Sequence[Any], output: frozenset[str]) -> list[list[Any]] | None:
    """One triple pattern per side, for a first, cheaper placement; None
    when it would place nothing more cheaply.

    A side's solution uses a triple of each of its patterns, so the windows
    that hold the solution hold that triple: placing each binding by one
    pattern alone never drops a window (it may allow more, when a star's
    triples have different times). The pattern kept is the one whose
    subject is an output variable and that binds the most output variables
    (``?ob :procedure ?sensor``, not ``?ob :result ?r``): a binding names
    its triple, and no star is joined. Every side must have such a pattern
    (else a side's bindings say little about their times), and some side
    must have more than one.

    >>> from rdflib import Variable as V, URIRef as U
    >>> p, r, v = U("urn:p"), U("urn:r"), U("urn:v")
    >>> bgp = [(V("a"), p, V("s")), (V("a"), r, V("x")), (V("x"), v, V("y")), (V("b"), p, V("s"))]
    >>> [[str(t[0]) for t in side] for side in relaxed(bgp, frozenset({"a", "b", "s"}))]
    [['a'], ['b']]
    >>> relaxed(bgp, frozenset({"a", "s"})) is None  # ?b's side has no output subject
    True
    """
    from pytest_rspbench.oracle.sparql.patterns import _variable

    groups = sides(triples, output)
    if len(groups) == 1:
        groups = _groups(triples)
        if len(groups) != 1:
            return None  # sides that cannot be placed apart
    chosen = []
    for side in groups:
        named = [t for t in side if (v := _variable(t[0])) is not None and v in output]
        if not named:
            return None
        chosen.append(max(named, key=lambda t: sum(_variable(x) in output for x in t)))
    if all(len(side) == 1 for side in groups):
        return None  # nothing to relax
    return [[t] for t in chosen]


def relaxable(node: Any) -> bool:
    """Does :func:`relaxed` apply to the query pattern ``node`` (a SELECT's
    pattern: one window's BGP under FILTERs, GRAPH and solution modifiers)?"""
    output = outputs(node)
    while node.name in _WRAPPERS:
        node = node.p
    return bool(output) and node.name == "BGP" and relaxed(node.triples, output) is not None


def shape(triples: Sequence[Any]) -> tuple[tuple[Any, ...], dict[int, str]]:
    """The triples with their variables numbered by first appearance, and
    the numbering (number -> variable): sides alike up to their variables'
    names (a self-join's two observations) have one shape.

    >>> from rdflib import Variable as V, URIRef as U
    >>> p = U("urn:p")
    >>> shape([(V("a"), p, V("s"))])[0] == shape([(V("b"), p, V("t"))])[0]
    True
    >>> shape([(V("b"), p, V("t"))])[1]
    {0: 'b', 1: 't'}
    """
    from pytest_rspbench.oracle.sparql.patterns import _variable

    numbers: dict[str, int] = {}
    form = []
    for triple in triples:
        terms: list[Any] = []
        for term in triple:
            v = _variable(term)
            if v is None:
                terms.append((type(term).__name__, str(term)))
            else:
                terms.append(numbers.setdefault(v, len(numbers)))
        form.append(tuple(terms))
    return tuple(form), {n: v for v, n in numbers.items()}


def alike(
    first: Factor, was: Mapping[int, str], now: Mapping[int, str], keep: bool = True
) -> Factor:
    """A side shaped like ``first`` (variables ``was``), with the variables
    ``now``: ``first``'s solutions, renamed. With ``keep``, ``first``'s
    DataFrame is kept in memory, so its join is computed once for both
    (:meth:`~.spans.SpanContext.release` frees it); a side of one triple
    pattern is a scan, cheaper read twice than kept."""
    from pyspark.sql import functions as F

    if keep and not first.df.is_cached:
        first.df.persist()
    names = {was[n]: now[n] for n in was}
    windows = [c for i in sorted(first.windows) for c in (f"lo_{i}", f"hi_{i}")]
    df = first.df.select(
        *[F.col(f"v_{v}").alias(f"v_{names[v]}") for v in sorted(first.known)],
        *[F.col(c) for c in windows],
    )
    ranks = {names[v]: r for v, r in first.ranks.items() if v in names}
    typed = frozenset(names[v] for v in first.typed if v in names)
    return replace(
        first, df=df, known=frozenset(names[v] for v in first.known), ranks=ranks, typed=typed
    )
