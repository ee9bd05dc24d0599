"""Query constructs: the parts of RSP-QL an engine may not run.

One vocabulary (STYLE: one definition that every part imports): the names an
engine profile lists under ``unsupported:`` (engine.yaml), the features
``rspbench explore`` generates and groups its failures by, and what
:func:`used` finds in a query. A name is stable; the description is for
people. The order of :data:`CONSTRUCTS` is the order they are shown in.

:func:`used` reads them off the SPARQL algebra of the per-window query
(rdflib's, as the oracle compiles it), not off the text, so a keyword in a
string or an IRI never counts::

    SELECT ?x (COUNT(*) AS ?c)          aggregates
    WHERE { WINDOW :w { ?x :p ?v        (a plain pattern: no construct)
            OPTIONAL { ?x :q ?l } }     optional
            ?x :label ?name }           static-data (outside any window)
    GROUP BY ?x
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from pytest_rspbench.rsp.parsing import RDFLIB_PARSER
from pytest_rspbench.rsp.rspql import RspqlQuery

CONSTRUCTS: dict[str, str] = {
    "filter": "FILTER (also the filter of an OPTIONAL)",
    "optional": "OPTIONAL",
    "union": "UNION",
    "minus": "MINUS",
    "bind": "BIND, or an expression in SELECT (expr AS ?v) that is no aggregate",
    "aggregates": "aggregates (COUNT, SUM, AVG, MIN, MAX, ...) with or without GROUP BY",
    "distinct": "SELECT DISTINCT or REDUCED",
    "order-by": "ORDER BY",
    "limit": "LIMIT or OFFSET",
    "two-windows": "more than one named window in one query",
    "static-data": "triple patterns outside every WINDOW block (the static data)",
    "exists": "FILTER EXISTS or FILTER NOT EXISTS",
    "values": "VALUES",
    "subquery": "a sub-SELECT",
}
"""Each construct's stable name and what it covers."""
NAMES = tuple(CONSTRUCTS)

# Algebra nodes that are one construct wherever they appear.
_NODES = {
    "Union": "union",
    "Minus": "minus",
    "Distinct": "distinct",
    "Reduced": "distinct",
    "OrderBy": "order-by",
    "Slice": "limit",
    "AggregateJoin": "aggregates",
    "Group": "aggregates",
    "Builtin_EXISTS": "exists",
    "Builtin_NOTEXISTS": "exists",
    "values": "values",
}


def used(query: RspqlQuery) -> frozenset[str]:
    """The constructs of :data:`CONSTRUCTS` that ``query`` uses.

    >>> from pytest_rspbench.rsp.rspql import parse
    >>> sorted(used(parse('''PREFIX : <http://ex/>
    ... REGISTER RStream :o AS SELECT ?x (COUNT(*) AS ?c)
    ... FROM NAMED WINDOW :w ON STREAM :s [RANGE 10 STEP 5]
    ... WHERE { WINDOW :w { ?x :p ?v OPTIONAL { ?x :q ?l } } ?x :label ?n }
    ... GROUP BY ?x''')))
    ['aggregates', 'optional', 'static-data']
    """
    found = set(_walk(_algebra(query.static_sparql), in_window=False))
    if len(query.declared) > 1:
        found.add("two-windows")
    return frozenset(found)


def shown(names: frozenset[str] | set[str] | tuple[str, ...]) -> str:
    """Constructs in the vocabulary's order, comma separated; "plain pattern" for none.

    >>> shown(frozenset({"union", "filter"}))
    'filter, union'
    """
    ordered = [n for n in NAMES if n in names]
    return ", ".join(ordered) if ordered else "plain pattern"


def _algebra(sparql: str) -> Any:
    from rdflib.plugins.sparql.algebra import translateQuery
    from rdflib.plugins.sparql.parser import parseQuery

    with RDFLIB_PARSER:
        return translateQuery(parseQuery(sparql)).algebra


def _walk(node: Any, in_window: bool) -> Iterator[str]:
    """The constructs under ``node`` (an rdflib CompValue, list or term)."""
    if isinstance(node, list):
        for child in node:
            yield from _walk(child, in_window)
        return
    name = getattr(node, "name", None)
    if not isinstance(node, dict) or name is None:
        return
    yield from _here(node, name, in_window)
    inside = in_window or name == "Graph"
    for key, child in node.items():
        if not key.startswith("_"):
            yield from _walk(child, inside)


def _here(node: Any, name: str, in_window: bool) -> Iterator[str]:
    """The constructs ``node`` itself stands for."""
    if name in _NODES:
        yield _NODES[name]
    elif name == "Filter":
        yield "filter"
    elif name == "LeftJoin":
        yield "optional"
        if getattr(node.get("expr"), "name", None) != "TrueFilter":
            yield "filter"
    elif name == "Extend" and not _aggregate_result(node.get("expr")):
        yield "bind"
    elif name == "ToMultiSet" and getattr(node.get("p"), "name", None) == "Project":
        yield "subquery"
    elif name == "BGP" and node.get("triples") and not in_window:
        yield "static-data"


def _aggregate_result(expr: Any) -> bool:
    """rdflib binds each aggregate's result to ``?__agg_n__`` and then extends."""
    return str(expr).startswith("__agg_")
