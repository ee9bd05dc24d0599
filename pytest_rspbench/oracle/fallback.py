"""Per-evaluation SPARQL with an embedded engine (pyoxigraph) inside Spark.

Used for what the DataFrame compiler cannot express. Runs on the executors:
the triples of one (t0 class, evaluation) are loaded into an in-memory
pyoxigraph store, each in the named graph of its window (RSP-QL Def. 14),
static data in the default graph, and the static query is evaluated there.
Functions here must stay importable and picklable on executors.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

Quad = tuple[str, str, str, str]  # (window IRI, s, p, o)
Triple = tuple[str, str, str]


def evaluate_window(
    sparql: str, quads: Iterable[Quad], static: Iterable[Triple] = ()
) -> list[dict[str, str]]:
    """Evaluate ``sparql`` over window contents given as (window, s, p, o)."""
    import pyoxigraph

    store = pyoxigraph.Store()
    lines = [f"{s} {p} {o} <{g}> .\n" for g, s, p, o in set(quads)]
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


def evaluate_groups(groups: Any, sparql: str, static: list[Triple]) -> Any:
    """RDD transformation: (key, quads) -> (key, bindings)."""
    return groups.mapValues(lambda quads: evaluate_window(sparql, quads, static))
