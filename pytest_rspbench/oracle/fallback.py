"""Per-window evaluation with an embedded SPARQL engine (pyoxigraph) inside Spark.

Used for what the DataFrame compiler cannot express (aggregates, OPTIONAL,
ORDER BY/LIMIT, ...). Runs on the executors: each (t0 class, window) group of
triples is loaded into an in-memory pyoxigraph store and the static query is
evaluated there. The functions here must stay importable and picklable on
executors: no driver state.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

Triple = tuple[str, str, str]


def evaluate_window(
    sparql: str, window_iri: str, triples: Iterable[Triple], static: Iterable[Triple] = ()
) -> list[dict[str, str]]:
    """Evaluate ``sparql`` with ``triples`` in graph ``<window_iri>``."""
    import pyoxigraph

    store = pyoxigraph.Store()
    graph = f"<{window_iri}>"
    lines = [f"{s} {p} {o} {graph} .\n" for s, p, o in set(triples)]
    lines += [f"{s} {p} {o} .\n" for s, p, o in static]
    if lines:
        store.bulk_extend(
            pyoxigraph.parse("".join(lines).encode("utf-8"), format=pyoxigraph.RdfFormat.N_QUADS)
        )
    result = store.query(sparql)
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


def evaluate_groups(
    groups: Any, sparql: str, window_iri: str, static: list[Triple]
) -> Any:
    """RDD transformation: ((cls, win), triples) -> ((cls, win), bindings)."""
    return groups.mapValues(lambda triples: evaluate_window(sparql, window_iri, triples, static))
