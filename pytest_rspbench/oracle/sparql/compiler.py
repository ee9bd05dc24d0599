"""Compile the per-window SPARQL algebra into one Spark DataFrame plan.

The plan computes every window of every t0 class at once (docs/oracle.md,
"How it computes"). A basic graph pattern inside ``GRAPH <w>`` is evaluated
once over the stream: each solution carries the time span ``[t_min, t_max]``
of the triples it used, a join keeps only spans no wider than the window,
and the span is then assigned to the evaluations whose window contains it
(interval arithmetic from :mod:`pytest_rspbench.rsp.windows`, no copy of the
data per t0). Because a
window's content is a *set* of triples, solutions that several occurrences
of the same triples produce count once per window. Operators above the BGPs
then work per ``(cls, win)`` key with SPARQL 1.1 semantics (§18.5):

- Join, OPTIONAL (LeftJoin with its filter) and MINUS use *compatibility*: a
  variable unbound on one side joins with anything (null-tolerant join
  conditions; a shared variable takes the bound value);
- MINUS removes nothing when the two sides share no variable;
- UNION, FILTER (incl. ``[NOT] EXISTS`` over plain patterns), BIND, VALUES,
  sub-SELECTs, GRAPH <window>, and patterns over static data (no key);
- solution modifiers and aggregates.

The operators live in :mod:`.patterns` (BGP, FILTER, BIND, VALUES),
:mod:`.joins` (Join, OPTIONAL, MINUS, UNION), :mod:`.aggregates` and
:mod:`.modifiers`; this module holds the relation type and the driver.

Anything else raises UnsupportedQueryError and the oracle evaluates the query
per window with pyoxigraph instead. Values that only turn out at run time to
be outside what the plan computes exactly make the Spark job fail with
:data:`~pytest_rspbench.oracle.sparql.literals.MARK`; run the plan through
:func:`collect` to turn that into UnsupportedQueryError.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field, replace
from typing import Any

from pytest_rspbench.errors import UnsupportedQueryError
from pytest_rspbench.oracle.sparql import numerics as N
from pytest_rspbench.oracle.sparql.datatypes import Ranks
from pytest_rspbench.oracle.sparql.expressions import Env, Scope
from pytest_rspbench.oracle.sparql.literals import MARK
from pytest_rspbench.rsp.parsing import RDFLIB_PARSER
from pytest_rspbench.rsp.windows import WindowSpec

KEYS = ("cls", "win")


@dataclass(frozen=True)
class Relation:
    """A DataFrame of solutions.

    Variable ``x`` lives in column ``v_x`` (NULL when unbound); ``windowed``
    relations also carry the key columns ``cls`` and ``win``; ``nullable``
    lists the variables that may be unbound; ``ordered`` relations carry an
    ``_ord`` column with the solution's position within its window.
    """

    df: Any
    variables: tuple[str, ...]
    windowed: bool
    nullable: frozenset[str] = frozenset()
    ordered: bool = False
    ranks: Mapping[str, frozenset[int]] = field(default_factory=dict)
    """For the variables it knows, the numeric types their values can have
    (:mod:`.datatypes`); the other variables can have any."""
    numbers: frozenset[str] = frozenset()
    """Variables whose numeric value is already parsed, in a struct column
    ``n_x`` (:func:`numerics.packed`); only inside a BGP, before its FILTER."""
    typed: frozenset[str] = frozenset()
    """Variables bound only to literals of numeric datatypes, valid or not
    (objects of a predicate that has no other objects,
    :meth:`.datatypes.Ranks.numeric_only`); only inside a BGP."""

    def scope(self) -> Scope:
        from pyspark.sql import functions as F

        return {v: F.col("v_" + v) for v in self.variables}

    def env(self, inline: bool = False) -> Env:
        """An environment to compile expressions over this relation's solutions."""
        from pyspark.sql import functions as F

        numbers = {v: N.unpacked(F.col("n_" + v), self.ranks.get(v, N.ALL)) for v in self.numbers}
        return Env(self.scope(), inline=inline, ranks=self.ranks, numbers=numbers, typed=self.typed)

    @property
    def keys(self) -> list[str]:
        return list(KEYS) if self.windowed else []

    def var_columns(self) -> list[str]:
        return ["v_" + v for v in self.variables]


@dataclass(frozen=True)
class Context:
    """What the compiler needs to know about the data and the windows.

    Attributes:
        stream_df: DataFrame (stream, s, p, o, t) of all stream triples.
        static_df: DataFrame (s, p, o) of static triples, or None.
        windows: window IRI -> (stream IRI, WindowSpec).
        assign: function(df with t_min/t_max columns, window IRI) -> the df
            with key columns ``cls`` (t0 class) and ``win`` (evaluation
            number within the class), one row per evaluation whose window
            holds the whole span.
        evaluations: DataFrame (cls, win) of *every* evaluation, including
            those whose windows are empty. Needed where SPARQL yields rows for
            an empty window (COUNT(*) = 0 without GROUP BY) or where static
            data must be repeated per window (static OPTIONAL windowed).
            Without it such queries are reported unsupported.
        default_window: treat the default graph as this window (used to run
            plain SPARQL tests on one window); None means the default graph
            holds the static data.
        datatypes: the datatypes of pattern objects per source and
            predicate (:mod:`.datatypes`); by default anything is possible.
        distinct: the streams in which no triple occurs twice; a basic
            graph pattern over one of them cannot yield one mapping twice in
            a window, so its solutions skip de-duplication.
        assign_first: the windows whose evaluations are so few per instant
            (one t0 class of tumbling windows reported on close: one) that a
            BGP's parts are assigned to evaluations *before* they are joined,
            and join on ``(cls, win)``; see :func:`.patterns._join_patterns`.
        stars: per stream IRI (a window's source), its property table
            (a :class:`.stars.StarSource`): a BGP's subject stars over it are
            one scan each (:mod:`.stars`); a stream without one reads every
            pattern from ``stream_df``.
    """

    stream_df: Any
    static_df: Any
    windows: dict[str, tuple[str, WindowSpec]]
    assign: Callable[[Any, str], Any]
    evaluations: Any = None
    default_window: str | None = None
    datatypes: Ranks = field(default_factory=Ranks)
    distinct: frozenset[str] = frozenset()
    assign_first: frozenset[str] = frozenset()
    stars: Mapping[str, Any] = field(default_factory=dict)


@dataclass
class Compiler:
    """One compilation: the context plus what the query needs overall."""

    ctx: Context
    sliced: bool = False
    counter: list[int] = field(default_factory=lambda: [0])

    def node(self, node: Any, graph: str | None) -> Relation:
        handler = _handlers().get(node.name)
        if handler is None:
            raise UnsupportedQueryError(f"the query uses {node.name}")
        return handler(self, node, graph)

    def fresh(self, prefix: str) -> str:
        self.counter[0] += 1
        return f"{prefix}{self.counter[0]}"

    def unit(self) -> Relation:
        """The relation with one empty solution (an empty group pattern)."""
        spark = self.ctx.stream_df.sparkSession
        return Relation(spark.range(1).select(), (), False)

    def lift(self, rel: Relation) -> Relation:
        """Repeat a static relation for every evaluation (give it key columns)."""
        if rel.windowed:
            return rel
        if self.ctx.evaluations is None:
            raise UnsupportedQueryError(
                "the query combines static data with a window in a way that needs the "
                "list of all evaluations, which the oracle did not provide"
            )
        evaluations = self.ctx.evaluations.select(*KEYS)
        return replace(rel, df=evaluations.crossJoin(rel.df), windowed=True)


def compile_select(algebra: Any, ctx: Context) -> Relation:
    """Compile a SelectQuery's algebra into a windowed relation."""
    if algebra.name != "SelectQuery":
        raise UnsupportedQueryError(f"only SELECT queries are compiled, not {algebra.name}")
    if algebra.get("datasetClause"):
        raise UnsupportedQueryError("FROM / FROM NAMED in the per-window query")
    compiler = Compiler(ctx, sliced=_contains(algebra.p, "Slice"))
    relation = compiler.node(algebra.p, None)
    # A query over static data only has the same answer in every window.
    return compiler.lift(relation)


def translate(sparql: str, base: str | None = None) -> Any:
    """rdflib's algebra of a SPARQL query, with literals kept as written.

    rdflib normalises literals by default ("01"^^xsd:integer becomes "1"),
    which would change which data terms a pattern matches.
    """
    import rdflib
    from rdflib.plugins.sparql.algebra import translateQuery
    from rdflib.plugins.sparql.parser import parseQuery

    with RDFLIB_PARSER:  # NORMALIZE_LITERALS is global too
        saved = rdflib.NORMALIZE_LITERALS
        rdflib.NORMALIZE_LITERALS = False
        try:
            return translateQuery(parseQuery(sparql), base=base).algebra
        finally:
            rdflib.NORMALIZE_LITERALS = saved


def collect(df: Any) -> list[Any]:
    """``df.collect()``, turning the plan's run-time "unsupported" into the error."""
    try:
        return df.collect()
    except Exception as exc:
        raise _unsupported(exc) from None


def collect_arrow(df: Any) -> Any:
    """``df.toArrow()`` (a pyarrow Table), as :func:`collect` handles errors."""
    try:
        return df.toArrow()
    except Exception as exc:
        raise _unsupported(exc) from None


def _unsupported(exc: Exception) -> Exception:
    """The plan's run-time "unsupported" as UnsupportedQueryError; else ``exc``."""
    text = str(exc)
    if MARK not in text:
        return exc
    reason = text[text.index(MARK) + len(MARK) :].split("\n")[0].strip().rstrip("'\".")
    return UnsupportedQueryError(f"met a value the compiled plan cannot handle: {reason}")


def _contains(node: Any, name: str) -> bool:
    if getattr(node, "name", None) == name:
        return True
    children = [node[k] for k in ("p", "p1", "p2") if isinstance(node, dict) and k in node]
    return any(hasattr(c, "name") and _contains(c, name) for c in children)


Handler = Callable[[Compiler, Any, "str | None"], Relation]
_REGISTRY: dict[str, Handler] = {}


def _handlers() -> dict[str, Handler]:
    """Each algebra operator's handler, from the modules that implement them."""
    if not _REGISTRY:
        from pytest_rspbench.oracle.sparql import aggregates, joins, modifiers, patterns

        for module in (patterns, joins, aggregates, modifiers):
            _REGISTRY.update(module.HANDLERS)
    return _REGISTRY
