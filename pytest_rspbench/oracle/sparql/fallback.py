"""Per-evaluation SPARQL with an embedded engine (pyoxigraph) inside Spark.

Used for what the DataFrame compiler cannot express. Runs on the executors:
the triples of one (t0 class, evaluation) are loaded into an in-memory
pyoxigraph store, each in the named graph of its window (RSP-QL Def. 14),
static data in the default graph, and the static query is evaluated there.
Functions here must stay importable and picklable on executors.

pyoxigraph answers ``SERVICE <http://...>`` by sending the query to that
endpoint. The oracle never goes to the network (a test run must not depend
on, or send data to, a remote server), so a query with SERVICE is refused
(:func:`refuse_service`) before anything is evaluated.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from functools import lru_cache
from typing import Any

from pytest_rspbench.errors import OracleError
from pytest_rspbench.rsp.parsing import RDFLIB_PARSER

Quad = tuple[str, str, str, str]  # (window IRI, s, p, o)
Triple = tuple[str, str, str]


def evaluate_window(
    sparql: str, quads: Iterable[Quad], static: Iterable[Triple] = ()
) -> list[dict[str, str]]:
    """Evaluate ``sparql`` over window contents given as (window, s, p, o)."""
    import pyoxigraph

    refuse_service(sparql)
    store = pyoxigraph.Store()
    lines = [f"{s} {p} {o} <{g}> .\n" for g, s, p, o in set(quads)]
    lines += [f"{s} {p} {o} .\n" for s, p, o in static]
    if lines:
        store.bulk_extend(
            pyoxigraph.parse("".join(lines).encode("utf-8"), format=pyoxigraph.RdfFormat.N_QUADS)
        )
    result = store.query(sparql)
    if not isinstance(result, pyoxigraph.QuerySolutions):  # the rewrite is a SELECT
        raise TypeError(f"expected SELECT solutions, got {type(result).__name__}")
    variables = [v.value for v in result.variables]
    out = []
    for row in result:
        binding = {}
        for name in variables:
            term = row[name]
            if term is not None:
                binding[name] = str(term)
        out.append(binding)
    return out


def evaluate_frame(
    quads: Any, sparql: str, static: list[Triple]
) -> dict[tuple[int, int], list[dict[str, str]]]:
    """Evaluate ``sparql`` once per ``(cls, win)`` of a DataFrame of quads.

    ``quads`` has the columns ``cls, win, g, s, p, o`` (``g`` the window's
    IRI). Keys without quads get no entry. Only DataFrame operations and a
    Python UDF, no RDD: this works on classic Spark and over Spark Connect.
    The UDF runs in the executors' (or the Connect server's) Python, which
    must have pytest-rspbench and pyoxigraph installed.
    """
    from pyspark.sql import functions as F

    refuse_service(sparql)

    def evaluate(group: list[list[str]]) -> list[dict[str, str]]:
        return evaluate_window(sparql, [(g, s, p, o) for g, s, p, o in group], static)

    # Not Arrow-based: the result is a list of dicts, and Arrow would need
    # pandas and pyarrow in every Python worker for nothing.
    evaluate_udf = F.udf(evaluate, "array<map<string,string>>", useArrow=False)
    groups = quads.groupBy("cls", "win").agg(
        F.collect_list(F.array("g", "s", "p", "o")).alias("quads")
    )
    rows = groups.select("cls", "win", evaluate_udf("quads").alias("bindings"))
    return {(row["cls"], row["win"]): [dict(b) for b in row["bindings"]] for row in rows.collect()}


def refuse_service(sparql: str) -> None:
    """Raise OracleError if ``sparql`` calls a remote endpoint (SERVICE).

    >>> refuse_service("SELECT * WHERE { ?s ?p 'SERVICE <http://x>' }")
    >>> refuse_service("SELECT * WHERE { SERVICE <http://x/sparql> { ?s ?p ?o } }")
    ... # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    pytest_rspbench.errors.OracleError: the query calls SERVICE <http://x/sparql>; ...
    """
    endpoint = _service(sparql)
    if endpoint is not None:
        raise OracleError(
            f"the query calls SERVICE {endpoint}; the oracle makes no network "
            "requests, so it cannot know what a remote endpoint answers.\n"
            "HINT: put the data the query needs from the endpoint into a file and "
            "load it as static data (spec key static:), then query it without SERVICE."
        )


@lru_cache(maxsize=64)
def _service(sparql: str) -> str | None:
    """The endpoint of the first SERVICE in ``sparql`` (None: there is none)."""
    from rdflib.plugins.sparql.algebra import translateQuery
    from rdflib.plugins.sparql.parser import parseQuery

    try:
        with RDFLIB_PARSER:
            parsed = translateQuery(parseQuery(sparql)).algebra
    except Exception:  # pyparsing raises many types; pyoxigraph may still parse it
        found = re.search(r"\bSERVICE\b(?:\s+SILENT)?\s*(\S+)", sparql, re.IGNORECASE)
        return found.group(1) if found else None
    todo: list[Any] = [parsed]
    while todo:
        node = todo.pop()
        if getattr(node, "name", None) == "ServiceGraphPattern":
            term = node.get("term")
            return term.n3() if hasattr(term, "n3") else str(term)
        if isinstance(node, dict):
            todo.extend(node.values())
        elif not isinstance(node, str) and hasattr(node, "__iter__"):
            todo.extend(node)
    return None
