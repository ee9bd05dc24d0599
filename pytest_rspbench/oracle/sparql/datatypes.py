"""Which numeric types a variable can take: from the datatypes in the data.

The compiled plan handles SPARQL numbers with full type promotion
(:mod:`.numerics`), one branch per type. Most streams carry one numeric type
per predicate (YABench's and CSRBench's observation values are all
xsd:float), so the oracle records, per source (a stream, or the static data)
and predicate, the datatypes of the literal objects it holds. A variable
bound in the object position of a pattern with that predicate can only have
those types; in subject or predicate position, none. Only the branches of
types that can occur are then planned.

The table also records, as the pseudo datatype :data:`UNTYPED`, that a
predicate has objects that are not typed literals (IRIs, blank nodes, plain
or language-tagged strings). A predicate whose objects are all literals of
numeric datatypes (:meth:`Ranks.numeric_only`) binds its object variable
only to such literals, valid or ill-typed: a comparison of that variable with
a number needs no test of the term's kind (:mod:`.expressions`).

The table is built while the stream is read anyway (writing the Parquet cache
or the in-memory rows), so it costs no Spark job.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping

from pytest_rspbench.oracle.sparql import numerics as N
from pytest_rspbench.rsp.terms import XSD

_RANKS = {XSD + name: N.INTEGER for name in N.INTEGER_TYPES}
_RANKS.update({XSD + "decimal": N.DECIMAL, XSD + "float": N.FLOAT, XSD + "double": N.DOUBLE})

Datatypes = Mapping[str, Iterable[str]]
"""Predicate (N-Triples term) -> datatype IRIs of its literal objects, and
:data:`UNTYPED` if some of its objects are not typed literals."""

UNTYPED = ""
"""The pseudo datatype of an object that is not a typed literal."""


class Collector:
    """Collects :data:`Datatypes` from triples, one call per batch."""

    def __init__(self) -> None:
        self.seen: dict[str, set[str]] = {}
        self.untyped: set[str] = set()

    def add(self, triples: Iterable[tuple[str, str, str]]) -> None:
        seen = self.seen
        untyped = self.untyped.add
        for _, p, o in triples:
            # A typed literal: "lexical"^^<datatype>; only those can be numbers.
            if o[-1] == ">" and o[0] == '"':
                at = o.rfind('"^^<')
                if at > 0:
                    known = seen.get(p)
                    if known is None:
                        known = seen[p] = set()
                    known.add(o[at + 4 : -1])
                    continue
            untyped(p)

    def result(self) -> dict[str, list[str]]:
        table = {p: set(types) for p, types in self.seen.items()}
        for p in self.untyped:
            table.setdefault(p, set()).add(UNTYPED)
        return {p: sorted(types) for p, types in sorted(table.items())}


def collect(triples: Iterable[tuple[str, str, str]]) -> dict[str, list[str]]:
    """The :data:`Datatypes` of some triples.

    >>> collect([("<s>", "<v>", '"1.5"^^<http://www.w3.org/2001/XMLSchema#float>'),
    ...          ("<s>", "<n>", '"x"')])
    {'<n>': [''], '<v>': ['http://www.w3.org/2001/XMLSchema#float']}
    """
    collector = Collector()
    collector.add(triples)
    return collector.result()


def numeric_ranks(datatypes: Iterable[str]) -> frozenset[int]:
    """The numeric ranks among some datatype IRIs.

    >>> sorted(numeric_ranks([XSD + "int", XSD + "string", XSD + "double"]))
    [0, 3]
    """
    return frozenset(_RANKS[d] for d in datatypes if d in _RANKS)


class Ranks:
    """The numeric ranks of pattern objects, per source and predicate.

    ``tables`` maps a stream IRI (None: the static data) to its
    :data:`Datatypes`; a source without a table can hold anything.
    """

    def __init__(self, tables: Mapping[str | None, Datatypes] | None = None) -> None:
        self.tables = dict(tables or {})

    def objects(self, source: str | None, predicate: str | None) -> frozenset[int]:
        """What an object of ``predicate`` (None: any predicate) in ``source`` can be."""
        table = self.tables.get(source)
        if table is None:
            return N.ALL
        if predicate is None:
            return frozenset().union(*(numeric_ranks(t) for t in table.values()))
        return numeric_ranks(table.get(predicate, ()))

    def numeric_only(self, source: str | None, predicate: str | None) -> bool:
        """Every object of ``predicate`` in ``source`` is a literal of a numeric
        datatype (its lexical form may still be ill-typed); False when unknown
        or when ``predicate`` has no objects there."""
        table = self.tables.get(source)
        if table is None or predicate is None:
            return False
        types = list(table.get(predicate, ()))
        return bool(types) and all(t in _RANKS for t in types)


def merge(
    sides: Iterable[tuple[Iterable[str], Mapping[str, frozenset[int]]]],
    variables: Iterable[str],
) -> dict[str, frozenset[int]]:
    """The ranks of ``variables`` after combining relations (join, union).

    ``sides``: each relation's variables and known ranks. A variable takes
    its value from one of the sides that have it, so its ranks are the union
    over those; unknown on any of them, unknown.
    """
    sides = list(sides)
    out: dict[str, frozenset[int]] = {}
    for v in variables:
        found: frozenset[int] = frozenset()
        for names, ranks in sides:
            if v not in names:
                continue
            if v not in ranks:
                break
            found |= ranks[v]
        else:
            out[v] = found
    return out
