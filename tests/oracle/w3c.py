"""Read the W3C SPARQL test manifests and their expected results.

Only ``mf:QueryEvaluationTest`` entries are collected (syntax, update and
result-format tests test other software). Terms are turned into the
canonical N-Triples strings the oracle uses.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass
from pathlib import Path
from typing import Any

DATA = Path(__file__).parent.parent / "data" / "w3c"
MF = "http://www.w3.org/2001/sw/DataAccess/tests/test-manifest#"
QT = "http://www.w3.org/2001/sw/DataAccess/tests/test-query#"
DAWGT = "http://www.w3.org/2001/sw/DataAccess/tests/test-dawg#"
RS = "http://www.w3.org/2001/sw/DataAccess/tests/result-set#"
RDF_TYPE = "http://www.w3.org/1999/02/22-rdf-syntax-ns#type"

Triple = tuple[str, str, str]
Bag = Counter  # Counter[tuple[tuple[str, str], ...]]


@dataclass(frozen=True)
class Case:
    """One query evaluation test."""

    id: str
    name: str
    query: Path
    data: tuple[Path, ...]
    graph_data: tuple[Path, ...]
    result: Path | None
    approval: str
    lax: bool = False
    """mf:LaxCardinality: any number of duplicates may be returned (REDUCED)."""


def cases() -> list[Case]:
    """All query evaluation tests of the copied folders, in manifest order."""
    out = []
    for manifest in sorted(DATA.glob("sparql1*/*/manifest.ttl")):
        out += _read_manifest(manifest)
    return out


def _read_manifest(path: Path) -> list[Case]:
    import rdflib
    from rdflib.collection import Collection
    from rdflib.namespace import RDF

    graph = rdflib.Graph().parse(path, format="turtle", publicID=path.as_uri())
    mf, qt = rdflib.Namespace(MF), rdflib.Namespace(QT)
    manifest = next(graph.subjects(RDF.type, mf.Manifest))
    folder = f"{path.parent.parent.name}/{path.parent.name}"
    out = []
    for entry in Collection(graph, graph.value(manifest, mf.entries)):
        if graph.value(entry, RDF.type) != mf.QueryEvaluationTest:
            continue
        action = graph.value(entry, mf.action)
        result = graph.value(entry, mf.result)
        local = str(entry).rsplit("#", 1)[-1]
        out.append(
            Case(
                id=f"{folder}/{local}",
                name=str(graph.value(entry, mf.name)),
                query=_path(graph.value(action, qt.query)),
                data=tuple(_path(d) for d in graph.objects(action, qt.data)),
                graph_data=tuple(_path(d) for d in graph.objects(action, qt.graphData)),
                result=_path(result) if result is not None else None,
                approval=str(graph.value(entry, rdflib.URIRef(DAWGT + "approval")) or "").rsplit(
                    "#", 1
                )[-1],
                lax=graph.value(entry, mf.resultCardinality) == mf.LaxCardinality,
            )
        )
    return out


def pinned(path: Path) -> frozenset[str]:
    """The case ids listed in ``path``, one a line (``#`` starts a comment)."""
    lines = path.read_text(encoding="utf-8").splitlines()
    return frozenset(line.strip() for line in lines if line.strip() and line[0] != "#")


def _path(iri: Any) -> Path:
    from urllib.parse import unquote, urlparse

    return Path(unquote(urlparse(str(iri)).path))


def read_data(paths: tuple[Path, ...]) -> list[Triple]:
    """The triples of the test's default graph, as N-Triples strings."""
    import pyoxigraph

    triples: list[Triple] = []
    for path in paths:
        fmt = (
            pyoxigraph.RdfFormat.from_extension(path.suffix.lstrip("."))
            or pyoxigraph.RdfFormat.TURTLE
        )
        for t in pyoxigraph.parse(path=str(path), format=fmt, base_iri=path.as_uri()):
            triples.append((str(t.subject), str(t.predicate), str(t.object)))
    return triples


def read_result(path: Path) -> tuple[list[str], Bag] | bool:
    """Expected bindings as a bag (or the boolean of an ASK test)."""
    import rdflib
    from rdflib.query import Result

    saved = rdflib.NORMALIZE_LITERALS
    rdflib.NORMALIZE_LITERALS = False
    try:
        if path.suffix in (".ttl", ".rdf"):
            return _read_result_graph(path)
        fmt = {".srx": "xml", ".srj": "json", ".tsv": "tsv", ".csv": "csv"}[path.suffix]
        with path.open("rb") as f:
            result = Result.parse(f, format=fmt)
    finally:
        rdflib.NORMALIZE_LITERALS = saved
    if result.type == "ASK":
        return bool(result.askAnswer)
    names = [str(v) for v in result.vars or []]
    bag: Bag = Counter()
    for row in result.bindings:
        bag[_solution({str(k): _term(v) for k, v in row.items() if v is not None})] += 1
    return names, bag


def _read_result_graph(path: Path) -> tuple[list[str], Bag] | bool:
    import rdflib

    graph = rdflib.Graph().parse(
        path,
        format="turtle" if path.suffix == ".ttl" else "xml",
        publicID=path.as_uri(),
    )
    rs = rdflib.Namespace(RS)
    result_set = next(graph.subjects(rdflib.RDF.type, rs.ResultSet), None)
    if result_set is None:
        raise NotAResultSet(path)
    boolean = graph.value(result_set, rs.boolean)
    if boolean is not None:
        return bool(boolean.toPython())
    names = [str(v) for v in graph.objects(result_set, rs.resultVariable)]
    bag: Bag = Counter()
    for solution in graph.objects(result_set, rs.solution):
        binding = {}
        for b in graph.objects(solution, rs.binding):
            binding[str(graph.value(b, rs.variable))] = _term(graph.value(b, rs.value))
        bag[_solution(binding)] += 1
    return names, bag


class NotAResultSet(ValueError):
    """The expected result is an RDF graph (a CONSTRUCT or DESCRIBE test)."""


def _term(term: Any) -> str:
    from rdflib.term import BNode

    from pytest_rspbench.oracle.sparql.expressions import ntriples

    if isinstance(term, BNode):
        return f"_:{term}"
    return ntriples(term)


def _solution(binding: dict[str, str]) -> tuple[tuple[str, str], ...]:
    return tuple(sorted(binding.items()))


def bag_of(rows: list[dict[str, str]]) -> Bag:
    return Counter(_solution(r) for r in rows)


def comparable(bag: Bag) -> Bag:
    """Blank nodes as one placeholder, numbers by datatype and value.

    The W3C results print numbers in various lexical forms ("2.0" for a
    decimal 2); the differential tests check the oracle's exact lexical forms
    against the reference evaluator instead.
    """
    out: Bag = Counter()
    for solution, count in bag.items():
        out[tuple((k, _comparable_term(v)) for k, v in solution)] += count
    return out


def _comparable_term(term: str) -> str:
    from pytest_rspbench.rsp.terms import literal_parts, numeric_value

    if term.startswith("_:"):
        return "_:"
    number = numeric_value(term)
    if number is not None:
        parts = literal_parts(term)
        datatype = parts[1] if parts else ""
        family = (
            "integer"
            if datatype.rsplit("#", 1)[-1] not in ("decimal", "float", "double")
            else datatype
        )
        return f"#{family}:{float(number)!r}"
    return term
