"""One evaluation: the static SPARQL query over the windows' contents.

RSP-QL Def. 17: once the evaluation time is fixed, every window is just an
RDF graph, so the query is plain SPARQL over a dataset whose default graph is
the static data and whose named graph ``<w>`` is the content of window ``w``.
One pyoxigraph store is kept for the whole run and each named graph is
updated by difference, so a sliding window costs only what slid in or out
(a tumbling window, replaced wholesale, is cleared in one call instead).

Literals are kept as written (:mod:`.lexical`): pyoxigraph's store would
give the data's ``"+8"^^xsd:integer`` back as ``"8"``, so such a literal is
stored as a surrogate and the query reads values through a function.

The engine never goes to the network: pyoxigraph would answer ``SERVICE
<url>`` by sending the query to ``url``, so such a query is refused at
registration (:func:`refuse_service`), before pyoxigraph sees it.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from pathlib import Path

import pyoxigraph as ox

from . import lexical
from .query import service_calls

Binding = dict[str, str]


class WindowStore:
    """Static data plus the current content of every named window."""

    def __init__(self, sparql: str, static: Iterable[Path] = ()) -> None:
        self._sparql = sparql
        self._lexical = lexical.rewrite(sparql)
        self._store = ox.Store()
        self._loaded: dict[str, set[ox.Quad]] = {}
        self._odd: dict[str, bool] = {}  # per graph: does it hold a surrogate?
        self._last: tuple[dict[str, set[ox.Quad]], list[Binding]] | None = None
        check_select(sparql)
        check_rewritten(self._lexical, sparql)
        for path in static:
            self._load_static(Path(path))

    def evaluate(self, contents: Mapping[str, set[ox.Quad]]) -> list[Binding]:
        """The solutions (a bag, in pyoxigraph's order) for these contents.

        Unbound variables are left out of a solution; terms are N-Triples.
        The same contents give the same answer, so a repeated evaluation (a
        run of empty windows, say) reuses the previous one.
        """
        if self._last is not None and self._last[0] == contents:
            return list(self._last[1])
        for name, triples in contents.items():
            self._sync(name, {lexical.surrogate(q) for q in triples})
        if any(self._odd.values()):
            solutions = self._store.query(
                self._lexical,
                custom_functions=lexical.FUNCTIONS,
                custom_aggregate_functions=lexical.AGGREGATES,
            )
        else:
            solutions = self._store.query(self._sparql)
        assert isinstance(solutions, ox.QuerySolutions)  # see check_select
        names = [(v, v.value) for v in solutions.variables]
        result = [
            {
                name: str(lexical.original(term))
                for var, name in names
                if (term := row[var]) is not None
            }
            for row in solutions
        ]
        self._last = ({k: set(v) for k, v in contents.items()}, result)
        return list(result)

    def _sync(self, name: str, wanted: set[ox.Quad]) -> None:
        """Make named graph ``<name>`` hold exactly ``wanted`` (quads in it)."""
        loaded = self._loaded.get(name, set())
        stale = loaded - wanted
        if len(stale) * 2 > len(loaded):
            self._store.clear_graph(ox.NamedNode(name))
            self._store.extend(wanted)
        else:
            for quad in stale:
                self._store.remove(quad)
            self._store.extend(wanted - loaded)
        self._loaded[name] = set(wanted)
        self._odd[name] = lexical.odd(iter(wanted))

    def _load_static(self, path: Path) -> None:
        """Load one static RDF file into the default graph."""
        fmt = ox.RdfFormat.from_extension(path.suffix.lstrip("."))
        if fmt is None:
            raise ValueError(
                f"cannot tell the RDF format of static file {path} from its "
                "extension; use .ttl, .nt, .rdf, .jsonld, ..."
            )
        quads = [lexical.surrogate(q) for q in ox.parse(path=str(path), format=fmt)]
        self._store.extend(
            ox.Quad(q.subject, q.predicate, q.object, ox.DefaultGraph()) for q in quads
        )
        self._odd[""] = self._odd.get("", False) or lexical.odd(iter(quads))


def check_select(sparql: str) -> None:
    """Fail at registration, not at the first window, on a bad static query."""
    refuse_service(sparql)
    try:
        answer = ox.Store().query(sparql)
    except SyntaxError as error:
        raise ValueError(
            f"the static SPARQL derived from the RSP-QL query does not parse: {error}\n{sparql}"
        ) from error
    if not isinstance(answer, ox.QuerySolutions):
        raise ValueError("the reference engine runs SELECT queries only")


def check_rewritten(rewritten: str, sparql: str) -> None:
    """The query as :func:`.lexical.rewrite` made it must parse too."""
    try:
        ox.Store().query(
            rewritten,
            custom_functions=lexical.FUNCTIONS,
            custom_aggregate_functions=lexical.AGGREGATES,
        )
    except SyntaxError as error:
        raise ValueError(
            "the reference engine could not prepare the query for literals in "
            f"non-canonical lexical forms ({error}); please report this query:\n{sparql}"
        ) from error


def refuse_service(sparql: str) -> None:
    """Raise ValueError if ``sparql`` calls a remote endpoint (SERVICE).

    A test run must neither depend on a remote server nor send it data; the
    oracle refuses such a query too, so it could not be checked anyway.
    """
    calls = service_calls(sparql)
    if calls:
        endpoint = calls[0] or "without an endpoint"
        raise ValueError(
            f"the query calls SERVICE {endpoint}; the reference engine makes no "
            "network requests (nor does the oracle).\n"
            "HINT: put the data the query needs from the endpoint into a file, "
            "load it as static data (spec key static:) and query it without SERVICE."
        )
