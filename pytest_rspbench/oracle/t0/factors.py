"""Factors of the solution spans (:mod:`.spans`), and how they combine.

A factor holds the solutions of part of a pattern, each with the interval
of opens of every window it uses. A pattern's factors join on the known
variables they share (intersecting the intervals of a window both use);
factors that share none stay apart, so no cross product is ever built.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, replace
from typing import Any

Ranked = Mapping[str, frozenset[int]]


@dataclass(frozen=True)
class Factor:
    """Solutions of part of the pattern.

    ``df`` has a column ``v_x`` per known variable and, per window ``i`` the
    part uses, the interval ``lo_i``, ``hi_i`` of the opens ``o`` of the
    windows that hold the solution (NULL: the solution does not use window
    ``i``). A pattern is the join of its factors: factors that share no
    known variable are never joined (a cross product would be as large as
    the stream squared, and adds nothing to the hull of a binding), nor are
    the sides of a BGP placed apart (:mod:`.sides`).
    """

    df: Any
    known: frozenset[str]
    windows: frozenset[int]
    ranks: Ranked
    typed: frozenset[str] = frozenset()
    """Known variables bound only to literals of numeric datatypes
    (:attr:`.compiler.Relation.typed`)."""

    def relation(self) -> Any:
        """Its solutions as a :class:`~.compiler.Relation` (the window
        intervals ride along as extra columns), with what is known of their
        values, for the compiler's FILTER (:func:`.patterns._filtered`)."""
        from pytest_rspbench.oracle.sparql.compiler import Relation

        variables = tuple(sorted(self.known))
        return Relation(self.df, variables, False, ranks=self.ranks, typed=self.typed)

    def columns(self) -> list[str]:
        return [f"v_{v}" for v in sorted(self.known)] + [
            c for i in sorted(self.windows) for c in (f"lo_{i}", f"hi_{i}")
        ]


@dataclass(frozen=True)
class Spanned:
    """The monotone part of a query as factors (their join holds every
    solution, with each known variable's exact value)."""

    factors: tuple[Factor, ...]

    @property
    def known(self) -> frozenset[str]:
        return frozenset().union(*(f.known for f in self.factors))


def merged(factors: list[Factor]) -> tuple[Factor, ...]:
    """Join the factors that share a known variable, until none do."""
    factors = list(factors)
    while True:
        pair = next(
            (
                (i, j)
                for i in range(len(factors))
                for j in range(i + 1, len(factors))
                if factors[i].known & factors[j].known
            ),
            None,
        )
        if pair is None:
            return tuple(factors)
        i, j = pair
        factors[i] = join_two(factors[i], factors[j])
        del factors[j]


def join_two(left: Factor, right: Factor) -> Factor:
    """Equi-join on the shared known variables; the window intervals of a
    window both use intersect (empty: the solution fits no window)."""
    from functools import reduce

    from pyspark.sql import functions as F

    shared = sorted(left.known & right.known)
    rdf = right.df.select(*right.columns())
    for name in [f"v_{v}" for v in shared] + [
        c for i in right.windows for c in (f"lo_{i}", f"hi_{i}")
    ]:
        rdf = rdf.withColumnRenamed(name, "r_" + name)
    conds = [F.col(f"v_{v}") == F.col(f"r_v_{v}") for v in shared]
    both = sorted(left.windows & right.windows)
    for i in both:
        lo = F.greatest(f"lo_{i}", f"r_lo_{i}")
        hi = F.least(f"hi_{i}", f"r_hi_{i}")
        conds.append(lo.isNull() | hi.isNull() | (lo <= hi))
    df = left.df.select(*left.columns()).join(rdf, reduce(lambda a, b: a & b, conds))
    cols = [F.col(f"v_{v}") for v in sorted(left.known)]
    cols += [F.col(f"v_{v}") for v in sorted(right.known - left.known)]
    for i in sorted(left.windows | right.windows):
        if i in both:
            cols += [
                F.greatest(f"lo_{i}", f"r_lo_{i}").alias(f"lo_{i}"),
                F.least(f"hi_{i}", f"r_hi_{i}").alias(f"hi_{i}"),
            ]
        elif i in left.windows:
            cols += [F.col(f"lo_{i}"), F.col(f"hi_{i}")]
        else:
            cols += [F.col(f"r_lo_{i}").alias(f"lo_{i}"), F.col(f"r_hi_{i}").alias(f"hi_{i}")]
    ranks = {**right.ranks, **left.ranks}
    known = left.known | right.known
    return Factor(
        df.select(*cols),
        known,
        left.windows | right.windows,
        {v: r for v, r in ranks.items() if v in known},
        # An equi-join: a value typed on one side is typed.
        (left.typed | right.typed) & known,
    )


def united(a: Factor, b: Factor) -> Factor:
    """The two branches of a UNION as one factor: the variables bound in
    both, each window's interval where the branch uses it (else NULL)."""
    from pyspark.sql import functions as F

    known = a.known & b.known  # bound in every solution of both branches
    windows = a.windows | b.windows

    def widen(f: Factor) -> Any:
        cols = [F.col(f"v_{v}") for v in sorted(known)]
        for i in sorted(windows):
            for end in ("lo", "hi"):
                name = f"{end}_{i}"
                cols.append(F.col(name) if i in f.windows else F.lit(None).cast("long").alias(name))
        return f.df.select(*cols)

    ranks = {v: a.ranks[v] | b.ranks[v] for v in known if v in a.ranks and v in b.ranks}
    df = widen(a).unionByName(widen(b))
    return Factor(df, known, windows, ranks, a.typed & b.typed & known)


def restricted(f: Factor, known: frozenset[str]) -> Factor:
    kept = replace(
        f,
        known=known,
        ranks={v: r for v, r in f.ranks.items() if v in known},
        typed=f.typed & known,
    )
    return replace(kept, df=f.df.select(*kept.columns()))
