"""Subject stars read from a property table: one scan instead of a join each.

A BGP's subject star (``?obs :a ?v . ?obs :b ?t . ?obs :c ?s``) compiles,
pattern by pattern, into one scan of the stream's triples per pattern and a
join of each with the next, every join a shuffle of both sides. A property
table (S2RDF's extended vertical partitioning, PRoST, SANSA) holds one row
per subject and one column per predicate, so the star is one scan of it and
a filter on the columns it reads::

    triples  (s, p, o, t)                 property table  (s, o_0, t_0, o_1, t_1, ...)
    <o1> :a "1" 10                          <o1>  "1" 10  "x" 10   ...
    <o1> :b "x" 10                          <o2>  "2" 20  null null

The table (:class:`StarTable`) holds the predicates that occur **at most
once per subject in the whole stream**: one triple, one object, one event
time. Each column ``k`` holds that triple's object (``o_k``) and its time
(``t_k``); a star over such predicates has, per subject, exactly the one
combination of triples the joins of the triple path would find, and its time
span is ``[least(t_k), greatest(t_k)]`` over the columns it reads: the span
the joins compute. So the star's solutions, their spans, the width test of
the joins and everything after (window assignment, de-duplication, t0
classes) are those of the triple path; the t0 narrowing's solution spans
(:mod:`..t0.spans`) read a star from the table too. A predicate with two
triples for one subject (two objects, or one object at two times, or a
triple repeated) is not in the table, and its patterns are read from the
triple table and joined with the star; so is a pattern whose predicate is a
variable.

Where it is used: the streams of time windows, their event times as the
triple table has them, on the engine's clock (:func:`StarTable.clocked`
truncates ``t_k`` as the triple path truncates ``t``). Count and session
windows read their rows restamped on an axis (:mod:`..t0.restamp`: ordinals,
session numbers, arrivals, and copies of rows at ties, which give one triple
several axis values, so "one triple, one time" fails there); the table is
not restamped, and the layout is restricted to time windows, where the
argument above holds: count and session windows keep the triple path.

:func:`enabled` reads the setting, the environment variable
``RSPBENCH_STAR_LAYOUT`` (``on`` or ``off``; :data:`DEFAULT` when unset).
"""

from __future__ import annotations

import os
from collections.abc import Callable, Container, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from pytest_rspbench.errors import OracleError
from pytest_rspbench.oracle.sparql import numerics as N
from pytest_rspbench.oracle.sparql.expressions import Env, ntriples

ENV = "RSPBENCH_STAR_LAYOUT"
"""The setting: ``on`` compiles subject stars over a property table, ``off``
keeps every pattern on the triple table."""

DEFAULT = "off"
"""The setting when :data:`ENV` is unset: off. The layout is exact (the
differential tests of tests/oracle/test_star_layout.py), but building a
stream's table costs two shuffles of the stream (8-13 s at 2.1M triples,
83-89 s at 20M), repaid by 9-26% per later run over the cached stream: four
to fifteen runs. A user who reruns the oracle over one large stream turns it
on (docs/oracle.md, "A layout for star patterns")."""

MAX_COLUMNS = 256
"""The most predicates a property table holds (the first, in code-point
order, of those that qualify); the others stay on the triple table."""


def enabled() -> bool:
    """Does the oracle compile subject stars over property tables?

    Raises OracleError for a value other than ``on`` or ``off``.
    """
    value = os.environ.get(ENV, DEFAULT).strip().lower() or DEFAULT
    if value not in ("on", "off"):
        raise OracleError(f"{ENV}={value!r} is not a setting.\nHINT: set it to on or off.")
    return value == "on"


@dataclass(frozen=True)
class StarTable:
    """One stream's property table.

    Attributes:
        df: ``(s, o_0, t_0, o_1, t_1, ...)``, one row per subject that has a
            triple of one of ``predicates``; ``o_k`` and ``t_k`` (null when
            the subject has none) are the object and the event time of its
            triple with predicate ``k``.
        predicates: predicate (N-Triples term) -> its column number ``k``.
    """

    df: Any
    predicates: Mapping[str, int]

    def clocked(self, unit: int) -> StarTable:
        """The table on an engine's ``unit`` ms clock (each ``t_k`` truncated,
        as :func:`..t0.frames.on_clock` truncates the triples' ``t``)."""
        if unit <= 1:
            return self
        from pyspark.sql import functions as F

        df = self.df
        for k in self.predicates.values():
            t = F.col(f"t_{k}")
            df = df.withColumn(f"t_{k}", t - F.pmod(t, F.lit(unit).cast("long")))
        return StarTable(df, self.predicates)


class StarSource:
    """A stream's property table, made on first use (None: no predicate
    qualifies, or the table cannot be made)."""

    def __init__(self, make: Callable[[], StarTable | None]) -> None:
        self._make = make
        self._made = False
        self._table: StarTable | None = None

    def table(self) -> StarTable | None:
        if not self._made:
            self._table = self._make()
            self._made = True
        return self._table

    def map(self, change: Callable[[StarTable], StarTable]) -> StarSource:
        """This source with ``change`` applied to its table when made."""

        def made() -> StarTable | None:
            found = self.table()
            return None if found is None else change(found)

        return StarSource(made)


def single_predicates(triples: Any) -> list[str]:
    """The predicates of ``triples`` (a DataFrame with ``s``, ``p``) that no
    subject has twice, in code-point order, at most :data:`MAX_COLUMNS`
    (one Spark job)."""
    from pyspark.sql import functions as F

    most = triples.groupBy("s", "p").count().groupBy("p").agg(F.max("count").alias("most"))
    rows = most.where(F.col("most") == 1).select("p").collect()
    return sorted(str(r["p"]) for r in rows)[:MAX_COLUMNS]


def pivoted(triples: Any, predicates: Sequence[str]) -> Any:
    """The property table's rows of ``triples`` (``s``, ``p``, ``o``, ``t``)
    for ``predicates``, each of which no subject has twice."""
    from pyspark.sql import functions as F

    columns = []
    for k, p in enumerate(predicates):
        this = F.col("p") == F.lit(p)
        columns.append(F.max(F.when(this, F.col("o"))).alias(f"o_{k}"))
        columns.append(F.max(F.when(this, F.col("t"))).alias(f"t_{k}"))
    return triples.where(F.col("p").isin(list(predicates))).groupBy("s").agg(*columns)


def built(triples: Any) -> StarTable | None:
    """The property table of ``triples`` (one stream's ``s``, ``p``, ``o``,
    ``t``), computed in the plan (None: no predicate qualifies)."""
    predicates = single_predicates(triples)
    if not predicates:
        return None
    return StarTable(pivoted(triples, predicates), {p: k for k, p in enumerate(predicates)})


def star_groups(predicates: Container[str] | None, triples: Sequence[Any]) -> dict[str, list[int]]:
    """Per subject variable, the positions of its patterns that one scan of a
    property table with ``predicates`` (None: any) answers: those with a
    constant predicate among them; only where at least two of a subject's
    patterns are (one pattern alone reads the triple table)."""
    from rdflib.term import BNode, URIRef, Variable

    found: dict[str, list[int]] = {}
    for i, (s, p, _) in enumerate(triples):
        if not isinstance(s, (Variable, BNode)) or not isinstance(p, URIRef):
            continue
        if predicates is not None and ntriples(p) not in predicates:
            continue
        name = ("_bn_" if isinstance(s, BNode) else "") + str(s)
        found.setdefault(name, []).append(i)
    return {name: members for name, members in found.items() if len(members) >= 2}


@dataclass(frozen=True)
class Solutions:
    """A star's solutions as :class:`.compiler.Relation` takes them (not
    windowed): ``df`` has ``v_x`` per variable, ``t_min``, ``t_max`` and
    ``n_x`` per variable in ``numbers``."""

    df: Any
    variables: tuple[str, ...]
    ranks: Mapping[str, frozenset[int]]
    numbers: frozenset[str]
    typed: frozenset[str]


def star_relation(
    table: StarTable,
    triples: Sequence[Any],
    span: int | None,
    ranks: Any = lambda predicate: N.ALL,
    parse: frozenset[str] = frozenset(),
    numeric_only: Any = lambda predicate: False,
) -> Solutions:
    """The solutions of a subject star (``triples``, one subject variable,
    constant predicates of ``table``) with their time spans, as
    :func:`.patterns._pattern` and the joins of its patterns give them.

    ``ranks``, ``parse`` and ``numeric_only`` are :func:`.patterns._pattern`'s:
    a variable that is the object of several of the star's patterns has the
    ranks of any of them (the union, as a join merges them) and is typed if
    one of its predicates is numeric only. ``span``: the window's width; a
    star whose triples lie further apart is dropped, as the joins drop it.
    """
    from pyspark.sql import functions as F
    from rdflib.term import BNode, Variable

    def name_of(term: Any) -> str:
        return ("_bn_" if isinstance(term, BNode) else "") + str(term)

    subject = name_of(triples[0][0])
    selected: dict[str, Any] = {subject: F.col("s")}
    known: dict[str, frozenset[int]] = {subject: frozenset()}
    typed: set[str] = set()
    keep = []
    used: list[int] = []
    for _, predicate, obj in triples:
        p = ntriples(predicate)
        k = table.predicates[p]
        if k not in used:
            used.append(k)
        column = F.col(f"o_{k}")
        keep.append(column.isNotNull())
        if not isinstance(obj, (Variable, BNode)):
            keep.append(column == F.lit(ntriples(obj)))
            continue
        name = name_of(obj)
        if name in selected:
            keep.append(column == selected[name])
            if name != subject:
                known[name] = known[name] | ranks(p)
        else:
            selected[name] = column
            known[name] = ranks(p)
        if name != subject and numeric_only(p):
            typed.add(name)
    df = table.df
    for condition in keep:
        df = df.where(condition)
    times = [F.col(f"t_{k}") for k in used]
    t_min = F.least(*times) if len(times) > 1 else times[0]
    t_max = F.greatest(*times) if len(times) > 1 else times[0]
    if span is not None and len(times) > 1:
        df = df.where(t_max - t_min <= span)
    cols = [column.alias("v_" + name) for name, column in selected.items()]
    cols += [t_min.alias("t_min"), t_max.alias("t_max")]
    numbers = frozenset(
        name
        for name in selected
        if name != subject and name in parse and known[name] and known[name] != N.ALL
    )
    if numbers:
        env = Env({}, ranks=known)
        for name in sorted(numbers):
            number = N.parse(selected[name], env.let, known[name])
            cols.append(env.guarded(N.packed(number)).alias("n_" + name))
        df = env.apply(df)
    return Solutions(df.select(*cols), tuple(selected), known, numbers, frozenset(typed))
